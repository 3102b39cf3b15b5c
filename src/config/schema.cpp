// The scenario schema as data (config/schema.h): every table and key with its type, range,
// default and meaning, and the phrases that describe a key's bounds and expected value.
#include "config/schema.h"

#include <cmath>

#include "config/error.h"

namespace geopipe::config::schema {
namespace {

Field F(std::string name, Kind kind) {
  Field f;
  f.name = std::move(name);
  f.kind = kind;
  return f;
}

Field T(std::string name, const TableSpec* t, Kind kind = Kind::kTable) {
  Field f = F(std::move(name), kind);
  f.table = t;
  return f;
}

Field TA(std::string name, const TableSpec* t, std::string address_key) {
  Field f = T(std::move(name), t, Kind::kTableArray);
  f.address_key = std::move(address_key);
  return f;
}

}  // namespace

const TableSpec& scenario_root() {
  using K = Kind;
  static const TableSpec scenario{{
      F("name", K::kString).req().says("scenario name, stored with the results"),
      F("seed", K::kInt).ge(0).def("1").says("default seed of `geopipe run` (sweeps set their own)"),
  }};
  static const TableSpec sim{{
      F("mfu", K::kFloat).gt(0).le(1).def("0.4").says("model FLOP utilisation: achieved / peak FLOP/s"),
      F("tp_efficiency", K::kFloat).gt(0).le(1).def("0.9")
          .says("speed factor of a tensor-parallel stage with gpus_per_stage > 1"),
      F("optimizer_step_s", K::kFloat).ge(0).def("0").in("s").says("constant added to every iteration"),
  }};
  static const TableSpec link{{
      F("regions", K::kStringArray).req().len(2).says("the two (distinct, known) regions it connects"),
      F("bandwidth_gbps", K::kFloat).req().gt(0).in("Gbit/s")
          .says("capacity of direction regions[0] -> regions[1] (and back, unless reverse_bandwidth_gbps)"),
      F("reverse_bandwidth_gbps", K::kFloat).gt(0).in("Gbit/s").def("= bandwidth_gbps")
          .says("capacity of direction regions[1] -> regions[0]"),
      F("latency_ms", K::kFloat).req().ge(0).in("ms").says("one-way latency, both directions"),
  }};
  static const TableSpec network{{
      F("bandwidth_scale", K::kFloat).gt(0).def("1.0").says("multiplies every inter-region link capacity"),
      F("intra_bandwidth_gbps", K::kFloat).gt(0).def("100").in("Gbit/s")
          .says("bandwidth of a same-region hop (not contended)"),
      F("intra_latency_ms", K::kFloat).ge(0).def("0.01").in("ms").says("one-way latency of a same-region hop"),
      TA("link", &link, "regions").says("inter-region links; region pairs without one are not connected"),
  }};
  static const TableSpec region{{
      F("name", K::kString).req().says("unique, non-empty"),
      F("gpu", K::kString).req().says("GPU type: a built-in name or a [[gpu]] of this file"),
      F("gpus", K::kInt).req().ge(1).le(kMaxGpusPerRegion).says("GPU count before cluster.capacity_scale"),
      F("price_usd_per_kwh", K::kFloat).gt(0).in("USD/kWh")
          .says("flat electricity price (exactly one of this and price_profile_usd_per_kwh)"),
      F("price_profile_usd_per_kwh", K::kFloatArray).gt(0).len(24).in("USD/kWh")
          .says("24 hourly prices indexed by local hour"),
      F("utc_offset_h", K::kFloat).ge(-12).le(14).def("0").in("h").says("local time = UTC + offset"),
      F("pue", K::kFloat).ge(1).le(3).def("1.0").says("power usage effectiveness"),
      F("carbon_g_per_kwh", K::kFloat).ge(0).def("0 (unknown)").in("gCO2/kWh").says("grid carbon intensity"),
  }};
  static const TableSpec cluster{{
      F("capacity_scale", K::kFloat).gt(0).def("1.0")
          .says("region GPU count = max(0, round(gpus * capacity_scale))"),
      TA("region", &region, "name").req().entries(1, static_cast<std::size_t>(kMaxRegions)).says("the regions"),
  }};
  static const TableSpec gpu{{
      F("name", K::kString).req().says("unique; must not clash with a built-in GPU type"),
      F("peak_tflops", K::kFloat).req().gt(0).in("TFLOP/s").says("peak dense bf16/fp16 tensor throughput"),
      F("memory_gb", K::kFloat).req().gt(0).in("GB (1e9 bytes)").says("GPU memory"),
      F("busy_power_w", K::kFloat).req().gt(0).in("W").says("board power while computing"),
      F("idle_power_w", K::kFloat).req().gt(0).in("W").says("board power while idle (<= busy_power_w)"),
  }};
  static const TableSpec model{{
      F("name", K::kString).req().says("unique; must not clash with a built-in model"),
      F("layers", K::kInt).req().ge(1).le(1024).says("transformer blocks L"),
      F("hidden", K::kInt).req().ge(1).le(1 << 20).says("model width h"),
      F("vocab", K::kInt).req().ge(1).le(1 << 24).says("vocabulary size V"),
      F("seq_len", K::kInt).req().ge(1).le(1 << 20).says("training sequence length s (tokens)"),
      F("bytes_per_elem", K::kInt).ge(1).le(8).def("2").in("bytes").says("activation element size (2 = bf16)"),
  }};
  static const TableSpec mix{{
      F("model", K::kString).req().says("a built-in model or a [[model]] of this file"),
      F("weight", K::kFloat).gt(0).def("1.0").says("relative frequency"),
      F("gpus_per_stage", K::kInt).ge(1).le(4096).def("1").says("tensor-parallel width g of a stage"),
      F("micro_batch_size", K::kInt).ge(1).le(1 << 20).def("1").says("sequences per micro-batch b"),
      F("micro_batches", K::kInt).ge(1).le(1 << 20).def("16").says("micro-batches per iteration m"),
      F("stage_multiplier", K::kFloat).ge(1).le(1024).def("1.0")
          .says("S = ceil(minimum feasible S * multiplier), at most L"),
  }};
  static const TableSpec workload{{
      F("num_jobs", K::kInt).ge(1).le(10'000'000).def("200").says("jobs to generate"),
      F("arrival_rate_per_hour", K::kFloat).gt(0).def("4.0").in("jobs/h").says("Poisson arrival rate"),
      F("load_scale", K::kFloat).gt(0).def("1.0").says("multiplies the arrival rate"),
      F("duration_min_h", K::kFloat).gt(0).def("0.5").in("h").says("shortest run length on reference_gpu"),
      F("duration_max_h", K::kFloat).gt(0).def("72").in("h").says("longest run length (> duration_min_h)"),
      F("duration_pareto_alpha", K::kFloat).gt(0).def("1.1").says("bounded-Pareto shape (smaller = heavier tail)"),
      F("reference_gpu", K::kString).def("\"A100-80GB\"").says("GPU type run lengths are measured on"),
      F("trace", K::kString).def("none")
          .says("CSV job trace (relative to this file) replayed instead of the generator"),
      TA("mix", &mix, "model").says("model mix (at least one entry unless trace is given)"),
  }};
  static const TableSpec scheduler{{
      F("preset", K::kString).def("\"bace-pipe\"").says("scheduler preset of `geopipe run`"),
      F("max_region_switches", K::kInt).ge(0).le(1024).def("3").says("pathfinder: max cross-region hops"),
      F("epsilon", K::kFloat).ge(0).def("0.1")
          .says("cost-min accepts estimated iteration time <= (1 + epsilon) * best"),
      F("priority_runtime_weight", K::kFloat).ge(0).def("1.0").says("dynamic priority: weight of run time"),
      F("priority_network_weight", K::kFloat).ge(0).def("1.0").says("dynamic priority: weight of network pressure"),
      F("priority_aging", K::kFloat).ge(0).def("1.0").says("dynamic priority: score removed per second waited"),
      F("view_staleness_s", K::kFloat).ge(0).def("0").in("s").says("scheduler's bandwidth view refresh period (0 = live)"),
      F("view_noise_sigma", K::kFloat).ge(0).lt(1).def("0").says("relative noise on the viewed bandwidth"),
  }};
  static const TableSpec root{{
      T("scenario", &scenario).req(),
      T("sim", &sim),
      T("network", &network),
      T("cluster", &cluster).req(),
      TA("gpu", &gpu, "name").says("custom GPU types"),
      TA("model", &model, "name").says("custom LLMs"),
      T("workload", &workload).req(),
      T("scheduler", &scheduler),
  }};
  return root;
}

std::string address_placeholder(const Field& f) {
  if (f.address_key == "regions") return "<a>/<b>";
  return "<" + f.address_key + ">";
}

namespace {
std::string bound_text(const Bound& b, bool lower) {
  return std::string(lower ? (b.inclusive ? ">= " : "> ") : (b.inclusive ? "<= " : "< ")) + format_number(b.value);
}
bool violates_lo(const Bound& b, double v) { return b.inclusive ? !(v >= b.value) : !(v > b.value); }
bool violates_hi(const Bound& b, double v) { return b.inclusive ? !(v <= b.value) : !(v < b.value); }

std::string range_text(const Field& f) {
  if (f.lo && f.hi) {
    return std::string("in ") + (f.lo->inclusive ? "[" : "(") + format_number(f.lo->value) + ", " +
           format_number(f.hi->value) + (f.hi->inclusive ? "]" : ")");
  }
  if (f.lo) return bound_text(*f.lo, true);
  if (f.hi) return bound_text(*f.hi, false);
  return "";
}
}  // namespace

std::string bound_phrase(const Field& f, double v) {
  if (!std::isfinite(v)) return "must be a finite number";
  if (f.lo && f.hi) {
    // Natural intervals read best as intervals; guard-rail upper bounds as a single bound.
    if (violates_lo(*f.lo, v)) return "must be " + bound_text(*f.lo, true);
    if (violates_hi(*f.hi, v)) return "must be " + bound_text(*f.hi, false);
    return "must be " + range_text(f);
  }
  if (f.lo && violates_lo(*f.lo, v)) return "must be " + bound_text(*f.lo, true);
  if (f.hi && violates_hi(*f.hi, v)) return "must be " + bound_text(*f.hi, false);
  return "is out of range";
}

std::string expectation_phrase(const Field& f) {
  const std::string r = range_text(f);
  const std::string rs = r.empty() ? "" : " " + r;
  switch (f.kind) {
    case Kind::kInt: return "an integer" + rs;
    case Kind::kFloat: return "a number" + rs;
    case Kind::kString: return "a string";
    case Kind::kFloatArray:
      return "an array of " + (f.length ? std::to_string(f.length) + " " : std::string()) + "numbers" + rs;
    case Kind::kStringArray:
      return "an array of " + (f.length ? std::to_string(f.length) + " " : std::string()) + "strings";
    case Kind::kTable: return "a table";
    case Kind::kTableArray: return "an array of tables";
  }
  return "a value";
}

}  // namespace geopipe::config::schema
