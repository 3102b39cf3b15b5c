// Hostile input (docs/limits.md): every class of bad input ends as one InputError line, in
// bounded time and memory, and every accepted value gives finite metrics. Big and deep inputs
// are generated here; nothing large is committed.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "config/input_file.h"
#include "config/overrides.h"
#include "config/scenario_loader.h"
#include "config/schema.h"
#include "config/series_file.h"
#include "sweepfile/loader.h"
#include "config/toml_error.h"
#include "config/toml_limits.h"
#include "../fuzz/toml_image.h"
#include "model/job.h"
#include "model/units.h"
#include "sched/registry.h"
#include "sim/engine.h"
#include "sim/metrics.h"
#include "util/input_error.h"

using namespace geopipe;
using namespace geopipe::config;
namespace fs = std::filesystem;

namespace {

const std::string kDir = GEOPIPE_CONFIG_TEST_DIR;
const std::string kSmall = kDir + "/good/small.toml";

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("geopipe_test_hostile_" + std::string(info ? info->name() : "x") + "_" +
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
  std::string fifo(const std::string& name) const {
    const std::string p = (dir_ / name).string();
    EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0);
    return p;
  }
  /// A sparse file of `size` bytes (no disk used).
  std::string sparse(const std::string& name, std::uintmax_t size) const {
    const std::string p = write(name, "");
    fs::resize_file(p, size);
    return p;
  }
  std::string path() const { return dir_.string(); }

 private:
  fs::path dir_;
};

template <class F>
std::string input_error_of(F&& f) {
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

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
bool one_line(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}
/// "a.a.a...a" with n parts.
std::string dotted(int n) {
  std::string s = "a";
  for (int i = 1; i < n; ++i) s += ".a";
  return s;
}

const char* const kTraceScenario = R"([scenario]
name = "t"
[[cluster.region]]
name = "solo"
gpu = "A100-80GB"
gpus = 4
price_usd_per_kwh = 0.1
[[model]]
name = "tiny"
layers = 4
hidden = 512
vocab = 1000
seq_len = 128
[workload]
)";
const char* const kTraceHeader = "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n";

std::string sweep_text(const std::string& base, const std::string& rest = "") {
  return "[sweep]\nname = \"t\"\nbase = \"" + base + "\"\nschedulers = [\"bace-pipe\"]\nseeds = 1\n" + rest;
}

// ============================================================================================
// 1. Depth: toml++ overflows its stack on deep keys; the scan refuses them first.
// ============================================================================================

TEST(HostileDepth, DeepDottedKeyHeaderAndArrayHeader) {
  TempDir tmp;
  for (const std::string& text : {dotted(50000) + " = 1\n", "[" + dotted(50000) + "]\n",
                                  "[[" + dotted(50000) + "]]\n", "x = " + repeat("[", 100000) + "\n",
                                  "x = " + repeat("{a=", 100000) + "\n", "[" + dotted(40) + "]\n" + dotted(40) + " = 1\n"}) {
    const std::string p = tmp.write("deep.toml", text);
    const std::string msg = input_error_of([&] { load_scenario_file(p); });
    EXPECT_EQ(msg.rfind(p + ":1:", 0) == 0 || msg.rfind(p + ":2:", 0) == 0, true) << msg;
    EXPECT_TRUE(has(msg, "expected at most 64")) << msg;
    EXPECT_TRUE(one_line(msg)) << msg;
  }
}

TEST(HostileDepth, SixtyFourIsAllowedAndDotsInStringsDoNotCount) {
  EXPECT_FALSE(scan_toml_limits(dotted(64) + " = 1\n"));
  EXPECT_TRUE(scan_toml_limits(dotted(65) + " = 1\n"));
  EXPECT_FALSE(scan_toml_limits("[" + dotted(32) + "]\n" + dotted(32) + " = 1\n"));
  EXPECT_TRUE(scan_toml_limits("[" + dotted(32) + "]\n" + dotted(32) + " = [1]\n"));
  // Dots and brackets inside strings, comments and numbers are not structure.
  const std::string text = "name = \"" + dotted(500) + "\"\n"
                           "lit = '" + repeat("[", 500) + "'\n"
                           "ml = \"\"\"\n" + repeat("[[", 500) + "\n" + dotted(500) + " = 1\n\"\"\"\n"
                           "mll = '''\n" + repeat("{a.", 500) + "\n'''\n"
                           "# " + dotted(500) + " = [[[[[[\n"
                           "\"" + dotted(500) + "\" = 1.5\n"
                           "f = [1.5, 2.5e-3, 1979-05-27 07:32:00Z, \"a.b\", {x.y = 'a.b.c'}]\n";
  EXPECT_FALSE(scan_toml_limits(text)) << scan_toml_limits(text)->message;
}

