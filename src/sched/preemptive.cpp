#include "sched/preemptive.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "sched/estimate.h"
#include "sched/ordering.h"
#include "sched/placement_policy.h"
#include "sched/scheduler.h"

namespace geopipe {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Tiresias's start order: waiting jobs by (queue, arrival), from the levels its scheduler
/// computed for this call (`level`, by job). Sorted at every pass.
class TiresiasOrder final : public OrderingPolicy {
 public:
  explicit TiresiasOrder(const std::vector<int>* level) : level_(level) {}
  bool strict() const override { return false; }
  void begin(const SchedContext& ctx, const WaitingQueue& queue, const ClusterView&) override {
    ctx_ = &ctx;
    order_ = queue.to_vector();
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return lvl(a) < lvl(b); });  // ids ascend within a queue
    dead_shape_.assign(static_cast<size_t>(ctx.num_shapes), 0);
    pos_ = 0;
  }
  int next() override {
    while (pos_ < order_.size()) {
      const int j = order_[pos_++];
      const auto s = static_cast<size_t>(ctx_->shape(j));
      if (s >= dead_shape_.size() || !dead_shape_[s]) return j;
    }
    return -1;
  }
  void started(int) override {}
  void skip_shape(int s) override {
    if (static_cast<size_t>(s) < dead_shape_.size()) dead_shape_[static_cast<size_t>(s)] = 1;
  }
  void skip_job(int) override {}  // each job is yielded once per pass

 private:
  int lvl(int j) const { return (*level_)[static_cast<size_t>(j)]; }
  const std::vector<int>* level_;
  const SchedContext* ctx_ = nullptr;
  std::vector<int> order_;
  std::vector<char> dead_shape_;
  size_t pos_ = 0;
};

class PreemptiveScheduler final : public Scheduler {
 public:
  PreemptiveScheduler(std::string name, PreemptiveRule rule, const SchedulerParams& p)
      : name_(std::move(name)),
        rule_(rule),
        prm_(p),
        starter_(name_,
                 rule == PreemptiveRule::kSrtf ? make_remaining_first(p)
                                               : std::unique_ptr<OrderingPolicy>(std::make_unique<TiresiasOrder>(&level_)),
                 make_pathfinder_costmin(p)),
        trial_policy_(make_pathfinder_costmin(p)) {}

  std::string_view name() const override { return name_; }
  bool preempts() const override { return true; }
  double next_call_s() const override { return next_call_s_; }
  SearchEffort effort() const override {
    SearchEffort a = starter_.effort();
    const SearchEffort& b = trial_policy_->effort();
    a.searches += b.searches;
    a.nodes += b.nodes;
    a.truncated += b.truncated;
    a.partition_misses += b.partition_misses;
    return a;
  }

  void schedule(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view,
                std::vector<Decision>& out) override {
    now_ = view.now_s;
    if (rule_ == PreemptiveRule::kTiresias) update_levels(ctx, queue);
    const size_t first = out.size();
    starter_.schedule(ctx, queue, view, out);
    preempt(ctx, queue, view, first, out);
    if (rule_ == PreemptiveRule::kTiresias) next_call_s_ = next_threshold(ctx, queue, out, first);
  }

 private:
  /// A job's priority key; lower runs first. srtf: remaining oracle work, s. tiresias: its queue.
  double key_waiting(const SchedContext& ctx, int j) {
    if (rule_ == PreemptiveRule::kTiresias) return level_[static_cast<size_t>(j)];
    return ctx.profile(j).iterations * ideal_s(ctx, j);
  }
  double key_running(const SchedContext& ctx, const RunningJob& r) const {
    if (rule_ == PreemptiveRule::kTiresias) return level_of(attained(ctx, r));
    return r.remaining_iterations * fastest_ideal_iteration(ctx.profile(r.job), *ctx.topo, *ctx.compute).iteration_s;
  }
  /// Ideal iteration time of waiting job j's shape (cached per shape, as make_remaining_first).
  double ideal_s(const SchedContext& ctx, int j) {
    const auto s = static_cast<size_t>(ctx.shape(j));
    if (ideal_.size() <= s) ideal_.resize(s + 1, -1.0);
    if (ideal_[s] < 0) ideal_[s] = fastest_ideal_iteration(ctx.profile(j), *ctx.topo, *ctx.compute).iteration_s;
    return ideal_[s];
  }

