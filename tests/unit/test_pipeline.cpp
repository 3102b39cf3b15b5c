// GPipe recurrence (docs/model.md, "Pipeline schedules") against closed forms and hand-computed
// schedules, and bit for bit against the plain stage-by-stage recurrence.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "model/gpipe.h"
#include "model/rng.h"
#include "unit_common.h"

namespace geopipe {
namespace {

using testutil::kInf;

struct Pipe {
  std::vector<double> f, b, bwf, bwb, lat;
  double A = 1.0;
  int m = 1;
  double opt = 0;
  double time() const {
    PipelineInput in;
    in.micro_batches = m;
    in.fwd_s = f;
    in.bwd_s = b;
    in.hop_fwd_bytes_per_s = bwf;
    in.hop_bwd_bytes_per_s = bwb;
    in.hop_latency_s = lat;
    in.activation_bytes = A;
    in.optimizer_step_s = opt;
    return gpipe_iteration_time(in);
  }
};

Pipe uniform(int S, int m, double f, double b, double bw, double lat) {
  Pipe p;
  p.m = m;
  p.f.assign(static_cast<size_t>(S), f);
  p.b.assign(static_cast<size_t>(S), b);
  p.bwf.assign(static_cast<size_t>(S - 1), bw);
  p.bwb.assign(static_cast<size_t>(S - 1), bw);
  p.lat.assign(static_cast<size_t>(S - 1), lat);
  return p;
}

TEST(Pipeline, ClosedFormEqualStagesInfiniteBandwidth) {
  // T = (m + S − 1)(f + b) for every S, m.
  for (int S : {1, 2, 3, 4, 8, 16})
    for (int m : {1, 2, 4, 7, 32}) {
      const double f = 0.25, b = 0.5;
      EXPECT_DOUBLE_EQ(uniform(S, m, f, b, kInf, 0.0).time(), (m + S - 1) * (f + b)) << "S=" << S << " m=" << m;
    }
}

TEST(Pipeline, SingleStageIsSerial) {
  Pipe p = uniform(1, 5, 1.0, 2.0, kInf, 0.0);
  EXPECT_DOUBLE_EQ(p.time(), 15.0);
  p.opt = 0.5;  // optimizer-step constant is added once
  EXPECT_DOUBLE_EQ(p.time(), 15.5);
}

TEST(Pipeline, UnequalStagesBottleneckFormula) {
  // Free communication: T = Σ(f_i+b_i) + (m−1)·max_i(f_i) + (m−1)·max_i(b_i).
  Pipe p = uniform(3, 6, 0, 0, kInf, 0.0);
  p.f = {1.0, 3.0, 2.0};
  p.b = {2.0, 6.0, 4.0};
  EXPECT_DOUBLE_EQ(p.time(), (1 + 3 + 2 + 2 + 6 + 4) + 5 * 3.0 + 5 * 6.0);
}

TEST(Pipeline, SlowLinkMakesPipelineLinkBound) {
  // S = 2, f = 1, b = 2, A/B = 5 s per transfer, no latency. Hand schedule:
  //  forward sends at 1, 6, 11, ... (link-bound), arrivals 6 + 5j, F1[j] = 7 + 5j;
  //  backward on stage 1 starts after F1[m−1] = 5m + 2, Bk1[j] = 5m + 4 + 2j; the reverse link
  //  sends at 5m + 4 + 5j, arrivals 5m + 9 + 5j; Bk0[j] = 5m + 11 + 5j; T = Bk0[m−1] = 10m + 6.
  for (int m : {1, 2, 4, 8}) {
    Pipe p = uniform(2, m, 1.0, 2.0, 1.0 / 5.0, 0.0);  // A = 1 byte, B = 0.2 B/s
    EXPECT_DOUBLE_EQ(p.time(), 10.0 * m + 6.0) << "m=" << m;
  }
  // And it is link-bound: much slower than the compute-only (m + 1)(f + b).
  EXPECT_GT(uniform(2, 8, 1.0, 2.0, 0.2, 0.0).time(), 2.5 * uniform(2, 8, 1.0, 2.0, kInf, 0.0).time());
}

TEST(Pipeline, FastLinkDoesNotStall) {
  // A/B <= min f: transfers add A/B once per hop per direction (pipeline fill/drain) only.
  const int S = 4, m = 8;
  const double f = 1.0, b = 2.0, occ = 0.5;
  Pipe p = uniform(S, m, f, b, 1.0 / occ, 0.0);
  EXPECT_DOUBLE_EQ(p.time(), (m + S - 1) * (f + b) + 2 * (S - 1) * occ);
}

TEST(Pipeline, LatencyAddsOncePerHopPerDirection) {
  for (int S : {2, 3, 6})
    for (int m : {1, 4, 16}) {
      const double f = 0.3, b = 0.6, lat = 0.05;
      EXPECT_NEAR(uniform(S, m, f, b, kInf, lat).time(), (m + S - 1) * (f + b) + 2 * (S - 1) * lat, 1e-12)
          << "S=" << S << " m=" << m;
    }
}

TEST(Pipeline, AsymmetricLinkUsesDirectionPerPass) {
  // Only the backward direction is slow: forward is compute-bound, backward link-bound.
  Pipe fast = uniform(2, 4, 1.0, 2.0, kInf, 0.0);
  Pipe slow_bwd = fast;
  slow_bwd.bwb = {1.0 / 5.0};
  Pipe slow_fwd = fast;
  slow_fwd.bwf = {1.0 / 5.0};
  EXPECT_GT(slow_bwd.time(), fast.time());
  EXPECT_GT(slow_fwd.time(), fast.time());
  EXPECT_NE(slow_bwd.time(), slow_fwd.time());
  // Backward hand schedule (m = 4): F1[3] = 5, Bk1[j] = 5 + 2(j+1) = 7, 9, 11, 13; reverse link
  // (occ 5): sends 7, 12, 17, 22 -> arrive 12, 17, 22, 27; Bk0 = 14, 19, 24, 29.
  EXPECT_DOUBLE_EQ(slow_bwd.time(), 29.0);
}

TEST(Pipeline, MonotoneInBandwidthAndLatency) {
  double prev = 0;
  for (double bw : {100.0, 10.0, 2.0, 1.0, 0.5, 0.1}) {
    const double t = uniform(4, 8, 1.0, 2.0, bw, 0.0).time();
    EXPECT_GE(t, prev);
    prev = t;
  }
  EXPECT_LT(uniform(4, 8, 1.0, 2.0, 1.0, 0.01).time(), uniform(4, 8, 1.0, 2.0, 1.0, 0.1).time());
}

TEST(Pipeline, ScratchReuseGivesSameResult) {
  PipelineScratch sc;
  Pipe a = uniform(5, 16, 0.1, 0.2, 3.0, 0.02);
  Pipe b = uniform(2, 3, 1.0, 2.0, 0.2, 0.0);
  PipelineInput in;
  auto run = [&](const Pipe& p) {
    in.micro_batches = p.m;
    in.fwd_s = p.f;
    in.bwd_s = p.b;
    in.hop_fwd_bytes_per_s = p.bwf;
    in.hop_bwd_bytes_per_s = p.bwb;
    in.hop_latency_s = p.lat;
    in.activation_bytes = p.A;
    return gpipe_iteration_time(in, sc);
  };
  const double ta = run(a), tb = run(b);
  EXPECT_EQ(run(a), ta);
  EXPECT_EQ(run(b), tb);
  EXPECT_EQ(ta, a.time());
}

}  // namespace
}  // namespace geopipe