// toml++ 3.3 has undefined behaviour (a reached __builtin_unreachable) on some non-ASCII
// characters where it expects whitespace, and a failed precondition on a header without a key:
// both are refused before it parses; non-ASCII in strings, quoted keys and comments is fine.
TEST(HostileDepth, NonAsciiOutsideStringsAndKeylessHeadersAreRefused) {
  for (const std::string bad : {"a = 1 \u00a0\n", "a = 1 \u00e9\n", "caf\u00e9 = 1\n", "x = [1, \u3000 2]\n",
                                "a = \"ok\" \u2028\n", "a = \"\"\"\nok\"\"\"\u00e9\n"}) {
    const auto v = scan_toml_limits(bad);
    ASSERT_TRUE(v) << bad;
    EXPECT_NE(v->message.find("non-ASCII"), std::string::npos) << v->message;
  }
  const auto at = scan_toml_limits("a = 1\nb = 2 \u00e9\n");
  ASSERT_TRUE(at);
  EXPECT_EQ(at->line, 2);
  EXPECT_EQ(at->column, 7);
  for (const std::string bad : {"a = [}\n", "a = [1, }\n", "a = [\n # c\n }]\n", "[t]\nb = [[1], [}]]\n"}) {
    const auto v = scan_toml_limits(bad);
    ASSERT_TRUE(v) << bad;
    EXPECT_NE(v->message.find("array element"), std::string::npos) << v->message;
  }
  for (const std::string bad : {"[$\n", "[[$]]\n", "[ ]\n", "[.a]\n", "[\u00e9]\n"}) {
    const auto v = scan_toml_limits(bad);
    ASSERT_TRUE(v) << bad;
    EXPECT_NE(v->message.find("needs a key"), std::string::npos) << v->message;
  }
  const std::string fine =
      "name = \"caf\u00e9 # \u00e9\" # caf\u00e9\n"
      "'\u00e9t\u00e9' = '\u00e9'\n"
      "\"\u00e9\" = \"\"\"\n\u00e9 \\\" \u00e9\"\"\"\n"
      "m = '''\u00e9\n\u00e9'''\n"
      "[\"\u00e9\".b]\n"
      "[[ x ]]\n";
  EXPECT_FALSE(scan_toml_limits(fine)) << scan_toml_limits(fine)->message;
}

TEST(HostileDepth, SweepFileAndOverrides) {
  TempDir tmp;
  const std::string s = tmp.write("s.toml", sweep_text(kSmall, "[sweep.set]\n" + dotted(50000) + " = 1\n"));
  const std::string m1 = input_error_of([&] { load_sweep_file(s); });
  EXPECT_EQ(m1.rfind(s + ":7:", 0), 0u) << m1;
  EXPECT_TRUE(has(m1, "expected at most 64")) << m1;

  const std::string point = tmp.write("p.toml", sweep_text(kSmall, "[[point]]\n\"" + dotted(50000) + "\" = 1\n"));
  const std::string m2 = input_error_of([&] { load_sweep_file(point); });
  EXPECT_TRUE(has(m2, "unknown parameter") || has(m2, "more than 64 parts")) << m2.substr(0, 300);
  EXPECT_TRUE(one_line(m2));
  EXPECT_LE(m2.size(), util::kMaxShownBytes);

  // --set: a long path, a deep value, a deep inline table for a string key.
  const std::string m3 = input_error_of([&] { parse_override(dotted(50000) + "=1"); });
  EXPECT_TRUE(has(m3, "more than 64 parts")) << m3.substr(0, 300);
  const std::string m4 = input_error_of([&] { load_scenario_file(kSmall, {parse_override("sim.mfu=" + repeat("[", 100000))}); });
  EXPECT_TRUE(has(m4, "expected at most 64")) << m4.substr(0, 300);
  const std::string m5 =
      input_error_of([&] { load_scenario_file(kSmall, {parse_override("sim.mfu={" + dotted(50000) + "=1}")}); });
  EXPECT_TRUE(has(m5, "expected at most 64")) << m5.substr(0, 300);
  // A string key takes text that is not a (limited) TOML value as the string itself.
  const Scenario sc = load_scenario_file(kSmall, {parse_override("scenario.name=" + repeat("[", 1000))});
  EXPECT_EQ(sc.name, repeat("[", 1000));
}

// ============================================================================================
// 2. Files: only regular files, bounded size, never blocking.
// ============================================================================================

TEST(HostileFiles, DevicesFifosDirectoriesAndHugeFilesAsScenario) {
  TempDir tmp;
  const std::string fifo = tmp.fifo("fifo.toml");
  const std::string big = tmp.sparse("big.toml", std::uintmax_t{1} << 30);
  const struct {
    std::string path, expect;
  } cases[] = {
      {"/dev/zero", "it is not a regular file (a character device)"},
      {fifo, "it is not a regular file (a FIFO)"},
      {tmp.path(), "it is a directory"},
      {big, "it is 1073741824 bytes (expected at most 16 MiB)"},
      {tmp.path() + "/missing.toml", "no such file"},
  };
  for (const auto& c : cases) {
    const std::string msg = input_error_of([&] { load_scenario_file(c.path); });
    EXPECT_EQ(msg, c.path + ": cannot open scenario file: " + c.expect);
  }
}

