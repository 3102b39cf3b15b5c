// The trace importer (src/traceimport, docs/trace-import.md): each format's kept rows and drop
// reasons, located errors, the CSV syntax (BOM, CRLF, quotes), duplicates, the shape table
// (default and override) and iterations computed by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "model/flexible_job.h"
#include "model/gpu.h"
#include "model/llm.h"
#include "model/trace.h"
#include "model/workload.h"
#include "traceimport/trace_import.h"
#include "util/input_error.h"

namespace geopipe::traceimport {
namespace {

using DR = DropReason;

ImportResult import(const std::string& text, ImportOptions opt, const std::string& path = "t.csv") {
  return import_trace(text, path, opt);
}

ImportOptions with(Format f) {
  ImportOptions o;
  o.format = f;
  return o;
}

/// The message of the InputError `f` throws ("" if it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const std::string& model_of(const ImportResult& r, const ImportedJob& j) { return r.shapes[static_cast<std::size_t>(j.shape)].model; }

/// T_ref by the closed form of docs/model.md (GPipe, every stage on one GPU type, default [sim]:
/// the type's calibrated efficiency, full recomputation): (m - 1)(max_i f_i + max_i b_i) + sum_i u_i,
/// u_i = f_i + b_i, b_i = 2 f_i + l_i·layer / v (the layers' forward again, not the LM head's),
/// f_i = FLOP_i / v, v = g peak eff (g > 1 ? tp_eff : 1), eff = mfu_max h / (h + mfu_half_hidden),
/// FLOP_i = l_i 24 b s h^2 (1 + s / 6h) + (last ? 2 b s h V : 0), layers split evenly (earlier first).
double hand_t_ref(const LlmSpec& m, int S, int g, int b, int mb, const GpuType& gpu) {
  const double s = m.seq_len, h = m.hidden, V = m.vocab;
  const double layer = 24.0 * b * s * h * h * (1.0 + s / (6.0 * h));
  const double eff = gpu.mfu_max * h / (h + gpu.mfu_half_hidden);
  const double speed = g * gpu.peak_flops * eff * (g > 1 ? 0.9 : 1.0);
  double sum = 0, max_f = 0, max_b = 0;
  for (int i = 0; i < S; ++i) {
    const int l = m.layers / S + (i < m.layers % S ? 1 : 0);
    const double f = (l * layer + (i == S - 1 ? 2.0 * b * s * h * V : 0.0)) / speed;
    const double bw = 2.0 * f + l * layer / speed;
    sum += f + bw;
    max_f = std::max(max_f, f);
    max_b = std::max(max_b, bw);
  }
  return (mb - 1) * (max_f + max_b) + sum;
}

const char* const kHeliosHeader = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";

// --- philly ---------------------------------------------------------------------------------

TEST(TraceImportPhilly, KeepsRowsAndComputesIterationsByHand) {
  const std::string text =
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-03 14:00:00,3600,1,3600,c1\n"
      "2017-10-03 14:30:00,7200,1,7200,c2\n"
      "2017-10-03 14:10:00,100,8,800,c1\n"
      "2017-10-03 14:20:00,0,2,0,c1\n"     // zero duration
      "2017-10-03 14:25:00,50,0,0,c1\n";   // no GPU
  const ImportResult r = import(text, with(Format::kPhilly));
  EXPECT_EQ(r.rows_read, 5);
  ASSERT_EQ(r.rows_kept(), 3);
  EXPECT_EQ(r.count(DR::kDuration), 1);
  EXPECT_EQ(r.count(DR::kNoGpu), 1);
  EXPECT_EQ(r.rows_dropped(), 2);
  // sorted by submit: 14:00 (1 GPU), 14:10 (8 GPUs), 14:30 (1 GPU)
  EXPECT_EQ(r.jobs[0].arrival_s, 0.0);
  EXPECT_EQ(r.jobs[1].arrival_s, 600.0);
  EXPECT_EQ(r.jobs[2].arrival_s, 1800.0);
  EXPECT_EQ(model_of(r, r.jobs[0]), "gpt3-1.3b");
  EXPECT_EQ(r.jobs[0].stages, 1);
  EXPECT_EQ(model_of(r, r.jobs[1]), "llama2-13b");
  EXPECT_EQ(r.jobs[1].stages, 4);  // N/g = 8/2
  // gpt3-1.3b, 1 stage, m = 16 on A100-80GB (efficiency 0.678 · 2048 / 2455): T_ref = 16 u =
  // 2.20819036362 s; 3600 / T_ref = 1630.29
  const GpuType& a100 = *find_builtin_gpu("A100-80GB");
  const double t = hand_t_ref(*find_builtin_llm("gpt3-1.3b"), 1, 1, 1, 16, a100);
  EXPECT_NEAR(t, 2.2081903636215, 1e-12);
  EXPECT_EQ(r.jobs[0].iterations, 1630);
  EXPECT_EQ(r.jobs[2].iterations, 3261);  // 7200 / 2.20819036362 = 3260.59
  const double t13 = hand_t_ref(*find_builtin_llm("llama2-13b"), 4, 2, 1, 16, a100);
  EXPECT_EQ(r.jobs[1].iterations, std::max<std::int64_t>(1, std::llround(100 / t13)));
  // the shared function is the closed form
  Job j;
  j.stages = 4;
  j.gpus_per_stage = 2;
  j.micro_batches = 16;
  EXPECT_NEAR(reference_iteration_time_s(j, *find_builtin_llm("llama2-13b"), a100, ComputeOptions{}), t13, 1e-9 * t13);
}

TEST(TraceImportPhilly, EpochSecondsAndTimeScale) {
  ImportOptions o = with(Format::kPhilly);
  o.time_scale = 0.5;
  o.arrival_offset_s = 100;
  const ImportResult r = import("timestamp,duration,num_gpus\n1000,7200,1\n1600,3600,1\n", o);
  ASSERT_EQ(r.rows_kept(), 2);
  EXPECT_EQ(r.jobs[0].arrival_s, 100.0);
  EXPECT_EQ(r.jobs[1].arrival_s, 400.0);     // 100 + 600 x 0.5
  EXPECT_EQ(r.jobs[0].iterations, 1630);     // 7200 x 0.5 = 3600 s
  EXPECT_EQ(r.jobs[1].iterations, 815);      // 1800 / 2.2082 = 815.15
}

TEST(TraceImportPhilly, HasNoStates) {
  ImportOptions o = with(Format::kPhilly);
  o.states = {"COMPLETED"};
  EXPECT_PRED2(contains, error_of([&] { import("timestamp,duration,num_gpus\n0,1,1\n", o); }), "--states: --format philly has no state column");
}

// --- helios / acme ----------------------------------------------------------------------------

TEST(TraceImportHelios, DropReasonsAreCounted) {
  const std::string text = std::string(kHeliosHeader) +
                           "1,u,v,1,4,1,COMPLETED,2020-04-01 00:00:00,,,3600,0\n"
                           "2,u,v,2,4,1,FAILED,2020-04-01 00:01:00,,,3600,0\n"
                           "3,u,v,4,4,1,CANCELLED by 12,2020-04-01 00:02:00,,,3600,0\n"
                           "4,u,v,0,4,1,COMPLETED,2020-04-01 00:03:00,,,3600,0\n"
                           "5,u,v,64,4,1,COMPLETED,2020-04-01 00:04:00,,,3600,0\n"
                           "6,u,v,2,4,1,COMPLETED,2020-04-01 00:05:00,,,-5,0\n"
                           "1,u,v,1,4,1,COMPLETED,2020-04-01 00:00:00,,,3600,0\n"   // duplicate of job 1
                           "7,u,v,4,4,1,completed,2020-04-02 00:00:00,,,60,0\n";   // a day later; lower case state
  ImportOptions o = with(Format::kHelios);
  o.max_gpus = 32;
  const ImportResult r = import(text, o);
  EXPECT_EQ(r.rows_read, 8);
  EXPECT_EQ(r.rows_kept(), 2);
  EXPECT_EQ(r.count(DR::kState), 2);
  EXPECT_EQ(r.count(DR::kNoGpu), 1);
  EXPECT_EQ(r.count(DR::kTooManyGpus), 1);
  EXPECT_EQ(r.count(DR::kDuration), 1);
  EXPECT_EQ(r.count(DR::kDuplicate), 1);
  EXPECT_EQ(r.rows_kept() + r.rows_dropped(), r.rows_read);
  EXPECT_EQ(r.jobs[1].arrival_s, 86400.0);
  EXPECT_EQ(model_of(r, r.jobs[1]), "llama2-7b");
  EXPECT_EQ(r.jobs[1].stages, 4);
  EXPECT_EQ(r.states, std::vector<std::string>{"COMPLETED"});

  o.states = {"completed", "FAILED", "cancelled"};  // any case; CANCELLED matches "CANCELLED by 12"
  const ImportResult all = import(text, o);
  EXPECT_EQ(all.count(DR::kState), 0);
  EXPECT_EQ(all.rows_kept(), 4);
  EXPECT_EQ(all.states, (std::vector<std::string>{"COMPLETED", "FAILED", "CANCELLED"}));

  o.keep_duplicates = true;
  EXPECT_EQ(import(text, o).rows_kept(), 5);
  o.states = {"COMPLETE"};
  EXPECT_PRED2(contains, error_of([&] { import(text, o); }), "--states: unknown state 'COMPLETE' for --format helios");
}

TEST(TraceImportHelios, WindowAndLimit) {
  std::string text = kHeliosHeader;
  for (int i = 0; i < 10; ++i)  // submits 0, 100, ..., 900 s after 2020-04-01 00:00:00 (epoch 1585699200), written backwards
    text += std::to_string(i) + ",u,v,1,1,1,COMPLETED," + std::to_string(1585699200 + 100 * (9 - i)) + ",,,60,0\n";
  ImportOptions o = with(Format::kHelios);
  o.from_s = 200;
  o.to_s = 700;  // keeps 200, 300, 400, 500, 600
  ImportResult r = import(text, o);
  EXPECT_EQ(r.rows_kept(), 5);
  EXPECT_EQ(r.count(DR::kWindow), 5);
  EXPECT_EQ(r.t0_s, 1585699200.0);
  EXPECT_EQ(r.t1_s, 1585699400.0);
  for (int k = 0; k < 5; ++k) EXPECT_EQ(r.jobs[static_cast<std::size_t>(k)].arrival_s, 100.0 * k);
  o.limit = 2;
  r = import(text, o);
  EXPECT_EQ(r.rows_kept(), 2);
  EXPECT_EQ(r.count(DR::kLimit), 3);
  EXPECT_EQ(r.jobs[1].arrival_s, 100.0);
  o.from_s = 5000;  // nothing left: a result without jobs, no error (the CLI refuses to write it)
  o.to_s = 6000;
  EXPECT_EQ(import(text, o).rows_kept(), 0);
}

TEST(TraceImportHelios, TiesKeepFileOrder) {
  const std::string text = std::string(kHeliosHeader) + "a,u,v,1,1,1,COMPLETED,5,,,60,0\nb,u,v,8,1,1,COMPLETED,5,,,60,0\n"
                                                        "c,u,v,2,1,1,COMPLETED,4,,,60,0\n";
  const ImportResult r = import(text, with(Format::kHelios));
  ASSERT_EQ(r.rows_kept(), 3);
  EXPECT_EQ(model_of(r, r.jobs[0]), "llama2-7b");
  EXPECT_EQ(model_of(r, r.jobs[1]), "gpt3-1.3b");
  EXPECT_EQ(model_of(r, r.jobs[2]), "llama2-13b");
}

TEST(TraceImportHelios, AcmeAndKalosColumnsAndStartEnd) {
  // Acme: type and gpu_time; Kalos: fail_time; columns in another order
  const std::string acme =
      "job_id,user,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue,type,gpu_time,fail_time,vc\n"
      "j1,u,16,64,2,COMPLETED,2023-07-01 00:00:00,2023-07-01 00:00:05,2023-07-01 01:00:05,3600,5,Pretrain,57600,,vc1\n";
  const ImportResult r = import(acme, with(find_format("acme")->format));
  ASSERT_EQ(r.rows_kept(), 1);
  EXPECT_EQ(model_of(r, r.jobs[0]), "llama-33b");
  EXPECT_EQ(r.jobs[0].stages, 4);
  // no duration column: end_time - start_time
  const std::string se = "gpu_num,state,submit_time,start_time,end_time\n2,COMPLETED,0,10,3610\n";
  const ImportResult r2 = import(se, with(Format::kHelios));
  ASSERT_EQ(r2.rows_kept(), 1);
  EXPECT_EQ(r2.jobs[0].run_s, 3600.0);
  EXPECT_EQ(error_of([&] { import("gpu_num,state,submit_time,start_time\n", with(Format::kHelios)); }),
            "t.csv:1:1: missing column 'end_time' (--format helios takes the run time from 'duration', or from 'start_time' and 'end_time')");
}

TEST(TraceImportHelios, ErrorsAreLocated) {
  auto err = [](const std::string& rows, ImportOptions o = with(Format::kHelios)) {
    return error_of([&] { import(std::string(kHeliosHeader) + rows, o); });
  };
  const std::string times = " (expected YYYY-MM-DD HH:MM:SS, in UTC unless it ends in a zone such as +08:00, or seconds >= 0, "
                            "e.g. 2020-04-01 08:30:00 or 1585729800)";
  EXPECT_EQ(err("1,u,v,1,4,1,COMPLETED,2020-04-01 0:00:00,,,3600,0\n"),
            "t.csv:2:23: submit_time: '2020-04-01 0:00:00' is not a time" + times);
  EXPECT_EQ(err("1,u,v,1,4,1,COMPLETED,2021-02-29 00:00:00,,,3600,0\n"),
            "t.csv:2:23: submit_time: '2021-02-29 00:00:00' is no date and time: February 29 (2021)" + times);
  EXPECT_EQ(err("1,u,v,1,4,1,COMPLETED,-5,,,3600,0\n"), "t.csv:2:23: submit_time: -5 is out of range" + times);
  EXPECT_EQ(err("1,u,v,x,4,1,COMPLETED,0,,,3600,0\n"), "t.csv:2:7: gpu_num: 'x' is not a number (expected a whole number, e.g. 8)");
  EXPECT_EQ(err("1,u,v,2.5,4,1,COMPLETED,0,,,3600,0\n"), "t.csv:2:7: gpu_num: '2.5' is not a whole number");
  EXPECT_EQ(err("1,u,v,1,4,1,COMPLETED,0,,,,0\n"),
            "t.csv:2:27: duration: an empty cell is not a number (expected seconds, e.g. 3600 or 12.5)");
  EXPECT_EQ(err("1,u,v,1,4,1,COMPLETED,0,,,3600\n"), "t.csv:2:1: expected 12 fields (the header's), found 11");
  // a bad cell in a row whose state is dropped is not read
  EXPECT_EQ(err("1,u,v,x,4,1,FAILED,bad,,,x,0\n2,u,v,1,1,1,COMPLETED,0,,,1,0\n"), "");
  EXPECT_EQ(error_of([&] { import("job_id,gpu_num,state,submit_time,duration,color\n", with(Format::kHelios)); }),
            "t.csv:1:43: unknown column 'color' for --format helios (expected some of job_id, user, vc, gpu_num, cpu_num, node_num, "
            "state, submit_time, start_time, end_time, duration, queue, type, gpu_time, fail_time; is --format right?)");
  EXPECT_EQ(error_of([&] { import("gpu_num,state,duration\n", with(Format::kHelios)); }),
            "t.csv:1:1: missing column 'submit_time' (--format helios needs gpu_num, state, submit_time)");
  EXPECT_EQ(error_of([&] { import("gpu_num,state,submit_time,state\n", with(Format::kHelios)); }),
            "t.csv:1:27: duplicate column 'state' (column 4, already column 2; expected each column once)");
  EXPECT_EQ(error_of([&] { import("", with(Format::kHelios)); }), "t.csv: empty trace (expected a header line and rows)");
}

TEST(TraceImportHelios, SkipBadRowsCountsThemAndSyntaxErrorsStillFail) {
  const std::string text = std::string(kHeliosHeader) + "1,u,v,1,4,1,COMPLETED,0,,,3600,0\n"
                                                        "2,u,v,1,4,1,COMPLETED,yesterday,,,3600,0\n"
                                                        "3,u,v,1,4,1,COMPLETED,60,,,3600\n"
                                                        "4,u,v,1,4,1,COMPLETED,120,,,3600,0\n";
  ImportOptions o = with(Format::kHelios);
  EXPECT_PRED2(starts_with, error_of([&] { import(text, o); }), "t.csv:3:23: submit_time: 'yesterday' is not a time");
  o.skip_bad_rows = true;
  const ImportResult r = import(text, o);
  EXPECT_EQ(r.rows_kept(), 2);
  EXPECT_EQ(r.count(DR::kBadRow), 2);
  EXPECT_PRED2(starts_with, r.first_bad_row, "t.csv:3:23: submit_time: 'yesterday'");
  EXPECT_PRED2(contains, import_summary(r, o, "t.csv"), "bad_row                  2  ");
  // not CSV: not a row's problem, so not skipped
  EXPECT_PRED2(starts_with, error_of([&] { import(std::string(kHeliosHeader) + "1,\"u,v,1\n", o); }), "t.csv:2:3: unclosed quote (expected a closing \")");
}

TEST(TraceImportHelios, BomCrlfAndQuotedCellsReadAsPlain) {
  const std::string plain = std::string(kHeliosHeader) + "1,ann,v,2,4,1,COMPLETED,2020-04-01 00:00:00,,,3600,0\n"
                                                         "2,bob,v,8,4,1,COMPLETED,2020-04-01 00:30:00,,,7200,0\n";
  const std::string odd = "\xEF\xBB\xBF# a comment\r\n" + std::string("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\r\n") +
                          "1,\"ann, the \"\"first\"\"\",v,\"2\",4,1,\"COMPLETED\",\"2020-04-01 00:00:00\",,,3600,0\r\n"
                          "\r\n"
                          "2, bob ,v,8,4,1,COMPLETED,  2020-04-01T08:30:00+08:00 ,,, 7200 ,0\r\n";
  const ImportResult a = import(plain, with(Format::kHelios));
  const ImportResult b = import(odd, with(Format::kHelios));
  ASSERT_EQ(a.rows_kept(), 2);
  ASSERT_EQ(b.rows_kept(), 2);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(a.jobs[k].arrival_s, b.jobs[k].arrival_s);
    EXPECT_EQ(a.jobs[k].iterations, b.jobs[k].iterations);
    EXPECT_EQ(a.jobs[k].shape, b.jobs[k].shape);
  }
  EXPECT_EQ(b.jobs[0].line, 3);  // after the comment and the header
  EXPECT_EQ(b.jobs[1].line, 5);
}

// --- alibaba-2023 ----------------------------------------------------------------------------

TEST(TraceImportAlibaba, SharesCpuOnlyAndPhases) {
  const std::string text =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
      "openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0\n"
      "openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061\n"      // a share of one GPU
      "openb-pod-0005,20000,65536,0,0,,LS,Running,2759674,12902960,2759676\n"     // CPU only
      "openb-pod-0017,88000,327680,8,1000,,Burstable,Succeeded,9437497,10769854,9437497\n"
      "openb-pod-0033,3152,5600,1,1000,,BE,Failed,9965463,9965645,9965463\n"
      "openb-pod-0061,11908,47104,1,1000,,BE,Pending,10001278,10001403,\n"         // never scheduled: not read
      "openb-pod-0035,16000,32768,2,1000,V100M16|V100M32,LS,Running,9967058,9968575,9967063\n";
  const ImportResult r = import(text, with(Format::kAlibaba2023));
  EXPECT_EQ(r.rows_read, 7);
  ASSERT_EQ(r.rows_kept(), 3);
  EXPECT_EQ(r.count(DR::kFractionalGpu), 1);
  EXPECT_EQ(r.count(DR::kNoGpu), 1);
  EXPECT_EQ(r.count(DR::kState), 2);
  EXPECT_EQ(r.states, (std::vector<std::string>{"Succeeded", "Running"}));
  EXPECT_EQ(r.jobs[0].run_s, 12537496.0);
  EXPECT_EQ(r.jobs[1].arrival_s, 9437497.0);
  EXPECT_EQ(r.jobs[1].run_s, 10769854.0 - 9437497.0);
  EXPECT_EQ(model_of(r, r.jobs[1]), "llama2-13b");
  EXPECT_EQ(r.jobs[2].run_s, 9968575.0 - 9967063.0);
  EXPECT_EQ(model_of(r, r.jobs[2]), "llama2-7b");
  EXPECT_EQ(r.jobs[2].stages, 2);
  EXPECT_EQ(error_of([&] {
              import("num_gpu,gpu_milli,pod_phase,creation_time,deletion_time,scheduled_time\n1,1500,Running,0,10,0\n",
                     with(Format::kAlibaba2023));
            }),
            "t.csv:2:3: gpu_milli: 1500 is out of range (expected 0 .. 1000)");
  EXPECT_EQ(error_of([&] {
              import("num_gpu,gpu_milli,pod_phase,creation_time,deletion_time,scheduled_time\n1,1000,Running,0,10,\n",
                     with(Format::kAlibaba2023));
            }),
            "t.csv:2:21: scheduled_time: an empty cell is not a time (expected YYYY-MM-DD HH:MM:SS, in UTC unless it ends in a "
            "zone such as +08:00, or seconds >= 0, e.g. 2020-04-01 08:30:00 or 1585729800)");
}

// --- the shape table ------------------------------------------------------------------------

TEST(TraceImportShapes, DefaultTableIsContiguousFitsAndMapsGpuCounts) {
  const std::vector<ShapeRule> t = default_shape_table();
  const GpuType& a100 = *find_builtin_gpu("A100-80GB");
  EXPECT_NO_THROW(check_shape_table(t, "", a100, ComputeOptions{}));
  EXPECT_NO_THROW(check_shape_table(t, "", *find_builtin_gpu("H100-SXM"), ComputeOptions{}));
  EXPECT_EQ(t.front().min_gpus, 1);
  EXPECT_EQ(t.back().max_gpus, kNoGpuLimit);
  struct Case {
    std::int64_t n;
    const char* model;
    int g, s;
  };
  for (const Case& c : {Case{1, "gpt3-1.3b", 1, 1}, Case{2, "llama2-7b", 1, 2}, Case{7, "llama2-7b", 1, 7}, Case{8, "llama2-13b", 2, 4},
                        Case{15, "llama2-13b", 2, 7}, Case{16, "llama-33b", 4, 4}, Case{64, "llama2-70b", 8, 8},
                        Case{128, "flm-101b", 8, 16}, Case{100000, "flm-101b", 8, 80}}) {
    const int k = find_shape(t, c.n);
    ASSERT_GE(k, 0) << c.n;
    const ShapeRule& r = t[static_cast<std::size_t>(k)];
    EXPECT_EQ(r.model, c.model) << c.n;
    EXPECT_EQ(r.gpus_per_stage, c.g) << c.n;
    EXPECT_EQ(mapped_stages(r, *find_builtin_llm(r.model), c.n), c.s) << c.n;
  }
  EXPECT_EQ(find_shape(t, 0), -1);
  // the printed table reads back as itself
  const std::vector<ShapeRule> back = parse_shape_table(shape_table_csv(t), "s.csv");
  ASSERT_EQ(back.size(), t.size());
  for (std::size_t k = 0; k < t.size(); ++k) {
    EXPECT_EQ(back[k].min_gpus, t[k].min_gpus);
    EXPECT_EQ(back[k].max_gpus, t[k].max_gpus);
    EXPECT_EQ(back[k].model, t[k].model);
    EXPECT_EQ(back[k].stages, t[k].stages);
  }
  // a smaller reference GPU: the default table does not fit, and says where
  EXPECT_PRED2(starts_with, error_of([&] { check_shape_table(t, "", *find_builtin_gpu("V100-32GB"), ComputeOptions{}); }), "the default shape table: row 2..7 (llama2-7b): llama2-7b at 2 stages (N = 2) needs up to 62.2 GB per stage, "
                   "more than 1 x V100-32GB (32.0 GB)");
}

TEST(TraceImportShapes, OverrideMapsRowsAndIsValidated) {
  const std::string table =
      "model,min_gpus,max_gpus,gpus_per_stage,stages,micro_batch_size,micro_batches\n"
      "llama2-7b,1,3,1,0,1,8\n"
      "llama2-70b,4,inf,4,6,2,32\n";
  const std::vector<ShapeRule> rules = parse_shape_table(table, "s.csv");
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].line, 2);
  ImportOptions o = with(Format::kPhilly);
  o.shapes = rules;
  o.shape_table_path = "s.csv";
  const ImportResult r = import("timestamp,duration,num_gpus\n0,3600,1\n10,3600,4\n20,3600,4096\n", o);
  ASSERT_EQ(r.rows_kept(), 3);
  EXPECT_EQ(model_of(r, r.jobs[0]), "llama2-7b");
  EXPECT_EQ(r.jobs[0].stages, 0);  // smallest feasible: written as 0
  // its T_ref is at the smallest S that fits the reference GPU
  const GpuType& a100 = *find_builtin_gpu("A100-80GB");
  const int s_ref = min_feasible_stages(*find_builtin_llm("llama2-7b"), 1, 8, 1, a100.memory_bytes, ComputeOptions{});
  EXPECT_EQ(s_ref, 2);
  EXPECT_EQ(r.jobs[0].iterations, std::llround(3600 / hand_t_ref(*find_builtin_llm("llama2-7b"), s_ref, 1, 1, 8, a100)));
  EXPECT_EQ(r.jobs[1].stages, 6);
  EXPECT_EQ(r.jobs[2].stages, 6);
  EXPECT_EQ(r.jobs[2].iterations, std::llround(3600 / hand_t_ref(*find_builtin_llm("llama2-70b"), 6, 4, 2, 32, a100)));
  // GPU counts outside the table: no shape
  o.shapes = parse_shape_table("min_gpus,max_gpus,model,gpus_per_stage,stages,micro_batch_size,micro_batches\n2,4,llama2-7b,1,N/g,1,16\n", "s.csv");
  const ImportResult r2 = import("timestamp,duration,num_gpus\n0,60,1\n0,60,2\n0,60,5\n", o);
  EXPECT_EQ(r2.rows_kept(), 1);
  EXPECT_EQ(r2.count(DR::kNoShape), 2);
}

