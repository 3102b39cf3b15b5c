// The pathfinder's entry: a search sets up its tables and runs the region-set search or the
// plain DFS (sched/pathfinder.h; the parts: sched/pathfinder_impl.h).
#include "sched/pathfinder.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "sched/pathfinder_impl.h"
#include "sim/energy.h"

namespace geopipe {

using pathfinder_internal::kInf;
using pathfinder_internal::size_at_least;

Pathfinder::Pathfinder() : impl_(std::make_unique<Impl>()) {}
Pathfinder::~Pathfinder() = default;
Pathfinder::Pathfinder(Pathfinder&&) noexcept = default;
Pathfinder& Pathfinder::operator=(Pathfinder&&) noexcept = default;

SearchResult Pathfinder::search(const JobProfile& p, const ClusterView& view, const SearchSpec& spec) {
  if (!impl_) impl_ = std::make_unique<Impl>();  // moved from
#ifdef NDEBUG
  return impl_->search(p, view, spec);
#else
  SearchResult r = impl_->search(p, view, spec);
  if (spec.same_job_and_view) {  // kept tables: the same search from scratch must agree bit for bit
    SearchSpec fresh_spec = spec;
    fresh_spec.same_job_and_view = false;
    Impl fresh;
    const SearchResult f = fresh.search(p, view, fresh_spec);
    auto same_bits = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
    bool same = r.found == f.found && r.nodes == f.nodes && r.truncated == f.truncated &&
                same_bits(r.objective, f.objective) && same_bits(r.est_iteration_s, f.est_iteration_s) &&
                r.placement.stage_region == f.placement.stage_region && r.incumbents.size() == f.incumbents.size();
    for (size_t k = 0; same && k < r.incumbents.size(); ++k)
      same = r.incumbents[k].stage_region == f.incumbents[k].stage_region;
    assert(same && "Pathfinder::search: a search with kept tables differs from the same search from scratch");
  }
  return r;
#endif
}

SearchResult Pathfinder::Impl::search(const JobProfile& p, const ClusterView& view, const SearchSpec& spec) {
  p_ = &p;
  view_ = &view;
  spec_ = spec;
  S_ = p.stages;
  R_ = view.regions();
  m_ = p.micro_batches;
  mm1_ = view.compute->schedule().bottleneck_weight(m_);
  const Topology& topo = *view.topo;
  const ComputeOptions& opt = *view.compute;
  const int g = p.gpus_per_stage;
  intra_c_ = intra_hop_comm_s(p.activation_bytes, topo);
  intra_lat_ = intra_hop_latency_s(topo);
  opt_step_ = opt.optimizer_step_s;
  intra_step_ = intra_c_ + intra_lat_;
  size_at_least(intra_hops_s_, static_cast<size_t>(S_ + 1));
  for (int n = 0; n <= S_; ++n) intra_hops_s_[static_cast<size_t>(n)] = n * intra_step_;
  const bool cost = spec.objective == SearchSpec::Objective::kMinCost;
  const bool cap_known = std::isfinite(spec.time_cap_s);
  const double T_for_cost = cap_known ? spec.time_cap_s : 0.0;

  // Every table below is written whole (its first R·S or R·(S+1) entries) by the loops that
  // follow: sized, not filled (fills were ~5 % of a million-job run's instructions), and never
  // shrunk (size_at_least); only the prefix sums' first entries are set here.
  const auto RS = static_cast<size_t>(R_ * S_);
  size_at_least(unit_, RS);
  size_at_least(fwd_, RS);
  size_at_least(coef_, RS);
  size_at_least(run_, RS);
  cap_.resize(static_cast<size_t>(R_));
  size_at_least(unit_prefix_, static_cast<size_t>(R_ * (S_ + 1)));
  size_at_least(coef_prefix_, static_cast<size_t>(R_ * (S_ + 1)));
  // The previous search's job-only tables serve this one when the caller promises the same
  // job and view (SearchSpec::same_job_and_view) and they were built for these objects and
  // these free GPUs (so the same cap_ and, the job unchanged, the same unit_, fwd_ and
  // unit_prefix_: then only the cost coefficients are computed below).
  const bool keep_unit = spec.same_job_and_view && built_for_p_ == &p && built_for_view_ == &view &&
                         built_for_free_ == view.free_gpus;
  for (int r = 0; r < R_; ++r) {
    cap_[static_cast<size_t>(r)] = view.free_gpus[static_cast<size_t>(r)] / g;
    const Region& reg = topo.regions[static_cast<size_t>(r)];
    const GpuType& gpu = topo.gpu_of(r);
    const double price = cost ? reg.price.mean_usd_per_kwh(view.now_s, view.now_s + p.iterations * T_for_cost) : 0.0;
    unit_prefix_[static_cast<size_t>(r * (S_ + 1))] = 0.0;
    coef_prefix_[static_cast<size_t>(r * (S_ + 1))] = 0.0;
    // Stage i's cost coefficient on region r from its forward time f (kInf where the stage
    // does not fit): energy per iteration at the time cap (docs/model.md, "Cost-min
    // allocator"); without a cap only the busy energy counts.
    auto coefficient = [&](int i, double f, bool ok) {
      if (!cost) return 0.0;
      const double busy = stage_busy_per_iteration_s(m_, f, p.bwd_per_fwd[static_cast<size_t>(i)]);
      const double j = stage_energy_per_iteration_j(g, reg.pue, gpu, busy, cap_known ? spec.time_cap_s : busy);
      return ok ? energy_cost_usd(p.iterations * j, price) : kInf;
    };
    if (keep_unit) {
      // unit_, fwd_ and unit_prefix_ are the previous search's (fwd_ is the forward time where
      // the stage fits, kInf where it does not); the coefficient is a function of the two and
      // of the stage's backward ratio, so a stage with the previous one's copies it (checked as
      // above).
      double cp = 0;
      for (int i = 0; i < S_; ++i) {
        const auto k = static_cast<size_t>(r * S_ + i);
        const bool ok = unit_[k] < kInf;
        if (i > 0 && fwd_[k] == fwd_[k - 1] && ok == (unit_[k - 1] < kInf) &&
            p.bwd_per_fwd[static_cast<size_t>(i)] == p.bwd_per_fwd[static_cast<size_t>(i - 1)]) {
          coef_[k] = coef_[k - 1];
#ifndef NDEBUG
          const double own = coefficient(i, fwd_[k], ok);
          assert(std::memcmp(&own, &coef_[k], sizeof(double)) == 0 && "search: a stage's copied cost coefficient differs from its own");
#endif
        } else {
          coef_[k] = coefficient(i, fwd_[k], ok);
        }
        cp += ok ? coef_[k] : 0.0;
        coef_prefix_[static_cast<size_t>(r * (S_ + 1) + i + 1)] = cp;
      }
      continue;
    }
    const double speed = stage_speed(p, gpu, opt);
    // Stage i's figures on region r: its forward time, its unit time f + b and its cost
    // coefficient (kInf where the stage does not fit).
    struct Figures {
      double unit, fwd, coef;
    };
    auto figures = [&](int i, bool ok) {
      const double f = forward_time(p.fwd_flops[static_cast<size_t>(i)], speed);
      const double u = compute_time(f, p.bwd_per_fwd[static_cast<size_t>(i)]);
      return Figures{ok ? u : kInf, ok ? f : kInf, coefficient(i, f, ok)};
    };
    double up = 0, cp = 0;
    bool prev_ok = false;
    for (int i = 0; i < S_; ++i) {
      const auto k = static_cast<size_t>(r * S_ + i);
      const bool ok = p.stage_fits(i, gpu);
      // A stage with the previous stage's FLOP, backward ratio and fit (the interior stages of
      // an even split) has its figures, which are functions of those alone on region r:
      // copied, not recomputed (checked against a recomputation in builds with assertions,
      // the sanitizer builds).
      if (i > 0 && ok == prev_ok && p.fwd_flops[static_cast<size_t>(i)] == p.fwd_flops[static_cast<size_t>(i - 1)] &&
          p.bwd_per_fwd[static_cast<size_t>(i)] == p.bwd_per_fwd[static_cast<size_t>(i - 1)]) {
        unit_[k] = unit_[k - 1];
        fwd_[k] = fwd_[k - 1];
        coef_[k] = coef_[k - 1];
#ifndef NDEBUG
        const Figures fresh = figures(i, ok);
        assert(std::memcmp(&fresh.unit, &unit_[k], sizeof(double)) == 0 &&
               std::memcmp(&fresh.fwd, &fwd_[k], sizeof(double)) == 0 &&
               std::memcmp(&fresh.coef, &coef_[k], sizeof(double)) == 0 &&
               "search: a stage's copied figures differ from its own");
#endif
      } else {
        const Figures fig = figures(i, ok);
        unit_[k] = fig.unit;
        fwd_[k] = fig.fwd;
        coef_[k] = fig.coef;
      }
      prev_ok = ok;
      const double u = unit_[k];
      up += ok ? u : 0.0;
      cp += ok ? coef_[k] : 0.0;
      unit_prefix_[static_cast<size_t>(r * (S_ + 1) + i + 1)] = up;
      coef_prefix_[static_cast<size_t>(r * (S_ + 1) + i + 1)] = cp;
    }
  }
  if (!keep_unit) {
    min_hop_time_ = kInf;
    size_at_least(hop_lat_, static_cast<size_t>(R_ * R_));
    for (int a = 0; a < R_; ++a)
      for (int b = 0; b < R_; ++b) {
        hop_lat_[static_cast<size_t>(a * R_ + b)] = kInf;
        if (a != b && topo.connected(a, b)) {
          const double rt = hop_round_trip_s(topo, a, b);
          hop_lat_[static_cast<size_t>(a * R_ + b)] = rt;
          min_hop_time_ = std::min(min_hop_time_, rt);
        }
      }
    if (min_hop_time_ == kInf) min_hop_time_ = 0;
    min_lat_from_.assign(static_cast<size_t>(R_), kInf);
    for (int a = 0; a < R_; ++a)
      for (int b = 0; b < R_; ++b)
        min_lat_from_[static_cast<size_t>(a)] = std::min(min_lat_from_[static_cast<size_t>(a)], hop_lat_[static_cast<size_t>(a * R_ + b)]);
  }
  // The cost objective adds each cross-region hop's egress (docs/model.md, "Cost-min
  // allocator"); it is >= 0, so the stage-only lower bounds stay admissible.
  size_at_least(hop_egress_, static_cast<size_t>(R_ * R_));
  for (int a = 0; a < R_; ++a)
    for (int b = 0; b < R_; ++b)
      hop_egress_[static_cast<size_t>(a * R_ + b)] =
          cost && a != b && topo.connected(a, b)
              ? p.iterations * hop_egress_usd_per_iteration(m_, p.activation_bytes, topo.link(a, b), topo.link(b, a))
              : 0.0;

  const bool any_stage_impossible = derive_tables(keep_unit);
  built_for_p_ = &p;
  built_for_view_ = &view;
  built_for_free_ = view.free_gpus;
  // The tight bounds and the set search need the hop tables (O(R²) per search); on shallow
  // pipelines the plain DFS is cheaper with the reference bounds, which reach the same result
  // (SearchSpec::bounds), so the tables are built only where they pay.
  const bool sets = !spec.stop_at_first && region_sets_apply();
  tight_ = spec.bounds == SearchSpec::Bounds::kTight && !spec.stop_at_first && (sets || S_ >= kTightMinStages);
  if (tight_ || sets) {
    compute_hop_bounds();
    order_neighbours();
  }

  best_obj_ = kInf;
  best_T_ = kInf;
  best_r_.clear();
  best_len_.clear();
  incumbents_.clear();
  nodes_ = 0;
  truncated_ = false;
  stop_ = false;
  path_r_.clear();
  path_len_.clear();
  size_at_least(blockmax_buf_, static_cast<size_t>(std::max(spec.max_blocks, 1)) * static_cast<size_t>(S_ + 1));  // written before read (dfs)
  const auto depth_rows = static_cast<size_t>(std::max(spec.max_blocks, 1)) * static_cast<size_t>(R_ + 1);
  size_at_least(topcap_buf_, depth_rows);
  size_at_least(topreg_buf_, depth_rows);
  size_at_least(capk_buf_, depth_rows);
  size_at_least(next_buf_, depth_rows);
  full_ = R_ >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << R_) - 1;
  require_all_ = false;
  if (!any_stage_impossible && R_ <= 64) {
    int cap_total = 0;
    for (int c : cap_) cap_total += c;
    compute_symmetry();  // both searches take interchangeable regions in index order only
    if (cap_total >= S_ && (spec.stop_at_first || !search_by_region_sets(cap_total))) {
      memo_clear();
      dfs(0, -1, 0, 0, cap_total, 0.0, 0.0, 0.0);
    }
  }

