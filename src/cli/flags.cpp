#include "cli/flags.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "util/input_error.h"

namespace geopipe::cli {
namespace {

[[noreturn]] void reject(std::string_view flag, const std::string& text, const std::string& expected) {
  throw InputError(std::string(flag), 0, 0, "'" + text + "' is not valid (expected " + expected + ")");
}

std::string range_text(std::uint64_t lo, std::uint64_t hi) {
  return "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
}

bool parse_digits(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;  // overflow
    v = v * 10 + d;
  }
  out = v;
  return true;
}

}  // namespace

std::uint64_t parse_unsigned_flag(std::string_view flag, const std::string& text, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t v = 0;
  if (!parse_digits(text, v) || v < lo || v > hi) reject(flag, text, range_text(lo, hi));
  return v;
}

double parse_seconds_flag(std::string_view flag, const std::string& text, double max_s) {
  const std::string expected = "a number of seconds > 0 and <= " + std::to_string(static_cast<long long>(max_s));
  if (text.empty() || text.size() > 64) reject(flag, text, expected);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v) || !(v > 0) || v > max_s)
    reject(flag, text, expected);
  return v;
}

void parse_shard_flag(const std::string& text, std::uint64_t& k, std::uint64_t& n) {
  const auto slash = text.find('/');
  const std::string expected = "K/N with 0 <= K < N, e.g. 0/4";
  if (slash == std::string::npos || !parse_digits(std::string_view(text).substr(0, slash), k) ||
      !parse_digits(std::string_view(text).substr(slash + 1), n) || n == 0 || k >= n)
    reject("--shard", text, expected);
}

const std::string& nonempty_flag(std::string_view flag, const std::string& text, std::string_view expected) {
  if (text.empty()) throw InputError(std::string(flag), 0, 0, "empty value (expected " + std::string(expected) + ")");
  return text;
}

void reject_empty_values(const CLI::App& cmd) {
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() == 0 || o->get_type_size() == 0) continue;  // not given, or a flag without a value
    for (const std::string& v : o->results())
      if (v.empty()) {
        const std::string name = o->get_lnames().empty() ? o->get_name() : "--" + o->get_lnames().front();
        // "The scheduler analysed (default: the file's first)" -> "the scheduler analysed"
        std::string desc = o->get_description();
        if (const auto cut = desc.find(" (default"); cut != std::string::npos) desc.erase(cut);
        if (!desc.empty() && desc[0] >= 'A' && desc[0] <= 'Z' && !(desc.size() > 1 && desc[1] >= 'A' && desc[1] <= 'Z'))
          desc[0] = static_cast<char>(desc[0] - 'A' + 'a');
        throw InputError(name, 0, 0, "an empty value, which is never taken as the default (expected " +
                                         (desc.empty() ? std::string("a value") : desc) + ")");
      }
  }
}

}  // namespace geopipe::cli
