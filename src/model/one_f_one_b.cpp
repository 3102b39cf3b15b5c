#include "model/one_f_one_b.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include "model/job.h"

namespace geopipe {

namespace {

/// The op at position k (0..2m−1) of stage i's sequence: micro-batch index, and whether it is
/// a forward. w = min(S−1−i, m) warm-up forwards.
struct Op {
  int micro_batch;
  bool forward;
};

Op op_at(int k, int w, int m) {
  if (k < w) return {k, true};
  if (k >= 2 * m - w) return {k - m, false};
  const int q = k - w;
  return (q % 2 == 0) ? Op{w + q / 2, true} : Op{(q - 1) / 2, false};
}

}  // namespace

double one_f_one_b_iteration_time(const PipelineInput& in, PipelineScratch& sc) {
  const int S = static_cast<int>(in.fwd_s.size());
  const int m = in.micro_batches;
  assert(S >= 1 && m >= 1 && static_cast<int>(in.bwd_s.size()) == S);
  assert(static_cast<int>(in.hop_fwd_bytes_per_s.size()) + 1 == S &&
         static_cast<int>(in.hop_bwd_bytes_per_s.size()) + 1 == S && static_cast<int>(in.hop_latency_s.size()) + 1 == S);
  assert(in.hop_bwd_latency_s.empty() || static_cast<int>(in.hop_bwd_latency_s.size()) + 1 == S);
  const std::span<const double> bwd_lat = in.hop_bwd_latency_s.empty() ? in.hop_latency_s : in.hop_bwd_latency_s;
  const double A = in.activation_bytes;
  const auto Su = static_cast<size_t>(S);
  // In flight towards a stage: at most w + 1 <= S inputs produced and not yet consumed (a
  // stage's forward j > w needs its backward j − w − 1 first, which needs the next stage's), so
  // a ring of min(m, S + 1) slots per stage holds them.
  const int C = std::min(m, S + 1);
  const auto slots = Su * static_cast<size_t>(C);
  sc.arrive.assign(slots, 0.0);  // activation of micro-batch j reaches stage i: arrive[i·C + j % C]
  sc.done.assign(slots, 0.0);    // gradient of micro-batch j reaches stage i: done[i·C + j % C]
  sc.stage_free.assign(Su, 0.0);
  sc.fwd_link_free.assign(Su, 0.0);  // hop i, direction i -> i+1
  sc.bwd_link_free.assign(Su, 0.0);  // hop i, direction i+1 -> i
  sc.next_op.assign(Su, 0);
  sc.fwd_arrived.assign(Su, 0);  // activations that have reached stage i (0..m)
  sc.bwd_arrived.assign(Su, 0);  // gradients that have reached stage i
  sc.blocked.assign(Su, 0);
  sc.worklist.clear();
  for (int i = S; i-- > 0;) sc.worklist.push_back(i);
  int ops_left = 2 * S * m;
  while (!sc.worklist.empty()) {
    const int i = sc.worklist.back();
    sc.worklist.pop_back();
    const auto iu = static_cast<size_t>(i);
    const int w = std::min(S - 1 - i, m);
    sc.blocked[iu] = 0;
    while (sc.next_op[iu] < 2 * m) {
      const Op op = op_at(sc.next_op[iu], w, m);
      const auto slot = iu * static_cast<size_t>(C) + static_cast<size_t>(op.micro_batch % C);
      double ready = 0;
      if (op.forward) {
        if (i > 0) {
          if (op.micro_batch >= sc.fwd_arrived[iu]) break;
          ready = sc.arrive[slot];
        }
      } else if (i + 1 < S) {
        if (op.micro_batch >= sc.bwd_arrived[iu]) break;
        ready = sc.done[slot];
      }  // the last stage's backward follows its own forward in its sequence
      const double end = std::max(sc.stage_free[iu], ready) + (op.forward ? in.fwd_s[iu] : in.bwd_s[iu]);
      sc.stage_free[iu] = end;
      ++sc.next_op[iu];
      --ops_left;
      if (op.forward && i + 1 < S) {
        const double send = std::max(end, sc.fwd_link_free[iu]);
        sc.fwd_link_free[iu] = send + A / in.hop_fwd_bytes_per_s[iu];
        const auto to = iu + 1;
        assert(op.micro_batch == sc.fwd_arrived[to]);
        sc.arrive[to * static_cast<size_t>(C) + static_cast<size_t>(op.micro_batch % C)] =
            sc.fwd_link_free[iu] + in.hop_latency_s[iu];
        ++sc.fwd_arrived[to];
        if (sc.blocked[to]) {
          sc.blocked[to] = 0;
          sc.worklist.push_back(i + 1);
        }
      } else if (!op.forward && i > 0) {
        const auto to = iu - 1;
        const double send = std::max(end, sc.bwd_link_free[to]);
        sc.bwd_link_free[to] = send + A / in.hop_bwd_bytes_per_s[to];
        assert(op.micro_batch == sc.bwd_arrived[to]);
        sc.done[to * static_cast<size_t>(C) + static_cast<size_t>(op.micro_batch % C)] = sc.bwd_link_free[to] + bwd_lat[to];
        ++sc.bwd_arrived[to];
        if (sc.blocked[to]) {
          sc.blocked[to] = 0;
          sc.worklist.push_back(i - 1);
        }
      }
    }
    if (sc.next_op[iu] < 2 * m) sc.blocked[iu] = 1;
  }
  assert(ops_left == 0);  // 1F1B cannot deadlock
  (void)ops_left;
  // every stage's last operation is a backward (1F1B ends with its cool-down backwards)
  if (!in.stage_end_s.empty())
    for (size_t i = 0; i < Su; ++i) in.stage_end_s[i] = sc.stage_free[i];
  return sc.stage_free[0] + in.optimizer_step_s;
}

double OneFOneBSchedule::iteration_time(const PipelineInput& in, PipelineScratch& scratch) const {
  return one_f_one_b_iteration_time(in, scratch);
}

double OneFOneBSchedule::compute_only_time(std::span<const double> fwd_s, std::span<const double> bwd_per_fwd,
                                           int micro_batches, double optimizer_step_s, PipelineScratch& scratch) const {
  const size_t S = fwd_s.size();
  assert(bwd_per_fwd.size() == S);
  thread_local std::vector<double> bwd, inf, zero;
  bwd.resize(S);
  inf.assign(S - 1, std::numeric_limits<double>::infinity());
  zero.assign(S - 1, 0.0);
  for (size_t i = 0; i < S; ++i) bwd[i] = backward_time(fwd_s[i], bwd_per_fwd[i]);
  PipelineInput in;
  in.micro_batches = micro_batches;
  in.fwd_s = fwd_s;
  in.bwd_s = bwd;
  in.hop_fwd_bytes_per_s = inf;
  in.hop_bwd_bytes_per_s = inf;
  in.hop_latency_s = zero;
  in.activation_bytes = 0;
  in.optimizer_step_s = optimizer_step_s;
  return one_f_one_b_iteration_time(in, scratch);
}

int OneFOneBSchedule::stashed_micro_batches(int stage, int stages, int micro_batches) const {
  return std::min(micro_batches, stages - stage);
}

}  // namespace geopipe
