// The "# expect: ..." convention of the bad-input test files (tests/config/bad, sweeps/bad):
// the first line of each file names the message it must produce; " ... " separates pieces that
// must appear in that order. Shared by test_config and test_sweep (the CLI and integration
// tests implement the same rule in shell/Python).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace geopipe::testing_support {

/// File names (not paths) of the *.toml files in `dir`, sorted.
inline std::vector<std::string> toml_files_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".toml") out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The text after "# expect: " on the first line, or "" if there is none.
inline std::string expectation_of(const std::string& path) {
  std::ifstream f(path);
  std::string first;
  std::getline(f, first);
  const std::string tag = "# expect: ";
  if (first.rfind(tag, 0) != 0) return "";
  std::string e = first.substr(tag.size());
  while (!e.empty() && (e.back() == '\r' || e.back() == ' ')) e.pop_back();
  return e;
}

/// The pieces of an expectation, split at " ... ".
inline std::vector<std::string> split_expectation(const std::string& e) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dots = e.find(" ... ", start);
    parts.push_back(e.substr(start, dots == std::string::npos ? std::string::npos : dots - start));
    if (dots == std::string::npos) return parts;
    start = dots + 5;
  }
}

/// The first piece of the expectation that is missing from `what` (searched in order, each
/// after the previous one), or "" when all are there.
inline std::string missing_piece(const std::string& what, const std::string& expectation) {
  std::size_t from = 0;
  for (const std::string& part : split_expectation(expectation)) {
    const std::size_t at = what.find(part, from);
    if (at == std::string::npos) return part;
    from = at + part.size();
  }
  return "";
}

/// The whole check of one bad file: it carries an expectation, `load(path)` throws an
/// InputError whose message starts with the path and holds the expectation's pieces in order,
/// and, if `needs_line`, names a line (> 0).
template <class Error, class Load>
void expect_rejected_as_marked(const std::string& path, Load load, bool needs_line) {
  const std::string expect = expectation_of(path);
  ASSERT_FALSE(expect.empty()) << path << ": first line must be '# expect: <substring>'";
  ASSERT_NE(expect.find(':'), std::string::npos) << "expectation should contain the line:col: part";
  try {
    load(path);
    FAIL() << path << " loaded without error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path, 0), 0u) << "message does not start with the file path:\n" << what;
    if (needs_line) {
      EXPECT_GT(e.line(), 0) << what;
    }
    EXPECT_EQ(missing_piece(what, expect), "") << "actual: " << what;
  }
}

}  // namespace geopipe::testing_support
