// The scenario schema as data (config/schema.h): every table and key with its type, range,
// default and meaning, and the phrases that describe a key's bounds and expected value.
#include "config/schema.h"

#include <cmath>

#include "util/input_error.h"
#include "config/toml_text.h"
#include "model/faults.h"
#include "model/job.h"
#include "model/llm.h"
#include "model/scenario.h"
#include "model/topology.h"
#include "model/workload.h"

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

template <std::size_t N>
Field TA(std::string name, const TableSpec* t, const char (&address_key)[N]) {
  Field f = T(std::move(name), t, Kind::kTableArray);
  f.address_key = address_key;
  return f;
}

using K = Kind;

// Upper (and some lower) bounds of the float keys: every accepted value keeps every metric
// finite (docs/limits.md, "Documented maxima"; tests/config/test_hostile_input.cpp runs each
// key at both ends of its range).
constexpr double kMaxLatencyMs = 1e6;   ///< 1000 s
constexpr double kMaxSeconds = 1e6;
constexpr double kMaxEgressUsdPerGb = 1e6;
/// GPU MTBF bounds, h: 3.6 s to 10^12 h (a failure rate that keeps every job's expected segment
/// time finite is checked per attempt, model/faults.h).
constexpr double kMinMtbfH = 1e-3;
constexpr double kMaxMtbfH = 1e12;

// One function per table. A default is the initialiser of the model struct the key is read
// into (model/*.h), printed by Field::def; only defaults that are not a value stay text.

const TableSpec& scenario_spec() {
  static const TableSpec t{{
      F("name", K::kString).req().says("scenario name, stored with the results"),
      F("seed", K::kInt).ge(0).def(Scenario{}.seed).says("default seed of `geopipe run` (sweeps set their own)"),
  }};
  return t;
}