  SearchResult res;
  res.nodes = nodes_;
  res.truncated = truncated_;
  res.incumbents = std::move(incumbents_);
  incumbents_ = {};
  if (best_r_.empty()) return res;
  res.found = true;
  res.objective = best_obj_;
  res.est_iteration_s = best_T_;
  res.placement.stage_region.reserve(static_cast<size_t>(S_));
  for (size_t b = 0; b < best_r_.size(); ++b)
    for (int k = 0; k < best_len_[b]; ++k) res.placement.stage_region.push_back(best_r_[b]);
  return res;
}

bool Pathfinder::Impl::derive_tables(bool keep_unit) {
  const bool cost = spec_.objective == SearchSpec::Objective::kMinCost;
  for (int r = 0; r < R_ && !keep_unit; ++r) {
    int runlen = 0;
    for (int i = S_ - 1; i >= 0; --i) {
      const auto k = static_cast<size_t>(r * S_ + i);
      runlen = unit_[k] < kInf ? runlen + 1 : 0;
      run_[k] = runlen;
    }
  }
  bool any_stage_impossible = false;
  // Suffix lower bounds over regions that could take the stage at all.
  // Written for i = S-1 .. 0 below; only the sentinel at S is set here.
  size_at_least(lb_sum_, static_cast<size_t>(S_ + 1));
  size_at_least(lb_max_, static_cast<size_t>(S_ + 1));
  size_at_least(lb_obj_, static_cast<size_t>(S_ + 1));
  lb_sum_[static_cast<size_t>(S_)] = lb_max_[static_cast<size_t>(S_)] = lb_obj_[static_cast<size_t>(S_)] = 0.0;
  order_.reset(S_);
  // twin_[i]: stage i has stage i+1's FLOP, backward ratio and memory, so the same fit on
  // every region, and search() gave it stage i+1's figures bit for bit (copied). Such a stage
  // shares whatever the loops below derive from the figures alone; builds with assertions
  // check each share.
  size_at_least(twin_, static_cast<size_t>(S_));
  for (int i = 0; i < S_; ++i)
    twin_[static_cast<size_t>(i)] =
        i + 1 < S_ && p_->fwd_flops[static_cast<size_t>(i)] == p_->fwd_flops[static_cast<size_t>(i + 1)] &&
        p_->bwd_per_fwd[static_cast<size_t>(i)] == p_->bwd_per_fwd[static_cast<size_t>(i + 1)] &&
        p_->memory_bytes[static_cast<size_t>(i)] == p_->memory_bytes[static_cast<size_t>(i + 1)];
  // A stage whose figures equal the next stage's on every region (the interior stages of an
  // even split) shares that stage's order instead of sorting again.
  auto figures_equal_next = [&](int i) {
    if (i + 1 >= S_) return false;
    for (int r = 0; r < R_; ++r)
      if (unit(r, i) != unit(r, i + 1) || (cost && coef(r, i) != coef(r, i + 1))) return false;
    return true;
  };
  auto same_stage_as_next = [&](int i) {
    if (twin_[static_cast<size_t>(i)]) {
      assert(figures_equal_next(i) && "derive_tables: twin stages with different figures");
      return true;
    }
    return figures_equal_next(i);
  };
  double mu = kInf, mc = kInf;  // stage i's least unit time and cost coefficient over usable regions
  for (int i = S_ - 1; i >= 0; --i) {
    if (!twin_[static_cast<size_t>(i)]) {  // a twin has stage i+1's, which are still in mu, mc
      mu = kInf;
      mc = kInf;
      for (int r = 0; r < R_; ++r) {
        if (cap_[static_cast<size_t>(r)] <= 0 || unit(r, i) == kInf) continue;
        mu = std::min(mu, unit(r, i));
        mc = std::min(mc, coef(r, i));
      }
    }
#ifndef NDEBUG
    {
      double mu_own = kInf, mc_own = kInf;
      for (int r = 0; r < R_; ++r) {
        if (cap_[static_cast<size_t>(r)] <= 0 || unit(r, i) == kInf) continue;
        mu_own = std::min(mu_own, unit(r, i));
        mc_own = std::min(mc_own, coef(r, i));
      }
      assert(std::memcmp(&mu, &mu_own, sizeof mu) == 0 && std::memcmp(&mc, &mc_own, sizeof mc) == 0 &&
             "derive_tables: a twin stage's least figures differ from its own");
    }
#endif
    if (same_stage_as_next(i)) {
      order_.share(i, i + 1);
    } else {
      order_.build(
          i, R_, [&](int r) { return cap_[static_cast<size_t>(r)] > 0 && unit(r, i) < kInf; },
          [&](int a, int b) {  // ties by region index
            const double ka = cost ? coef(a, i) : unit(a, i), kb = cost ? coef(b, i) : unit(b, i);
            return ka < kb || (ka == kb && a < b);
          });
    }
    if (order_[i].empty()) any_stage_impossible = true;
    lb_sum_[static_cast<size_t>(i)] = lb_sum_[static_cast<size_t>(i + 1)] + mu;
    lb_max_[static_cast<size_t>(i)] = std::max(lb_max_[static_cast<size_t>(i + 1)], mu);
    lb_obj_[static_cast<size_t>(i)] = lb_obj_[static_cast<size_t>(i + 1)] + mc;
  }

  // Capacity-aware bound inputs.
  const auto RS1 = static_cast<size_t>(R_ * (S_ + 1));
  size_at_least(sufmin_unit_, RS1);
  size_at_least(sufmin_coef_, RS1);
  size_at_least(sufmax_unit_, RS1);
  // (The unit tables are functions of unit_ alone, so kept ones are the previous search's;
  // the coefficient minima are read by the cost search only.)
  for (int r = 0; r < R_ && !keep_unit; ++r) {
    const auto end = static_cast<size_t>(r * (S_ + 1) + S_);  // the sentinels; i < S below writes the rest
    sufmin_unit_[end] = kInf;
    sufmax_unit_[end] = 0.0;
    for (int i = S_ - 1; i >= 0; --i) {
      const auto k = static_cast<size_t>(r * (S_ + 1) + i);
      sufmin_unit_[k] = std::min(sufmin_unit_[k + 1], unit(r, i));
      sufmax_unit_[k] = std::max(sufmax_unit_[k + 1], unit(r, i));
    }
  }
  for (int r = 0; r < R_ && cost; ++r) {
    const auto end = static_cast<size_t>(r * (S_ + 1) + S_);
    sufmin_coef_[end] = kInf;
    for (int i = S_ - 1; i >= 0; --i) {
      const auto k = static_cast<size_t>(r * (S_ + 1) + i);
      sufmin_coef_[k] = std::min(sufmin_coef_[k + 1], coef(r, i));
    }
  }
  if (!keep_unit) {
    lb_order_unit_.reset(S_ + 1);
    lb_order_unit_.set_empty(S_);
  }
  lb_order_coef_.reset(S_ + 1);
  lb_order_coef_.set_empty(S_);
  // The same per suffix, by the suffix minima (the cost order only for the cost search): a
  // suffix whose minima equal the next one's on every region shares its order.
  // At a twin j, min(minimum from j+1, figure at j) is the minimum from j+1 itself (the figure
  // at j is the one at j+1, which that minimum already took): equal without looking.
  auto minima_equal_next = [&](const std::vector<double>& v, int j) {
    if (j + 1 >= S_) return false;
    for (int r = 0; r < R_; ++r)
      if (v[static_cast<size_t>(r * (S_ + 1) + j)] != v[static_cast<size_t>(r * (S_ + 1) + j + 1)]) return false;
    return true;
  };
  auto same_suffix_as_next = [&](const std::vector<double>& v, int j) {
    if (twin_[static_cast<size_t>(j)]) {
      assert(minima_equal_next(v, j) && "derive_tables: twin stages with different suffix minima");
      return true;
    }
    return minima_equal_next(v, j);
  };
  // Each list built gets its packed fill entries (suffix_fill reads them in one pass) at the
  // same positions in `fill` as in the table's buf; a shared list's minima are equal at every j
  // that shares it, so its entries serve them all.
  auto suffix_order = [&](OrderTable& orders, std::vector<FillEntry>& fill, const std::vector<double>& v, int j) {
    if (same_suffix_as_next(v, j)) {
      orders.share(j, j + 1);
      return;
    }
    orders.build(
        j, R_, [&](int r) { return cap_[static_cast<size_t>(r)] > 0 && sufmin_unit_[static_cast<size_t>(r * (S_ + 1) + j)] < kInf; },
        [&](int a, int b) {
          const double ka = v[static_cast<size_t>(a * (S_ + 1) + j)], kb = v[static_cast<size_t>(b * (S_ + 1) + j)];
          return ka < kb || (ka == kb && a < b);
        });
    size_t t = fill.size();
    fill.resize(orders.buf.size());
    for (; t < fill.size(); ++t) {
      const int r = orders.buf[t];
      const double x = v[static_cast<size_t>(r * (S_ + 1) + j)];
      const int c = cap_[static_cast<size_t>(r)];
      fill[t] = FillEntry{x, c * x, r, c};
    }
  };
  if (!keep_unit) lb_fill_unit_.clear();
  lb_fill_coef_.clear();
  for (int j = S_ - 1; j >= 0; --j) {
    if (!keep_unit) suffix_order(lb_order_unit_, lb_fill_unit_, sufmin_unit_, j);
    if (cost) suffix_order(lb_order_coef_, lb_fill_coef_, sufmin_coef_, j);
  }
  if (!keep_unit) {
    cap_order_.resize(static_cast<size_t>(R_));
    std::iota(cap_order_.begin(), cap_order_.end(), 0);
    std::sort(cap_order_.begin(), cap_order_.end(), [&](int a, int b) {
      return cap_[static_cast<size_t>(a)] > cap_[static_cast<size_t>(b)] || (cap_[static_cast<size_t>(a)] == cap_[static_cast<size_t>(b)] && a < b);
    });
  }
  return any_stage_impossible;
}

