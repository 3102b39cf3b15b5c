// Printable one-line messages and the helpers messages are written with (util/input_error.h).
#include "util/input_error.h"

#include <algorithm>
#include <charconv>
#include <cmath>

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

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

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

// ---- writing messages ----

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: skip what cannot be close (and keeps a
    // megabyte-long key from costing its length times every candidate's).
    const std::size_t diff = word.size() > c.size() ? word.size() - c.size() : c.size() - word.size();
    if (diff >= best_d) continue;
    const std::size_t d = edit_distance(word, c);
    if (c == word) continue;  // the word itself is no suggestion (a case variant is)
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string suggestion_suffix(std::string_view word, const std::vector<std::string>& candidates) {
  if (auto s = did_you_mean(word, candidates)) return " (did you mean '" + *s + "'?)";
  return "";
}

std::string quoted_list(const std::vector<std::string>& items, std::size_t max_items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i == max_items) {
      out += ", ...";
      break;
    }
    if (i) out += ", ";
    out += "'" + items[i] + "'";
  }
  return out;
}

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) return std::to_string(v);
  return std::string(buf, p);
}

}  // namespace geopipe::util
