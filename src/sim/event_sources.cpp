// The engine's event sources (sim/engine_impl.h, EventSource) and the order in which it asks
// them (Engine::make_sources).
#include <memory>

#include "sim/engine_impl.h"

namespace geopipe::engine_detail {

// Completions in (time, job id) order; a completion frees GPUs and links (a new epoch).
class CompletionSource final : public EventSource {
 public:
  using EventSource::EventSource;
  double next_s() override {
    while (!e_.heap_.empty() && !e_.valid(e_.heap_.top())) e_.heap_.pop();
    return e_.heap_.empty() ? kInf : e_.heap_.top().t;
  }
  Fired fire(double t) override {
    bool released = false;
    while (!e_.heap_.empty()) {
      if (!e_.valid(e_.heap_.top())) {
        e_.heap_.pop();
        continue;
      }
      if (e_.heap_.top().t > t) break;
      const int j = e_.heap_.top().job;
      e_.heap_.pop();
      if (e_.running(j).restoring) {  // the end of its restore: it trains from now
        e_.restore_ends(j, t);
        continue;
      }
      e_.finish(j, t);
      released = true;
    }
    return {released, released};
  }
  std::string what() const override { return "were job completions"; }
  std::string fewer() const override { return "fewer jobs"; }
};

// Arrivals in job id order (the trace is sorted by arrival).
class ArrivalSource final : public EventSource {
 public:
  using EventSource::EventSource;
  double next_s() override {
    return e_.next_arrival_ < e_.jobs_.size() ? e_.jobs_[e_.next_arrival_].arrival_s : kInf;
  }
  Fired fire(double t) override {
    bool arrived = false;
    while (e_.next_arrival_ < e_.jobs_.size() && e_.jobs_[e_.next_arrival_].arrival_s <= t) {
      e_.acquire_profile(static_cast<int>(e_.next_arrival_));
      e_.queue_.push_back(static_cast<int>(e_.next_arrival_++));
      arrived = true;
    }
    return {arrived, false};
  }
  std::string what() const override { return "were job arrivals"; }
  std::string fewer() const override { return "fewer jobs"; }
};

// Boundaries of non-flat price profiles (hours, or a series' steps): events only while jobs
// wait or will arrive, since they change decisions, not progress (cost integrates exactly).
class PriceSource final : public EventSource {
 public:
  explicit PriceSource(Engine& e) : EventSource(e), next_(e.next_price_change(0.0)) {}
  double next_s() override {
    const bool waiting_matters = !e_.queue_.empty() || e_.next_arrival_ < e_.jobs_.size();
    return waiting_matters ? next_ : kInf;
  }
  Fired fire(double t) override {
    if (t < next_) return {};
    next_ = e_.next_price_change(t);
    return {true, false};
  }
  std::string what() const override {
    return "were price steps (hour boundaries of a price profile, or a price series' steps) while jobs waited";
  }
  std::string fewer() const override {
    return "a flat price or a coarser price series, or jobs that wait less (shorter or fewer jobs, more GPUs)";
  }

 private:
  double next_;
};

/// Several step series walked forward together, their steps in (time, index) order: what the
/// capacity sources share. add() them in index order; advance(t) gives each series with a step
/// in (last advance, t] its value at t (StepSeries::Cursor: no search).
class SeriesSteps {
 public:
  void add(const StepSeries& s, int id) {
    const int k = static_cast<int>(cursors_.size());
    cursors_.emplace_back(s);
    ids_.push_back(id);
    const double nx = cursors_.back().next_change_s();
    if (nx < kInf) due_.push({nx, k});
  }
  bool empty() const { return due_.empty(); }
  double next_s() const { return due_.empty() ? kInf : due_.top().t; }
  /// on_value(id, value at t) for every series with a step due by t.
  template <class F>
  void advance(double t, F&& on_value) {
    while (!due_.empty() && due_.top().t <= t) {
      const int k = due_.top().series;
      due_.pop();
      StepSeries::Cursor& c = cursors_[static_cast<size_t>(k)];
      c.advance_to(t);
      on_value(ids_[static_cast<size_t>(k)], c.value());
      const double nx = c.next_change_s();
      if (nx < kInf) due_.push({nx, k});
    }
  }