// The optional data_parallel column (docs/trace-import.md, "The shape table"): a fixed D splits
// N among D replicas of N/(g*D) stages; N/(g*S) grows the replicas with N at a fixed S. The
// trace then has a data_parallel column; T_ref (and so the iterations) is one replica's.
TEST(TraceImportShapes, DataParallelColumnMapsGpuCountsToReplicas) {
  const std::string table =
      "min_gpus,max_gpus,model,gpus_per_stage,stages,micro_batch_size,micro_batches,data_parallel\n"
      "4,7,llama2-7b,1,N/g,1,16,2\n"          // 2 replicas of floor(N/2) stages (N = 1..3: 1 stage does not fit)
      "8,inf,llama2-7b,1,4,1,16,N/(g*S)\n";  // replicas of 4 stages: floor(N/4)
  const std::vector<ShapeRule> rules = parse_shape_table(table, "s.csv");
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].data_parallel, 2);
  EXPECT_EQ(rules[1].data_parallel, kReplicasFromGpus);
  EXPECT_TRUE(has_data_parallel(rules));
  EXPECT_FALSE(has_data_parallel(default_shape_table()));
  ImportOptions o = with(Format::kPhilly);
  o.shapes = rules;
  o.shape_table_path = "s.csv";
  const ImportResult r = import("timestamp,duration,num_gpus\n0,3600,6\n10,3600,7\n20,3600,8\n30,3600,35\n", o);
  ASSERT_EQ(r.rows_kept(), 4);
  const std::vector<std::pair<int, int>> want = {{3, 2}, {3, 2}, {4, 2}, {4, 8}};  // (S, D) for N = 6, 7, 8, 35
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(r.jobs[k].stages, want[k].first) << k;
    EXPECT_EQ(r.jobs[k].data_parallel, want[k].second) << k;
  }
  // T_ref is one replica's: the iterations of the N = 8 and N = 35 jobs are equal
  EXPECT_EQ(r.jobs[2].iterations, r.jobs[3].iterations);
  const GpuType& a100 = *find_builtin_gpu("A100-80GB");
  EXPECT_EQ(r.jobs[3].iterations, std::llround(3600 / hand_t_ref(*find_builtin_llm("llama2-7b"), 4, 1, 1, 16, a100)));
  std::ostringstream os;
  write_trace_csv(os, r, o, "geopipe trace import", "t.csv");
  EXPECT_TRUE(contains(os.str(), "\narrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations,data_parallel\n"))
      << os.str();
  EXPECT_TRUE(contains(os.str(), ",8\n")) << os.str();  // the 35-GPU job's 8 replicas
  // printed back, the table keeps its column; the default table has none
  EXPECT_TRUE(contains(shape_table_csv(rules), "micro_batches,data_parallel\n4,7,llama2-7b,1,N/g,1,16,2\n8,inf,llama2-7b,1,4,1,16,N/(g*S)\n"));
  EXPECT_FALSE(contains(shape_table_csv(default_shape_table()), "data_parallel"));
  // N/(g*S) needs a fixed S; D out of range
  const std::string h = "min_gpus,max_gpus,model,gpus_per_stage,stages,micro_batch_size,micro_batches,data_parallel\n";
  EXPECT_EQ(error_of([&] { parse_shape_table(h + "1,inf,llama2-7b,1,N/g,1,16,N/(g*S)\n", "s.csv"); }),
            "s.csv:2:28: data_parallel = N/(g*S) needs a fixed stage count (stages = N/g; expected stages >= 1, or a fixed data_parallel)");
  EXPECT_EQ(error_of([&] { parse_shape_table(h + "1,inf,llama2-7b,1,2,1,16,0\n", "s.csv"); }),
            "s.csv:2:26: data_parallel = 0 (the scheduler chooses D) needs stages = N/g (got stages = 2; expected N/g: the GPU "
            "count in slots of g GPUs, or a fixed data_parallel)");
  EXPECT_EQ(error_of([&] { parse_shape_table(h + "1,inf,llama2-7b,1,2,1,16,-1\n", "s.csv"); }),
            "s.csv:2:26: data_parallel = -1 is out of range (expected 0 .. 4096, or N/(g*S))");
}