namespace geopipe {
namespace {
TEST(Pipeline, BackwardLatencyPerDirection) {
  // Free bandwidth; forward latency 0.1 on every hop, backward 0.3: T = (m+S−1)(f+b) + (S−1)(0.1+0.3).
  const int S = 3, m = 4;
  std::vector<double> f(S, 1.0), b(S, 2.0), inf(S - 1, std::numeric_limits<double>::infinity());
  std::vector<double> lf(S - 1, 0.1), lb(S - 1, 0.3);
  PipelineInput in;
  in.micro_batches = m;
  in.fwd_s = f;
  in.bwd_s = b;
  in.hop_fwd_bytes_per_s = inf;
  in.hop_bwd_bytes_per_s = inf;
  in.hop_latency_s = lf;
  in.hop_bwd_latency_s = lb;
  in.activation_bytes = 1;
  EXPECT_NEAR(gpipe_iteration_time(in), (m + S - 1) * 3.0 + (S - 1) * 0.4, 1e-12);
}
}  // namespace
}  // namespace geopipe

namespace geopipe {
namespace {

/// The GPipe recurrence written the plain way, stage by stage: each stage's m completions, then
/// the hop's m transfers (the implementation before the two-stage wavefront).
double stage_by_stage_gpipe(const PipelineInput& in) {
  const auto S = in.fwd_s.size();
  const auto m = static_cast<size_t>(in.micro_batches);
  const std::span<const double> bwd_lat = in.hop_bwd_latency_s.empty() ? in.hop_latency_s : in.hop_bwd_latency_s;
  const double A = in.activation_bytes;
  std::vector<double> done(m), arrive(m, 0.0), last_fwd(S);
  for (size_t i = 0; i < S; ++i) {
    double prev = 0;
    for (size_t j = 0; j < m; ++j) {
      prev = std::max(prev, arrive[j]) + in.fwd_s[i];
      done[j] = prev;
    }
    last_fwd[i] = prev;
    if (i + 1 < S) {
      const double occ = A / in.hop_fwd_bytes_per_s[i];
      double link_free = 0;
      for (size_t j = 0; j < m; ++j) {
        const double send = std::max(done[j], link_free);
        link_free = send + occ;
        arrive[j] = link_free + in.hop_latency_s[i];
      }
    }
  }
  std::fill(arrive.begin(), arrive.end(), 0.0);
  double finish = 0;
  for (size_t k = S; k-- > 0;) {
    double prev = last_fwd[k];
    for (size_t j = 0; j < m; ++j) {
      prev = std::max(prev, arrive[j]) + in.bwd_s[k];
      done[j] = prev;
    }
    finish = prev;
    if (k > 0) {
      const double occ = A / in.hop_bwd_bytes_per_s[k - 1];
      double link_free = 0;
      for (size_t j = 0; j < m; ++j) {
        const double send = std::max(done[j], link_free);
        link_free = send + occ;
        arrive[j] = link_free + bwd_lat[k - 1];
      }
    }
  }
  return finish + in.optimizer_step_s;
}

TEST(Pipeline, WavefrontIsTheStageByStageRecurrence) {
  // Bit for bit, on random pipelines with odd and even stage counts, free hops (infinite
  // bandwidth and no latency: the engine's compute-only time), infinite bandwidth with latency,
  // zero latency with finite bandwidth, asymmetric latencies, and links slow enough to bind.
  Rng rng(20261202);
  PipelineScratch scratch;  // shared across instances, as in the engine
  int free_hops = 0, bound_by_link = 0;
  for (int n = 0; n < 4000; ++n) {
    const int S = 1 + static_cast<int>(rng.below(9));
    const int m = 1 + static_cast<int>(rng.below(12));
    const bool all_free = rng.uniform() < 0.2;
    std::vector<double> f, b, bwf, bwb, lf, lb;
    for (int i = 0; i < S; ++i) {
      f.push_back(rng.uniform(0.01, 2.0));
      b.push_back(rng.uniform() < 0.5 ? 2 * f.back() : rng.uniform(0.01, 4.0));
    }
    const bool asym = rng.uniform() < 0.3;
    for (int h = 0; h + 1 < S; ++h) {
      auto bw = [&] { return all_free || rng.uniform() < 0.25 ? kInf : rng.uniform(0.05, 5.0); };
      bwf.push_back(bw());
      bwb.push_back(bw());
      lf.push_back(all_free || rng.uniform() < 0.3 ? 0.0 : rng.uniform(0.0, 1.0));
      if (asym) lb.push_back(all_free || rng.uniform() < 0.3 ? 0.0 : rng.uniform(0.0, 1.0));
      free_hops += bwf.back() == kInf && lf.back() == 0.0;
      bound_by_link += bwf.back() < 0.5;
    }
    PipelineInput in;
    in.micro_batches = m;
    in.fwd_s = f;
    in.bwd_s = b;
    in.hop_fwd_bytes_per_s = bwf;
    in.hop_bwd_bytes_per_s = bwb;
    in.hop_latency_s = lf;
    in.hop_bwd_latency_s = lb;
    in.activation_bytes = rng.uniform(0.1, 3.0);
    in.optimizer_step_s = rng.uniform() < 0.3 ? rng.uniform(0.0, 1.0) : 0.0;
    const double ref = stage_by_stage_gpipe(in);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(gpipe_iteration_time(in, scratch)), std::bit_cast<std::uint64_t>(ref))
        << "instance " << n << " S=" << S << " m=" << m << ": " << gpipe_iteration_time(in, scratch) << " vs " << ref;
  }
  EXPECT_GT(free_hops, 1000);
  EXPECT_GT(bound_by_link, 500);
}

}  // namespace
}  // namespace geopipe
