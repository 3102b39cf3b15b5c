// TOML string text both ways (config/toml_text.h).
#include "config/toml_text.h"

#include <cctype>
#include <cstddef>

namespace geopipe::config {
namespace {

char byte(unsigned long v) { return static_cast<char>(static_cast<unsigned char>(v)); }

/// Appends code point `cp` (<= 0x10FFFF) as UTF-8. Surrogates are encoded like any other
/// three-byte code point.
void append_utf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out += byte(cp);
  } else if (cp < 0x800) {
    out += byte(0xC0 | (cp >> 6));
    out += byte(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += byte(0xE0 | (cp >> 12));
    out += byte(0x80 | ((cp >> 6) & 0x3F));
    out += byte(0x80 | (cp & 0x3F));
  } else {
    out += byte(0xF0 | (cp >> 18));
    out += byte(0x80 | ((cp >> 12) & 0x3F));
    out += byte(0x80 | ((cp >> 6) & 0x3F));
    out += byte(0x80 | (cp & 0x3F));
  }
}

/// Decodes the `digits` hex digits after the 'u' / 'U' at t[at] (they must all lie before the
/// closing quote, the last character of t). False if there are fewer or the value is not a
/// code point.
bool hex_code_point(const std::string& t, std::size_t at, std::size_t digits, unsigned long& cp) {
  cp = 0;
  std::size_t d = 0;
  for (; d < digits && at + 1 + d + 1 < t.size() && std::isxdigit(static_cast<unsigned char>(t[at + 1 + d])); ++d) {
    const char c = t[at + 1 + d];
    const int v = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    cp = cp * 16 + static_cast<unsigned long>(v);
  }
  return d == digits && cp <= 0x10FFFF;
}

/// The body of a "basic" string (t includes both quotes).
std::string unescape_basic(const std::string& t) {
  std::string out;
  for (std::size_t i = 1; i + 1 < t.size(); ++i) {
    char ch = t[i];
    if (ch == '\\' && i + 2 < t.size()) {  // not the backslash right before the closing quote
      const char nx = t[++i];
      switch (nx) {
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'n': ch = '\n'; break;
        case 't': ch = '\t'; break;
        case 'r': ch = '\r'; break;
        case '"': ch = '"'; break;
        case '\\': ch = '\\'; break;
        case 'u':
        case 'U': {
          const std::size_t digits = nx == 'u' ? 4 : 8;
          unsigned long cp = 0;
          if (!hex_code_point(t, i, digits, cp)) {  // kept verbatim: backslash, letter, digits
            out += '\\';
            ch = nx;
            break;
          }
          i += digits;
          append_utf8(out, cp);
          continue;
        }
        default:  // unknown escape: kept verbatim
          out += '\\';
          ch = nx;
          break;
      }
    }
    out += ch;
  }
  return out;
}

}  // namespace

std::string toml_quote(const std::string& s) {
  std::string q = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      q += '\\';
      q += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      q += "\\u00";
      q += hex[c >> 4];
      q += hex[c & 15];
    } else {
      q += static_cast<char>(c);
    }
  }
  return q + "\"";
}

std::string toml_unquote(const std::string& t) {
  if (t.size() >= 2 && t.front() == '\'' && t.back() == '\'') return t.substr(1, t.size() - 2);
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') return unescape_basic(t);
  return t;
}

}  // namespace geopipe::config