void Pathfinder::Impl::compute_hop_bounds() {
  // Per region, the extreme forward times over the stages it can take: every hop's β lies in
  // [A / min(fmax_a, fmax_b), A / min(fmin_a, fmin_b)].
  fmin_.assign(static_cast<size_t>(R_), kInf);
  fmax_.assign(static_cast<size_t>(R_), 0.0);
  for (int r = 0; r < R_; ++r)
    for (int i = 0; i < S_; ++i) {
      const auto k = static_cast<size_t>(r * S_ + i);
      if (unit_[k] == kInf) continue;
      fmin_[static_cast<size_t>(r)] = std::min(fmin_[static_cast<size_t>(r)], fwd_[k]);
      fmax_[static_cast<size_t>(r)] = std::max(fmax_[static_cast<size_t>(r)], fwd_[k]);
    }
  const double A = p_->activation_bytes;
  hop_lb_.assign(static_cast<size_t>(R_ * R_), kInf);
  hopc_lb_.assign(static_cast<size_t>(R_ * R_), 0.0);
  for (int a = 0; a < R_; ++a)
    for (int b = 0; b < R_; ++b) {
      const auto e = static_cast<size_t>(a * R_ + b);
      if (hop_lat_[e] == kInf || fmax_[static_cast<size_t>(a)] == 0.0 || fmax_[static_cast<size_t>(b)] == 0.0) continue;
      double c = 0;
      if (spec_.stall_free || spec_.bandwidth == BandwidthModel::kExpected) {
        const double beta_lo = stall_free_demand_bytes_per_s(A, fmax_[static_cast<size_t>(a)], fmax_[static_cast<size_t>(b)]);
        const double beta_hi = stall_free_demand_bytes_per_s(A, fmin_[static_cast<size_t>(a)], fmin_[static_cast<size_t>(b)]);
        if (spec_.stall_free && (view_->residual_bw(a, b) < beta_lo || view_->residual_bw(b, a) < beta_lo)) continue;
        if (spec_.bandwidth == BandwidthModel::kExpected) {
          // expected_share is nondecreasing in the demand, so β_hi gives the least time.
          const double s1 = view_->expected_share(a, b, beta_hi), s2 = view_->expected_share(b, a, beta_hi);
          if (s1 <= 0 || s2 <= 0) continue;
          c = hop_comm_s(A, s1, s2);
        }
      }
      hop_lb_[e] = hop_lat_[e] + c;
      hopc_lb_[e] = c;
    }
  min_hop_lb_ = kInf;
  for (double h : hop_lb_) min_hop_lb_ = std::min(min_hop_lb_, h);
  if (min_hop_lb_ == kInf) min_hop_lb_ = 0;
  min_in_all_.assign(static_cast<size_t>(R_), kInf);
  for (int a = 0; a < R_; ++a)
    for (int b = 0; b < R_; ++b)
      min_in_all_[static_cast<size_t>(b)] = std::min(min_in_all_[static_cast<size_t>(b)], hop_lb_[static_cast<size_t>(a * R_ + b)]);
}