TEST(HostileFiles, SweepBaseAndTrace) {
  TempDir tmp;
  const std::string fifo = tmp.fifo("fifo");
  tmp.sparse("big.toml", std::uintmax_t{20} << 20);
  for (const std::string& path : {std::string("/dev/zero"), fifo}) {
    EXPECT_TRUE(has(input_error_of([&] { load_sweep_file(path); }), "not a regular file")) << path;
    const std::string s = tmp.write("s.toml", sweep_text(path));
    const std::string m = input_error_of([&] { load_sweep_file(s); });
    EXPECT_EQ(m.rfind(s + ":3:", 0), 0u) << m;
    EXPECT_TRUE(has(m, "cannot open base scenario") && has(m, "not a regular file")) << m;
  }
  const std::string s = tmp.write("s2.toml", sweep_text("big.toml"));
  EXPECT_TRUE(has(input_error_of([&] { load_sweep_file(s); }), "(expected at most 16 MiB)"));

  // A trace: in the file, through --set, and through a sweep's [sweep.set].
  tmp.sparse("big.csv", (std::uintmax_t{256} << 20) + 1);
  for (const std::string& trace : {std::string("/dev/zero"), fifo, std::string("big.csv")}) {
    const std::string sc = tmp.write("t.toml", std::string(kTraceScenario) + "trace = \"" + trace + "\"\n");
    const std::string m1 = input_error_of([&] { load_scenario_file(sc); });
    EXPECT_TRUE(has(m1, ":15:9: workload.trace: cannot open trace file")) << m1;
    EXPECT_TRUE(has(m1, "not a regular file") || has(m1, "(expected at most 256 MiB)")) << m1;
    const std::string m2 = input_error_of([&] { load_scenario_file(kSmall, {parse_override("workload.trace=" + trace)}); });
    EXPECT_TRUE(has(m2, "--set: workload.trace: cannot open trace file")) << m2;
    const std::string sw = tmp.write("sw.toml", sweep_text(kSmall, "[sweep.set]\n\"workload.trace\" = \"" + trace + "\"\n"));
    const std::string m3 = input_error_of([&] { load_sweep_file(sw); });
    EXPECT_TRUE(has(m3, "cannot open trace file")) << m3;
  }
}

TEST(HostileFiles, ReaderReadsRegularFilesAndSymlinksWithinTheLimit) {
  TempDir tmp;
  const std::string p = tmp.write("a.txt", "hello");
  fs::create_symlink(p, tmp.path() + "/link");
  fs::create_symlink(tmp.path() + "/gone", tmp.path() + "/dangling");
  std::string out;
  EXPECT_FALSE(read_input_file(p, 5, out));
  EXPECT_EQ(out, "hello");
  EXPECT_FALSE(read_input_file(tmp.path() + "/link", 5, out));
  EXPECT_EQ(out, "hello");
  EXPECT_EQ(read_input_file(p, 4, out).value_or(""), "it is 5 bytes (expected at most 4 bytes)");
  EXPECT_EQ(read_input_file(tmp.path() + "/dangling", 5, out).value_or(""),
            "no such file (a symbolic link to a missing file)");
  EXPECT_EQ(read_input_file(std::string("a.txt\0x", 7), 5, out).value_or(""),
            "the path contains a control character (expected a file name)");
}

// The two CSV readers (workload traces, points files) share one syntax (util/csv_read.h): the
// same decorations are accepted by both, the same damage refused by both with the same words.
TEST(HostileCsv, TracesAndPointsFilesReadOneSyntax) {
  TempDir tmp;
  const std::string scen = tmp.write("base.toml", std::string(kTraceScenario) + "[[workload.mix]]\nmodel = \"tiny\"\n");
  auto trace_error = [&](const std::string& body) {
    tmp.write("tr.csv", body);
    const std::string sc = tmp.write("tr.toml", std::string(kTraceScenario) + "trace = \"tr.csv\"\n");
    return input_error_of([&] { (void)load_scenario_file(sc); });
  };
  auto points_error = [&](const std::string& body) {
    tmp.write("pts.csv", body);
    const std::string sw = tmp.write("pts.toml", sweep_text(scen, "design = \"points_file\"\n[points_file]\npath = \"pts.csv\"\n"));
    return input_error_of([&] { (void)load_sweep_file(sw); });
  };
  const std::string row = "0,tiny,0,1,1,4,10";
  // accepted by both: a BOM, CRLF line ends, comment and blank lines, quoted cells
  tmp.write("tr.csv", "\xEF\xBB\xBF# jobs\r\n" + std::string(kTraceHeader) + "\r\n" + "0,\"tiny\",0,1,1,4,10\r\n");
  const std::string ok = tmp.write("ok.toml", std::string(kTraceScenario) + "trace = \"tr.csv\"\n");
  EXPECT_EQ(load_scenario_file(ok).trace_jobs.size(), 1u);
  tmp.write("pts.csv", "\xEF\xBB\xBF# points\r\nsim.mfu,scenario.name\r\n\r\n0.3,\"a, b\"\r\n");
  const std::string sw = tmp.write("ok-pts.toml", sweep_text(scen, "design = \"points_file\"\n[points_file]\npath = \"pts.csv\"\n"));
  EXPECT_EQ(load_sweep_file(sw).num_points(), 1u);
  // refused by both, in the same words
  const std::vector<std::pair<std::string, std::string>> damage = {
      {std::string("x\0y", 3), "a control character (byte 0x00)"},
      {"\xff", "byte 0xff is not UTF-8"},
      {"a\rb", "a carriage return without a line feed"},
      {"\"open", "unclosed quote"},
  };
  for (const auto& [bad, words] : damage) {
    SCOPED_TRACE(words);
    const std::string t = trace_error(std::string(kTraceHeader) + row + "\n" + bad + "\n");
    const std::string p = points_error("sim.mfu\n0.3\n" + bad + "\n");
    EXPECT_TRUE(has(t, "tr.csv:3:") && has(t, words)) << t;
    EXPECT_TRUE(has(p, "pts.csv:3:") && has(p, words)) << p;
  }
  // one number syntax: hexadecimal, inf and digit separators are not numbers in either
  for (const char* v : {"0x10", "inf", "1_000"}) {
    SCOPED_TRACE(v);
    EXPECT_TRUE(has(trace_error(std::string(kTraceHeader) + "0,tiny,0,1,1," + v + ",10\n"), "is not a number")) << v;
    EXPECT_TRUE(has(points_error(std::string("sim.mfu\n") + v + "\n"), "sim.mfu")) << points_error(std::string("sim.mfu\n") + v + "\n");
  }
}

