#include "model/gpipe.h"

#include <algorithm>
#include <cassert>

#include "model/job.h"

namespace geopipe {

double gpipe_iteration_time(const PipelineInput& in, PipelineScratch& sc) {
  const auto S = in.fwd_s.size();
  const auto m = static_cast<size_t>(in.micro_batches);
  assert(S >= 1 && m >= 1 && in.bwd_s.size() == S);
  assert(in.hop_fwd_bytes_per_s.size() + 1 == S && in.hop_bwd_bytes_per_s.size() + 1 == S &&
         in.hop_latency_s.size() + 1 == S);
  assert(in.hop_bwd_latency_s.empty() || in.hop_bwd_latency_s.size() + 1 == S);
  const std::span<const double> bwd_lat = in.hop_bwd_latency_s.empty() ? in.hop_latency_s : in.hop_bwd_latency_s;
  const double A = in.activation_bytes;
  sc.done.resize(m);
  sc.arrive.resize(m);
  sc.last_fwd.resize(S);

  // ---- forward: stage by stage; `arrive[j]` = when micro-batch j's input reaches stage i.
  // Stage 0 has all its inputs at t = 0.
  std::fill(sc.arrive.begin(), sc.arrive.end(), 0.0);
  for (size_t i = 0; i < S; ++i) {
    const double f = in.fwd_s[i];
    double prev = 0;  // F[i][j-1]
    for (size_t j = 0; j < m; ++j) {
      prev = std::max(prev, sc.arrive[j]) + f;
      sc.done[j] = prev;
    }
    sc.last_fwd[i] = prev;
    if (i + 1 < S) {
      const double occ = A / in.hop_fwd_bytes_per_s[i];
      const double lat = in.hop_latency_s[i];
      double link_free = 0;
      for (size_t j = 0; j < m; ++j) {
        const double send = std::max(sc.done[j], link_free);
        link_free = send + occ;
        sc.arrive[j] = link_free + lat;
      }
    }
  }

  // ---- backward: from stage S−1 down to 0 over the reverse direction of each hop. A stage
  // starts backward only after its own last forward (GPipe flush).
  std::fill(sc.arrive.begin(), sc.arrive.end(), 0.0);
  double finish = 0;
  for (size_t k = S; k-- > 0;) {
    const double b = in.bwd_s[k];
    double prev = sc.last_fwd[k];  // max(Bk[k][j-1], F[k][m-1]) folded: Bk is increasing in j
    for (size_t j = 0; j < m; ++j) {
      prev = std::max(prev, sc.arrive[j]) + b;
      sc.done[j] = prev;
    }
    finish = prev;
    if (k > 0) {
      const double occ = A / in.hop_bwd_bytes_per_s[k - 1];
      const double lat = bwd_lat[k - 1];
      double link_free = 0;
      for (size_t j = 0; j < m; ++j) {
        const double send = std::max(sc.done[j], link_free);
        link_free = send + occ;
        sc.arrive[j] = link_free + lat;
      }
    }
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

double GPipeSchedule::compute_only_time(std::span<const double> fwd_s, int micro_batches, double optimizer_step_s,
                                        PipelineScratch&) const {
  double sum = 0, mx = 0;
  for (const double f : fwd_s) {
    const double u = compute_time(f);
    sum += u;
    mx = std::max(mx, u);
  }
  return (micro_batches - 1) * mx + sum + optimizer_step_s;
}

}  // namespace geopipe
