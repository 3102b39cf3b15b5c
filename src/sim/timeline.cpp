#include "sim/timeline.h"

#include <algorithm>
#include <stdexcept>

namespace geopipe {
namespace {

/// Appends sample `s` to `v` unless the counter's last sample (index `last`) has the same
/// value; a change at the time of the last sample replaces its value, so a counter has at most
/// one sample per time.
template <class Sample, class Value>
void put(std::vector<Sample>& v, long& last, const Sample& s, Value Sample::*value) {
  if (last >= 0) {
    Sample& prev = v[static_cast<std::size_t>(last)];
    if (prev.*value == s.*value) return;
    if (prev.t_s == s.t_s) {
      prev.*value = s.*value;
      return;
    }
  }
  last = static_cast<long>(v.size());
  v.push_back(s);
}

}  // namespace

TimelineRecorder::TimelineRecorder(const Topology& topo, std::size_t jobs) : topo_(topo) {
  const auto R = static_cast<std::size_t>(topo.num_regions());
  tl_.lanes.assign(R, 0);
  lane_busy_.resize(R);
  first_slice_.assign(jobs, -1);
  last_link_.assign(R * R, -1);
  last_busy_.assign(R, -1);
  for (int r = 0; r < topo.num_regions(); ++r) put(tl_.busy, last_busy_[static_cast<std::size_t>(r)], {0.0, r, 0}, &TimelineBusySample::busy_gpus);
  for (int a = 0; a < topo.num_regions(); ++a)
    for (int b = 0; b < topo.num_regions(); ++b)
      if (a != b && topo.link(a, b).capacity_bytes_per_s > 0) {
        last_link_[static_cast<std::size_t>(a) * R + static_cast<std::size_t>(b)] = static_cast<long>(tl_.links.size());
        tl_.links.push_back({0.0, a, b, 0.0});
      }
  put(tl_.queue, last_queue_, {0.0, 0}, &TimelineQueueSample::waiting);
}

void TimelineRecorder::job_started(double t, int job, std::span<const int> stage_region) {
  auto& first = first_slice_.at(static_cast<std::size_t>(job));
  // A job starts again only after a failure closed its slices.
  if (first >= 0 && !tl_.slices[static_cast<std::size_t>(first)].failed)
    throw std::logic_error("timeline: job started twice");
  first = static_cast<int>(tl_.slices.size());
  for (std::size_t i = 0; i < stage_region.size(); ++i) {
    const int reg = stage_region[i];
    // One slice per distinct region, in pipeline order; later stages there add to it.
    auto begin = tl_.slices.begin() + first;
    auto it = std::find_if(begin, tl_.slices.end(), [&](const TimelineSlice& s) { return s.region == reg; });
    if (it != tl_.slices.end()) {
      ++it->stages;
      continue;
    }
    auto& lanes = lane_busy_[static_cast<std::size_t>(reg)];
    const auto free = std::find(lanes.begin(), lanes.end(), char{0});
    const auto lane = static_cast<std::size_t>(free - lanes.begin());
    if (free == lanes.end()) lanes.push_back(1);
    else *free = 1;
    int& used = tl_.lanes[static_cast<std::size_t>(reg)];
    used = std::max(used, static_cast<int>(lane) + 1);
    tl_.slices.push_back({job, reg, static_cast<int>(lane), 1, t, -1.0});
  }
}

void TimelineRecorder::job_finished(double t, int job) {
  const int first = first_slice_.at(static_cast<std::size_t>(job));
  if (first < 0) throw std::logic_error("timeline: a job finished that never started");
  for (auto k = static_cast<std::size_t>(first); k < tl_.slices.size() && tl_.slices[k].job == job; ++k) {
    TimelineSlice& s = tl_.slices[k];
    s.finish_s = t;
    lane_busy_[static_cast<std::size_t>(s.region)][static_cast<std::size_t>(s.lane)] = 0;
  }
}

void TimelineRecorder::job_failed(double t, int job, bool failed) {
  job_finished(t, job);
  const int first = first_slice_[static_cast<std::size_t>(job)];
  for (auto k = static_cast<std::size_t>(first); k < tl_.slices.size() && tl_.slices[k].job == job; ++k)
    tl_.slices[k].failed = true;
  job_mark(t, job, failed ? TimelineMark::Kind::kFailure : TimelineMark::Kind::kEviction);
}

void TimelineRecorder::job_mark(double t, int job, TimelineMark::Kind kind, double duration_s) {
  tl_.marks.push_back({t, job, kind, duration_s});
}

void TimelineRecorder::sample(double t, std::span<const int> free_gpus, std::span<const double> capacity, std::span<const double> residual,
                              std::size_t waiting) {
  const int R = topo_.num_regions();
  const auto Rs = static_cast<std::size_t>(R);
  for (int r = 0; r < R; ++r) {
    const auto ri = static_cast<std::size_t>(r);
    put(tl_.busy, last_busy_[ri], {t, r, topo_.regions[ri].gpu_count - free_gpus[ri]}, &TimelineBusySample::busy_gpus);
  }
  for (int a = 0; a < R; ++a)
    for (int b = 0; b < R; ++b) {
      const std::size_t l = static_cast<std::size_t>(a) * Rs + static_cast<std::size_t>(b);
      if (last_link_[l] < 0) continue;  // the diagonal and directions without capacity
      // residual = max(0, capacity − Σ allocations) <= capacity (the capacity now: a link's
      // series moves it), so this is in [0, capacity].
      const double allocated = capacity[l] - residual[l];
      put(tl_.links, last_link_[l], {t, a, b, allocated}, &TimelineLinkSample::allocated_bytes_per_s);
    }
  put(tl_.queue, last_queue_, {t, static_cast<int>(waiting)}, &TimelineQueueSample::waiting);
}

Timeline TimelineRecorder::finish(double t_end) {
  tl_.end_s = t_end;
  std::size_t examined = 0;
  for (int r = 0; r < topo_.num_regions(); ++r) {
    const PriceProfile& price = topo_.regions[static_cast<std::size_t>(r)].price;
    long last = -1;
    put(tl_.prices, last, {0.0, r, price.usd_per_kwh_at(0.0)}, &TimelinePriceSample::usd_per_kwh);
    for (double t = price.next_change_after(0.0); t <= t_end; t = price.next_change_after(t)) {
      if (++examined > Timeline::kMaxPriceBoundaries) {
        tl_.prices_truncated = true;
        break;
      }
      put(tl_.prices, last, {t, r, price.usd_per_kwh_at(t)}, &TimelinePriceSample::usd_per_kwh);
    }
  }
  // Time order across regions (each region's samples already are; ties by region).
  std::stable_sort(tl_.prices.begin(), tl_.prices.end(),
                   [](const TimelinePriceSample& x, const TimelinePriceSample& y) { return x.t_s < y.t_s; });
  Timeline out = std::move(tl_);
  tl_ = Timeline{};
  return out;
}

}  // namespace geopipe
