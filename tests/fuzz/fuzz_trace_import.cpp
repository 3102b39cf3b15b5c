// Fuzz target: the trace importer (traceimport/trace_import.h, docs/trace-import.md).
//
// Input layout: byte 0 = h; the rest is the CSV text. (h & 3) picks what the text is: 0 a philly
// trace, 1 a helios/acme trace, 2 an alibaba-2023 trace, 3 a shape table (parsed, then checked
// against the reference GPU). For traces, the other bits set options: 4 skip_bad_rows, 8
// keep_duplicates, 16 a window and a limit (--from 10 --to 1e6 --limit 5), 32 --time-scale 1e-3
// with --arrival-offset 60, 64 a shape table with `0` and fixed stage counts and a flexible row
// (data_parallel = 0, from 48 GPUs), 128 --min-gpus 2 --max-gpus 64 and every known state kept.
//
// Bad input must end in InputError. A trace that imports is written (write_trace_csv) and read
// back by the trace parser (model/trace.h) on a cluster of the reference GPU: what the importer
// writes, geopipe must read as the same number of jobs; anything else is a finding (an
// uncaught exception). Seeds: scripts/fuzz.sh prefixes the samples of tests/cli/trace_import/
// with the byte of their format.
#include <sstream>
#include <stdexcept>
#include <string>

#include "fuzz_target.h"
#include "model/gpu.h"
#include "model/llm.h"
#include "model/topology.h"
#include "model/trace.h"
#include "traceimport/trace_import.h"
#include "util/input_error.h"

const char* const kFuzzTargetName = "trace_import";

namespace {

using namespace geopipe;

const std::vector<traceimport::ShapeRule>& small_table() {
  static const std::vector<traceimport::ShapeRule> t = traceimport::parse_shape_table(
      "min_gpus,max_gpus,model,gpus_per_stage,stages,micro_batch_size,micro_batches,data_parallel\n"
      "1,1,gpt3-1.3b,1,0,1,4,1\n"
      "2,3,llama2-7b,1,3,2,8,1\n"
      "4,47,llama2-13b,4,N/g,1,32,1\n"
      "48,inf,llama2-7b,1,N/g,1,16,0\n",
      "fuzz-shapes.csv");
  return t;
}

/// One region of the reference GPU, big enough for any job (only `stages = 0` rows look at it).
const Topology& reference_cluster() {
  static const Topology topo = [] {
    Topology t;
    t.gpu_types = {*find_builtin_gpu("A100-80GB")};
    Region r;
    r.name = "r";
    r.gpu_count = 1 << 20;
    t.regions = {r};
    t.links.resize(1);
    return t;
  }();
  return topo;
}

}  // namespace

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t h = data[0];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if ((h & 3) == 3) {
      const auto rules = traceimport::parse_shape_table(text, "fuzz-shapes.csv");
      traceimport::check_shape_table(rules, "fuzz-shapes.csv", *find_builtin_gpu("A100-80GB"), ComputeOptions{});
      return 0;
    }
    traceimport::ImportOptions opt;
    opt.format = (h & 3) == 0 ? traceimport::Format::kPhilly : (h & 3) == 1 ? traceimport::Format::kHelios : traceimport::Format::kAlibaba2023;
    opt.skip_bad_rows = (h & 4) != 0;
    opt.keep_duplicates = (h & 8) != 0;
    if (h & 16) {
      opt.from_s = 10;
      opt.to_s = 1e6;
      opt.limit = 5;
    }
    if (h & 32) {
      opt.time_scale = 1e-3;
      opt.arrival_offset_s = 60;
    }
    if (h & 64) {
      opt.shapes = small_table();
      opt.shape_table_path = "fuzz-shapes.csv";
    }
    if (h & 128) {
      opt.min_gpus = 2;
      opt.max_gpus = 64;
      if (opt.format != traceimport::Format::kPhilly) opt.states = traceimport::format_info(opt.format).known_states;
    }
    const traceimport::ImportResult r = traceimport::import_trace(text, "fuzz.csv", opt);
    if (r.rows_kept() + r.rows_dropped() != r.rows_read) throw std::logic_error("fuzz_trace_import: kept + dropped != read");
    if (r.rows_kept() == 0) return 0;
    std::ostringstream out;
    traceimport::write_trace_csv(out, r, opt, "geopipe trace import (fuzz)", "fuzz.csv");
    std::vector<Job> jobs;
    try {
      jobs = parse_trace_csv(out.str(), "imported.csv", builtin_llms(), reference_cluster(), ComputeOptions{});
    } catch (const InputError& e) {
      throw std::logic_error(std::string("fuzz_trace_import: the trace parser refuses the importer's output: ") + e.what());
    }
    if (static_cast<std::int64_t>(jobs.size()) != r.rows_kept()) throw std::logic_error("fuzz_trace_import: jobs lost in the output");
  } catch (const InputError&) {
    // bad input: expected
  }
  return 0;
}
