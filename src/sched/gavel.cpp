#include "sched/gavel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "sched/estimate.h"
#include "sched/feasibility.h"
#include "sched/linear_program.h"
#include "sched/placement_policy.h"

namespace geopipe {

std::vector<std::vector<int>> placement_classes(int regions) {
  std::vector<std::vector<int>> c;
  for (int r = 0; r < regions; ++r) c.push_back({r});
  for (int a = 0; a < regions; ++a)
    for (int b = a + 1; b < regions; ++b) c.push_back({a, b});
  if (regions > 2) {
    std::vector<int> all(static_cast<size_t>(regions));
    for (int r = 0; r < regions; ++r) all[static_cast<size_t>(r)] = r;
    c.push_back(std::move(all));
  }
  return c;
}

MaxMinAllocation solve_maxmin(const MaxMinProblem& pr) {
  MaxMinAllocation out;
  const int J = pr.jobs, K = pr.classes, R = pr.regions;
  out.x.assign(static_cast<size_t>(J) * static_cast<size_t>(K), 0.0);
  auto T = [&](int m, int c) { return pr.throughput[static_cast<size_t>(m) * static_cast<size_t>(K) + static_cast<size_t>(c)]; };
  LinearProgram lp;
  const int t = lp.add_variable(1.0, 0.0, LinearProgram::kInf);
  std::vector<int> var(static_cast<size_t>(J) * static_cast<size_t>(K), -1);
  std::vector<double> best(static_cast<size_t>(J), 0.0);
  for (int m = 0; m < J; ++m)
    for (int c = 0; c < K; ++c) best[static_cast<size_t>(m)] = std::max(best[static_cast<size_t>(m)], T(m, c));
  std::vector<std::vector<std::pair<int, double>>> cap(static_cast<size_t>(R));
  bool any = false;
  for (int m = 0; m < J; ++m) {
    const double b = best[static_cast<size_t>(m)];
    if (!(b > 0)) continue;  // runs nowhere: left out
    any = true;
    std::vector<std::pair<int, double>> share, one;
    for (int c = 0; c < K; ++c) {
      if (!(T(m, c) > 0)) continue;
      const int v = lp.add_variable(0.0, 0.0, 1.0);
      var[static_cast<size_t>(m) * static_cast<size_t>(K) + static_cast<size_t>(c)] = v;
      share.push_back({v, T(m, c) / b});
      one.push_back({v, 1.0});
      for (int r = 0; r < R; ++r) {
        const double g = pr.gpus[(static_cast<size_t>(m) * static_cast<size_t>(K) + static_cast<size_t>(c)) * static_cast<size_t>(R) +
                                 static_cast<size_t>(r)];
        if (g > 0) cap[static_cast<size_t>(r)].push_back({v, g});
      }
    }
    share.push_back({t, -1.0});
    lp.add_row(std::move(share), 0.0, LinearProgram::kInf);  // share_m − t ≥ 0
    lp.add_row(std::move(one), -LinearProgram::kInf, 1.0);   // Σ_c X_mc ≤ 1
  }
  if (!any) {
    out.status = "no job can run in any class";
    return out;
  }
  for (int r = 0; r < R; ++r)
    if (!cap[static_cast<size_t>(r)].empty())
      lp.add_row(std::move(cap[static_cast<size_t>(r)]), -LinearProgram::kInf, pr.capacity[static_cast<size_t>(r)]);
  LinearProgram::Solution s1 = lp.maximize();
  if (!s1.optimal) {
    out.status = "max-min LP: " + s1.status;
    return out;
  }
  out.min_share = s1.objective;
  // Stage 2: keep t at its optimum (within a relative 1e-9 for the solver's tolerance) and
  // maximise the total normalised throughput.
  lp.set_bounds(t, s1.objective * (1.0 - 1e-9), LinearProgram::kInf);
  std::vector<double> obj(static_cast<size_t>(lp.variables()), 0.0);
  for (int m = 0; m < J; ++m)
    for (int c = 0; c < K; ++c) {
      const int v = var[static_cast<size_t>(m) * static_cast<size_t>(K) + static_cast<size_t>(c)];
      if (v >= 0) obj[static_cast<size_t>(v)] = T(m, c) / best[static_cast<size_t>(m)];
    }
  lp.set_objective(std::move(obj));
  LinearProgram::Solution s2 = lp.maximize();
  const LinearProgram::Solution& s = s2.optimal ? s2 : s1;
  for (size_t k = 0; k < var.size(); ++k)
    if (var[k] >= 0) out.x[k] = std::max(0.0, s.x[static_cast<size_t>(var[k])]);
  out.ok = true;
  return out;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class GavelScheduler final : public Scheduler {
 public:
  GavelScheduler(std::string name, const SchedulerParams& p)
      : name_(std::move(name)), round_s_(p.gavel_round_s), policy_(make_pathfinder_costmin(p)) {}

  std::string_view name() const override { return name_; }
  bool preempts() const override { return true; }
  double next_call_s() const override { return next_round_s_; }
  SearchEffort effort() const override { return policy_->effort(); }

  void schedule(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view,
                std::vector<Decision>& out) override {
    now_ = view.now_s;
    if (classes_.empty()) init_classes(view.regions());
    const size_t n = ctx.jobs->size();
    if (plan_class_.size() < n) {
      plan_class_.resize(n, -1);
      received_.resize(n);
      waiting_.resize(n, 0);
      running_idx_.resize(n, -1);
    }
    for (int j : queue) waiting_[static_cast<size_t>(j)] = 1;
    if (now_ >= next_round_s_) {
      replan(ctx, queue, view, out);
      next_round_s_ = now_ + round_s_;
    }
    start_planned(ctx, view, out);
    backfill(ctx, queue, view, out);
    for (int j : queue) waiting_[static_cast<size_t>(j)] = 0;
  }

 private:
  struct ShapeRow {
    std::vector<double> throughput;  ///< per class, 1/T_est (0: does not place there)
    std::vector<int> gpus;           ///< per class × region
  };
  void init_classes(int R) {
    R_ = R;
    classes_ = placement_classes(R);
    pair_class_.assign(static_cast<size_t>(R) * static_cast<size_t>(R), -1);
    for (size_t c = 0; c < classes_.size(); ++c)
      if (classes_[c].size() == 2)
        pair_class_[static_cast<size_t>(classes_[c][0] * R + classes_[c][1])] = static_cast<int>(c);
  }
  int K() const { return static_cast<int>(classes_.size()); }
  /// The class of a running job's stage regions: its region, its pair, or the whole cluster.
  int class_of(const std::vector<int>& regions) const {
    int lo = R_, hi = -1;
    for (int r : regions) {
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
    if (lo == hi) return lo;
    bool two = true;
    for (int r : regions) two &= (r == lo || r == hi);
    if (two) return pair_class_[static_cast<size_t>(lo * R_ + hi)];
    return K() - 1;  // more than two regions: the whole cluster (R > 2 here)
  }

  /// Calls f(context, profile) for job j as the scheduler runs it.
  /// A flexible job runs as the variant chosen_variant() picks.
  template <class F>
  decltype(auto) with_job(const SchedContext& ctx, int j, F&& f) {
    const auto variants = ctx.variants_of(j);
    if (variants.empty()) return f(ctx, ctx.profile(j));
    const int k = chosen_variant(ctx, j);
    flex_ = variants[static_cast<size_t>(k)];
    flex_.iterations = ctx.profile(j).iterations;
    const SchedContext c = ctx.with_variant(j, k, flex_);
    return f(c, flex_);
  }

  /// Flexible job j's variant: the one of the highest throughput in its best class on the
  /// idle cluster (every variant trains the same global batch per iteration, so iterations/s
  /// compare); ties the lower index. Decided once per flexible shape.
  int chosen_variant(const SchedContext& ctx, int j) {
    const int shape = ctx.shape(j);
    if (auto it = variant_of_shape_.find(shape); it != variant_of_shape_.end()) return it->second;
    const auto variants = ctx.variants_of(j);
    int best_k = 0;
    double best_tp = 0;
    for (size_t k = 0; k < variants.size(); ++k) {
      JobProfile vp = variants[k];
      vp.iterations = ctx.profile(j).iterations;
      const SchedContext c = ctx.with_variant(j, static_cast<int>(k), vp);
      const ShapeRow& r = row_for(c, j, vp);
      const double tp = *std::max_element(r.throughput.begin(), r.throughput.end());
      if (tp > best_tp) {
        best_tp = tp;
        best_k = static_cast<int>(k);
      }
    }
    if (best_tp > 0) variant_of_shape_.emplace(shape, best_k);  // else decided again at its next use
    return best_k;
  }

  /// bace-pipe's placement of job j in class c on `v` (its other regions hidden), or empty.
  Placement place_in(const SchedContext& c, int j, const JobProfile& p, int cls, const ClusterView& v) {
    const std::vector<int>& regs = classes_[static_cast<size_t>(cls)];
    long room = 0;
    for (int r : regs) room += v.free_gpus[static_cast<size_t>(r)];
    if (room < static_cast<long>(p.data_parallel) * p.stages * p.gpus_per_stage) return {};
    masked_ = v;
    if (static_cast<int>(regs.size()) < R_) {
      masked_.total_free = 0;
      size_t k = 0;
      for (int r = 0; r < R_; ++r) {
        if (k < regs.size() && regs[k] == r) {
          ++k;
          masked_.total_free += masked_.free_gpus[static_cast<size_t>(r)];
        } else {
          masked_.free_gpus[static_cast<size_t>(r)] = 0;
        }
      }
    }
    if (p.data_parallel <= 1) return policy_->place(c, j, masked_);
    Placement pl = policy_->place_gang(c, j, masked_);
    // The policy's replicas make no gang: on the idle cluster, in the class of every region,
    // the placement the config loader's check found (sched/feasibility.h), as ComposedScheduler
    // does, so that no accepted job waits for ever.
    if (pl.empty() && static_cast<int>(regs.size()) == R_ && v.total_free == v.topo->total_gpus())
      pl = replicas_first_found(p, feasibility_view(*v.topo), v.compute->allreduce);
    return pl;
  }

  /// The throughput row of job j's shape (computed on the idle cluster at its first use).
  const ShapeRow& row(const SchedContext& ctx, int j) {
    return with_job(ctx, j, [&](const SchedContext& c, const JobProfile& p) -> const ShapeRow& { return row_for(c, j, p); });
  }
  /// The row of job j seen as profile p in context c (a variant's, for a flexible job).
  const ShapeRow& row_for(const SchedContext& c, int j, const JobProfile& p) {
    {
      const int shape = c.shape(j);
      auto it = rows_.find(shape);
      if (it != rows_.end()) return it->second;
      ShapeRow r;
      r.throughput.assign(static_cast<size_t>(K()), 0.0);
      r.gpus.assign(static_cast<size_t>(K()) * static_cast<size_t>(R_), 0);
      const ClusterView idle = idle_view(*c.topo, *c.compute, now_);
      for (int cls = 0; cls < K(); ++cls) {
        const Placement pl = place_in(c, j, p, cls, idle);
        // A placement inside a smaller class (a pair's that uses one region) is that class's:
        // the LP sees each placement once, and a job it allots to class c runs in c exactly.
        if (pl.empty() || class_of(pl.stage_region) != cls) continue;
        const double it_s = p.data_parallel > 1 ? estimate_gang_iteration_s(p, pl, masked_, BandwidthModel::kExpected)
                                                : estimate_iteration_s(p, pl, masked_, BandwidthModel::kExpected);
        if (!(it_s > 0) || !std::isfinite(it_s)) continue;
        r.throughput[static_cast<size_t>(cls)] = 1.0 / it_s;
        for (int s : pl.stage_region)
          r.gpus[static_cast<size_t>(cls) * static_cast<size_t>(R_) + static_cast<size_t>(s)] += p.gpus_per_stage;
      }
      // A shape that placed nowhere (capacities in force now may be down) is measured again
      // at its next use.
      if (*std::max_element(r.throughput.begin(), r.throughput.end()) <= 0) {
        scratch_row_ = std::move(r);
        return scratch_row_;
      }
      return rows_.emplace(shape, std::move(r)).first->second;
    }
  }

  struct Pair {
    double prio, x;
    int job, cls;
  };

  void replan(const SchedContext& ctx, const WaitingQueue& queue, const ClusterView& view, std::vector<Decision>& out) {
    // Service in the round that ends: per running job, its time in its class.
    active_.clear();
    for (size_t i = 0; i < ctx.running->size(); ++i) {
      const RunningJob& r = (*ctx.running)[i];
      running_idx_[static_cast<size_t>(r.job)] = static_cast<int>(i);
      if (r.leaving) continue;
      add_received(r.job, class_of(*r.regions), now_ - std::max(last_plan_s_, r.attempt_start_s));
      active_.push_back(r.job);
    }
    for (int j : queue) active_.push_back(j);
    std::sort(active_.begin(), active_.end());
    last_plan_s_ = now_;

    // The allocation, solved again when the set of active jobs changed.
    if (active_ != solved_for_) {
      solved_for_ = active_;
      MaxMinProblem pr;
      pr.jobs = static_cast<int>(active_.size());
      pr.classes = K();
      pr.regions = R_;
      pr.capacity.resize(static_cast<size_t>(R_));
      for (int r = 0; r < R_; ++r) pr.capacity[static_cast<size_t>(r)] = ctx.topo->regions[static_cast<size_t>(r)].gpu_count;
      for (int j : active_) {
        const ShapeRow& sr = row(ctx, j);
        pr.throughput.insert(pr.throughput.end(), sr.throughput.begin(), sr.throughput.end());
        pr.gpus.insert(pr.gpus.end(), sr.gpus.begin(), sr.gpus.end());
      }
      alloc_ = solve_maxmin(pr);
    }

    // Priorities X_mc / f_mc over the pairs with X_mc > 0, the classes in which job m runs
    // equally fast (e.g. two regions of one GPU type) taken as one: X and the time received
    // summed over them (Gavel's types differ in throughput; here they may tie, and the LP
    // splits a job's time between tied classes arbitrarily).
    pairs_.clear();
    if (alloc_.ok)
      for (size_t a = 0; a < active_.size(); ++a) {
        const int j = active_[a];
        const ShapeRow& sr = row(ctx, j);
        const double elapsed = now_ - ctx.job(j).arrival_s;
        const double* xj = alloc_.x.data() + a * static_cast<size_t>(K());
        for (int c = 0; c < K(); ++c) {
          if (!(xj[c] > 1e-9)) continue;
          double x = 0, got = 0;
          for (int e = 0; e < K(); ++e)
            if (same_speed(sr, c, e)) {
              x += xj[e];
              got += received(j, e);
            }
          const double f = elapsed > 0 ? got / elapsed : 0.0;
          pairs_.push_back({f > 0 ? x / f : kInf, xj[c], j, c});
        }
      }
    std::sort(pairs_.begin(), pairs_.end(), [](const Pair& a, const Pair& b) {
      if (a.prio != b.prio) return a.prio > b.prio;
      if (a.x != b.x) return a.x > b.x;
      if (a.job != b.job) return a.job < b.job;
      return a.cls < b.cls;
    });

    // Assignment on the cluster with every running (not leaving) job's GPUs released.
    hyp_ = view;
    for (const RunningJob& r : *ctx.running) {
      if (r.leaving) continue;
      const int g = ctx.profile(r.job).gpus_per_stage;
      for (int reg : *r.regions) hyp_.free_gpus[static_cast<size_t>(reg)] += g;
      hyp_.total_free += r.gpus;
    }
    for (int j : plan_order_) plan_class_[static_cast<size_t>(j)] = -1;
    plan_order_.clear();
    assigned_.assign(ctx.jobs->size(), -1);
    auto keep = [&](const RunningJob& r) -> bool {
      const int g = ctx.profile(r.job).gpus_per_stage;
      std::vector<int> need(static_cast<size_t>(R_), 0);
      for (int reg : *r.regions) need[static_cast<size_t>(reg)] += g;
      for (int reg = 0; reg < R_; ++reg)
        if (need[static_cast<size_t>(reg)] > hyp_.free_gpus[static_cast<size_t>(reg)]) return false;
      for (int reg = 0; reg < R_; ++reg) hyp_.free_gpus[static_cast<size_t>(reg)] -= need[static_cast<size_t>(reg)];
      hyp_.total_free -= r.gpus;
      assigned_[static_cast<size_t>(r.job)] = class_of(*r.regions);
      return true;
    };
    auto assign_waiting = [&](int j, int c) -> bool {
      return with_job(ctx, j, [&](const SchedContext& jc, const JobProfile& p) {
        const Placement pl = place_in(jc, j, p, c, hyp_);
        if (pl.empty()) return false;
        hyp_.commit(p, pl);
        assigned_[static_cast<size_t>(j)] = c;
        plan_class_[static_cast<size_t>(j)] = c;
        plan_order_.push_back(j);
        return true;
      });
    };
    for (const Pair& pa : pairs_) {
      if (assigned_[static_cast<size_t>(pa.job)] >= 0) continue;
      const int ri = running_idx_[static_cast<size_t>(pa.job)];
      const RunningJob* r = ri >= 0 && (*ctx.running)[static_cast<size_t>(ri)].job == pa.job ? &(*ctx.running)[static_cast<size_t>(ri)] : nullptr;
      // A running job stays where it is for a class it runs exactly as fast in.
      if (r && !r->leaving && same_speed(row(ctx, pa.job), class_of(*r->regions), pa.cls)) {
        if (keep(*r)) continue;
      }
      assign_waiting(pa.job, pa.cls);  // a running job assigned elsewhere migrates: preempted below
    }
    // Work conservation: running jobs not assigned keep their GPUs where still free; then
    // waiting jobs not assigned take what is left, best class first.
    for (const RunningJob& r : *ctx.running)
      if (!r.leaving && assigned_[static_cast<size_t>(r.job)] < 0) keep(r);
    for (int j : queue)
      if (assigned_[static_cast<size_t>(j)] < 0) try_classes(ctx, j, [&](int c) { return assign_waiting(j, c); });

    // Preempt the running jobs the plan does not keep where they are.
    for (const RunningJob& r : *ctx.running) {
      running_idx_[static_cast<size_t>(r.job)] = -1;
      if (r.leaving) continue;
      if (assigned_[static_cast<size_t>(r.job)] == class_of(*r.regions) && plan_class_[static_cast<size_t>(r.job)] < 0) continue;
      Decision d;
      d.job = r.job;
      d.preempt = true;
      out.push_back(std::move(d));
    }
  }

  /// Does a job of row `sr` run in classes a and b equally fast (to a relative 1e-9)?
  static bool same_speed(const ShapeRow& sr, int a, int b) {
    const double ta = sr.throughput[static_cast<size_t>(a)], tb = sr.throughput[static_cast<size_t>(b)];
    return a == b || (ta > 0 && std::abs(ta - tb) <= 1e-9 * std::max(ta, tb));
  }

  /// Tries job j's classes by decreasing throughput (ties: class index; the classes it did not
  /// place in last) until `f` succeeds.
  template <class F>
  bool try_classes(const SchedContext& ctx, int j, F&& f) {
    const ShapeRow& sr = row(ctx, j);
    order_.clear();
    // Every class, the ones the job did not place in on the idle cluster last: capacities and
    // links change in time, and a job must never wait on GPUs that could run it.
    for (int c = 0; c < K(); ++c) order_.push_back(c);
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
      return sr.throughput[static_cast<size_t>(a)] > sr.throughput[static_cast<size_t>(b)];
    });
    const std::vector<int> classes = order_;  // f may call row() again
    for (int c : classes)
      if (f(c)) return true;
    return false;
  }

  Decision start_decision(const SchedContext& ctx, int j, Placement pl) {
    Decision d;
    d.job = j;
    d.placement = std::move(pl);
    if (!ctx.variants_of(j).empty()) d.variant = chosen_variant(ctx, j);
    return d;
  }

  /// Assigned waiting jobs start, in plan order, where their class has room now.
  void start_planned(const SchedContext& ctx, ClusterView& view, std::vector<Decision>& out) {
    size_t keep_n = 0;
    for (size_t k = 0; k < plan_order_.size(); ++k) {
      const int j = plan_order_[k];
      const int c = plan_class_[static_cast<size_t>(j)];
      if (c < 0) continue;  // started, or planned again
      bool started = false;
      if (waiting_[static_cast<size_t>(j)]) {
        started = with_job(ctx, j, [&](const SchedContext& jc, const JobProfile& p) {
          Placement pl = place_in(jc, j, p, c, view);
          if (pl.empty()) return false;
          view.commit(p, pl);
          out.push_back(start_decision(ctx, j, std::move(pl)));
          return true;
        });
      }
      if (started) {
        plan_class_[static_cast<size_t>(j)] = -1;
        waiting_[static_cast<size_t>(j)] = 0;  // not backfilled again in this call
        continue;
      }
      plan_order_[keep_n++] = j;  // still waiting for room (or for its checkpoint to end)
    }
    plan_order_.resize(keep_n);
  }

  /// Waiting jobs not assigned, in arrival order, on the GPUs no assigned job waits for.
  void backfill(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view, std::vector<Decision>& out) {
    trial_ = view;
    for (int j : plan_order_) {
      const ShapeRow& sr = row(ctx, j);
      const int c = plan_class_[static_cast<size_t>(j)];
      for (int r = 0; r < R_; ++r) {
        const int g = sr.gpus[static_cast<size_t>(c) * static_cast<size_t>(R_) + static_cast<size_t>(r)];
        const int take = std::min(g, trial_.free_gpus[static_cast<size_t>(r)]);
        trial_.free_gpus[static_cast<size_t>(r)] -= take;
        trial_.total_free -= take;
      }
    }
    failed_shapes_.clear();
    for (int j : queue) {
      if (trial_.total_free <= 0) break;
      if (!waiting_[static_cast<size_t>(j)] || plan_class_[static_cast<size_t>(j)] >= 0 ||
          ctx.job(j).total_gpus() > trial_.total_free)
        continue;
      const int shape = with_job(ctx, j, [&](const SchedContext& jc, const JobProfile&) { return jc.shape(j); });
      if (std::find(failed_shapes_.begin(), failed_shapes_.end(), shape) != failed_shapes_.end()) continue;
      const bool ok = try_classes(ctx, j, [&](int c) {
        return with_job(ctx, j, [&](const SchedContext& jc, const JobProfile& p) {
          Placement pl = place_in(jc, j, p, c, trial_);
          if (pl.empty()) return false;
          trial_.commit(p, pl);
          view.commit(p, pl);
          out.push_back(start_decision(ctx, j, std::move(pl)));
          return true;
        });
      });
      if (!ok) failed_shapes_.push_back(shape);  // the view only shrinks within a call
    }
  }

  double received(int j, int c) const {
    for (const auto& [cls, s] : received_[static_cast<size_t>(j)])
      if (cls == c) return s;
    return 0.0;
  }
  void add_received(int j, int c, double s) {
    if (!(s > 0)) return;
    for (auto& [cls, t] : received_[static_cast<size_t>(j)])
      if (cls == c) {
        t += s;
        return;
      }
    received_[static_cast<size_t>(j)].push_back({c, s});
  }

  std::string name_;
  double round_s_;
  std::unique_ptr<PlacementPolicy> policy_;
  int R_ = 0;
  std::vector<std::vector<int>> classes_;
  std::vector<int> pair_class_;  ///< R×R (a < b): the class of the pair {a, b}
  std::unordered_map<int, ShapeRow> rows_;  ///< by job shape (a flexible job's: per variant)
  ShapeRow scratch_row_;  ///< the last row that placed nowhere (not kept)
  std::unordered_map<int, int> variant_of_shape_;  ///< flexible shape → its chosen variant
  double now_ = 0;
  double next_round_s_ = -kInf;
  double last_plan_s_ = -kInf;
  std::vector<int> plan_class_;  ///< per job: the class it is assigned to and has not started in, or -1
  std::vector<int> plan_order_;  ///< those jobs, in priority order
  std::vector<std::vector<std::pair<int, double>>> received_;  ///< per job: seconds run per class
  std::vector<char> waiting_;      ///< per job: in this call's queue
  std::vector<int> running_idx_;   ///< per job: its index in ctx.running during replan, else -1
  std::vector<int> active_, solved_for_, assigned_, order_, failed_shapes_;
  MaxMinAllocation alloc_;
  std::vector<Pair> pairs_;
  JobProfile flex_;
  ClusterView hyp_, masked_, trial_;
};

}  // namespace

std::unique_ptr<Scheduler> make_gavel_scheduler(std::string name, const SchedulerParams& p) {
  return std::make_unique<GavelScheduler>(std::move(name), p);
}

}  // namespace geopipe