  // --- Tiresias -------------------------------------------------------------------------------
  /// Attained service counted from the job's last promotion (GPU-s).
  double attained(const SchedContext& ctx, const RunningJob& r) const {
    return (*ctx.service)[static_cast<size_t>(r.job)].attained_gpu_s - base(r.job) + r.gpus * (now_ - r.attempt_start_s);
  }
  double base(int j) const { return static_cast<size_t>(j) < base_.size() ? base_[static_cast<size_t>(j)] : 0.0; }
  /// Queue of a job with attained service a: the number of thresholds at or below a.
  int level_of(double a) const {
    const auto& th = prm_.tiresias_thresholds_gpu_s;
    return static_cast<int>(std::upper_bound(th.begin(), th.end(), a) - th.begin());
  }
  void update_levels(const SchedContext& ctx, const WaitingQueue& queue) {
    const size_t n = ctx.jobs->size();
    if (level_.size() < n) level_.resize(n, 0);
    if (base_.size() < n) base_.resize(n, 0.0);
    for (int j : queue) {
      const JobService& sv = (*ctx.service)[static_cast<size_t>(j)];
      double a = sv.attained_gpu_s - base_[static_cast<size_t>(j)];
      // The starvation knob: a job that ran and has waited knob × its executed time since it
      // last entered the queue goes back to the first queue (its service counts from now).
      const double executed_s = a / ctx.job(j).total_gpus();
      if (prm_.tiresias_promote_knob > 0 && executed_s > 0 &&
          now_ - sv.queued_since_s >= prm_.tiresias_promote_knob * executed_s) {
        base_[static_cast<size_t>(j)] = sv.attained_gpu_s;
        a = 0;
      }
      level_[static_cast<size_t>(j)] = level_of(a);
    }
  }
  /// The next time a running job crosses a threshold, or a waiting job reaches its promotion.
  double next_threshold(const SchedContext& ctx, const WaitingQueue& queue, const std::vector<Decision>& out,
                        size_t first) const {
    double t = kInf;
    const auto& th = prm_.tiresias_thresholds_gpu_s;
    for (const RunningJob& r : *ctx.running) {
      if (r.leaving || r.gpus <= 0) continue;
      const double a = attained(ctx, r);
      const int k = level_of(a);
      if (k < static_cast<int>(th.size())) t = std::min(t, now_ + (th[static_cast<size_t>(k)] - a) / r.gpus);
    }
    if (prm_.tiresias_promote_knob > 0) {
      // Jobs started in this call do not wait any more.
      std::vector<char> started;
      for (size_t d = first; d < out.size(); ++d)
        if (!out[d].preempt) {
          if (started.size() <= static_cast<size_t>(out[d].job)) started.resize(static_cast<size_t>(out[d].job) + 1, 0);
          started[static_cast<size_t>(out[d].job)] = 1;
        }
      for (int j : queue) {
        if (static_cast<size_t>(j) < started.size() && started[static_cast<size_t>(j)]) continue;
        const JobService& sv = (*ctx.service)[static_cast<size_t>(j)];
        const double executed_s = (sv.attained_gpu_s - base(j)) / ctx.job(j).total_gpus();
        if (executed_s > 0) t = std::min(t, sv.queued_since_s + prm_.tiresias_promote_knob * executed_s);
      }
    }
    return t > now_ ? t : kInf;
  }

  // --- Preemption -----------------------------------------------------------------------------
  struct Victim {
    double key;
    int job;
    int gpus;
    const std::vector<int>* regions;
  };