// data_parallel = 0 in the shape table (docs/trace-import.md, "The shape table"): the job is
// flexible (docs/model.md, "Choosing D") on the largest slot count n <= N/g that has a D x S split
// (D | n, D | m, n/D <= L), capped by the cells and D; T_ref is its first split that fits the
// reference GPU.
TEST(TraceImportShapes, AFlexibleRowLetsTheSchedulerChooseD) {
  const std::string h = "min_gpus,max_gpus,model,gpus_per_stage,stages,micro_batch_size,micro_batches,data_parallel\n";
  const std::vector<ShapeRule> rules = parse_shape_table(h + "2,inf,llama2-7b,1,N/g,1,16,0\n", "s.csv");
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].data_parallel, kFlexibleReplicas);
  EXPECT_TRUE(has_data_parallel(rules));
  const LlmSpec& llama = *find_builtin_llm("llama2-7b");  // 32 layers
  // N = 6: 6 slots (D = 1 of 6 stages, or 2 of 3). N = 35: 35 = 5 x 7 shares no D > 1 with
  // m = 16 and 35 > 32 layers, so 34 (2 x 17). N = 100: 4 x 25. N = 100000: D <= gcd = 16 needs
  // n <= 16 x 32 = 512, the largest such n.
  for (const auto& [n, slots] : {std::pair<std::int64_t, int>{6, 6}, {35, 34}, {100, 100}, {100000, 512}})
    EXPECT_EQ(mapped_stages(rules[0], llama, n), slots) << "N = " << n;
  EXPECT_EQ(mapped_data_parallel(rules[0], 35), 0);
  // flexible_slots' closed form against its definition: the largest n <= N/g with a split
  for (const int m : {1, 4, 12, 16, 96})
    for (std::int64_t n = 1; n <= 300; ++n) {
      ShapeRule rule = rules[0];
      rule.micro_batches = m;
      Job j;
      j.data_parallel = 0;
      j.micro_batches = m;
      j.stages = static_cast<int>(n);
      while (data_parallel_variants(j, llama).empty()) --j.stages;
      ASSERT_EQ(flexible_slots(rule, llama, n), j.stages) << "m = " << m << ", N = " << n;
    }
  ImportOptions o = with(Format::kPhilly);
  o.shapes = rules;
  o.shape_table_path = "s.csv";
  const ImportResult r = import("timestamp,duration,num_gpus\n0,3600,6\n10,3600,35\n20,3600,100\n", o);
  ASSERT_EQ(r.rows_kept(), 3);
  const std::vector<int> want_slots = {6, 34, 100};
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(r.jobs[k].stages, want_slots[k]) << k;
    EXPECT_EQ(r.jobs[k].data_parallel, 0) << k;
  }
  // T_ref: N = 6 at its first split, one pipeline of 6 stages and 16 micro-batches; N = 100 at
  // its only one, 4 replicas of 25 stages and 4 micro-batches each (one replica's time).
  const GpuType& a100 = *find_builtin_gpu("A100-80GB");
  EXPECT_EQ(r.jobs[0].iterations, std::llround(3600 / hand_t_ref(llama, 6, 1, 1, 16, a100)));
  EXPECT_EQ(r.jobs[2].iterations, std::llround(3600 / hand_t_ref(llama, 25, 1, 1, 4, a100)));
  std::ostringstream os;
  write_trace_csv(os, r, o, "geopipe trace import", "t.csv");
  EXPECT_TRUE(contains(os.str(), ",llama2-7b,34,1,1,16,")) << os.str();
  EXPECT_TRUE(contains(os.str(), "\narrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations,data_parallel\n"));
  // the written trace loads: every row has a split
  const std::string body = os.str().substr(os.str().find("arrival_s,"));
  const std::vector<Job> back = parse_trace_csv(body, "t.csv", builtin_llms(), Topology{}, ComputeOptions{});
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[1].stages, 34);
  EXPECT_EQ(back[1].data_parallel, 0);
  // a row whose smallest job has more slots than the model has layers (64 > 32: D = 2 of 32
  // stages and 8 micro-batches first): its T_ref (printed with the table) and its jobs'
  o.shapes = parse_shape_table(h + "2,63,llama2-7b,1,N/g,1,16,0\n64,inf,llama2-7b,1,N/g,1,16,0\n", "s.csv");
  const ImportResult big = import("timestamp,duration,num_gpus\n0,3600,64\n", o);
  ASSERT_EQ(big.rows_kept(), 1);
  EXPECT_EQ(big.jobs[0].stages, 64);
  const double t64 = hand_t_ref(llama, 32, 1, 1, 8, a100);
  EXPECT_NEAR(big.t_ref_s[1], t64, 1e-12 * t64);
  EXPECT_EQ(big.jobs[0].iterations, std::llround(3600 / t64));
  // a fixed stage count, and a row whose smallest job (1 slot: llama2-7b on one A100) has no
  // split that fits, are refused where they are written
  EXPECT_EQ(error_of([&] { parse_shape_table(h + "2,inf,llama2-7b,1,4,1,16,0\n", "s.csv"); }),
            "s.csv:2:26: data_parallel = 0 (the scheduler chooses D) needs stages = N/g (got stages = 4; expected N/g: the GPU "
            "count in slots of g GPUs, or a fixed data_parallel)");
  o.shapes = parse_shape_table(h + "1,inf,llama2-7b,1,N/g,1,16,0\n", "s.csv");
  const std::string e = error_of([&] { import("timestamp,duration,num_gpus\n0,3600,6\n", o); });
  EXPECT_TRUE(contains(e, "s.csv:2:1: llama2-7b on 1 slots (N = 1) has no D x S split whose stages fit 1 x A100-80GB")) << e;
}