const TableSpec& sim_spec() {
  static const TableSpec t{{
      F("mfu", K::kFloat).ge(1e-3).le(1).def("none (each GPU type's calibrated efficiency)")
          .says("achieved / peak FLOP/s of every GPU type, overriding the types' calibrated efficiency (docs/model.md)"),
      F("recompute", K::kString).def("\"full\"").added_later()
          .says("activation recomputation: \"full\" (the backward pass runs each layer's forward again; a stashed micro-batch keeps each layer's input) or \"none\" (no recompute; 17 x the activation memory)"),
      F("tp_efficiency", K::kFloat).ge(1e-3).le(1).def(ComputeOptions{}.tp_efficiency)
          .says("speed factor of a tensor-parallel stage with gpus_per_stage > 1"),
      F("optimizer_step_s", K::kFloat).ge(0).le(kMaxSeconds).def(ComputeOptions{}.optimizer_step_s).in("s")
          .says("constant added to every iteration"),
      F("pipeline_schedule", K::kString).def(toml_quote(std::string(ComputeOptions{}.schedule().name()))).added_later()
          .says("order of each stage's forwards and backwards: \"gpipe\" or \"1f1b\" (docs/model.md)"),
      F("layer_partition", K::kString).def("\"even\"").added_later()
          .says("layers per stage: \"even\" or \"balanced\" (least bottleneck stage time per placement; docs/model.md)"),
      F("dp_sync", K::kString).def("\"allreduce\"").added_later()
          .says("synchronisation of data-parallel replicas: \"allreduce\" (every iteration) or \"diloco\" (every diloco_interval steps; docs/model.md)"),
      F("allreduce", K::kString).def("\"ring\"").added_later()
          .says("the collective: \"ring\" (one ring over the replicas) or \"hierarchical\" (inside regions, then across)"),
      F("sync_bytes_per_param", K::kFloat).gt(0).le(16).def(ComputeOptions{}.sync_bytes_per_param).in("bytes").added_later()
          .says("bytes synchronised per parameter (2 = bf16 gradients, 1 = int8 pseudo-gradients)"),
      F("diloco_interval", K::kInt).ge(1).le(1'000'000'000).def(ComputeOptions{}.diloco_interval).added_later()
          .says("inner steps H between two DiLoCo synchronisations"),
      F("series_end", K::kString).def("\"error\"").added_later()
          .says("time series beyond their last step: \"error\" (the run fails), \"hold\" (last value) or \"wrap\" (repeat)"),
      F("start_utc", K::kString).def("none").added_later()
          .says("UTC midnight that simulation time 0 is (\"2024-01-01T00:00:00Z\"); needed by series with datetimes"),
  }};
  return t;
}

const TableSpec& link_spec() {
  static const TableSpec t{{
      F("regions", K::kStringArray).req().len(2).says("the two (distinct, known) regions it connects"),
      F("bandwidth_gbps", K::kFloat).ge(kMinGbps).le(kMaxGbps).in("Gbit/s")
          .says("capacity of direction regions[0] -> regions[1] (and back, unless reverse_bandwidth_gbps); required unless bandwidth_trace"),
      F("bandwidth_trace", K::kString).def("none").file().added_later()
          .says("CSV capacity series time_s|datetime,bandwidth_gbps[,reverse_bandwidth_gbps] in place of bandwidth_gbps; 0 = outage"),
      F("reverse_bandwidth_gbps", K::kFloat).ge(kMinGbps).le(kMaxGbps).in("Gbit/s").def("= bandwidth_gbps")
          .says("capacity of direction regions[1] -> regions[0]"),
      F("latency_ms", K::kFloat).req().ge(0).le(kMaxLatencyMs).in("ms").says("one-way latency, both directions"),
      F("egress_usd_per_gb", K::kFloat).ge(0).le(kMaxEgressUsdPerGb).def(0).in("USD/GB").added_later()
          .says("traffic price of direction regions[0] -> regions[1], per GB (10^9 bytes) sent"),
      F("reverse_egress_usd_per_gb", K::kFloat).ge(0).le(kMaxEgressUsdPerGb).def("= egress_usd_per_gb").in("USD/GB")
          .added_later().says("traffic price of direction regions[1] -> regions[0]"),
  }};
  return t;
}

const TableSpec& network_spec() {
  static const TableSpec t{{
      F("bandwidth_scale", K::kFloat).ge(1e-6).le(1e6).def(Scenario{}.bandwidth_scale)
          .says("multiplies every inter-region link capacity"),
      F("intra_bandwidth_gbps", K::kFloat).ge(kMinGbps).le(kMaxGbps).def(Topology::kDefaultIntraBandwidthGbps).in("Gbit/s")
          .says("bandwidth of a same-region hop (not contended)"),
      F("intra_latency_ms", K::kFloat).ge(0).le(kMaxLatencyMs).def(Topology::kDefaultIntraLatencyMs).in("ms")
          .says("one-way latency of a same-region hop"),
      F("link_efficiency", K::kFloat).gt(0).le(1).def(Scenario{}.link_efficiency).added_later()
          .says("share of an inter-region link's rate that pipeline transfers achieve (calibrated; 1 for measured transfer rates; docs/model.md)"),
      F("mesh_bandwidth_gbps", K::kFloat).ge(0).le(kMaxGbps).def(0).in("Gbit/s").added_later()
          .says("> 0: every pair of regions that no [[network.link]] joins gets a link of this rate each way (x bandwidth_scale x link_efficiency, as a link's): a uniform mesh such as a tc-shaped testbed; 0: none"),
      F("mesh_latency_ms", K::kFloat).ge(0).le(kMaxLatencyMs).def(0).in("ms").added_later()
          .says("one-way latency of the mesh's links (needs mesh_bandwidth_gbps)"),
      F("mesh_egress_usd_per_gb", K::kFloat).ge(0).le(kMaxEgressUsdPerGb).def(0).in("USD/GB").added_later()
          .says("traffic price of the mesh's links, each direction, per GB sent (needs mesh_bandwidth_gbps)"),
      F("ideal", K::kString).def("\"none\"").added_later()
          .says("\"lan\": every pair of regions joined by a link of the intra-region fabric, no egress (an idealised-network bound)"),
      TA("link", &link_spec(), "regions").says("inter-region links; region pairs without one are not connected"),
  }};
  return t;
}

const TableSpec& region_spec() {
  static const TableSpec t{{
      F("name", K::kString).req().says("unique, non-empty"),
      F("gpu", K::kString).req().says("GPU type: a built-in name or a [[gpu]] of this file"),
      F("gpus", K::kInt).req().ge(1).le(kMaxGpusPerRegion).says("GPU count before cluster.capacity_scale"),
      F("price_usd_per_kwh", K::kFloat).gt(0).le(kMaxPrice).in("USD/kWh")
          .says("flat electricity price (exactly one of this and price_profile_usd_per_kwh)"),
      F("price_profile_usd_per_kwh", K::kFloatArray).gt(0).le(kMaxPrice).len(24).in("USD/kWh")
          .says("24 hourly prices indexed by local hour"),
      F("utc_offset_h", K::kFloat).ge(-12).le(14).def(Region{}.utc_offset_h).in("h").says("local time = UTC + offset"),
      F("pue", K::kFloat).ge(1).le(3).def(Region{}.pue).says("power usage effectiveness"),
      F("carbon_g_per_kwh", K::kFloat).ge(0).le(1e6).def("0 (unknown)").in("gCO2/kWh").says("grid carbon intensity"),
      F("price_series", K::kString).def("none").file().added_later()
          .says("CSV price series (time_s or datetime, and price_series_column) in place of the flat price or profile"),
      F("price_series_column", K::kString).def("\"usd_per_kwh\"").added_later().says("price_series' value column"),
      F("price_series_scale", K::kFloat).gt(0).le(1e6).def(1).added_later()
          .says("multiplies price_series' values into USD/kWh (e.g. 0.001 for USD/MWh)"),
      F("carbon_series", K::kString).def("none").file().added_later()
          .says("CSV carbon-intensity series (gCO2/kWh) in place of carbon_g_per_kwh"),
      F("carbon_series_column", K::kString).def("\"carbon_g_per_kwh\" or \"carbon_intensity_avg\"").added_later()
          .says("carbon_series' value column"),
      F("gpu_mtbf_h", K::kFloat).ge(kMinMtbfH).le(kMaxMtbfH).def("= faults.gpu_mtbf_h").in("h").added_later()
          .says("mean time between job-killing failures of one GPU of this region (docs/model.md, \"Failures and checkpoints\")"),
      F("spot_mtbp_h", K::kFloat).ge(kMinMtbfH).le(kMaxMtbfH).def("none (on-demand)").in("h").added_later()
          .says("spot capacity: mean time between preemptions of one GPU of this region (docs/model.md, \"Failures and checkpoints\")"),
      F("gpus_series", K::kString).def("none").file().added_later()
          .says("spot capacity as a CSV availability series (time_s or datetime, and gpus: whole GPUs, at most gpus); jobs are evicted where it falls"),
      F("spot_price_factor", K::kFloat).gt(0).le(1).def(1).added_later()
          .says("spot capacity: multiplies the region's electricity price (its discount); needs spot_mtbp_h or gpus_series"),
      F("checkpoint_gbps", K::kFloat).ge(kMinGbps).le(kMaxGbps).def(kDefaultCheckpointGbps).in("Gbit/s").added_later()
          .says("storage write bandwidth of the region for \"auto\" checkpoint costs"),
  }};
  return t;
}

const TableSpec& cluster_spec() {
  static const TableSpec t{{
      F("capacity_scale", K::kFloat).gt(0).le(1e6).def(Scenario{}.capacity_scale)
          .says("region GPU count = max(0, round(gpus * capacity_scale))"),
      TA("region", &region_spec(), "name").req().entries(1, kMaxRegions).says("the regions"),
  }};
  return t;
}

const TableSpec& gpu_spec() {
  static const TableSpec t{{
      F("name", K::kString).req().says("unique; must not clash with a built-in GPU type"),
      F("peak_tflops", K::kFloat).req().ge(1e-6).le(1e6).in("TFLOP/s").says("peak dense bf16/fp16 tensor throughput"),
      F("memory_gb", K::kFloat).req().gt(0).le(1e6).in("GB (1e9 bytes)").says("GPU memory"),
      F("busy_power_w", K::kFloat).req().gt(0).le(1e6).in("W").says("board power while computing"),
      F("idle_power_w", K::kFloat).req().gt(0).le(1e6).in("W").says("board power while idle (<= busy_power_w)"),
      F("mfu_max", K::kFloat).ge(1e-3).le(1).def(GpuType{}.mfu_max).added_later()
          .says("efficiency of wide layers: the fraction of peak at which the type runs a job's FLOPs (docs/model.md)"),
      F("mfu_half_hidden", K::kFloat).ge(0).le(1 << 20).def(GpuType{}.mfu_half_hidden).added_later()
          .says("hidden size at which the efficiency is half of mfu_max (0: mfu_max at every width)"),
      F("mfu_attention", K::kFloat).ge(0).le(1).def(GpuType{}.mfu_attention).added_later()
          .says("efficiency of the attention products (0: the width curve's, as the rest of a layer)"),
  }};
  return t;
}

const TableSpec& model_spec() {
  static const TableSpec t{{
      F("name", K::kString).req().says("unique; must not clash with a built-in model"),
      F("layers", K::kInt).req().ge(1).le(1024).says("transformer blocks L"),
      F("hidden", K::kInt).req().ge(1).le(1 << 20).says("model width h"),
      F("vocab", K::kInt).req().ge(1).le(1 << 24).says("vocabulary size V"),
      F("seq_len", K::kInt).req().ge(1).le(1 << 20).says("training sequence length s (tokens)"),
      F("bytes_per_elem", K::kInt).ge(1).le(8).def(LlmSpec{}.bytes_per_elem).in("bytes")
          .says("activation element size (2 = bf16)"),
      F("head", K::kString).def("\"lm\"").added_later()
          .says("the last stage's head: \"lm\" (V x h parameters, 2bshV forward FLOP per micro-batch) or \"classification\" (a head of a few classes, as DT-FM's benchmarks: no parameters, no FLOP); the input embedding (V x h) is on the first stage either way"),
  }};
  return t;
}

const TableSpec& mix_spec() {
  const ModelMixEntry d{};
  static const TableSpec t{{
      F("model", K::kString).req().says("a built-in model or a [[model]] of this file"),
      F("weight", K::kFloat).gt(0).le(1e6).def(d.weight).says("relative frequency"),
      F("gpus_per_stage", K::kInt).ge(1).le(4096).def(d.gpus_per_stage).says("tensor-parallel width g of a stage"),
      F("micro_batch_size", K::kInt).ge(1).le(1 << 20).def(d.micro_batch_size).says("sequences per micro-batch b"),
      F("micro_batches", K::kInt).ge(1).le(1 << 20).def(d.micro_batches).says("micro-batches per iteration m"),
      F("stage_multiplier", K::kFloat).ge(1).le(1024).def(d.stage_multiplier)
          .says("S = ceil(minimum feasible S * multiplier), at most L"),
      F("data_parallel", K::kInt).ge(0).le(kMaxDataParallel).def(d.data_parallel).added_later()
          .says("data-parallel replicas D of each job's pipeline (D x S x gpus_per_stage GPUs; 0: the scheduler "
                "chooses D for S slots; docs/model.md)"),
      F("slack_s", K::kFloat).ge(0).le(kMaxSlackS).def(d.slack_s).in("s").added_later()
          .says("how long each job may be deferred past its arrival (read by wait-awhile only; docs/model.md)"),
  }};
  return t;
}

const TableSpec& workload_spec() {
  const WorkloadOptions d{};
  static const TableSpec t{{
      F("num_jobs", K::kInt).ge(1).le(kMaxJobs).def(d.num_jobs).says("jobs to generate"),
      F("arrival_rate_per_hour", K::kFloat).ge(1e-6).le(1e9).def(d.arrival_rate_per_hour).in("jobs/h").says("Poisson arrival rate"),
      F("load_scale", K::kFloat).ge(1e-6).le(1e6).def(d.load_scale).says("multiplies the arrival rate"),
      F("duration_min_h", K::kFloat).ge(1e-6).le(1e6).def(d.duration_min_h).in("h").says("shortest run length on reference_gpu"),
      F("duration_max_h", K::kFloat).ge(1e-6).le(1e6).def(d.duration_max_h).in("h").says("longest run length (> duration_min_h)"),
      F("duration_pareto_alpha", K::kFloat).ge(0.01).le(100).def(d.duration_pareto_alpha)
          .says("bounded-Pareto shape (smaller = heavier tail)"),
      F("reference_gpu", K::kString).def(toml_quote(d.reference_gpu)).says("GPU type run lengths are measured on"),
      F("trace", K::kString).def("none").file().says("CSV job trace (relative to this file) replayed instead of the generator"),
      TA("mix", &mix_spec(), "model").says("model mix (at least one entry unless trace is given)"),
  }};
  return t;
}

const TableSpec& scheduler_spec() {
  const SchedulerParams d{};
  static const TableSpec t{{
      F("preset", K::kString).def(toml_quote(d.preset)).says("scheduler preset of `geopipe run`"),
      F("max_region_switches", K::kInt).ge(0).le(1024).def(d.max_region_switches)
          .says("pathfinder: max cross-region hops"),
      F("epsilon", K::kFloat).ge(0).le(1e6).def(d.epsilon).says("cost-min accepts estimated iteration time <= (1 + epsilon) * best"),
      F("priority_runtime_weight", K::kFloat).ge(0).le(1e6).def(d.priority_runtime_weight)
          .says("dynamic priority: weight of run time"),
      F("priority_network_weight", K::kFloat).ge(0).le(1e6).def(d.priority_network_weight)
          .says("dynamic priority: weight of network pressure"),
      F("priority_aging", K::kFloat).ge(0).le(1e6).def(d.priority_aging).says("dynamic priority: score removed per second waited"),
      F("view_staleness_s", K::kFloat).ge(0).le(kMaxSeconds).def(d.view_staleness_s).in("s")
          .says("period of the bandwidth monitor's measurements (0 = live)"),
      F("view_noise_sigma", K::kFloat).ge(0).lt(1).def(d.view_noise_sigma).says("relative noise on the viewed bandwidth"),
      F("view_refresh_s", K::kFloat).ge(kMinMonitorPeriodS).le(kMaxSeconds).def(d.view_refresh_s).in("s")
          .says("live noisy view: measured again this often while jobs wait"),
      F("variant_patience", K::kFloat).ge(1).le(1e9).def(d.variant_patience).added_later()
          .says("flexible jobs: a variant starts only within this factor of the best on the idle cluster"),
      F("tiresias_thresholds_gpu_s", K::kFloatArray).gt(0).le(1e15).def("[3250, 7200]").in("GPU-s").added_later()
          .says("tiresias: attained-service thresholds of its queues, increasing (K = count + 1 queues)"),
      F("tiresias_promote_knob", K::kFloat).ge(0).le(1e6).def(d.tiresias_promote_knob).added_later()
          .says("tiresias: a job that ran goes back to the first queue after waiting this many times its executed time (0 = never)"),
      F("gavel_round_s", K::kFloat).ge(1).le(kMaxSeconds).def(d.gavel_round_s).in("s").added_later()
          .says("gavel-maxmin: length of its scheduling rounds"),
      F("wait_awhile_signal", K::kString).def("\"price\"").added_later()
          .says("wait-awhile: what a held job waits for: \"price\" (electricity) or \"carbon\" (grid intensity)"),
      F("wait_awhile_min_saving", K::kFloat).ge(0).le(1).def(d.wait_awhile_min_saving).added_later()
          .says("wait-awhile: the relative saving of the signal a later start must reach to hold a job"),
  }};
  return t;
}

const TableSpec& faults_spec() {
  const FaultParams d{};
  static const TableSpec t{{
      F("gpu_mtbf_h", K::kFloat).ge(kMinMtbfH).le(kMaxMtbfH).def("none (no failures)").in("h")
          .added_later().says("mean time between job-killing failures of one GPU: a job of n GPUs fails at rate n / MTBF"),
      F("restart_s", K::kFloat).ge(0).le(kMaxSeconds).def(d.restart_s).in("s")
          .added_later().says("after a failure the job holds no GPU this long (detection + restart), then waits to be placed"),
      F("checkpoint_interval_s", K::kFloat).ge(1).le(1e9).words("auto", "none").def("\"auto\"").in("s")
          .added_later().says("seconds of training between two checkpoints; \"auto\" = Young/Daly sqrt(2 C M), \"none\" = never"),
      F("checkpoint_cost_s", K::kFloat).ge(0).le(kMaxSeconds).words("auto").def("\"auto\"").in("s")
          .added_later().says("blocking seconds per checkpoint; \"auto\" = checkpoint bytes over the regions' checkpoint_gbps"),
      F("preemption_notice_s", K::kFloat).ge(0).le(kMaxSeconds).def(d.preemption_notice_s).in("s").added_later()
          .says("spot preemption: seconds between the notice and the loss of the GPUs (a checkpoint that fits is written)"),
      F("checkpoint_bytes_per_param", K::kFloat).gt(0).le(64).def(d.checkpoint_bytes_per_param).in("bytes")
          .added_later().says("bytes a checkpoint writes per parameter (12 = fp32 weights + Adam moments)"),
      F("checkpoint_storage", K::kString).def("\"global\"").added_later()
          .says("\"global\": a restart reads its checkpoint anywhere; \"regional\": a stage restarted elsewhere moves its shard over the link (time, egress)"),
      F("migrate_after_s", K::kFloat).ge(0).le(kMaxSeconds).def("none (wait)").in("s").added_later()
          .says("a job stalled this long on a link that is down is checkpointed, released and placed again"),
  }};
  return t;
}

}  // namespace