 private:
  struct Due {
    double t;
    int series;  ///< index into cursors_ (ties: the order added)
    bool operator>(const Due& o) const { return t > o.t || (t == o.t && series > o.series); }
  };
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::vector<StepSeries::Cursor> cursors_;
  std::vector<int> ids_;  ///< what each series is (a link direction, a region)
};

// Steps of link capacity series (model/topology.h Link::capacity_series): each re-shares its
// link and starts a new epoch: after a rise a placement that failed may fit, after a fall a
// policy's relaxations may allow what they did not (ClusterView::capacity_version).
// Steps matter while a job runs, waits or will arrive; past the last job nothing needs them
// (a wrapped series has steps for ever), and fire() catches up with the value at t.
class LinkCapacitySource final : public EventSource {
 public:
  explicit LinkCapacitySource(Engine& e) : EventSource(e) {
    const int R = e.topo_.num_regions();
    for (int a = 0; a < R; ++a)
      for (int b = 0; b < R; ++b)
        if (a != b)
          if (const StepSeries* s = e.topo_.link(a, b).capacity_series.get()) steps_.add(*s, a * R + b);
  }
  double next_s() override { return e_.jobs_pending() ? steps_.next_s() : kInf; }
  Fired fire(double t) override {
    Fired f;
    const int R = e_.topo_.num_regions();
    steps_.advance(t, [&](int link, double next) {
      const int a = link / R, b = link % R;
      if (next == e_.net_.capacity(a, b)) return;
      e_.net_.set_capacity(a, b, next);
      f.call = true;
      f.epoch = true;
      ++e_.capacity_version_;
    });
    return f;
  }
  bool may_unblock_later() const override { return !steps_.empty(); }
  std::string what() const override { return "were steps of link capacity series (bandwidth_trace)"; }
  std::string fewer() const override {
    return "a coarser bandwidth series (fewer steps), or jobs that finish sooner (shorter or fewer jobs, faster "
           "links)";
  }

 private:
  SeriesSteps steps_;  ///< one per direction with a series, in link index order a * R + b
};

// Steps of spot availability series (Region::gpus_series, docs/model.md, "Failures and
// checkpoints"): a rise gives GPUs (a new epoch, the scheduler is called), a fall below what
// jobs hold there evicts some of them (Engine::gpus_change). Steps matter as a link's do.
class GpuCapacitySource final : public EventSource {
 public:
  explicit GpuCapacitySource(Engine& e) : EventSource(e) {
    for (int r = 0; r < e.topo_.num_regions(); ++r)
      if (const StepSeries* s = e.topo_.regions[static_cast<size_t>(r)].gpus_series.get()) steps_.add(*s, r);
  }
  double next_s() override { return e_.jobs_pending() ? steps_.next_s() : kInf; }
  Fired fire(double t) override {
    Fired f;
    steps_.advance(t, [&](int reg, double value) {
      const int gpus = static_cast<int>(value);
      if (gpus != e_.avail_[static_cast<size_t>(reg)] && e_.gpus_change(reg, gpus, t)) f.call = f.epoch = true;
    });
    return f;
  }
  bool may_unblock_later() const override { return !steps_.empty(); }
  std::string what() const override { return "were steps of spot availability series (gpus_series)"; }
  std::string fewer() const override {
    return "a coarser gpus_series (fewer steps), or jobs that finish sooner (shorter or fewer jobs, more GPUs)";
  }

