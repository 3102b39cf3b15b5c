#include "analysis/sensitivity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <boost/math/distributions/normal.hpp>

#include "analysis/saltelli_layout.h"
#include "model/rng.h"

namespace geopipe::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string str(std::size_t v) { return std::to_string(v); }

void check_options(const char* fn, const BootstrapOptions& opt) {
  if (!(opt.confidence > 0.0 && opt.confidence < 1.0))
    throw std::invalid_argument(std::string(fn) + ": confidence = " + std::to_string(opt.confidence) +
                                " (expected a value in (0, 1))");
}

/// z_{(1+confidence)/2} of the standard normal distribution (SALib: norm.ppf(0.5 + conf/2)).
double z_value(double confidence) {
  const boost::math::normal_distribution<double> normal(0.0, 1.0);
  return boost::math::quantile(normal, 0.5 + confidence / 2.0);
}

/// Sample standard deviation (ddof = 1) of x[0], x[stride], ... (n values), two-pass; NaN for
/// n < 2.
double sample_sd(const double* x, std::size_t n, std::size_t stride) {
  if (n < 2) return kNaN;
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += x[i * stride];
  const double mean = sum / static_cast<double>(n);
  double ss = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = x[i * stride] - mean;
    ss += d * d;
  }
  return std::sqrt(ss / static_cast<double>(n - 1));
}

// --- Sobol' -----------------------------------------------------------------------------------
//
// Every index is a ratio of sums over the samples, so a bootstrap resample is a weighted sum:
// sample i counted w_i times (w_i = how often the N draws picked it; sum w = N). A batch of
// resamples therefore (1) counts each resample's N draws, (2) walks the rows in memory order, a
// chunk of rows at a time, and for each resample of the batch lists the chunk's samples with
// w_i > 0 (about 63% of them) and (3) adds their weighted terms. No random access into the rows,
// each row comes from memory once per batch, and a chunk stays in L1 while it is read once per
// group of four factors (whose 8 sums stay in registers) and per resample. S2's sums are
// sum w ba_j ab_q and sum w a b, subtracted at the end. The point estimate is the same pass with
// every w_i = 1.
//
// Row i (of `stride` doubles, y centred):
//   [a, b, d_0 .. d_{P-1}, (ab_0 .. ab_{D-1}, 0, 0, 0, ba_0 .. ba_{D-1})]
// a = f_A, b = f_B, d_j = f_ABj - a, ab_j = f_ABj, ba_j = f_BAj (the last 2D + 3: second order
// only); P = D rounded up to a multiple of 4, d_j = 0 for j >= D; the 3 zeros let a group of
// four ab_q run past q = D - 1. The sums, acc[...]:
//   acc[0..5)            sum w a, sum w b, sum w a^2, sum w b^2, sum w a b
//   acc[5 .. 5+D)        sum w b d_j                       (S1)
//   acc[5+D .. 5+2D)     sum w d_j^2                       (ST)
//   acc[5+2D .. +pairs)  sum w ba_j ab_q, j < q row-major  (S2, second order only)

struct SobolShape {
  SaltelliLayout layout;  // which point of a sample is A, AB_j, BA_j, B
  std::size_t D = 0, pairs = 0;
  bool second = false;
  explicit SobolShape(SaltelliLayout l)
      : layout(l), D(l.factors), pairs(l.second_order ? l.factors * (l.factors - 1) / 2 : 0), second(l.second_order) {}
  std::size_t sums() const { return 5 + 2 * D + pairs; }
  std::size_t estimates() const { return 2 * D + pairs; }  // S1[D], ST[D], S2[pairs]
};

struct SobolRows {
  explicit SobolRows(const SobolShape& shape) : s(shape) {}
  SobolShape s;
  std::size_t P = 0, stride = 0;
  std::size_t ab = 0, ba = 0;  // offsets of ab_0 and ba_0 in a row (second order)
  std::size_t chunk = 0;       // rows per chunk: about 16 KB, so a chunk stays in L1 across passes
  std::vector<double> data;    // n rows of `stride` doubles
};

