// Google Benchmark: Sobol' and Morris estimators with bootstrap CIs (src/analysis/sensitivity.h).
// Run ./build/tests/bench/bench_sensitivity. Not part of ctest.
// The target: N = 100,000 samples x D = 8 factors x 1000 resamples, first and total order,
// well under 2 s on one core (BM_Sobol/100000/8/1000/0).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "analysis/sensitivity.h"
#include "analysis/test_functions.h"
#include "model/rng.h"

namespace geopipe::analysis {
namespace {

// The G-function (default coefficients, first D of them) on a Saltelli design with random A, B.
std::vector<double> saltelli_outputs(std::size_t n, std::size_t d, bool second) {
  TestFunction g;
  g.kind = TestFunctionKind::kSobolG;
  g.g_coefficients = default_g_coefficients();
  g.g_coefficients.resize(d, 99.0);
  const std::size_t k = second ? 2 * d + 2 : d + 2;
  Rng rng(42);
  std::vector<double> y(n * k), a(d), b(d), x(d);
  for (std::size_t i = 0; i < n; ++i) {
    for (auto& v : a) v = rng.uniform();
    for (auto& v : b) v = rng.uniform();
    y[i * k] = g(a.data());
    y[i * k + k - 1] = g(b.data());
    for (std::size_t j = 0; j < d; ++j) {
      x = a;
      x[j] = b[j];
      y[i * k + 1 + j] = g(x.data());
      if (second) {
        x = b;
        x[j] = a[j];
        y[i * k + 1 + d + j] = g(x.data());
      }
    }
  }
  return y;
}

// Args: N, D, resamples, second order (0/1).
void BM_Sobol(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto d = static_cast<std::size_t>(state.range(1));
  const bool second = state.range(3) != 0;
  const std::vector<double> y = saltelli_outputs(n, d, second);
  BootstrapOptions opt;
  opt.resamples = static_cast<std::size_t>(state.range(2));
  for (auto _ : state) benchmark::DoNotOptimize(sobol_indices(y, d, second, opt));
  state.counters["draws/s"] = benchmark::Counter(
      static_cast<double>(n) * static_cast<double>(opt.resamples + 1), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Sobol)
    ->Args({100000, 8, 1000, 0})
    ->Args({100000, 8, 0, 0})
    ->Args({10000, 8, 1000, 0})
    ->Args({10000, 8, 1000, 1})
    ->Args({100000, 8, 1000, 1})
    ->Unit(benchmark::kMillisecond);

// Args: trajectories r, D, resamples. A linear model on random one-factor-at-a-time steps.
void BM_Morris(benchmark::State& state) {
  const auto r = static_cast<std::size_t>(state.range(0));
  const auto d = static_cast<std::size_t>(state.range(1));
  Rng rng(7);
  std::vector<double> unit, y;
  for (std::size_t t = 0; t < r; ++t) {
    std::vector<double> u(d);
    for (auto& v : u) v = rng.uniform();
    for (std::size_t s = 0; s <= d; ++s) {
      if (s > 0) u[s - 1] = 1.0 - u[s - 1];
      double f = 0.0;
      for (std::size_t j = 0; j < d; ++j) f += static_cast<double>(j + 1) * u[j];
      unit.insert(unit.end(), u.begin(), u.end());
      y.push_back(f);
    }
  }
  BootstrapOptions opt;
  opt.resamples = static_cast<std::size_t>(state.range(2));
  for (auto _ : state) benchmark::DoNotOptimize(morris_indices(unit, y, d, opt));
}
BENCHMARK(BM_Morris)->Args({1000, 8, 1000})->Args({100, 20, 1000})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace geopipe::analysis

BENCHMARK_MAIN();
