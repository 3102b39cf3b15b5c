// What the sweep-file tests share (tests/config/test_sweep_*.cpp): paths of the test data, a
// per-test temporary directory, sweep texts over the two-region base, loading from text, the
// message of an expected InputError, and views of points and scenarios.
#pragma once

#include <gtest/gtest.h>

#include "expectations.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "config/scenario_loader.h"
#include "sweepfile/loader.h"
#include "util/input_error.h"
#include "sched/registry.h"
#include "util/hash.h"

namespace geopipe::sweep_testing {

namespace fs = std::filesystem;
using namespace geopipe::config;

inline const std::string kDir = GEOPIPE_CONFIG_TEST_DIR;
inline const std::string kSourceDir = GEOPIPE_SOURCE_DIR;
inline const std::string kSweeps = kDir + "/sweeps";
inline const std::string kBase = fs::absolute(kSweeps + "/base/two-regions.toml").lexically_normal().string();
inline const std::string kSixRegions = fs::absolute(kSourceDir + "/sweeps/base/six-regions.toml").lexically_normal().string();

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// A fresh directory for the files of one test, removed at the end.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("geopipe_test_sweep_" + std::string(info ? info->name() : "x") + "_" +
            std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream f(p, std::ios::binary);
    f << text;
    return p.string();
  }
  std::string path() const { return dir_.string(); }

 private:
  fs::path dir_;
};

/// "[sweep]" header with the two-region base (absolute path), then `rest`.
inline std::string sweep_text(const std::string& rest, const std::string& schedulers = "[\"bace-pipe\"]",
                       const std::string& seeds = "2", const std::string& base = kBase) {
  return "[sweep]\nname = \"t\"\nbase = \"" + base + "\"\nschedulers = " + schedulers + "\nseeds = " + seeds + "\n" +
         rest;
}

inline SweepSpec load_text(const TempDir& tmp, const std::string& text, const std::vector<Override>& cli = {}) {
  return load_sweep_file(tmp.write("sweep.toml", text), cli);
}

/// Runs `f`, expecting an InputError; returns its what().
template <class F>
inline std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected InputError, nothing was thrown";
  return "";
}

/// The value this point gives `param` (TOML text), or "" if it does not set it.
inline std::string value_of(const SweepPoint& p, const std::string& param) {
  std::string v;
  for (const auto& o : p.overrides)
    if (o.path == param) v = o.value;
  return v;
}

inline std::vector<double> column_values(const SweepSpec& s, std::size_t col) {
  std::vector<double> out;
  for (std::size_t i = 0; i < s.num_points(); ++i) out.push_back(s.point(i).numeric.at(col));
  return out;
}

/// Text that differs whenever two scenarios differ in anything the tests care about.
inline std::string fingerprint(const Scenario& sc) {
  std::ostringstream os;
  os.precision(17);
  os << sc.name << '|' << sc.source_path << '|' << sc.bandwidth_scale << '|' << sc.capacity_scale << '|'
     << sc.compute.mfu.value_or(-1.0) << '|' << static_cast<int>(sc.compute.recompute) << '|' << sc.link_efficiency << '|' << sc.workload.num_jobs << '|' << sc.workload.load_scale << '|'
     << sc.workload.arrival_rate_per_hour << '|' << sc.scheduler.preset << '|' << sc.scheduler.epsilon << '|';
  for (const auto& r : sc.topology.regions) os << r.name << ':' << r.gpu_count << ':' << r.pue << ',';
  for (const auto& l : sc.topology.links) os << l.capacity_bytes_per_s << '/' << l.latency_s << ',';
  for (const auto& m : sc.workload.mix) os << m.model << ':' << m.weight << ':' << m.gpus_per_stage << ',';
  const auto jobs = sc.jobs_for_seed(3);
  os << '|' << jobs.size();
  for (const auto& j : jobs) os << ',' << j.arrival_s << ':' << j.model << ':' << j.stages << ':' << j.iterations;
  return os.str();
}

inline int region(const Scenario& sc, const std::string& name) {
  const int r = sc.topology.find_region(name);
  EXPECT_GE(r, 0) << name;
  return r;
}

}  // namespace geopipe::sweep_testing
