// Messages are one line: an error on stderr is "geopipe: error: ..." on exactly one line, so
// that logs stay greppable and a hostile name cannot forge further lines.
#pragma once

#include <string>
#include <string_view>

namespace geopipe::util {

/// `s` with every control character (bytes 0x00-0x1f and 0x7f) written as an escape: \n, \r,
/// \t, or \xNN. Everything else (UTF-8 included) is kept as is.
inline std::string one_line(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

}  // namespace geopipe::util