/// The rows of the centred outputs y - mean (y in point order, s.layout's k values per sample).
SobolRows make_rows(const std::vector<double>& y, double mean, const SobolShape& s) {
  SobolRows X(s);
  X.P = (s.D + 3) / 4 * 4;
  X.ab = 2 + X.P;
  X.ba = X.ab + s.D + 3;
  X.stride = s.second ? X.ba + s.D : 2 + X.P;
  X.chunk = std::clamp<std::size_t>(2048 / X.stride, 16, 256);
  const SaltelliLayout& L = s.layout;
  const std::size_t n = L.samples(y.size());
  X.data.assign(n * X.stride, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    double* row = X.data.data() + i * X.stride;
    const double a = y[L.a(i)] - mean;
    row[0] = a;
    row[1] = y[L.b(i)] - mean;
    for (std::size_t j = 0; j < s.D; ++j) row[2 + j] = (y[L.ab(i, j)] - mean) - a;
    if (s.second)
      for (std::size_t j = 0; j < s.D; ++j) {
        row[X.ab + j] = y[L.ab(i, j)] - mean;
        row[X.ba + j] = y[L.ba(i, j)] - mean;
      }
  }
  return X;
}

/// Adds the weighted terms of rows list[0..m) (increasing) with weights w[0..m) to acc.
void accumulate(const SobolRows& X, const std::uint32_t* list, const double* w, std::size_t m,
                double* acc) {
  const double* base = X.data.data();
  const std::size_t S = X.stride, D = X.s.D;
  const std::size_t chunk = X.chunk;
  double* s1 = acc + 5;
  double* st = s1 + D;
  double* v = st + D;
  for (std::size_t c0 = 0; c0 < m; c0 += chunk) {
    const std::size_t c1 = std::min(m, c0 + chunk);
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
    for (std::size_t p = c0; p < c1; ++p) {
      const double* row = base + static_cast<std::size_t>(list[p]) * S;
      const double wa = w[p] * row[0], wb = w[p] * row[1];
      sa += wa;
      sb += wb;
      saa += wa * row[0];
      sbb += wb * row[1];
      sab += wa * row[1];
    }
    acc[0] += sa;
    acc[1] += sb;
    acc[2] += saa;
    acc[3] += sbb;
    acc[4] += sab;
    for (std::size_t g = 0; g < X.P; g += 4) {
      double b0 = 0, b1 = 0, b2 = 0, b3 = 0, q0 = 0, q1 = 0, q2 = 0, q3 = 0;
      for (std::size_t p = c0; p < c1; ++p) {
        const double* row = base + static_cast<std::size_t>(list[p]) * S;
        const double wb = w[p] * row[1];
        const double* d = row + 2 + g;
        b0 += wb * d[0];
        b1 += wb * d[1];
        b2 += wb * d[2];
        b3 += wb * d[3];
        q0 += w[p] * d[0] * d[0];
        q1 += w[p] * d[1] * d[1];
        q2 += w[p] * d[2] * d[2];
        q3 += w[p] * d[3] * d[3];
      }
      const double bs[4] = {b0, b1, b2, b3}, qs[4] = {q0, q1, q2, q3};
      for (std::size_t j = g; j < std::min(D, g + 4); ++j) {
        s1[j] += bs[j - g];
        st[j] += qs[j - g];
      }
    }
    if (!X.s.second) continue;
    std::size_t pair0 = 0;  // index of pair (j, j + 1)
    for (std::size_t j = 0; j + 1 < D; pair0 += D - 1 - j, ++j) {
      for (std::size_t q = j + 1; q < D; q += 4) {
        double v0 = 0, v1 = 0, v2 = 0, v3 = 0;
        for (std::size_t p = c0; p < c1; ++p) {
          const double* row = base + static_cast<std::size_t>(list[p]) * S;
          const double wba = w[p] * row[X.ba + j];
          const double* ab = row + X.ab + q;
          v0 += wba * ab[0];
          v1 += wba * ab[1];
          v2 += wba * ab[2];
          v3 += wba * ab[3];
        }
        const double vs[4] = {v0, v1, v2, v3};
        for (std::size_t t = q; t < std::min(D, q + 4); ++t) v[pair0 + (t - j - 1)] += vs[t - q];
      }
    }
  }
}