TEST(TraceImportShapes, GapsOverlapsAndBadCellsAreLocated) {
  const std::string h = "min_gpus,max_gpus,model,gpus_per_stage,stages,micro_batch_size,micro_batches\n";
  auto err = [&](const std::string& rows) { return error_of([&] { parse_shape_table(h + rows, "s.csv"); }); };
  EXPECT_EQ(err("1,2,llama2-7b,1,N/g,1,16\n4,8,llama2-7b,1,N/g,1,16\n"),
            "s.csv:3:1: GPU counts 3..3 have no shape: a gap after the row (line 2: 1..2) (expected min_gpus = 3)");
  EXPECT_EQ(err("1,4,llama2-7b,1,N/g,1,16\n3,8,llama2-7b,1,N/g,1,16\n"),
            "s.csv:3:1: GPU counts 3..4 are in this row and in the row (line 2: 1..4): rows overlap (expected min_gpus = 5)");
  EXPECT_EQ(err("5,8,llama2-7b,1,N/g,1,16\n1,4,llama2-7b,1,N/g,1,16\n"),
            "s.csv:3:1: min_gpus = 1 comes after the row (line 2: 5..8) (expected rows in ascending order of GPU count)");
  EXPECT_EQ(err("1,inf,llama2-7b,1,N/g,1,16\n9,10,llama2-7b,1,N/g,1,16\n"),
            "s.csv:3:1: a row after the row (line 2: 1..inf) whose max_gpus is inf (expected the inf row last)");
  EXPECT_EQ(err("4,2,llama2-7b,1,N/g,1,16\n"), "s.csv:2:3: max_gpus = 2 is below min_gpus = 4 (expected max_gpus >= min_gpus, or inf)");
  EXPECT_EQ(err("1,2,llama-7b,1,N/g,1,16\n"),
            "s.csv:2:5: unknown model 'llama-7b' (expected a built-in model: gpt3-1.3b, llama2-7b, llama2-13b, llama-33b, "
            "llama2-70b, flm-101b)");
  EXPECT_EQ(err("1,2,llama2-7b,1,auto,1,16\n"),
            "s.csv:2:17: stages: 'auto' is not a number (expected decimal digits, e.g. 16, or N/g)");
  EXPECT_EQ(err("1,2,llama2-7b,1,33,1,16\n"), "s.csv:2:17: stages = 33 is out of range (expected 0 .. 32, or N/g)");
  EXPECT_EQ(err("1,2,llama2-7b,1.5,N/g,1,16\n"), "s.csv:2:15: gpus_per_stage: '1.5' is not a whole number");
  // an integer column is written as TOML writes integers: not 16.0 or 1.6e1
  EXPECT_EQ(err("1,2,llama2-7b,1,N/g,1,1.6e1\n"),
            "s.csv:2:23: micro_batches: '1.6e1' is not written as an integer (expected decimal digits without a point "
            "or an exponent, e.g. 16, as an integer key of TOML)");
  EXPECT_EQ(err("1,2.0,llama2-7b,1,N/g,1,16\n"),
            "s.csv:2:3: max_gpus: '2.0' is not written as an integer (expected decimal digits without a point or an "
            "exponent, e.g. 2, as an integer key of TOML)");
  EXPECT_EQ(err(""), "s.csv: the shape table has no rows (expected at least one, e.g. 1,inf,llama2-7b,1,0,1,16)");
  EXPECT_EQ(error_of([&] { parse_shape_table("min_gpus,max_gpus,model\n", "s.csv"); }), "s.csv:1:1: missing column 'gpus_per_stage'");
  // what depends on the reference GPU: checked at import
  ImportOptions o = with(Format::kPhilly);
  o.shapes = parse_shape_table(h + "1,inf,llama2-70b,1,1,1,16\n", "s.csv");
  o.shape_table_path = "s.csv";
  EXPECT_PRED2(starts_with, error_of([&] { import("timestamp,duration,num_gpus\n0,1,1\n", o); }), "s.csv:2:20: llama2-70b at 1 stage needs up to 1125.1 GB per stage, more than 1 x A100-80GB (80.0 GB)");
  o.shapes = parse_shape_table(h + "1,inf,flm-101b,1,0,1,4096\n", "s.csv");
  EXPECT_PRED2(starts_with, error_of([&] { import("timestamp,duration,num_gpus\n0,1,1\n", o); }), "s.csv:2:7: flm-101b fits no stage count on 1 x A100-80GB per stage");
}