void Pathfinder::Impl::order_neighbours() {
  nbr_order_.resize(static_cast<size_t>(R_ * R_));
  nbr_count_.assign(static_cast<size_t>(R_), 0);
  for (int a = 0; a < R_; ++a) {
    const double* lb = hop_lb_.data() + static_cast<size_t>(a * R_);
    int* nb = nbr_order_.data() + static_cast<size_t>(a * R_);
    int n = 0;
    for (int b = 0; b < R_; ++b)
      if (lb[b] < kInf && cap_[static_cast<size_t>(b)] > 0) nb[n++] = b;
    std::sort(nb, nb + n, [lb](int x, int y) { return lb[x] < lb[y] || (lb[x] == lb[y] && x < y); });
    nbr_count_[static_cast<size_t>(a)] = n;
  }
  nbr_lat_order_.resize(static_cast<size_t>(R_ * R_));
  nbr_lat_count_.assign(static_cast<size_t>(R_), 0);
  for (int a = 0; a < R_; ++a) {
    const double* lat = hop_lat_.data() + static_cast<size_t>(a * R_);
    int* nb = nbr_lat_order_.data() + static_cast<size_t>(a * R_);
    int n = 0;
    for (int b = 0; b < R_; ++b)
      if (lat[b] < kInf) nb[n++] = b;
    std::sort(nb, nb + n, [lat](int x, int y) { return lat[x] < lat[y] || (lat[x] == lat[y] && x < y); });
    nbr_lat_count_[static_cast<size_t>(a)] = n;
  }
}

}  // namespace geopipe

namespace geopipe {

bool balanced_split_beats(const JobProfile& p, const ClusterView& view, const SearchSpec& spec, const SearchResult& r) {
  if (view.compute->layer_partition == LayerPartition::kEven || !r.found || r.incumbents.size() < 2) return false;
  const bool cost = spec.objective == SearchSpec::Objective::kMinCost;
  // The objective of `q` under the split it runs with; +inf outside the time cap.
  auto objective = [&](const Placement& q) {
    const double T = estimate_iteration_s(p, q, view, spec.bandwidth);
    if (!cost) return T;
    return T <= spec.time_cap_s ? estimate_cost_usd(p, q, T, view) : std::numeric_limits<double>::infinity();
  };
  const double chosen = objective(r.placement);
  for (size_t k = 0; k + 1 < r.incumbents.size(); ++k)
    if (objective(r.incumbents[k]) < chosen * (1.0 - 1e-12)) return true;
  return false;
}

}  // namespace geopipe