// ============================================================================================
// 3. NUL and control characters in paths.
// ============================================================================================

// parse_toml() walks the document for U+0000 only when may_hold_nul() says the text can hold
// one: every notation that gives it is seen (and refused), and texts without one skip the walk.
TEST(HostilePaths, EveryNotationOfNulIsSeenBeforeTheWalkIsSkipped) {
  for (const char* text : {"a = \"x\\u0000y\"\n", "a = \"x\\U00000000y\"\n", "\"k\\u0000\" = 1\n",
                           "[t]\n\"\\U00000000\" = \"v\"\n", "a = [\"ok\", \"\\u0000\"]\n"}) {
    EXPECT_TRUE(may_hold_nul(text)) << text;
    const std::string msg = input_error_of([&] { (void)parse_toml(text, "n.toml"); });
    EXPECT_TRUE(has(msg, "contains U+0000 (NUL)")) << text << " -> " << msg;
  }
  EXPECT_TRUE(may_hold_nul(std::string_view("a = 1\0", 6)));
  // An escaped backslash before "u0000" is text, not NUL: the conservative check walks, and
  // finds nothing to refuse.
  EXPECT_TRUE(may_hold_nul("a = \"x\\\\u0000\"\n"));
  EXPECT_NO_THROW((void)parse_toml("a = \"x\\\\u0000\"\n", "n.toml"));
  // No NUL notation (another escape, a shorter sequence in a comment): the walk is skipped.
  EXPECT_FALSE(may_hold_nul("a = \"x\\u0001\"\nb = 'y'\n# \\u000\n"));
  EXPECT_NO_THROW((void)parse_toml("a = \"x\\u0001\"\nb = 'y'\n# \\u000\n", "n.toml"));
}

TEST(HostilePaths, NulInTracePathIsAnError) {
  TempDir tmp;
  tmp.write("trace.csv", std::string(kTraceHeader) + "0,tiny,0,1,1,4,10\n");
  const std::string ok = tmp.write("ok.toml", std::string(kTraceScenario) + "trace = \"trace.csv\"\n");
  EXPECT_EQ(load_scenario_file(ok).trace_jobs.size(), 1u);
  const std::string bad = tmp.write("bad.toml", std::string(kTraceScenario) + "trace = \"trace.csv\\u0000x\"\n");
  const std::string msg = input_error_of([&] { load_scenario_file(bad); });
  // No TOML string may hold U+0000 (config/toml_error.h refuse_nul): refused where it is written.
  EXPECT_TRUE(has(msg, ":15:9: workload.trace contains U+0000 (NUL), which no text value may")) << msg;
  const std::string base = tmp.write("s.toml", sweep_text("ok.toml\\u0000x"));
  EXPECT_TRUE(has(input_error_of([&] { load_sweep_file(base); }), "sweep.base contains U+0000 (NUL)"));
  // read_input_file still refuses a path with a control character from anywhere else
  std::string out;
  EXPECT_EQ(read_input_file(std::string("trace.csv\0x", 11), 5, out).value_or(""),
            "the path contains a control character (expected a file name)");
}

// ============================================================================================
// 4. Messages: one line, exact integers, the duplicated CSV column named.
// ============================================================================================

TEST(HostileMessages, ControlCharactersInEchoedNamesAreEscaped) {
  TempDir tmp;
  std::string text = std::string(kTraceScenario) + "[[workload.mix]]\nmodel = \"tiny\"\n";
  text += "[[cluster.region]]\nname = \"a\\nb\\u2028c\\u0085\"\ngpu = \"A100-80GB\"\ngpus = 1\nprice_usd_per_kwh = 1\n";
  text += "[[cluster.region]]\nname = \"a\\nb\\u2028c\\u0085\"\ngpu = \"A100-80GB\"\ngpus = 1\nprice_usd_per_kwh = 1\n";
  const std::string p = tmp.write("n.toml", text);
  const std::string msg = input_error_of([&] { load_scenario_file(p); });
  EXPECT_TRUE(one_line(msg)) << msg;
  EXPECT_TRUE(has(msg, "duplicate region 'a\\nb\\u2028c\\u0085'")) << msg;
  // Through --set (no file), and an unknown key holding a newline.
  const std::string m2 = input_error_of([&] { load_scenario_file(kSmall, {parse_override("scheduler.preset=x\ny")}); });
  EXPECT_TRUE(one_line(m2)) << m2;
  EXPECT_TRUE(has(m2, "unknown preset 'x\\ny'")) << m2;
  const std::string m3 = input_error_of([&] { load_scenario_string("[scenario]\n\"a\\rb\" = 1\n", "x.toml"); });
  EXPECT_EQ(m3, "x.toml:2:1: unknown key 'a\\rb' in [scenario] (expected one of 'name', 'seed')");
  EXPECT_EQ(util::printable_text(std::string("a\0b\x7f\xff\t", 6)), "a\\0b\\x7f\\xff\\t");
  EXPECT_EQ(util::printable_text("é ok"), "é ok");
}