// --- options and output -----------------------------------------------------------------------

TEST(TraceImport, OptionsAreCheckedByFlag) {
  const std::string t = "timestamp,duration,num_gpus\n0,1,1\n";
  auto err = [&](auto&& set) {
    ImportOptions o = with(Format::kPhilly);
    set(o);
    return error_of([&] { import(t, o); });
  };
  EXPECT_PRED2(starts_with, err([](ImportOptions& o) { o.time_scale = 0; }), "--time-scale: ");
  EXPECT_PRED2(starts_with, err([](ImportOptions& o) { o.to_s = 0; }), "--to: ");
  EXPECT_PRED2(starts_with, err([](ImportOptions& o) { o.max_gpus = 0; }), "--max-gpus: ");
  EXPECT_PRED2(starts_with, err([](ImportOptions& o) { o.reference_gpu = "A100"; }), "--reference-gpu: unknown GPU 'A100'");
  EXPECT_PRED2(starts_with, err([](ImportOptions& o) { o.arrival_offset_s = -1; }), "--arrival-offset: ");
  // an arrival beyond what a trace holds
  ImportOptions o = with(Format::kPhilly);
  o.time_scale = 1e6;
  EXPECT_PRED2(starts_with, error_of([&] { import("timestamp,duration,num_gpus\n0,1,1\n2000000,1,1\n", o); }), "t.csv:3:1: this row arrives at 2000000000000 s, beyond the 1e12 s a geopipe trace holds");
  // too many iterations
  EXPECT_PRED2(starts_with, error_of([&] { import("timestamp,duration,num_gpus\n0,1e10,1\n", o); }), "t.csv:2:3: a run time of 10000000000 s x --time-scale 1000000 gives 4.5285950725732e+15 iterations");
}