 private:
  SeriesSteps steps_;  ///< one per region with a series, in region order
};

// The scheduler's bandwidth monitor (sim/bandwidth_monitor.h): its ticks are events only while
// jobs wait (otherwise no decision needs them, and before() takes the latest one lazily); it
// observes the links after they were re-shared.
//
// A stale monitor without noise whose view equals the truth skips its ticks until the link
// state changes (SimOptions::skip_quiet_monitor_ticks): each would measure the same truth and
// change nothing, and the next event's before() takes the latest of them lazily.
class MonitorSource final : public EventSource {
 public:
  using EventSource::EventSource;
  Phase phase() const override { return Phase::kObserve; }
  double next_s() override {
    if (e_.queue_.empty()) return kInf;
    if (e_.opt_.skip_quiet_monitor_ticks && !e_.monitor_.may_change(e_.net_.residuals())) return kInf;
    return e_.monitor_.next_tick_s();
  }
  void before(double t) override {
    if (e_.monitor_.catch_up(t, e_.net_.residuals())) ++e_.epoch_;
  }
  Fired fire(double t) override {
    const BandwidthMonitor::Tick tick = e_.monitor_.tick(t, e_.net_.residuals());
    return {tick.call, tick.view_changed};
  }
  std::string what() const override {
    const SchedulerParams& p = e_.sc_.scheduler;
    const bool stale = p.view_staleness_s > 0;
    return std::string("were ticks of the scheduler's bandwidth monitor while jobs waited (every ") +
           format_seconds(stale ? p.view_staleness_s : p.view_refresh_s) + ", scheduler." +
           (stale ? "view_staleness_s" : "view_refresh_s") + ")";
  }
  std::string fewer() const override {
    return std::string("a longer scheduler.") +
           (e_.sc_.scheduler.view_staleness_s > 0 ? "view_staleness_s" : "view_refresh_s") +
           ", or jobs that wait less (shorter or fewer jobs, more GPUs)";
  }
};

// Failures, checkpoints and restarts (docs/model.md, "Failures and checkpoints"), in (time,
// job id, kind) order: a failure frees GPUs (a new epoch, the scheduler is called), a restart
// puts the job back in the queue (the scheduler is called).
class FaultSource final : public EventSource {
 public:
  using EventSource::EventSource;
  double next_s() override {
    while (!e_.faults_.empty() && !e_.fault_valid(e_.faults_.top())) e_.faults_.pop();
    return e_.faults_.empty() ? kInf : e_.faults_.top().t;
  }
  Fired fire(double t) override {
    Fired f;
    while (!e_.faults_.empty()) {
      const Engine::FaultEvent ev = e_.faults_.top();
      if (!e_.fault_valid(ev)) {
        e_.faults_.pop();
        continue;
      }
      if (ev.t > t) break;
      e_.faults_.pop();
      switch (ev.kind) {
        case Engine::FaultKind::kFailure:
          e_.job_stops(ev.job, t, /*failed=*/true);
          f.call = f.epoch = true;
          break;
        case Engine::FaultKind::kEvicted:
          e_.job_stops(ev.job, t, /*failed=*/false);
          f.call = f.epoch = true;
          break;
        case Engine::FaultKind::kPreemptNotice: e_.preempt_notice(ev.job, t, e_.sc_.faults.preemption_notice_s); break;
        case Engine::FaultKind::kCheckpointStart: e_.checkpoint_starts(ev.job, t); break;
        case Engine::FaultKind::kCheckpointEnd:
          // The end of a checkpoint under a preemption notice releases the job's GPUs.
          if (e_.running(ev.job).evicting) f.call = f.epoch = true;
          e_.checkpoint_ends(ev.job, t);
          break;
        case Engine::FaultKind::kMigrate:  // stalled too long: checkpoint where it is, then leave
          e_.preempt_notice(ev.job, t, kInf);
          break;
        case Engine::FaultKind::kRestart:
          e_.job_restarts(ev.job, t);
          f.call = true;
          break;
      }
    }
    return f;
  }
  bool may_unblock_later() const override { return e_.restarting_ > 0; }
  std::string what() const override { return "were failures, checkpoints and restarts of jobs"; }
  std::string fewer() const override {
    return "a longer faults.gpu_mtbf_h or faults.checkpoint_interval_s, or jobs that finish sooner";
  }
};

// A preempting or deferring scheduler's own times (Scheduler::next_call_s: Tiresias's demotion
// thresholds, wait-awhile's release times), while jobs wait.
class WakeSource final : public EventSource {
 public:
  using EventSource::EventSource;
  double next_s() override {
    if (e_.queue_.empty()) return kInf;
    const double t = e_.sched_.next_call_s();
    return t > last_call_s_ ? t : kInf;  // a time not after the last call is ignored (scheduler_api.h)
  }
  Fired fire(double t) override {
    if (!(e_.sched_.next_call_s() <= t) || e_.queue_.empty()) return {};
    last_call_s_ = t;
    return {true, false};
  }
  // A deferring scheduler (Scheduler::defers) that holds jobs on an idle cluster releases them at
  // its next time: no failure before then.
  bool may_unblock_later() const override {
    if (!e_.sched_.defers()) return false;
    const double t = e_.sched_.next_call_s();
    return t < kInf && t > last_call_s_;
  }
  std::string what() const override { return "were times the scheduler asked to be called at (its thresholds)"; }
  std::string fewer() const override { return "fewer or wider scheduler thresholds, or jobs that wait less"; }

 private:
  double last_call_s_ = -kInf;
};

void Engine::make_sources() {
  sources_.push_back(std::make_unique<CompletionSource>(*this));
  if (faults_on_) sources_.push_back(std::make_unique<FaultSource>(*this));
  sources_.push_back(std::make_unique<ArrivalSource>(*this));
  if (has_profiles_ && opt_.price_events) sources_.push_back(std::make_unique<PriceSource>(*this));
  for (const Link& l : topo_.links) has_link_series_ |= l.capacity_series != nullptr;
  if (has_link_series_) sources_.push_back(std::make_unique<LinkCapacitySource>(*this));
  if (has_gpu_series_) sources_.push_back(std::make_unique<GpuCapacitySource>(*this));
  sources_.push_back(std::make_unique<MonitorSource>(*this));
  if (preempting_ || sched_.defers()) sources_.push_back(std::make_unique<WakeSource>(*this));
}

}  // namespace geopipe::engine_detail
