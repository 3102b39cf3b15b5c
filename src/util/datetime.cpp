#include "util/datetime.h"

#include <cmath>
#include <cstdio>

namespace geopipe::util {
namespace {

bool digits(std::string_view s, std::size_t at, std::size_t n, int& out) {
  if (at + n > s.size()) return false;
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

const char* const kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                               "July",    "August",   "September", "October", "November", "December"};

}  // namespace

long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

DatetimeParse parse_datetime(std::string_view s) {
  DatetimeParse r;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (!digits(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' || !digits(s, 8, 2, d)) {
    r.why = "not a datetime";
    return r;
  }
  std::size_t i = 10;
  double frac = 0;
  if (i < s.size() && (s[i] == 'T' || s[i] == ' ')) {
    if (!digits(s, i + 1, 2, h) || i + 3 >= s.size() || s[i + 3] != ':' || !digits(s, i + 4, 2, mi)) {
      r.why = "not a datetime";
      return r;
    }
    i += 6;
    if (i < s.size() && s[i] == ':') {
      if (!digits(s, i + 1, 2, se)) {
        r.why = "not a datetime";
        return r;
      }
      i += 3;
      if (i < s.size() && s[i] == '.') {
        ++i;
        const std::size_t start = i;
        double scale = 0.1;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
          frac += (s[i] - '0') * scale;
          scale /= 10;
          ++i;
        }
        if (i == start) {
          r.why = "not a datetime";
          return r;
        }
      }
    }
  }
  int zone_min = 0;
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    const int sign = s[i] == '-' ? -1 : 1;
    int zh = 0, zm = 0;
    if (!digits(s, i + 1, 2, zh)) {
      r.why = "not a datetime";
      return r;
    }
    std::size_t j = i + 3;
    if (j < s.size() && s[j] == ':') ++j;
    if (!digits(s, j, 2, zm)) {
      r.why = "not a datetime";
      return r;
    }
    if (zh > 23 || zm > 59) {
      r.why = "zone offset out of range";
      return r;
    }
    zone_min = sign * (zh * 60 + zm);
    i = j + 2;
  }
  if (i != s.size()) {
    r.why = "not a datetime";
    return r;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1) r.why = "year 0000";
  else if (mo < 1 || mo > 12) r.why = "month " + std::to_string(mo);
  else if (d < 1 || d > kDays[mo - 1] + (mo == 2 && leap(y)))
    r.why = std::string(kMonths[mo - 1]) + " " + std::to_string(d) + " (" + std::to_string(y) + ")";
  else if (h > 23) r.why = "hour " + std::to_string(h);
  else if (mi > 59) r.why = "minute " + std::to_string(mi);
  else if (se > 59) r.why = "second " + std::to_string(se) + " (leap seconds are not supported)";
  if (!r.why.empty()) return r;
  const long long days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const long long whole = days * 86400 + h * 3600 + mi * 60 + se - zone_min * 60LL;
  r.epoch_s = static_cast<double>(whole) + frac;
  return r;
}

std::string format_utc(double epoch_s) {
  const auto t = static_cast<long long>(std::floor(epoch_s));
  long long z = (t >= 0 ? t : t - 86399) / 86400;
  const long long sod = t - z * 86400;
  // H. Hinnant's civil_from_days.
  z += 719468;
  const long long era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long long y = static_cast<long long>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02dZ", y, m, d, static_cast<int>(sod / 3600),
                static_cast<int>(sod / 60 % 60), static_cast<int>(sod % 60));
  return buf;
}

}  // namespace geopipe::util