/// The indices from the sums over n samples: out = S1[D], ST[D], S2[pairs]; returns V.
double sobol_from_sums(const double* acc, const SobolShape& s, std::size_t n, double* out) {
  const double inv_n = 1.0 / static_cast<double>(n);
  const double mean = (acc[0] + acc[1]) * inv_n / 2.0;
  const double var = (acc[2] + acc[3]) * inv_n / 2.0 - mean * mean;
  const std::size_t D = s.D;
  if (!(var > 0.0)) {
    std::fill(out, out + s.estimates(), 0.0);
    return 0.0;
  }
  const double* s1 = acc + 5;
  const double* st = s1 + D;
  const double* v = st + D;
  const double scale = inv_n / var;
  for (std::size_t j = 0; j < D; ++j) {
    out[j] = s1[j] * scale;
    out[D + j] = st[j] * scale / 2.0;
  }
  if (!s.second) return var;
  std::size_t p = 0;
  for (std::size_t j = 0; j + 1 < D; ++j)
    for (std::size_t q = j + 1; q < D; ++q, ++p) out[2 * D + p] = (v[p] - acc[4]) * scale - out[j] - out[q];
  return var;
}

}  // namespace

SobolIndices sobol_indices(const std::vector<double>& y, std::size_t factors, bool second_order,
                           const BootstrapOptions& opt) {
  const char* fn = "sobol_indices";
  check_options(fn, opt);
  if (factors == 0) throw std::invalid_argument("sobol_indices: factors = 0 (expected at least 1)");
  const SobolShape s(SaltelliLayout{factors, second_order});
  const std::size_t k = s.layout.points_per_sample();
  if (y.size() % k != 0)
    throw std::invalid_argument("sobol_indices: y has " + str(y.size()) + " values, not a multiple of " +
                                str(k) + " (" + str(factors) + " factors, " +
                                (second_order ? "with" : "without") + " second order)");
  const std::size_t n = s.layout.samples(y.size());
  if (n < 2)
    throw std::invalid_argument("sobol_indices: y has " + str(n) + " sample(s) of " + str(k) +
                                " points (expected at least 2)");
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("sobol_indices: " + str(n) + " samples (at most 2^32 - 1)");
  double total = 0.0;
  for (std::size_t p = 0; p < y.size(); ++p) {
    if (!std::isfinite(y[p]))
      throw std::invalid_argument("sobol_indices: y[" + str(p) + "] (sample " + str(s.layout.sample_of(p)) + ", block " +
                                  str(s.layout.block_of(p)) + ") is not finite");
    total += y[p];
  }
  // Centre by the mean over every point (SALib: Y = (Y - Y.mean()) / Y.std()).
  const double mean = total / static_cast<double>(y.size());
  const SobolRows rows = make_rows(y, mean, s);

  SobolIndices res;
  res.factors = factors;
  res.samples = n;
  const std::size_t D = factors, Q = s.estimates();
  std::vector<double> acc(s.sums(), 0.0), est(Q);
  {
    std::vector<std::uint32_t> all(n);
    const std::vector<double> ones(n, 1.0);
    for (std::size_t i = 0; i < n; ++i) all[i] = static_cast<std::uint32_t>(i);
    accumulate(rows, all.data(), ones.data(), n, acc.data());
  }
  res.variance = sobol_from_sums(acc.data(), s, n, est.data());
  res.S1.assign(est.begin(), est.begin() + static_cast<std::ptrdiff_t>(D));
  res.ST.assign(est.begin() + static_cast<std::ptrdiff_t>(D), est.begin() + static_cast<std::ptrdiff_t>(2 * D));

  // Bootstrap: boot[r * Q + q] is estimate q of resample r. Resamples go in batches of kBatch:
  // each draws its N indices in turn (the stream order of the contract), then one pass over the
  // chunks of rows serves the whole batch, so the rows come from memory once per batch.
  const std::size_t R = opt.resamples;
  std::vector<double> boot(R * Q);
  if (R > 0) {
    constexpr std::size_t kBatch = 8;
    Rng rng(derive_seed(opt.seed, "bootstrap"));
    std::vector<std::uint32_t> counts(kBatch * n), list(rows.chunk);
    std::vector<double> weights(rows.chunk), batch_acc(kBatch * s.sums());
    for (std::size_t r0 = 0; r0 < R; r0 += kBatch) {
      const std::size_t nb = std::min(kBatch, R - r0);
      std::fill(counts.begin(), counts.end(), 0u);
      for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t t = 0; t < n; ++t) ++counts[b * n + rng.below(n)];
      std::fill(batch_acc.begin(), batch_acc.end(), 0.0);
      for (std::size_t i0 = 0; i0 < n; i0 += rows.chunk) {
        const std::size_t i1 = std::min(n, i0 + rows.chunk);
        for (std::size_t b = 0; b < nb; ++b) {
          const std::uint32_t* c = counts.data() + b * n;
          std::size_t m = 0;  // branch-free: the chunk's drawn samples, in increasing order
          for (std::size_t i = i0; i < i1; ++i) {
            list[m] = static_cast<std::uint32_t>(i);
            weights[m] = static_cast<double>(c[i]);
            m += c[i] != 0;
          }
          accumulate(rows, list.data(), weights.data(), m, batch_acc.data() + b * s.sums());
        }
      }
      for (std::size_t b = 0; b < nb; ++b)
        sobol_from_sums(batch_acc.data() + b * s.sums(), s, n, boot.data() + (r0 + b) * Q);
    }
  }
  const double z = R > 1 ? z_value(opt.confidence) : kNaN;
  auto conf = [&](std::size_t q) { return R > 1 ? z * sample_sd(boot.data() + q, R, Q) : kNaN; };
  res.S1_conf.resize(D);
  res.ST_conf.resize(D);
  for (std::size_t j = 0; j < D; ++j) {
    res.S1_conf[j] = conf(j);
    res.ST_conf[j] = conf(D + j);
  }
  if (second_order) {
    res.S2.assign(D * D, kNaN);
    res.S2_conf.assign(D * D, kNaN);
    std::size_t p = 0;
    for (std::size_t j = 0; j + 1 < D; ++j)
      for (std::size_t q = j + 1; q < D; ++q, ++p) {
        res.S2[j * D + q] = est[2 * D + p];
        res.S2_conf[j * D + q] = conf(2 * D + p);
      }
  }
  return res;
}