const TableSpec& scenario_root() {
  static const TableSpec root{{
      T("scenario", &scenario_spec()).req(),
      T("sim", &sim_spec()),
      T("network", &network_spec()),
      T("cluster", &cluster_spec()).req(),
      TA("gpu", &gpu_spec(), "name").says("custom GPU types"),
      TA("model", &model_spec(), "name").says("custom LLMs"),
      T("workload", &workload_spec()).req(),
      T("scheduler", &scheduler_spec()),
      T("faults", &faults_spec()).says("GPU failures and checkpoint-restart (docs/model.md)"),
  }};
  return root;
}

std::string address_placeholder(const Field& f) {
  if (f.address_key == "regions") return "<a>/<b>";
  return "<" + std::string(f.address_key) + ">";
}

namespace {
std::string bound_text(const Bound& b, bool lower) {
  return std::string(lower ? (b.inclusive ? ">= " : "> ") : (b.inclusive ? "<= " : "< ")) + util::format_number(b.value);
}
bool violates_lo(const Bound& b, double v) { return b.inclusive ? !(v >= b.value) : !(v > b.value); }
bool violates_hi(const Bound& b, double v) { return b.inclusive ? !(v <= b.value) : !(v < b.value); }

std::string range_text(const Field& f) { return (f.lo && f.hi ? "in " : "") + range_phrase(f); }

void collect_parameters(const TableSpec& spec, const std::string& prefix, std::vector<Parameter>& out) {
  for (const auto& f : spec.fields) {
    const std::string p = prefix.empty() ? f.name : prefix + "." + f.name;
    if (f.is_leaf()) {
      out.push_back({p, &f});
    } else if (f.kind == Kind::kTable) {
      collect_parameters(*f.table, p, out);
    } else {
      collect_parameters(*f.table, p + "." + address_placeholder(f), out);
    }
  }
}
}  // namespace