TEST(TraceImport, OutputReadsBackAsTheSameJobs) {
  const std::string text = std::string(kHeliosHeader) + "1,u,v,1,4,1,COMPLETED,2020-04-01 00:10:00,,,3600,0\n"
                                                        "2,u,v,8,4,1,COMPLETED,2020-04-01 00:00:00,,,7200,0\n"
                                                        "3,u,v,40,4,1,COMPLETED,2020-04-01 00:00:00.5,,,60,0\n";
  ImportOptions o = with(Format::kHelios);
  o.time_scale = 0.1;
  const ImportResult r = import(text, o, "in\nput.csv");
  std::ostringstream os;
  write_trace_csv(os, r, o, "geopipe trace import --format helios x -o y", "in\nput.csv");
  const std::string out = os.str();
  EXPECT_PRED2(starts_with, out, "# Written by: geopipe trace import --format helios x -o y\n# Input: in\\nput.csv (--format helios), 3 rows read, 3 kept");
  // a topology whose largest GPU is the reference GPU (only `stages = 0` rows would look at it)
  Topology topo;
  topo.gpu_types = {*find_builtin_gpu("A100-80GB")};
  Region reg;
  reg.name = "r";
  reg.gpu_count = 1000;
  topo.regions = {reg};
  topo.links.resize(1);
  const std::vector<Job> jobs = parse_trace_csv(out, "out.csv", builtin_llms(), topo, ComputeOptions{});
  ASSERT_EQ(jobs.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    const ImportedJob& j = r.jobs[k];
    EXPECT_EQ(jobs[k].arrival_s, j.arrival_s);
    EXPECT_EQ(builtin_llms()[static_cast<std::size_t>(jobs[k].model)].name, model_of(r, j));
    EXPECT_EQ(jobs[k].stages, j.stages);
    EXPECT_EQ(jobs[k].gpus_per_stage, r.shapes[static_cast<std::size_t>(j.shape)].gpus_per_stage);
    EXPECT_EQ(jobs[k].iterations, j.iterations);
  }
  EXPECT_EQ(jobs[1].arrival_s, 0.05);       // 0.5 s x 0.1
  EXPECT_EQ(jobs[2].arrival_s, 60.0);       // 600 s x 0.1
  EXPECT_EQ(r.jobs[0].gpus, 8);             // 00:00:00 first, then 00:00:00.5
  EXPECT_EQ(r.jobs[0].iterations, std::llround(720 / hand_t_ref(*find_builtin_llm("llama2-13b"), 4, 2, 1, 16, *find_builtin_gpu("A100-80GB"))));
}

TEST(TraceImport, FormatsAndSummary) {
  EXPECT_EQ(find_format("acme")->format, Format::kHelios);
  EXPECT_EQ(find_format("alibaba-2023")->format, Format::kAlibaba2023);
  EXPECT_EQ(find_format("philly")->format, Format::kPhilly);
  EXPECT_EQ(find_format("alibaba"), nullptr);
  const ImportResult r = import("timestamp,duration,num_gpus\n0,60,1\n0,60,1\n0,60,0\n", with(Format::kPhilly));
  const std::string s = import_summary(r, with(Format::kPhilly), "p.csv");
  EXPECT_EQ(s.substr(0, s.find('\n')), "trace import (--format philly): p.csv: 3 rows read, 1 kept, 2 dropped");
  EXPECT_PRED2(contains, s, "\n  duplicate                1  the same cells as an earlier row\n");
  EXPECT_PRED2(contains, s, "\n  no_gpu                   1  no GPU (a CPU-only job)\n");
  EXPECT_PRED2(contains, s, "\n  state                    0  state not kept (no state column)\n");
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 1 + static_cast<long>(kNumDropReasons));
}

}  // namespace
}  // namespace geopipe::traceimport