MorrisIndices morris_indices(const std::vector<double>& unit, const std::vector<double>& y,
                             std::size_t factors, const BootstrapOptions& opt) {
  check_options("morris_indices", opt);
  const std::size_t D = factors;
  if (D == 0) throw std::invalid_argument("morris_indices: factors = 0 (expected at least 1)");
  const std::size_t P = y.size();
  if (P == 0 || P % (D + 1) != 0)
    throw std::invalid_argument("morris_indices: y has " + str(P) + " values (expected r * " + str(D + 1) +
                                ", r >= 1 trajectories of " + str(D + 1) + " points)");
  if (unit.size() != P * D)
    throw std::invalid_argument("morris_indices: unit has " + str(unit.size()) + " values (expected " +
                                str(P) + " points x " + str(D) + " factors = " + str(P * D) + ")");
  for (std::size_t p = 0; p < P; ++p) {
    if (!std::isfinite(y[p]))
      throw std::invalid_argument("morris_indices: y[" + str(p) + "] (trajectory " + str(p / (D + 1)) +
                                  ", point " + str(p % (D + 1)) + ") is not finite");
    for (std::size_t j = 0; j < D; ++j)
      if (!std::isfinite(unit[p * D + j]))
        throw std::invalid_argument("morris_indices: unit coordinate of point " + str(p) + ", factor " +
                                    str(j) + " is not finite");
  }
  const std::size_t r = P / (D + 1);
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<double> ee(D * r);  // ee[j * r + t]
  std::vector<std::size_t> step_of(D);
  for (std::size_t t = 0; t < r; ++t) {
    std::fill(step_of.begin(), step_of.end(), kNone);
    for (std::size_t st = 0; st < D; ++st) {
      const std::size_t prev = t * (D + 1) + st, next = prev + 1;
      const double* up = unit.data() + prev * D;
      const double* un = unit.data() + next * D;
      std::vector<std::size_t> changed;
      for (std::size_t j = 0; j < D; ++j)
        if (un[j] != up[j]) changed.push_back(j);
      const std::string where = "morris_indices: trajectory " + str(t) + ", step " + str(st) + " (points " +
                                str(prev) + " -> " + str(next) + ")";
      if (changed.empty()) throw std::invalid_argument(where + " changes no factor (expected exactly one)");
      if (changed.size() > 1) {
        std::string list;
        for (std::size_t c = 0; c < changed.size(); ++c) list += (c ? ", " : "") + str(changed[c]);
        throw std::invalid_argument(where + " changes " + str(changed.size()) + " factors (" + list +
                                    "; expected exactly one)");
      }
      const std::size_t j = changed[0];
      if (step_of[j] != kNone)
        throw std::invalid_argument(where + " changes factor " + str(j) + " again (already at step " +
                                    str(step_of[j]) + "; each factor changes once per trajectory)");
      step_of[j] = st;
      ee[j * r + t] = (y[next] - y[prev]) / (un[j] - up[j]);
    }
  }

  MorrisIndices res;
  res.factors = D;
  res.trajectories = r;
  res.mu.resize(D);
  res.mu_star.resize(D);
  res.sigma.resize(D);
  res.mu_star_conf.assign(D, kNaN);
  std::vector<double> abs_ee(D * r);
  for (std::size_t i = 0; i < D * r; ++i) abs_ee[i] = std::abs(ee[i]);
  for (std::size_t j = 0; j < D; ++j) {
    double sum = 0.0, sum_abs = 0.0;
    for (std::size_t t = 0; t < r; ++t) {
      sum += ee[j * r + t];
      sum_abs += abs_ee[j * r + t];
    }
    res.mu[j] = sum / static_cast<double>(r);
    res.mu_star[j] = sum_abs / static_cast<double>(r);
    res.sigma[j] = sample_sd(ee.data() + j * r, r, 1);
  }
  const std::size_t R = opt.resamples;
  if (R > 1 && r > 1) {  // one trajectory: every resample is the same, no interval (NaN, not 0)
    Rng rng(derive_seed(opt.seed, "bootstrap"));
    std::vector<std::size_t> idx(r);
    std::vector<double> boot(R * D);  // boot[b * D + j]: mu_star of factor j in resample b
    for (std::size_t b = 0; b < R; ++b) {
      for (auto& i : idx) i = static_cast<std::size_t>(rng.below(r));
      for (std::size_t j = 0; j < D; ++j) {
        const double* a = abs_ee.data() + j * r;
        double sum = 0.0;
        for (std::size_t i : idx) sum += a[i];
        boot[b * D + j] = sum / static_cast<double>(r);
      }
    }
    const double z = z_value(opt.confidence);
    for (std::size_t j = 0; j < D; ++j) res.mu_star_conf[j] = z * sample_sd(boot.data() + j, R, D);
  }
  return res;
}

