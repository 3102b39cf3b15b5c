#include "sched/wait_awhile.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sched/estimate.h"
#include "sched/ordering.h"
#include "sched/placement_policy.h"
#include "sched/scheduler.h"

namespace geopipe {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Earliest time > t at which region r's signal may change (+inf: never).
double next_change(const Region& r, WaitAwhileSignal signal, double t_s) {
  if (signal == WaitAwhileSignal::kPrice) return r.price.next_change_after(t_s);
  return r.carbon_series ? r.carbon_series->next_change_after(t_s) : kInf;
}

}  // namespace

double wait_awhile_signal_mean(const Region& r, WaitAwhileSignal signal, double t0_s, double t1_s) {
  return signal == WaitAwhileSignal::kPrice ? r.price.mean_usd_per_kwh(t0_s, t1_s) : r.mean_carbon_g_per_kwh(t0_s, t1_s);
}

WaitAwhileChoice wait_awhile_choice(const Topology& topo, const std::vector<int>& stage_region,
                                    WaitAwhileSignal signal, double min_saving, double now_s, double deadline_s,
                                    double duration_s) {
  WaitAwhileChoice c;
  c.start_s = now_s;
  // The regions and the stages (GPUs, g each) in each, in increasing region order.
  std::vector<std::pair<int, int>> regs;
  for (int r : stage_region) {
    auto it = std::find_if(regs.begin(), regs.end(), [r](const auto& e) { return e.first == r; });
    if (it == regs.end())
      regs.emplace_back(r, 1);
    else
      ++it->second;
  }
  std::sort(regs.begin(), regs.end());
  const double stages = static_cast<double>(stage_region.size());
  auto mean_from = [&](double t) {
    double m = 0;
    for (const auto& [r, n] : regs)
      m += n * wait_awhile_signal_mean(topo.regions[static_cast<size_t>(r)], signal, t, t + duration_s);
    return m / stages;
  };
  if (regs.empty() || !std::isfinite(duration_s)) return c;
  c.mean_now = c.mean_best = mean_from(now_s);
  double t = now_s;
  while (c.candidates < kWaitAwhileMaxCandidates) {
    double next = kInf;
    for (const auto& e : regs) next = std::min(next, next_change(topo.regions[static_cast<size_t>(e.first)], signal, t));
    if (!(next <= deadline_s)) break;
    t = next;
    ++c.candidates;
    const double m = mean_from(t);
    if (m < c.mean_best) {  // strictly: ties keep the earliest time
      c.mean_best = m;
      c.start_s = t;
    }
  }
  if (c.start_s > now_s && c.mean_now > 0) {
    const double saving = 1.0 - c.mean_best / c.mean_now;
    c.hold = saving >= min_saving && saving > 1e-9;
  }
  if (!c.hold) {
    c.start_s = now_s;
    c.mean_best = c.mean_now;
  }
  return c;
}

namespace {

/// The hold of wait-awhile as a StartGate of bace-pipe's ComposedScheduler.
class WaitAwhileGate final : public StartGate {
 public:
  explicit WaitAwhileGate(const SchedulerParams& p) : signal_(p.wait_awhile_signal), min_saving_(p.wait_awhile_min_saving) {}
  bool hold(const SchedContext& ctx, int j, const JobProfile& p, const Placement& pl, const ClusterView& view) override {
    const Job& job = ctx.job(j);
    if (!(job.slack_s > 0)) return false;
    const double now = view.now_s;
    const double deadline = job.arrival_s + job.slack_s;
    if (!(now < deadline)) return false;
    const double iter_s = p.data_parallel > 1 ? estimate_gang_iteration_s(p, pl, view, BandwidthModel::kExpected)
                                              : estimate_iteration_s(p, pl, view, BandwidthModel::kExpected);
    const double duration_s = static_cast<double>(p.iterations) * iter_s;
    const WaitAwhileChoice c =
        wait_awhile_choice(*view.topo, pl.stage_region, signal_, min_saving_, now, deadline, duration_s);
    if (c.hold) release_s_ = std::min(release_s_, c.start_s);
    return c.hold;
  }
  void reset() { release_s_ = kInf; }
  double release_s() const { return release_s_; }

 private:
  WaitAwhileSignal signal_;
  double min_saving_;
  double release_s_ = kInf;  ///< earliest release time of the jobs held in the last call
};

class WaitAwhileScheduler final : public Scheduler {
 public:
  WaitAwhileScheduler(std::string name, const SchedulerParams& p)
      : gate_(p), inner_(std::move(name), make_priority_backfill(p), make_pathfinder_costmin(p)) {
    inner_.set_gate(&gate_);
  }
  std::string_view name() const override { return inner_.name(); }
  void schedule(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view,
                std::vector<Decision>& out) override {
    gate_.reset();
    inner_.schedule(ctx, queue, view, out);
  }
  SearchEffort effort() const override { return inner_.effort(); }
  double next_call_s() const override { return gate_.release_s(); }
  bool defers() const override { return true; }

 private:
  WaitAwhileGate gate_;
  ComposedScheduler inner_;
};

}  // namespace

std::unique_ptr<Scheduler> make_wait_awhile_scheduler(std::string name, const SchedulerParams& p) {
  return std::make_unique<WaitAwhileScheduler>(std::move(name), p);
}

}  // namespace geopipe
