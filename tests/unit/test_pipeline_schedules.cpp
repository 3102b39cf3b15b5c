// Pipeline schedules (docs/model.md, "Pipeline schedules") against an independent reference:
// a small discrete-event simulation of the micro-batch operations and link transfers, written
// here from the schedules' definitions (a time-ordered event queue, stages and link directions
// as resources, FIFO transfer queues), not from the production recurrences.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>
#include <vector>

#include "model/gpipe.h"
#include "model/job.h"
#include "model/one_f_one_b.h"
#include "model/pipeline_schedule.h"
#include "model/rng.h"
#include "unit_common.h"

namespace geopipe {
namespace {

using testutil::kInf;

struct Op {
  bool forward;
  int mb;
};

/// Stage i's operation order, written from the schedules' textbook definitions.
std::vector<Op> gpipe_order(int, int, int m) {
  std::vector<Op> ops;
  for (int j = 0; j < m; ++j) ops.push_back({true, j});
  for (int j = 0; j < m; ++j) ops.push_back({false, j});
  return ops;
}

/// Megatron-LM's forward_backward_pipelining_without_interleaving: warm-up, steady 1F1B, cool-down.
std::vector<Op> one_f_one_b_order(int i, int S, int m) {
  const int warmup = std::min(S - i - 1, m);
  const int steady = m - warmup;
  std::vector<Op> ops;
  int f = 0, b = 0;
  for (int k = 0; k < warmup; ++k) ops.push_back({true, f++});
  for (int k = 0; k < steady; ++k) {
    ops.push_back({true, f++});
    ops.push_back({false, b++});
  }
  for (int k = 0; k < warmup; ++k) ops.push_back({false, b++});
  return ops;
}

using OrderFn = std::vector<Op> (*)(int i, int S, int m);

/// The textbook order of each schedule: the reference every test below compares it with. No
/// default case: a new PipelineScheduleKind does not compile here (-Wswitch) until it has one.
OrderFn reference_order(PipelineScheduleKind kind) {
  switch (kind) {
    case PipelineScheduleKind::kGPipe: return gpipe_order;
    case PipelineScheduleKind::kOneFOneB: return one_f_one_b_order;
  }
  return nullptr;
}

struct ScheduleInstance {
  int m = 1;
  std::vector<double> f, b, bwf, bwb, latf, latb;
  double A = 1, opt = 0;

