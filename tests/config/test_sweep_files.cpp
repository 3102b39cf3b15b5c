// Every shipped sweep under sweeps/ loads, and a data-driven test over
// tests/config/sweeps/bad/*.toml whose first line is "# expect: <substring of the error message>"
// ("A ... B": A, then later B).
#include <gtest/gtest.h>

#include "expectations.h"
#include "sweep_testing.h"

namespace fs = std::filesystem;
using namespace geopipe;
using namespace geopipe::config;
using namespace geopipe::sweep_testing;

namespace {

bool has_sweep_table(const std::string& path) {
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    const auto a = line.find_first_not_of(" \t");
    if (a != std::string::npos && line.compare(a, 7, "[sweep]") == 0) return true;
  }
  return false;
}

std::vector<std::string> shipped_sweeps() {
  std::vector<std::string> out;
  const fs::path dir = fs::path(kSourceDir) / "sweeps";
  if (fs::is_directory(dir))
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".toml" && has_sweep_table(e.path().string()))
        out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> bad_files() { return testing_support::toml_files_in(fs::path(kSweeps) / "bad"); }

std::string test_name(const std::string& file) {
  std::string n = file.substr(0, file.size() - 5);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

}  // namespace

class ShippedSweep : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedSweep, Loads) {
  const std::string path = kSourceDir + "/sweeps/" + GetParam();
  try {
    const SweepSpec s = load_sweep_file(path);
    EXPECT_GE(s.num_scenarios(), 1u);
    if (s.test_function) {  // no scenarios: the inputs are the columns
      EXPECT_EQ(s.columns.size(), s.test_function->dimension());
      return;
    }
    ScenarioFactory f(s);
    (void)f.make(0);
    (void)f.make(s.num_points() - 1);
  } catch (const InputError& e) {
    FAIL() << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Files, ShippedSweep, ::testing::ValuesIn(shipped_sweeps()),
                         [](const ::testing::TestParamInfo<std::string>& tpi) { return test_name(tpi.param); });

TEST(ShippedSweeps, QuickExistsAndIsSmall) {
  const auto all = shipped_sweeps();
  EXPECT_NE(std::find(all.begin(), all.end(), "quick.toml"), all.end());
  const SweepSpec s = load_sweep_file(kSourceDir + "/sweeps/quick.toml");
  EXPECT_GE(s.num_scenarios(), 100u);
  EXPECT_LE(s.num_scenarios(), 500u);
}

class BadSweep : public ::testing::TestWithParam<std::string> {};

TEST_P(BadSweep, IsRejectedWithExpectedMessage) {
  testing_support::expect_rejected_as_marked<InputError>(
      kSweeps + "/bad/" + GetParam(), [](const std::string& p) { load_sweep_file(p); }, /*needs_line=*/true);
}

INSTANTIATE_TEST_SUITE_P(Files, BadSweep, ::testing::ValuesIn(bad_files()),
                         [](const ::testing::TestParamInfo<std::string>& tpi) { return test_name(tpi.param); });

TEST(BadSweepFiles, AtLeastFifteen) { EXPECT_GE(bad_files().size(), 15u); }