TEST(HostileMessages, IntegersAreEchoedExactly) {
  const std::string m = input_error_of(
      [] { load_scenario_file(kSmall, {parse_override("cluster.region.us-east.gpus=9223372036854775807")}); });
  EXPECT_EQ(m, "--set: cluster.region[0].gpus must be <= 1000000 (got 9223372036854775807)");
  const std::string m2 =
      input_error_of([] { load_scenario_file(kSmall, {parse_override("workload.num_jobs=-9223372036854775807")}); });
  EXPECT_EQ(m2, "--set: workload.num_jobs must be >= 1 (got -9223372036854775807)");
}

TEST(HostileMessages, DuplicateTraceColumnIsNamed) {
  TempDir tmp;
  tmp.write("dup.csv",
            "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations,model\n"
            "0,tiny,0,1,1,4,10,tiny\n");
  const std::string p = tmp.write("d.toml", std::string(kTraceScenario) + "trace = \"dup.csv\"\n");
  const std::string msg = input_error_of([&] { load_scenario_file(p); });
  EXPECT_TRUE(has(msg, "dup.csv:1:81: duplicate column 'model' (column 8, already column 2; expected each column once)"))
      << msg;
}

TEST(HostileMessages, LongEchoedKeysAreShortened) {
  const std::string key(1 << 20, 'k');
  const std::string m = input_error_of([&] { load_scenario_string("[scenario]\n" + key + " = 1\n", "x.toml"); });
  EXPECT_LE(m.size(), util::kMaxShownBytes);
  EXPECT_TRUE(has(m, "bytes omitted")) << m.substr(0, 200);
  EXPECT_TRUE(has(m, "(expected one of 'name', 'seed')")) << m.substr(m.size() - 200);
}

// ============================================================================================
// 5. Every accepted value gives finite metrics: each numeric key at both ends of its range.
// ============================================================================================

/// The smallest and largest value a field accepts.
std::vector<double> extremes(const schema::Field& f) {
  std::vector<double> out;
  if (f.lo) out.push_back(f.lo->inclusive ? f.lo->value : std::nextafter(f.lo->value, 1e308));
  if (f.hi) out.push_back(f.hi->inclusive ? f.hi->value : std::nextafter(f.hi->value, -1e308));
  return out;
}

std::string value_text(const schema::Field& f, double v) {
  char buf[64];
  if (f.kind == schema::Kind::kInt) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", v);
    if (std::string(buf).find_first_of(".en") == std::string::npos) std::strcat(buf, ".0");
  }
  if (f.kind == schema::Kind::kFloatArray) return "[" + repeat(std::string(buf) + ",", 24) + "]";
  return buf;
}

/// Runs the scenario with every preset on 4 jobs; fails the test on a metric that is not finite.
void expect_finite_metrics(const Scenario& sc, const std::string& what) {
  const std::vector<Job> jobs = sc.jobs_for_seed(1);
  for (const std::string& preset : preset_names()) {
    auto sched = make_scheduler(preset, sc.scheduler);
    const SimResult r = simulate(sc, jobs, *sched, 1);
    for (const MetricField& m : metric_fields(r.metrics))
      EXPECT_TRUE(std::isfinite(m.value)) << what << " with " << preset << ": " << m.name << " = " << m.value;
  }
}

/// The corner base: small.toml with flat prices (price_profile is covered by the flat price's
/// extremes and by FiniteAtTraceExtremes), 4 jobs.
std::string corner_base(const TempDir& tmp) {
  std::ifstream f(kSmall);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  const auto a = text.find("price_profile_usd_per_kwh");
  const auto b = text.find(']', a);
  text.replace(a, b - a + 1, "price_usd_per_kwh = 0.1");
  return tmp.write("base.toml", text);
}

TEST(HostileRanges, EveryNumericKeyAtBothEndsGivesFiniteMetrics) {
  TempDir tmp;
  const std::string base = corner_base(tmp);
  const std::string text = [&] {
    std::ifstream f(base);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }();
  const std::vector<std::string> paths = document_paths(toml::parse(text));
  int accepted = 0, rejected = 0;
  for (const std::string& path : paths) {
    // The schema field of this path: the parameter it instantiates (its entry name in place of
    // the placeholder).
    const schema::Field* field = nullptr;
    for (const schema::Parameter& p : schema::parameters()) {
      const auto lt = p.path.find('<'), gt = p.path.rfind('>');
      bool match = p.path == path;
      if (lt != std::string::npos) {
        const std::string prefix = p.path.substr(0, lt), suffix = p.path.substr(gt + 1);
        match = path.size() > prefix.size() + suffix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
      }
      if (match && p.field->is_number()) field = p.field;
    }
    const std::string key = path.substr(path.rfind('.') + 1);
    if (!field || key == "num_jobs") continue;
    for (double v : extremes(*field)) {
      const std::vector<Override> ov = {parse_override("workload.num_jobs=4"),
                                        parse_override(path + "=" + value_text(*field, v))};
      Scenario sc;
      try {
        sc = load_scenario_file(base, ov);
      } catch (const InputError& e) {
        ++rejected;  // a cross-field rule (nothing fits, too many iterations, ...): fine
        EXPECT_TRUE(one_line(e.what()));
        continue;
      }
      ++accepted;
      expect_finite_metrics(sc, path + " = " + value_text(*field, v));
    }
  }
  EXPECT_GT(accepted, 3 * rejected) << accepted << " accepted, " << rejected << " rejected";
  EXPECT_GT(accepted, 80);
}

