// Fuzz target: the CSV trace reader, parse_trace_csv (model/trace.h). The input is the CSV
// text; the model catalogue and the topology are those of tests/config/good/small.toml (three
// regions, three GPU types, the built-in models plus "tiny"). Seeds: the shipped traces.
#include <string>

#include "config/scenario_loader.h"
#include "fuzz_target.h"
#include "model/trace.h"
#include "util/input_error.h"

const char* const kFuzzTargetName = "trace";

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  static const geopipe::Scenario sc =
      geopipe::config::load_scenario_file(geopipe::fuzz::source_dir() + "/tests/config/good/small.toml");
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)geopipe::parse_trace_csv(text, "fuzz.csv", sc.llms, sc.topology, sc.compute);
  } catch (const geopipe::InputError&) {
    // bad input: expected
  }
  return 0;
}