  PipelineInput input() const {
    PipelineInput in;
    in.micro_batches = m;
    in.fwd_s = f;
    in.bwd_s = b;
    in.hop_fwd_bytes_per_s = bwf;
    in.hop_bwd_bytes_per_s = bwb;
    in.hop_latency_s = latf;
    in.hop_bwd_latency_s = latb;
    in.activation_bytes = A;
    in.optimizer_step_s = opt;
    return in;
  }
};

/// The reference: events in time order. A stage starts its next operation when it is free and
/// the operation's input is there; a finished forward (backward) asks its outgoing link for a
/// transfer; a link direction serves its requests first come first served, each for A/B, and
/// the data arrives λ after the transfer ends.
double simulate_events(const ScheduleInstance& x, std::vector<Op> (*order)(int, int, int)) {
  const int S = static_cast<int>(x.f.size()), m = x.m;
  std::vector<std::vector<Op>> ops(static_cast<size_t>(S));
  for (int i = 0; i < S; ++i) ops[static_cast<size_t>(i)] = order(i, S, m);
  std::vector<size_t> next(static_cast<size_t>(S), 0);
  std::vector<bool> stage_busy(static_cast<size_t>(S), false);
  // has_input[i][0][j]: activation j is at stage i; [1][j]: gradient j is at stage i
  std::vector<std::vector<std::vector<bool>>> has(static_cast<size_t>(S),
                                                  std::vector<std::vector<bool>>(2, std::vector<bool>(static_cast<size_t>(m), false)));
  for (int j = 0; j < m; ++j) has[0][0][static_cast<size_t>(j)] = true;
  // link directions: 2·h forward (h -> h+1), 2·h + 1 backward (h+1 -> h)
  const int L = 2 * std::max(S - 1, 0);
  std::vector<bool> link_busy(static_cast<size_t>(L), false);
  std::vector<std::deque<int>> link_queue(static_cast<size_t>(L));
  enum Kind { kOpDone, kLinkFree, kArrive };
  struct Ev {
    double t;
    long seq;
    Kind kind;
    int who, mb, op_forward;
    bool operator>(const Ev& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> q;
  long seq = 0;
  double end_stage0 = 0;

  auto occupancy = [&](int l) {
    const int h = l / 2;
    return x.A / (l % 2 == 0 ? x.bwf : x.bwb)[static_cast<size_t>(h)];
  };
  auto latency = [&](int l) {
    const int h = l / 2;
    return (l % 2 == 0 || x.latb.empty() ? x.latf : x.latb)[static_cast<size_t>(h)];
  };
  auto try_link = [&](int l, double t) {
    if (link_busy[static_cast<size_t>(l)] || link_queue[static_cast<size_t>(l)].empty()) return;
    const int mb = link_queue[static_cast<size_t>(l)].front();
    link_queue[static_cast<size_t>(l)].pop_front();
    link_busy[static_cast<size_t>(l)] = true;
    const double done = t + occupancy(l);
    q.push({done, seq++, kLinkFree, l, mb, 0});
    q.push({done + latency(l), seq++, kArrive, l, mb, 0});
  };
  auto try_stage = [&](int i, double t) {
    const auto iu = static_cast<size_t>(i);
    if (stage_busy[iu] || next[iu] == ops[iu].size()) return;
    const Op op = ops[iu][next[iu]];
    if (!has[iu][op.forward ? 0 : 1][static_cast<size_t>(op.mb)]) return;
    stage_busy[iu] = true;
    ++next[iu];
    q.push({t + (op.forward ? x.f : x.b)[iu], seq++, kOpDone, i, op.mb, op.forward ? 1 : 0});
  };
  for (int i = 0; i < S; ++i) try_stage(i, 0.0);
  while (!q.empty()) {
    const Ev e = q.top();
    q.pop();
    if (e.kind == kOpDone) {
      const int i = e.who;
      stage_busy[static_cast<size_t>(i)] = false;
      if (e.op_forward) {
        if (i + 1 < S) {
          link_queue[static_cast<size_t>(2 * i)].push_back(e.mb);
          try_link(2 * i, e.t);
        } else {
          has[static_cast<size_t>(i)][1][static_cast<size_t>(e.mb)] = true;  // the last stage's own loss gradient
        }
      } else if (i > 0) {
        link_queue[static_cast<size_t>(2 * (i - 1) + 1)].push_back(e.mb);
        try_link(2 * (i - 1) + 1, e.t);
      } else {
        end_stage0 = std::max(end_stage0, e.t);
      }
      try_stage(i, e.t);
    } else if (e.kind == kLinkFree) {
      link_busy[static_cast<size_t>(e.who)] = false;
      try_link(e.who, e.t);
    } else {
      const int h = e.who / 2;
      const bool fwd = e.who % 2 == 0;
      const int to = fwd ? h + 1 : h;
      has[static_cast<size_t>(to)][fwd ? 0 : 1][static_cast<size_t>(e.mb)] = true;
      try_stage(to, e.t);
    }
  }
  for (int i = 0; i < S; ++i) EXPECT_EQ(next[static_cast<size_t>(i)], ops[static_cast<size_t>(i)].size()) << "deadlock";
  return end_stage0 + x.opt;
}

/// Peak number of micro-batches whose forward has run and backward has not, over stage i's order.
int peak_stashed(const std::vector<Op>& ops) {
  int now = 0, peak = 0;
  for (const Op& o : ops) {
    now += o.forward ? 1 : -1;
    peak = std::max(peak, now);
  }
  return peak;
}

ScheduleInstance random_instance(Rng& rng) {
  ScheduleInstance x;
  const int S = 1 + static_cast<int>(rng.uniform() * 7);
  x.m = 1 + static_cast<int>(rng.uniform() * 10);
  const bool equal = rng.uniform() < 0.2;
  const double f0 = rng.uniform(0.1, 2.0);
  for (int i = 0; i < S; ++i) {
    const double f = equal ? f0 : rng.uniform(0.1, 2.0);
    x.f.push_back(f);
    x.b.push_back(rng.uniform() < 0.5 ? 2 * f : rng.uniform(0.1, 4.0));
  }
  const bool asym_latency = rng.uniform() < 0.3;
  for (int h = 0; h + 1 < S; ++h) {
    auto bw = [&] { return rng.uniform() < 0.15 ? kInf : rng.uniform(0.2, 5.0); };
    x.bwf.push_back(bw());
    x.bwb.push_back(bw());
    x.latf.push_back(rng.uniform() < 0.2 ? 0.0 : rng.uniform(0.0, 1.5));
    if (asym_latency) x.latb.push_back(rng.uniform(0.0, 1.5));
  }
  x.A = rng.uniform(0.5, 3.0);
  x.opt = rng.uniform() < 0.3 ? rng.uniform(0.0, 1.0) : 0.0;
  return x;
}

TEST(PipelineSchedules, RegistryNamesAndKinds) {
  EXPECT_EQ(pipeline_schedule_names(), (std::vector<std::string>{"gpipe", "1f1b"}));
  for (const std::string& n : pipeline_schedule_names()) {
    const PipelineSchedule* s = find_pipeline_schedule(n);
    ASSERT_NE(s, nullptr) << n;
    EXPECT_EQ(s->name(), n);
    EXPECT_EQ(&pipeline_schedule(s->kind()), s);
  }
  EXPECT_EQ(find_pipeline_schedule("GPipe"), nullptr);
  EXPECT_EQ(find_pipeline_schedule(""), nullptr);
  EXPECT_EQ(ComputeOptions{}.schedule().kind(), PipelineScheduleKind::kGPipe);  // the default
}

TEST(PipelineSchedules, EveryScheduleMatchesTheEventSimulationOnRandomInstances) {
  Rng rng(20261201);
  PipelineScratch scratch;  // shared across instances and schedules, as in the engine
  int differ = 0;
  for (int n = 0; n < 3000; ++n) {
    const ScheduleInstance x = random_instance(rng);
    const PipelineInput in = x.input();
    for (const std::string& name : pipeline_schedule_names()) {
      const PipelineSchedule& s = *find_pipeline_schedule(name);
      const double ref = simulate_events(x, reference_order(s.kind()));
      ASSERT_NEAR(s.iteration_time(in, scratch), ref, 1e-12 * ref)
          << name << " instance " << n << " S=" << x.f.size() << " m=" << x.m;
    }
    const double g = pipeline_schedule(PipelineScheduleKind::kGPipe).iteration_time(in, scratch);
    const double o = pipeline_schedule(PipelineScheduleKind::kOneFOneB).iteration_time(in, scratch);
    if (std::abs(g - o) > 1e-9 * g) ++differ;
  }
  EXPECT_GT(differ, 100) << "GPipe and 1F1B should time heterogeneous pipelines differently";
}

TEST(PipelineSchedules, EqualStagesFreeCommunicationIsTheGPipeClosedForm) {
  // (m + S − 1)(f + b) for both: 1F1B has GPipe's bubble.
  for (int S : {1, 2, 3, 5, 8, 16})
    for (int m : {1, 2, 3, 4, 7, 32}) {
      const double f = 0.25, b = 0.5;
      ScheduleInstance x;
      x.m = m;
      x.f.assign(static_cast<size_t>(S), f);
      x.b.assign(static_cast<size_t>(S), b);
      x.bwf.assign(static_cast<size_t>(S - 1), kInf);
      x.bwb = x.bwf;
      x.latf.assign(static_cast<size_t>(S - 1), 0.0);
      PipelineScratch sc;
      for (const std::string& name : pipeline_schedule_names())
        EXPECT_DOUBLE_EQ(find_pipeline_schedule(name)->iteration_time(x.input(), sc), (m + S - 1) * (f + b))
            << name << " S=" << S << " m=" << m;
    }
}

TEST(PipelineSchedules, OneFOneBHandWorkedTwoStages) {
  // S = 2, m = 3, f = (1, 1), b = (2, 2), links: A/B = 0.5 each way, λ = 0.25.
  // Stage 0 (one warm-up): F0 [0,1] F1 [1,2] B0 F2 B1 B2; stage 1: F0 B0 F1 B1 F2 B2.
  //   act 0 arrives 1.75, act 1: link busy until 1.5 then 2.0+0.5 → sent [2,2.5] arrives 2.75.
  //   s1 F0 [1.75,2.75] B0 [2.75,4.75] → grad 0 sent [4.75,5.25] arrives 5.5.
  //   s1 F1 [4.75,5.75] (act 1 is there), B1 [5.75,7.75] → grad 1 arrives 8.5.
  //   s0 B0 [5.5,7.5]; F2 [7.5,8.5] → act 2 sent [8.5,9] arrives 9.25; B1 [8.5,10.5].
  //   s1 F2 [9.25,10.25] B2 [10.25,12.25] → grad 2 arrives 13; s0 B2 [13,15]. T = 15.
  ScheduleInstance x;
  x.m = 3;
  x.f = {1, 1};
  x.b = {2, 2};
  x.bwf = {2};
  x.bwb = {2};
  x.latf = {0.25};
  x.A = 1;
  PipelineScratch sc;
  EXPECT_DOUBLE_EQ(one_f_one_b_iteration_time(x.input(), sc), 15.0);
  EXPECT_DOUBLE_EQ(simulate_events(x, one_f_one_b_order), 15.0);
}

TEST(PipelineSchedules, StashedMicroBatchesArePeaksOfTheOperationOrder) {
  for (int S : {1, 2, 3, 4, 7})
    for (int m : {1, 2, 3, 5, 9})
      for (int i = 0; i < S; ++i) {
        for (const std::string& name : pipeline_schedule_names()) {
          const PipelineSchedule& s = *find_pipeline_schedule(name);
          EXPECT_EQ(s.stashed_micro_batches(i, S, m), peak_stashed(reference_order(s.kind())(i, S, m)))
              << name << " S=" << S << " m=" << m << " i=" << i;
        }
      }
}

TEST(PipelineSchedules, ComputeOnlyTimeIsTheIterationTimeWithoutCommunication) {
  Rng rng(7);
  PipelineScratch sc;
  for (int n = 0; n < 500; ++n) {
    ScheduleInstance x = random_instance(rng);
    // backward ratios as the profiles have them: 2 (no recomputation), 3 (full), between on
    // a last stage with an LM head
    std::vector<double> rho(x.f.size());
    for (size_t i = 0; i < x.f.size(); ++i) {
      rho[i] = std::array<double, 3>{2.0, 3.0, 2.0 + rng.uniform()}[static_cast<size_t>(n + static_cast<int>(i)) % 3];
      x.b[i] = backward_time(x.f[i], rho[i]);
    }
    std::fill(x.bwf.begin(), x.bwf.end(), kInf);
    std::fill(x.bwb.begin(), x.bwb.end(), kInf);
    std::fill(x.latf.begin(), x.latf.end(), 0.0);
    x.latb.clear();
    for (const std::string& name : pipeline_schedule_names()) {
      const PipelineSchedule& s = *find_pipeline_schedule(name);
      const double t = s.compute_only_time(x.f, rho, x.m, x.opt, sc);
      EXPECT_NEAR(t, s.iteration_time(x.input(), sc), 1e-12 * t) << name << " instance " << n;
      EXPECT_NEAR(t, simulate_events(x, reference_order(s.kind())), 1e-12 * t) << name;
    }
  }
}

TEST(PipelineSchedules, OneFOneBMemoryFitsOnFewerStages) {
  // A model whose activations dominate: with m = 16 micro-batches, GPipe stashes 16 per stage,
  // 1F1B at most S − i, so the smallest stage count that fits is smaller.
  const LlmSpec L{"act-heavy", 32, 4096, 32000, 4096, 2};
  ComputeOptions gpipe, ofob;
  ofob.pipeline_schedule = PipelineScheduleKind::kOneFOneB;
  const double mem = 80e9;
  const int s_g = min_feasible_stages(L, 4, 16, 1, mem, gpipe);
  const int s_o = min_feasible_stages(L, 4, 16, 1, mem, ofob);
  ASSERT_GT(s_g, 0);
  ASSERT_GT(s_o, 0);
  EXPECT_LT(s_o, s_g);
  // The memory term by hand: stage i stashes min(m, S − i) micro-batches of b·s·h·l_i·bytes.
  Job j;
  j.stages = 4;
  j.micro_batch_size = 4;
  j.micro_batches = 16;
  const JobProfile pg = make_profile(j, L, gpipe), po = make_profile(j, L, ofob);
  const double per_layer_mb = 4.0 * 4096 * 4096 * 2;
  for (int i = 0; i < 4; ++i) {
    const auto k = static_cast<size_t>(i);
    const double expected = (16 - (4 - i)) * per_layer_mb * pg.layers[k];
    EXPECT_NEAR(pg.memory_bytes[k] - po.memory_bytes[k], expected, 1e-12 * pg.memory_bytes[k]);
  }
}

}  // namespace
}  // namespace geopipe