std::vector<OatEffect> oat_effects(const std::vector<double>& unit, const std::vector<double>& y,
                                   std::size_t factors) {
  const std::size_t D = factors;
  if (D == 0) throw std::invalid_argument("oat_effects: factors = 0 (expected at least 1)");
  const std::size_t P = y.size();
  if (P == 0) throw std::invalid_argument("oat_effects: y is empty (expected the base point first)");
  if (unit.size() != P * D)
    throw std::invalid_argument("oat_effects: unit has " + str(unit.size()) + " values (expected " + str(P) +
                                " points x " + str(D) + " factors = " + str(P * D) + ")");
  for (std::size_t p = 0; p < P; ++p)
    if (!std::isfinite(y[p]))
      throw std::invalid_argument("oat_effects: y[" + str(p) + "] (point " + str(p) + ") is not finite");
  for (std::size_t j = 0; j < D; ++j)
    if (!std::isnan(unit[j]))
      throw std::invalid_argument("oat_effects: point 0 (the base) has a coordinate for factor " + str(j) +
                                  " (expected NaN for every factor)");
  std::vector<OatEffect> out(D, OatEffect{0, y[0], y[0], 0.0});
  for (std::size_t p = 1; p < P; ++p) {
    std::size_t moved = D, count = 0;
    for (std::size_t j = 0; j < D; ++j) {
      const double u = unit[p * D + j];
      if (std::isnan(u)) continue;
      if (!std::isfinite(u))
        throw std::invalid_argument("oat_effects: point " + str(p) + ", factor " + str(j) +
                                    ": coordinate is not finite");
      if (count++ == 0) moved = j;
    }
    if (count != 1)
      throw std::invalid_argument("oat_effects: point " + str(p) + " moves " + str(count) +
                                  " factors (expected exactly one non-NaN coordinate)");
    OatEffect& e = out[moved];
    ++e.levels;
    e.y_min = std::min(e.y_min, y[p]);
    e.y_max = std::max(e.y_max, y[p]);
  }
  for (auto& e : out) e.range = e.y_max - e.y_min;
  return out;
}

}  // namespace geopipe::analysis