TEST(HostileRanges, CombinedCornersGiveFiniteMetrics) {
  TempDir tmp;
  const std::string base = corner_base(tmp);
  const std::vector<std::vector<std::string>> corners = {
      // Everything slow and expensive.
      {"sim.mfu=0.001", "sim.tp_efficiency=0.001", "sim.optimizer_step_s=1e6", "network.bandwidth_scale=1e-6",
       "network.intra_bandwidth_gbps=1e-6", "network.intra_latency_ms=1e6",
       "network.link.us-east/us-west.bandwidth_gbps=1e-6", "network.link.us-east/us-west.reverse_bandwidth_gbps=1e-6",
       "network.link.us-east/us-west.latency_ms=1e6", "network.link.eu-west/us-east.bandwidth_gbps=1e-6",
       "network.link.eu-west/us-east.latency_ms=1e6", "gpu.small-gpu.peak_tflops=1e-6",
       "gpu.small-gpu.busy_power_w=1e6", "gpu.small-gpu.idle_power_w=1e6", "cluster.region.us-east.price_usd_per_kwh=1e6",
       "cluster.region.us-east.carbon_g_per_kwh=1e6", "cluster.region.us-east.pue=3", "workload.duration_min_h=999999",
       "workload.duration_max_h=1e6", "scheduler.epsilon=1e6",
       "scheduler.priority_runtime_weight=1e6", "scheduler.priority_network_weight=1e6", "scheduler.priority_aging=1e6",
       "scheduler.view_staleness_s=1e6", "scheduler.view_noise_sigma=0.999999"},
      // Everything fast and cheap.
      {"sim.mfu=1", "network.bandwidth_scale=1e6", "network.intra_bandwidth_gbps=1e6",
       "network.link.us-east/us-west.bandwidth_gbps=1e6", "gpu.small-gpu.peak_tflops=1e6",
       "cluster.region.us-east.price_usd_per_kwh=5e-324", "gpu.small-gpu.busy_power_w=5e-324",
       "gpu.small-gpu.idle_power_w=5e-324", "workload.arrival_rate_per_hour=1e9", "workload.load_scale=1e6",
       "workload.duration_min_h=1e-6", "workload.duration_max_h=2e-6"},
      // The steepest and the flattest run-length tails.
      {"workload.duration_min_h=1", "workload.duration_max_h=2", "workload.duration_pareto_alpha=100"},
      // The slowest arrivals allowed.
      {"workload.arrival_rate_per_hour=1e-6", "workload.load_scale=0.015", "workload.duration_pareto_alpha=0.01"},
  };
  for (const auto& corner : corners) {
    std::vector<Override> ov = {parse_override("workload.num_jobs=4")};
    std::string what;
    for (const std::string& s : corner) {
      ov.push_back(parse_override(s));
      what += s + " ";
    }
    Scenario sc;
    try {
      sc = load_scenario_file(base, ov);
    } catch (const InputError& e) {
      ADD_FAILURE() << "corner rejected: " << e.what();
      continue;
    }
    expect_finite_metrics(sc, what);
  }
}

TEST(HostileRanges, FiniteAtTraceExtremesAndProfilePrices) {
  TempDir tmp;
  // The latest arrival and the most iterations a trace allows (flat price: no hourly events).
  tmp.write("t.csv", std::string(kTraceHeader) + "0,tiny,1,4,1,1,1000000000000000\n1e12,tiny,4,1,1,1,1\n");
  expect_finite_metrics(load_scenario_file(tmp.write("t.toml", std::string(kTraceScenario) + "trace = \"t.csv\"\n")),
                        "trace extremes");
  // The extreme prices of an hourly profile.
  tmp.write("p.csv", std::string(kTraceHeader) + "0,tiny,1,4,1,1,100000\n3600,tiny,4,1,1,1,100000\n");
  std::string text = kTraceScenario;
  text.replace(text.find("price_usd_per_kwh = 0.1"), 23, "price_profile_usd_per_kwh = [" + repeat("1e6,", 23) + "5e-324]");
  expect_finite_metrics(load_scenario_file(tmp.write("p.toml", text + "trace = \"p.csv\"\n")), "profile extremes");
}

