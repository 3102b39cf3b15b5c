#include "run/progress.h"

#include "util/system.h"

#include <unistd.h>

#include <cmath>

namespace geopipe::sweep {

Progress::Progress(std::uint64_t total, std::uint64_t already, bool quiet, double line_interval_s, std::FILE* out)
    : total_(total), already_(already), quiet_(quiet), tty_(isatty(fileno(out)) != 0),
      interval_s_(line_interval_s), out_(out), start_(std::chrono::steady_clock::now()), last_print_(start_) {}

std::string Progress::format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--";
  const auto t = static_cast<long long>(s + 0.5);
  char buf[32];
  if (t >= 86400)
    std::snprintf(buf, sizeof buf, "%lldd%02lldh", t / 86400, t % 86400 / 3600);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, t % 3600 / 60, t % 60);
  return buf;
}

std::string Progress::line(std::uint64_t done, std::uint64_t failed, double elapsed) const {
  const std::uint64_t all = done + already_;
  const std::uint64_t grand = total_ + already_;
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total_ - std::min(done, total_)) / rate : NAN;
  const double pct = grand ? 100.0 * static_cast<double>(all) / static_cast<double>(grand) : 100.0;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%llu/%llu (%.1f%%)  %.1f scenarios/s  elapsed %s  ETA %s  failed %llu",
                static_cast<unsigned long long>(all), static_cast<unsigned long long>(grand), pct, rate,
                format_duration(elapsed).c_str(), format_duration(eta).c_str(), static_cast<unsigned long long>(failed));
  std::string s = buf;
  if (tty_) {
    constexpr int kWidth = 24;
    const int filled = grand ? static_cast<int>(kWidth * static_cast<double>(all) / static_cast<double>(grand)) : kWidth;
    s = "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(kWidth - filled), '.') + "] " + s;
  }
  return s;
}

void Progress::update(std::uint64_t done, std::uint64_t failed) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_print_).count();
  if (since < (tty_ ? 0.2 : interval_s_)) return;
  last_print_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (tty_)
    std::fprintf(out_, "\r%s\x1b[K", line(done, failed, elapsed).c_str());
  else
    std::fprintf(out_, "%s progress: %s\n", util::utc_now_iso8601().c_str(), line(done, failed, elapsed).c_str());
  std::fflush(out_);
  printed_any_ = true;
}

void Progress::finish(std::uint64_t done, std::uint64_t failed, const std::string& note) {
  if (quiet_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (tty_ && printed_any_) std::fprintf(out_, "\r\x1b[K");
  // A log (not a terminal) gets an ISO 8601 UTC time on every line: Slurm output files have none.
  std::fprintf(out_, "%s%s: %s%s%s\n", tty_ ? "" : (util::utc_now_iso8601() + " ").c_str(), tty_ ? "done" : "progress",
               line(done, failed, elapsed).c_str(), note.empty() ? "" : "  ", note.c_str());
  std::fflush(out_);
}

}  // namespace geopipe::sweep
