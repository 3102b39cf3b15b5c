// Printable one-line messages (util/input_error.h).
#include "util/input_error.h"

namespace geopipe::util {
namespace {

const char* const kHex = "0123456789abcdef";

void hex_byte(std::string& out, unsigned char c) {
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

void code_point(std::string& out, unsigned cp) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 15];
}

}  // namespace

std::size_t utf8_length(std::string_view s, std::size_t i, unsigned& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3Fu);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    unsigned cp = 0;
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s, i, cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

namespace {

}  // namespace

std::string printable_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      switch (c) {
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\0': out += "\\0"; break;
        default: hex_byte(out, c);
      }
      ++i;
      continue;
    }
    unsigned cp = 0;
    const std::size_t n = utf8_length(s, i, cp);
    if (n == 0) {
      hex_byte(out, c);
      ++i;
    } else if ((cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029) {
      code_point(out, cp);
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string shortened_text(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  const auto boundary = [&](std::size_t at) {  // back to the start of a UTF-8 character
    while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
    return at;
  };
  const std::size_t tail_len = max_bytes / 4;
  const std::size_t head = boundary(max_bytes - tail_len - 64);
  const std::size_t tail = boundary(s.size() - tail_len);
  return std::string(s.substr(0, head)) + " ... (" + std::to_string(tail - head) + " bytes omitted) ... " +
         std::string(s.substr(tail));
}

}  // namespace geopipe::util