std::vector<Parameter> parameters() {
  std::vector<Parameter> out;
  collect_parameters(scenario_root(), "", out);
  return out;
}

std::string type_name(const Field& f) {
  const std::string n = f.length ? std::to_string(f.length) + " " : std::string();
  switch (f.kind) {
    case Kind::kInt: return "integer";
    case Kind::kFloat:
      if (!f.words_[0].empty())
        return "number or \"" + std::string(f.words_[0]) + "\"" +
               (f.words_[1].empty() ? "" : " or \"" + std::string(f.words_[1]) + "\"");
      return "number";
    case Kind::kString: return "string";
    case Kind::kFloatArray: return "array of " + n + "numbers";
    case Kind::kStringArray: return "array of " + n + "strings";
    case Kind::kTable: return "table";
    case Kind::kTableArray: return "array of tables";
  }
  return "value";
}

std::string range_phrase(const Field& f) {
  if (f.lo && f.hi) {
    return std::string(f.lo->inclusive ? "[" : "(") + util::format_number(f.lo->value) + ", " +
           util::format_number(f.hi->value) + (f.hi->inclusive ? "]" : ")");
  }
  if (f.lo) return bound_text(*f.lo, true);
  if (f.hi) return bound_text(*f.hi, false);
  return "";
}

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