TEST(HostileRanges, OutOfRangeValuesAreRejected) {
  const char* const bad[] = {
      "network.link.us-east/us-west.bandwidth_gbps=1e-308", "network.bandwidth_scale=1e-300",
      "cluster.region.us-east.price_usd_per_kwh=1e308",     "network.link.us-east/us-west.latency_ms=1e200",
      "gpu.small-gpu.peak_tflops=1e300",                    "sim.mfu=1e-300",
      "workload.duration_max_h=1e300",                      "workload.arrival_rate_per_hour=1e-300",
      "scheduler.epsilon=1e300",                            "cluster.region.us-east.carbon_g_per_kwh=1e300",
  };
  for (const char* s : bad) {
    const std::string m = input_error_of([&] { load_scenario_file(kSmall, {parse_override(s)}); });
    EXPECT_TRUE(has(m, "must be")) << s << ": " << m;
  }
  // Cross-field: too many iterations, too long a span of arrivals.
  const std::string m1 = input_error_of([] {
    load_scenario_file(kSmall, {parse_override("gpu.small-gpu.peak_tflops=1e6"), parse_override("workload.reference_gpu=small-gpu"),
                                parse_override("sim.optimizer_step_s=0"), parse_override("workload.duration_max_h=1e6")});
  });
  EXPECT_TRUE(has(m1, "iterations")) << m1;
  const std::string m2 = input_error_of([] {
    load_scenario_file(kSmall, {parse_override("workload.arrival_rate_per_hour=1e-6"), parse_override("workload.load_scale=1e-6")});
  });
  EXPECT_TRUE(has(m2, "s of arrivals")) << m2;
}

// ============================================================================================
// 6. Load time: a 20,000-value axis on one line (each value used to be re-parsed after as many
// spaces as its column) and a 200,000-value range (the distinct check was quadratic).
// ============================================================================================

// Series memory (docs/limits.md, "Input files"): a series file is read once per scenario however
// many keys name it; a link file without a reverse column gives both directions one series; a
// capacity keeps no integral (a price does); the table of a file holds no column it lacks.
// Before, each key and each direction held its own copy (a 250 MB file took 1.6 GB).
TEST(HostileSize, ASeriesFileIsHeldOnceHoweverManyKeysNameIt) {
  TempDir d;
  d.write("s.csv", "time_s,bandwidth_gbps,usd_per_kwh\n0,10,0.1\n60,5,0.2\n# a comment\n\n120,10,0.1\n");
  const std::string path = d.write("sc.toml", R"([scenario]
name = "shared"
[sim]
series_end = "wrap"
[[network.link]]
regions = ["a", "b"]
bandwidth_trace = "s.csv"
latency_ms = 10
[[network.link]]
regions = ["c", "a"]
bandwidth_trace = "s.csv"
latency_ms = 10
[[network.link]]
regions = ["b", "c"]
bandwidth_gbps = 3
latency_ms = 10
[[cluster.region]]
name = "a"
gpu = "A100-80GB"
gpus = 8
price_series = "s.csv"
[[cluster.region]]
name = "b"
gpu = "A100-80GB"
gpus = 8
price_series = "./s.csv"
[[cluster.region]]
name = "c"
gpu = "A100-80GB"
gpus = 8
price_usd_per_kwh = 0.1
[workload]
num_jobs = 2
[[workload.mix]]
model = "gpt3-1.3b"
)");
  const Scenario sc = load_scenario_file(path);
  const Topology& t = sc.topology;
  const StepSeries* s = t.link(0, 1).capacity_series.get();
  ASSERT_NE(s, nullptr);
  for (const auto& [a, b] : {std::pair{1, 0}, {2, 0}, {0, 2}}) EXPECT_EQ(t.link(a, b).capacity_series.get(), s) << a << b;
  EXPECT_EQ(s->values().size(), 3u);
  EXPECT_EQ(s->value_at(70), units::gbps_to_bytes_per_s(5) * kDefaultLinkEfficiency);
  EXPECT_THROW((void)s->integral(10), std::logic_error);  // no integral kept for a capacity
  const StepSeries* p = t.regions[0].price.step_series();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(t.regions[1].price.step_series(), p);  // "./s.csv" resolves to the same file
  EXPECT_DOUBLE_EQ(p->integral(180), 0.1 * 60 + 0.2 * 60 + 0.1 * 60);
  // The table: steps reserved once (at most the lines after the header), no absent column.
  SeriesColumn bw, rev;
  bw.names = {"bandwidth_gbps"};
  rev.names = {"reverse_bandwidth_gbps"};
  rev.required = false;
  const SeriesTable st = read_series_csv("time_s,bandwidth_gbps\n0,1\n10,2\n20,3\n", "t.csv", {bw, rev}, std::nullopt);
  EXPECT_EQ(st.times_s.size(), 3u);
  EXPECT_LE(st.times_s.capacity(), 4u);
  EXPECT_TRUE(st.values[1].empty());
  EXPECT_EQ(st.values[1].capacity(), 0u);
}

TEST(HostileSize, LongAxesLoadInLinearTime) {
  TempDir tmp;
  std::string values;
  for (int i = 0; i < 20000; ++i) values += (i ? ", " : "") + std::to_string(1 + i * 1e-4);
  const std::string s = tmp.write(
      "s.toml", sweep_text(kSmall, "[[axis]]\nparam = \"network.bandwidth_scale\"\nvalues = [" + values + "]\n"));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(load_sweep_file(s).num_points(), 20000u);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 60.0);  // about 3 s; quadratic it took minutes
}

