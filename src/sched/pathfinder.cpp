#include "sched/pathfinder.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "model/units.h"

namespace geopipe {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

SearchResult Pathfinder::search(const JobProfile& p, const ClusterView& view, const SearchSpec& spec) {
  p_ = &p;
  view_ = &view;
  spec_ = spec;
  S_ = p.stages;
  R_ = view.regions();
  m_ = p.micro_batches;
  const Topology& topo = *view.topo;
  const ComputeOptions& opt = *view.compute;
  const int g = p.gpus_per_stage;
  intra_c_ = 2.0 * p.activation_bytes / topo.intra_bandwidth_bytes_per_s;
  intra_lat_ = 2.0 * topo.intra_latency_s;
  opt_step_ = opt.optimizer_step_s;
  const bool cost = spec.objective == SearchSpec::Objective::kMinCost;
  const double T_for_cost = std::isfinite(spec.time_cap_s) ? spec.time_cap_s : 0.0;

  const auto RS = static_cast<size_t>(R_ * S_);
  unit_.assign(RS, kInf);
  fwd_.assign(RS, kInf);
  coef_.assign(RS, kInf);
  run_.assign(RS, 0);
  cap_.assign(static_cast<size_t>(R_), 0);
  unit_prefix_.assign(static_cast<size_t>(R_ * (S_ + 1)), 0.0);
  coef_prefix_.assign(static_cast<size_t>(R_ * (S_ + 1)), 0.0);
  for (int r = 0; r < R_; ++r) {
    cap_[static_cast<size_t>(r)] = view.free_gpus[static_cast<size_t>(r)] / g;
    const Region& reg = topo.regions[static_cast<size_t>(r)];
    const GpuType& gpu = topo.gpu_of(r);
    const double speed = stage_speed(gpu, g, opt);
    const double price = cost ? reg.price.mean_usd_per_kwh(view.now_s, view.now_s + p.iterations * T_for_cost) : 0.0;
    double up = 0, cp = 0;
    for (int i = 0; i < S_; ++i) {
      const auto k = static_cast<size_t>(r * S_ + i);
      const double f = p.fwd_flops[static_cast<size_t>(i)] / speed;  // as forward_time()
      const double u = 3.0 * f;
      const bool ok = p.stage_fits(i, gpu);
      unit_[k] = ok ? u : kInf;
      fwd_[k] = ok ? f : kInf;
      if (cost) {
        const double busy = m_ * u;
        const double j = g * reg.pue * (gpu.busy_power_w * busy + gpu.idle_power_w * std::max(0.0, T_for_cost - busy));
        coef_[k] = ok ? p.iterations * j / units::kJoulesPerKwh * price : kInf;
      } else {
        coef_[k] = 0.0;
      }
      up += ok ? u : 0.0;
      cp += ok ? coef_[k] : 0.0;
      unit_prefix_[static_cast<size_t>(r * (S_ + 1) + i + 1)] = up;
      coef_prefix_[static_cast<size_t>(r * (S_ + 1) + i + 1)] = cp;
    }
    int runlen = 0;
    for (int i = S_ - 1; i >= 0; --i) {
      const auto k = static_cast<size_t>(r * S_ + i);
      runlen = unit_[k] < kInf ? runlen + 1 : 0;
      run_[k] = runlen;
    }
  }
  // Suffix lower bounds over regions that could take the stage at all.
  lb_sum_.assign(static_cast<size_t>(S_ + 1), 0.0);
  lb_max_.assign(static_cast<size_t>(S_ + 1), 0.0);
  lb_obj_.assign(static_cast<size_t>(S_ + 1), 0.0);
  // Reuse the inner vectors across searches (no allocation once warm).
  if (order_.size() < static_cast<size_t>(S_)) order_.resize(static_cast<size_t>(S_));
  for (auto& o : order_) o.clear();
  bool any_stage_impossible = false;
  for (int i = S_ - 1; i >= 0; --i) {
    double mu = kInf, mc = kInf;
    auto& ord = order_[static_cast<size_t>(i)];
    for (int r = 0; r < R_; ++r) {
      if (cap_[static_cast<size_t>(r)] <= 0 || unit(r, i) == kInf) continue;
      mu = std::min(mu, unit(r, i));
      mc = std::min(mc, coef(r, i));
      ord.push_back(r);
    }
    if (ord.empty()) any_stage_impossible = true;
    std::sort(ord.begin(), ord.end(), [&](int a, int b) {  // ties by region index
      const double ka = cost ? coef(a, i) : unit(a, i), kb = cost ? coef(b, i) : unit(b, i);
      return ka < kb || (ka == kb && a < b);
    });
    lb_sum_[static_cast<size_t>(i)] = lb_sum_[static_cast<size_t>(i + 1)] + mu;
    lb_max_[static_cast<size_t>(i)] = std::max(lb_max_[static_cast<size_t>(i + 1)], mu);
    lb_obj_[static_cast<size_t>(i)] = lb_obj_[static_cast<size_t>(i + 1)] + mc;
  }

  // Capacity-aware bound inputs.
  const auto RS1 = static_cast<size_t>(R_ * (S_ + 1));
  sufmin_unit_.assign(RS1, kInf);
  sufmin_coef_.assign(RS1, kInf);
  for (int r = 0; r < R_; ++r)
    for (int i = S_ - 1; i >= 0; --i) {
      const auto k = static_cast<size_t>(r * (S_ + 1) + i);
      sufmin_unit_[k] = std::min(sufmin_unit_[k + 1], unit(r, i));
      sufmin_coef_[k] = std::min(sufmin_coef_[k + 1], coef(r, i));
    }
  if (lb_order_unit_.size() < static_cast<size_t>(S_ + 1)) {
    lb_order_unit_.resize(static_cast<size_t>(S_ + 1));
    lb_order_coef_.resize(static_cast<size_t>(S_ + 1));
  }
  for (auto& o : lb_order_unit_) o.clear();
  for (auto& o : lb_order_coef_) o.clear();
  for (int j = 0; j < S_; ++j) {
    auto& ou = lb_order_unit_[static_cast<size_t>(j)];
    for (int r = 0; r < R_; ++r)
      if (cap_[static_cast<size_t>(r)] > 0 && sufmin_unit_[static_cast<size_t>(r * (S_ + 1) + j)] < kInf) ou.push_back(r);
    auto& oc = lb_order_coef_[static_cast<size_t>(j)];
    oc = ou;
    auto by = [&](const std::vector<double>& v) {
      return [&, jj = j](int a, int b) {
        const double ka = v[static_cast<size_t>(a * (S_ + 1) + jj)], kb = v[static_cast<size_t>(b * (S_ + 1) + jj)];
        return ka < kb || (ka == kb && a < b);
      };
    };
    std::sort(ou.begin(), ou.end(), by(sufmin_unit_));
    std::sort(oc.begin(), oc.end(), by(sufmin_coef_));
  }
  cap_order_.resize(static_cast<size_t>(R_));
  std::iota(cap_order_.begin(), cap_order_.end(), 0);
  std::sort(cap_order_.begin(), cap_order_.end(), [&](int a, int b) {
    return cap_[static_cast<size_t>(a)] > cap_[static_cast<size_t>(b)] || (cap_[static_cast<size_t>(a)] == cap_[static_cast<size_t>(b)] && a < b);
  });
  min_hop_time_ = kInf;
  hop_lat_.assign(static_cast<size_t>(R_ * R_), kInf);
  for (int a = 0; a < R_; ++a)
    for (int b = 0; b < R_; ++b)
      if (a != b && topo.connected(a, b)) {
        const double rt = topo.link(a, b).latency_s + topo.link(b, a).latency_s;
        hop_lat_[static_cast<size_t>(a * R_ + b)] = rt;
        min_hop_time_ = std::min(min_hop_time_, rt);
      }
  if (min_hop_time_ == kInf) min_hop_time_ = 0;

  best_obj_ = kInf;
  best_T_ = kInf;
  best_r_.clear();
  best_len_.clear();
  nodes_ = 0;
  truncated_ = false;
  stop_ = false;
  memo_.clear();
  path_r_.clear();
  path_len_.clear();
  blockmax_buf_.assign(static_cast<size_t>(std::max(spec.max_blocks, 1)) * static_cast<size_t>(S_ + 1), 0.0);
  if (!any_stage_impossible && R_ <= 64) {
    int cap_total = 0;
    for (int c : cap_) cap_total += c;
    if (cap_total >= S_) dfs(0, -1, 0, 0, cap_total, 0.0, 0.0, 0.0);
  }

  SearchResult res;
  res.nodes = nodes_;
  res.truncated = truncated_;
  if (best_r_.empty()) return res;
  res.found = true;
  res.objective = best_obj_;
  res.est_iteration_s = best_T_;
  res.placement.stage_region.reserve(static_cast<size_t>(S_));
  for (size_t b = 0; b < best_r_.size(); ++b)
    for (int k = 0; k < best_len_[b]; ++k) res.placement.stage_region.push_back(best_r_[b]);
  return res;
}

bool Pathfinder::suffix_bound(int j, std::uint64_t mask, int blocks_left, int last, double& sum, double& mx,
                              double& obj) const {
  sum = mx = obj = 0;
  const int n = S_ - j;
  if (n <= 0) return true;
  // Fewest further blocks that can hold n stages (largest unused regions first): each block
  // after the current one starts with a cross-region hop.
  int k = 0, left = n;
  for (int r : cap_order_) {
    if (mask >> r & 1U) continue;
    left -= cap_[static_cast<size_t>(r)];
    ++k;
    if (left <= 0) break;
  }
  if (left > 0 || k > blocks_left) return false;
  // The next hop leaves `last` for some unused region; the k−1 after it cost at least the
  // cheapest round-trip latency of any link.
  double first = kInf;
  for (int r = 0; r < R_; ++r)
    if (!(mask >> r & 1U)) first = std::min(first, hop_lat_[static_cast<size_t>(last * R_ + r)]);
  if (first == kInf) return false;  // no unused region is linked to `last`
  sum = first + (k - 1) * min_hop_time_;
  // Fill the n stages into unused regions, best per-stage figure first (ignoring contiguity).
  left = n;
  for (int r : lb_order_unit_[static_cast<size_t>(j)]) {
    if (mask >> r & 1U) continue;
    const int take = std::min(cap_[static_cast<size_t>(r)], left);
    const double v = sufmin_unit_[static_cast<size_t>(r * (S_ + 1) + j)];
    sum += take * v;
    mx = v;
    left -= take;
    if (left == 0) break;
  }
  if (left > 0) return false;
  if (spec_.objective == SearchSpec::Objective::kMinCost) {
    left = n;
    for (int r : lb_order_coef_[static_cast<size_t>(j)]) {
      if (mask >> r & 1U) continue;
      const int take = std::min(cap_[static_cast<size_t>(r)], left);
      obj += take * sufmin_coef_[static_cast<size_t>(r * (S_ + 1) + j)];
      left -= take;
      if (left == 0) break;
    }
    if (left > 0) return false;
  }
  return true;
}

bool Pathfinder::dominated_or_insert(int i, int r, std::uint64_t mask, double obj, double sum, double mx) {
  auto& labels = memo_[Key{mask, i, r}];
  for (const Label& l : labels)
    if (l.obj <= obj && l.sum <= sum && l.max <= mx) return true;
  // Drop labels the new one dominates, then keep it.
  std::erase_if(labels, [&](const Label& l) { return obj <= l.obj && sum <= l.sum && mx <= l.max; });
  labels.push_back({obj, sum, mx});
  return false;
}

void Pathfinder::dfs(int i, int last, int blocks, std::uint64_t mask, int cap_unused, double obj,
                     double sum, double mx) {
  if (++nodes_ > spec_.node_budget) {
    truncated_ = true;
    return;
  }
  const bool cost = spec_.objective == SearchSpec::Objective::kMinCost;
  const double mm1 = m_ - 1;
  if (i == S_) {
    const double T = mm1 * mx + sum + opt_step_;
    const double o = cost ? obj : T;
    if (cost && T > spec_.time_cap_s) return;
    if (o < best_obj_) {
      best_obj_ = o;
      best_T_ = T;
      best_r_ = path_r_;
      best_len_ = path_len_;
      if (spec_.stop_at_first) stop_ = true;
    }
    return;
  }
  if (blocks >= spec_.max_blocks) return;
  const Topology& topo = *view_->topo;
  const double A = p_->activation_bytes;
  for (int r : order_[static_cast<size_t>(i)]) {
    if (truncated_ || stop_) return;
    if (mask >> r & 1U) continue;
    // Hop from the previous block (stage i−1 on `last`) into stage i on r.
    double hop_c = 0, hop_lat = 0;
    if (last >= 0) {
      if (!topo.connected(last, r)) continue;
      hop_lat = topo.link(last, r).latency_s + topo.link(r, last).latency_s;
      if (spec_.stall_free || spec_.bandwidth == BandwidthModel::kExpected) {
        // β = A / min(f_{i−1}(last), f_i(r)), exactly as hop_demand_bytes_per_s computes it.
        const double beta = A / std::min(fwd_[static_cast<size_t>(last * S_ + i - 1)], fwd_[static_cast<size_t>(r * S_ + i)]);
        if (spec_.stall_free && (view_->residual_bw(last, r) < beta || view_->residual_bw(r, last) < beta)) continue;
        if (spec_.bandwidth == BandwidthModel::kExpected) {
          const double s1 = view_->expected_share(last, r, beta), s2 = view_->expected_share(r, last, beta);
          if (s1 <= 0 || s2 <= 0) continue;
          hop_c = A / s1 + A / s2;
        }
      }
    }
    const auto ri = static_cast<size_t>(r);
    int maxL = std::min({cap_[ri], run_[static_cast<size_t>(r * S_ + i)], S_ - i});
    if (maxL <= 0) continue;
    const bool must_finish = blocks + 1 == spec_.max_blocks;
    if (must_finish && maxL < S_ - i) continue;
    // Running max of stage units over the block, for every length. One buffer row per
    // recursion depth: the recursive call below must not overwrite this level's values.
    double* blockmax = blockmax_buf_.data() + static_cast<size_t>(blocks) * static_cast<size_t>(S_ + 1);
    double bm = hop_c;
    for (int L = 1; L <= maxL; ++L) {
      bm = std::max(bm, unit(r, i + L - 1));
      blockmax[L] = bm;
    }
    const double base_sum = sum + hop_c + hop_lat;
    const int cap_after = cap_unused - cap_[ri];
    const std::uint64_t mask2 = mask | (std::uint64_t{1} << r);
    const int minL = must_finish ? S_ - i : 1;
    for (int L = maxL; L >= minL; --L) {
      const int j = i + L;
      const double bsum = base_sum + unit_prefix_[static_cast<size_t>(r * (S_ + 1) + j)] -
                          unit_prefix_[static_cast<size_t>(r * (S_ + 1) + i)] + (L - 1) * (intra_c_ + intra_lat_);
      const double bmax = std::max({mx, blockmax[L], L > 1 ? intra_c_ : 0.0});
      const double bobj = obj + coef_prefix_[static_cast<size_t>(r * (S_ + 1) + j)] - coef_prefix_[static_cast<size_t>(r * (S_ + 1) + i)];
      if (j < S_ && S_ - j > cap_after) continue;  // not enough GPUs left on unused regions
      const double t_lb = mm1 * std::max(bmax, lb_max_[static_cast<size_t>(j)]) + bsum + lb_sum_[static_cast<size_t>(j)] + opt_step_;
      if (cost) {
        if (t_lb > spec_.time_cap_s) continue;
        if (bobj + lb_obj_[static_cast<size_t>(j)] >= best_obj_) continue;
      } else if (t_lb >= best_obj_) {
        continue;
      }
      if (j < S_) {  // the capacity-aware bound (O(R)), only when the cheap one passed
        double rs, rm, ro;
        if (!suffix_bound(j, mask2, spec_.max_blocks - blocks - 1, r, rs, rm, ro)) continue;
        const double t2 = mm1 * std::max(bmax, rm) + bsum + rs + opt_step_;
        if (cost ? (t2 > spec_.time_cap_s || bobj + ro >= best_obj_) : t2 >= best_obj_) continue;
      }
      if (j < S_ && dominated_or_insert(j, r, mask2, bobj, bsum, bmax)) continue;
      path_r_.push_back(r);
      path_len_.push_back(L);
      dfs(j, r, blocks + 1, mask2, cap_after, bobj, bsum, bmax);
      path_r_.pop_back();
      path_len_.pop_back();
      if (truncated_ || stop_) return;
    }
  }
}

}  // namespace geopipe
