#include "model/gpipe.h"

#include <algorithm>
#include <cassert>

#include "model/job.h"

namespace geopipe {

namespace {

/// One stage in a pass (forward or backward): its m operations of `op_s` each, the first not
/// before `start_s`, and the hop that carries each result to the next stage of the pass
/// (occupancy `occ_s`, latency `lat_s`; none after the pass's last stage).
struct StageStep {
  double start_s = 0, op_s = 0, occ_s = 0, lat_s = 0;
  bool hop = false;  ///< a hop whose occupancy or latency is not 0 follows
  double end_s = 0;  ///< end of its last operation, once the pass has run
};

/// The running state of one stage in a pass, in locals the loop keeps in registers.
struct StageRun {
  double prev, link_free;
  const double op, occ, lat;
  explicit StageRun(const StageStep& s) : prev(s.start_s), link_free(0), op(s.op_s), occ(s.occ_s), lat(s.lat_s) {}

  /// Micro-batch j's operation, whose input arrives at `in_s`; returns when its result reaches
  /// the next stage. Stage by stage this is the recurrence
  ///   done_j = max(done_{j-1}, in_j) + op;  send_j = max(done_j, free_{j-1});
  ///   free_j = send_j + occ;  out_j = free_j + lat.
  /// A free hop (occupancy and latency 0: infinite bandwidth, or no hop after the pass's last
  /// stage, whose output nothing reads) gives out_j = done_j, the same number: send_j is done_j
  /// (done_j >= done_{j-1} + op >= free_{j-1} = done_{j-1}) and adding +0.0 changes no value.
  template <bool Hop>
  double step(double in_s) {
    prev = std::max(prev, in_s) + op;
    if constexpr (!Hop) {
      return prev;
    } else {
      const double send = std::max(prev, link_free);
      link_free = send + occ;
      return link_free + lat;
    }
  }
};

/// Runs stages `st[0..n)` (consecutive in the pass, n = 1 or 2) over the m micro-batches: on
/// entry a[j] is when micro-batch j's input reaches st[0], on return when its output leaves
/// st[n-1] over its hop. Two stages advance together, micro-batch by micro-batch (a wavefront:
/// the second stage's j-th operation needs only the first's j-th result and its own (j−1)-th),
/// so their dependency chains overlap in the processor; each stage still performs exactly the
/// operations of the stage-by-stage recurrence, in the same order, so the result is the same
/// bit for bit (tests/unit/test_pipeline.cpp, Pipeline.WavefrontIsTheStageByStageRecurrence).
template <bool Hop0>
void run_one(double* a, size_t m, StageStep& s0) {
  StageRun r0(s0);
  for (size_t j = 0; j < m; ++j) a[j] = r0.step<Hop0>(a[j]);
  s0.end_s = r0.prev;
}
template <bool Hop0, bool Hop1>
void run_two(double* a, size_t m, StageStep& s0, StageStep& s1) {
  StageRun r0(s0), r1(s1);
  for (size_t j = 0; j < m; ++j) a[j] = r1.step<Hop1>(r0.step<Hop0>(a[j]));
  s0.end_s = r0.prev;
  s1.end_s = r1.prev;
}
void run_stages(double* a, size_t m, StageStep* st, size_t n) {
  if (n == 1) {
    st[0].hop ? run_one<true>(a, m, st[0]) : run_one<false>(a, m, st[0]);
  } else if (st[0].hop) {
    st[1].hop ? run_two<true, true>(a, m, st[0], st[1]) : run_two<true, false>(a, m, st[0], st[1]);
  } else {
    st[1].hop ? run_two<false, true>(a, m, st[0], st[1]) : run_two<false, false>(a, m, st[0], st[1]);
  }
}

}  // namespace

double gpipe_iteration_time(const PipelineInput& in, PipelineScratch& sc) {
  const auto S = in.fwd_s.size();
  const auto m = static_cast<size_t>(in.micro_batches);
  assert(S >= 1 && m >= 1 && in.bwd_s.size() == S);
  assert(in.hop_fwd_bytes_per_s.size() + 1 == S && in.hop_bwd_bytes_per_s.size() + 1 == S &&
         in.hop_latency_s.size() + 1 == S);
  assert(in.hop_bwd_latency_s.empty() || in.hop_bwd_latency_s.size() + 1 == S);
  assert(in.stage_end_s.empty() || in.stage_end_s.size() == S);
  const std::span<const double> bwd_lat = in.hop_bwd_latency_s.empty() ? in.hop_latency_s : in.hop_bwd_latency_s;
  const double A = in.activation_bytes;
  sc.last_fwd.resize(S);
  sc.arrive.resize(m);
  double* a = sc.arrive.data();
  auto set_hop = [](StageStep& st, double occ_s, double lat_s) {
    st.occ_s = occ_s;
    st.lat_s = lat_s;
    st.hop = !(occ_s == 0.0 && lat_s == 0.0);
  };

  // ---- forward, stage 0 to S−1: a[j] = when micro-batch j's input reaches the stage
  // (F[i][j] = max(F[i][j-1], a[j]) + f_i), then when its activation reaches stage i+1. Stage
  // 0 has all its inputs at t = 0.
  std::fill(a, a + m, 0.0);
  StageStep st[2];
  for (size_t i = 0; i < S;) {
    const size_t n = std::min<size_t>(2, S - i);
    for (size_t k = 0; k < n; ++k) {
      const size_t s = i + k;
      st[k].start_s = 0.0;
      st[k].op_s = in.fwd_s[s];
      if (s + 1 < S)
        set_hop(st[k], A / in.hop_fwd_bytes_per_s[s], in.hop_latency_s[s]);
      else
        set_hop(st[k], 0.0, 0.0);
    }
    run_stages(a, m, st, n);
    for (size_t k = 0; k < n; ++k) sc.last_fwd[i + k] = st[k].end_s;
    i += n;
  }

  // ---- backward, stage S−1 down to 0 over the reverse direction of each hop. A stage starts
  // backward only after its own last forward (GPipe flush): max(Bk[k][j-1], F[k][m-1]) folded
  // into the start, Bk being increasing in j.
  std::fill(a, a + m, 0.0);
  double finish = 0;
  for (size_t done = 0; done < S;) {
    const size_t n = std::min<size_t>(2, S - done);
    for (size_t k = 0; k < n; ++k) {
      const size_t s = S - 1 - (done + k);  // stage index
      st[k].start_s = sc.last_fwd[s];
      st[k].op_s = in.bwd_s[s];
      if (s > 0)
        set_hop(st[k], A / in.hop_bwd_bytes_per_s[s - 1], bwd_lat[s - 1]);
      else
        set_hop(st[k], 0.0, 0.0);
    }
    run_stages(a, m, st, n);
    finish = st[n - 1].end_s;
    if (!in.stage_end_s.empty())
      for (size_t k = 0; k < n; ++k) in.stage_end_s[S - 1 - (done + k)] = st[k].end_s;
    done += n;
  }
  return finish + in.optimizer_step_s;
}

double gpipe_iteration_time(const PipelineInput& in) {
  PipelineScratch sc;
  return gpipe_iteration_time(in, sc);
}

double GPipeSchedule::iteration_time(const PipelineInput& in, PipelineScratch& scratch) const {
  return gpipe_iteration_time(in, scratch);
}

double GPipeSchedule::compute_only_time(std::span<const double> fwd_s, std::span<const double> bwd_per_fwd,
                                        int micro_batches, double optimizer_step_s, PipelineScratch&) const {
  assert(bwd_per_fwd.size() == fwd_s.size());
  // Without communication each pass is a flow shop of m equal jobs: the forwards end at
  // Σ f + (m−1)·max f, and the backwards, which start on the last stage when its forwards end,
  // take Σ b + (m−1)·max b more. With one backward ratio for all stages the two maxima are on
  // the same stage and this is (m−1)·max u + Σ u, bit for bit.
  double sum = 0, max_f = 0, max_b = 0;
  for (size_t i = 0; i < fwd_s.size(); ++i) {
    const double f = fwd_s[i], b = backward_time(f, bwd_per_fwd[i]);
    sum += compute_time(f, bwd_per_fwd[i]);
    max_f = std::max(max_f, f);
    max_b = std::max(max_b, b);
  }
  return (micro_batches - 1) * (max_f + max_b) + sum + optimizer_step_s;
}

}  // namespace geopipe