// ============================================================================================
// 7. parse_toml hands toml++ the text without the comments scan_toml_limits lists
// (config/toml_limits.h): that must change nothing toml++ makes of any text.
// ============================================================================================

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Every TOML file of the repository (scenarios, sweeps, the bad-input files) and every fuzz
// regression input: the text without its listed comments parses to the same document, every
// node at the same place with the same value, or fails with the same message at the same place
// (fuzz::toml_image; the fuzz target toml_comments tries generated texts the same way).
TEST(TomlComments, RemovingThemChangesNothingTomlppMakesOfEveryInputFile) {
  const fs::path root = GEOPIPE_SOURCE_DIR;
  std::vector<fs::path> files;
  for (const char* dir : {"sweeps", "tests", "results", "docs"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir))
      if (e.is_regular_file() && (e.path().extension() == ".toml" || e.path().string().find("fuzz/regressions/") != std::string::npos))
        files.push_back(e.path());
  int with_comments = 0, failing = 0;
  for (const fs::path& f : files) {
    const std::string text = read_all(f);
    std::vector<TomlCommentSpan> comments;
    if (scan_toml_limits(text, comments) || comments.empty()) continue;
    ++with_comments;
    const std::string a = fuzz::toml_image(text), b = fuzz::toml_image(without_comments(text, comments));
    EXPECT_TRUE(a == b) << f << "\n  with the comments:    " << a.substr(0, 2000)
                        << "\n  without the comments: " << b.substr(0, 2000);
    failing += a.rfind("error @", 0) == 0;
  }
  EXPECT_GT(with_comments, 100);  // 190 TOML files in the repository, most of them commented
  EXPECT_GE(failing, 2);          // and syntax errors among them (tests/config/bad/syntax_*)
}

// Which comments are listed: plain ones of the top level only; the rest is toml++'s to read.
TEST(TomlComments, OnlyPlainTopLevelCommentsAreListed) {
  auto listed = [](const std::string& text) {
    std::vector<TomlCommentSpan> c;
    EXPECT_FALSE(scan_toml_limits(text, c)) << text;
    std::string out;
    for (const TomlCommentSpan& s : c) out += "[" + text.substr(s.begin, s.end - s.begin) + "]";
    return out;
  };
  EXPECT_EQ(listed("# head\na = 1 # one\n[t] # tab\t\nb = \"#x\" #\nc = 1\n"), "[# head][# one][# tab\t][#]");
  EXPECT_EQ(listed("a = 1 # crlf\r\nb = 2 # x\nc = 3\n"), "[# crlf][# x]");  // the break stays
  EXPECT_EQ(listed("a = 1 # x\nb = 2 # last line\n"), "[# x]");          // the last line stays
  EXPECT_EQ(listed("a = 1# tight\n"), "");                                  // not after a space
  EXPECT_EQ(listed("a = 1 # bell\x07\n"), "");                              // a control character
  EXPECT_EQ(listed("a = 1 # lone\rcr\n"), "");                              // a lone CR
  EXPECT_EQ(listed("a = 1 # caf\xC3\xA9\n"), "");                           // non-ASCII
  EXPECT_EQ(listed("x = [1, # in an array\n 2]\ny = { a = 1 }\n"), "");     // inside brackets
  EXPECT_EQ(listed("s = \"\"\"\n# text\n\"\"\"\n"), "");                    // inside a string
  EXPECT_EQ(listed("s = \"open\n# after\n"), "");      // the scanner lost its way: nothing
  EXPECT_EQ(listed("# c\ns = \"\x92\"\nz = 0\n"), "");   // not UTF-8 (in a string): nothing
  EXPECT_EQ(listed("# c\ns = \"\xC3\xA9\"\nz = 0\n"), "[# c]");  // well-formed UTF-8 is fine
  // Errors toml++ finds in text the scanner understands, around removed comments: the same
  // message at the same place.
  for (const std::string bad : {"a = 1 # c\na = 2 # c\nz = 0\n", "# c\nb = tru # c\nz = 0\n", "a = 01 # c\nz = 0\n",
                                "# c\n[t] # c\n[t] # c\nz = 0\n", "d = 1979-13-27 # c\nz = 0\n", "a = 1 # c\na.b = 2 # c\nz = 0\n"}) {
    std::vector<TomlCommentSpan> cs;
    ASSERT_FALSE(scan_toml_limits(bad, cs)) << bad;
    EXPECT_FALSE(cs.empty()) << bad;
    const std::string x = fuzz::toml_image(bad), y = fuzz::toml_image(without_comments(bad, cs));
    EXPECT_EQ(x.rfind("error @", 0), 0u) << bad << ": " << x;
    EXPECT_EQ(x, y) << bad;
  }
  // Text the scanner does not understand keeps all its comments.
  for (const std::string bad : {"a = 1 # c\nb = \n# c\nc = 1\n", "# c\n[t # c\n# c\nx = 1\n", "x = [1,\n# c\n2\n# c\ny = 1\n"}) {
    EXPECT_EQ(listed(bad), "") << bad;
  }
  // The removal keeps every place: the value after a removed comment is where it was.
  const std::string text = "# c\na = 1 # c\nb = 2\n";
  std::vector<TomlCommentSpan> c;
  ASSERT_FALSE(scan_toml_limits(text, c));
  const toml::table t = toml::parse(without_comments(text, c));
  EXPECT_EQ(t.get("b")->source().begin.line, 3u);
  EXPECT_EQ(t.get("b")->source().begin.column, 5u);
}

}  // namespace