  void preempt(const SchedContext& ctx, const WaitingQueue& queue, const ClusterView& view, size_t first,
               std::vector<Decision>& out) {
    victims_.clear();
    for (const RunningJob& r : *ctx.running)
      if (!r.leaving) victims_.push_back({key_running(ctx, r), r.job, r.gpus, r.regions});
    if (victims_.empty()) return;
    // Lowest priority first: the largest key, ties the higher id.
    std::sort(victims_.begin(), victims_.end(),
              [](const Victim& a, const Victim& b) { return a.key != b.key ? a.key > b.key : a.job > b.job; });
    // The waiting jobs not started in this call, in priority order (ties: arrival = id).
    started_.assign(ctx.jobs->size(), 0);
    for (size_t d = first; d < out.size(); ++d)
      if (!out[d].preempt) started_[static_cast<size_t>(out[d].job)] = 1;
    waiting_.clear();
    for (int j : queue)
      if (!started_[static_cast<size_t>(j)] && ctx.variants_of(j).empty()) waiting_.push_back({key_waiting(ctx, j), j});
    std::stable_sort(waiting_.begin(), waiting_.end(),
                     [](const std::pair<double, int>& a, const std::pair<double, int>& b) { return a.first < b.first; });
    taken_.assign(victims_.size(), 0);
    hyp_ = view;
    for (const auto& [key, j] : waiting_) {
      const JobProfile& p = ctx.profile(j);
      const int g = ctx.job(j).total_gpus();
      // Victims: strictly lower priority (a prefix of victims_), not taken yet.
      size_t lower = 0;
      long room = hyp_.total_free;
      while (lower < victims_.size() && victims_[lower].key > key) {
        if (!taken_[lower]) room += victims_[lower].gpus;
        ++lower;
      }
      if (g > room || lower == 0) continue;
      trial_ = hyp_;
      chosen_.clear();
      size_t next = 0;
      auto release_next = [&]() -> bool {
        while (next < lower && taken_[next]) ++next;
        if (next == lower) return false;
        const Victim& v = victims_[next];
        const int per_stage = ctx.profile(v.job).gpus_per_stage;
        for (int reg : *v.regions) trial_.free_gpus[static_cast<size_t>(reg)] += per_stage;
        trial_.total_free += v.gpus;
        chosen_.push_back(next++);
        return true;
      };
      while (trial_.total_free < g && release_next()) {
      }
      Placement pl;
      while (true) {
        pl = p.data_parallel > 1 ? trial_policy_->place_gang(ctx, j, trial_) : trial_policy_->place(ctx, j, trial_);
        if (!pl.empty() || !release_next()) break;
      }
      if (pl.empty() || chosen_.empty()) continue;
      for (size_t k : chosen_) {
        taken_[k] = 1;
        Decision d;
        d.job = victims_[k].job;
        d.preempt = true;
        out.push_back(std::move(d));
      }
      trial_.commit(p, pl);  // booked: later jobs do not count on these GPUs
      hyp_ = trial_;
    }
  }

  std::string name_;
  PreemptiveRule rule_;
  SchedulerParams prm_;
  std::vector<int> level_;     ///< tiresias: per job, its queue at this call (waiting jobs)
  std::vector<double> base_;   ///< tiresias: per job, its attained service at its last promotion
  ComposedScheduler starter_;
  std::unique_ptr<PlacementPolicy> trial_policy_;
  double now_ = 0;
  double next_call_s_ = kInf;
  std::vector<double> ideal_;  ///< srtf: per shape, its ideal iteration time (-1 unknown)
  std::vector<Victim> victims_;
  std::vector<std::pair<double, int>> waiting_;
  std::vector<char> started_, taken_;
  std::vector<size_t> chosen_;
  ClusterView hyp_, trial_;
};

}  // namespace

std::unique_ptr<Scheduler> make_preemptive_scheduler(std::string name, PreemptiveRule rule, const SchedulerParams& p) {
  return std::make_unique<PreemptiveScheduler>(std::move(name), rule, p);
}

}  // namespace geopipe
