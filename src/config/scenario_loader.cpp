// Scenario TOML -> geopipe::Scenario: generic schema validation (config/schema_check.h), then
// the cross-field and semantic rules, unit conversion (model/units.h) and the job-fit checks.
// Absent keys keep the initialisers of the model structs (model/*.h): the one source of defaults.
#include "config/scenario_loader.h"

#include "config/scenario_builder.h"

namespace geopipe::config {
namespace builder_detail {

// ============================================================================================
// Sections
// ============================================================================================

void Builder::build_gpus(Scenario& sc) {
  sc.topology.gpu_types = builtin_gpus();
  std::map<std::string, const toml::node*> seen;
  const auto list = entries(&root_, "gpu");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const toml::table& t = *list[i];
    const std::string p = "gpu[" + std::to_string(i) + "]";
    require_nonempty(t, "name", p + ".name");
    const std::string name = required<std::string>(t, "name");
    const toml::node& nn = *get(t, "name");
    if (find_builtin_gpu(name)) fail(nn, p + ".name: '" + name + "' is a built-in GPU type (expected a new name)");
    if (auto it = seen.find(name); it != seen.end())
      fail(nn, p + ".name: duplicate GPU type '" + name + "' (first defined" + line_note(*it->second) + ")");
    seen[name] = &nn;
    GpuType g;
    g.name = name;
    g.peak_flops = units::tflops_to_flops(required<double>(t, "peak_tflops"));
    g.memory_bytes = units::gb_to_bytes(required<double>(t, "memory_gb"));
    read(t, "busy_power_w", g.busy_power_w);
    read(t, "idle_power_w", g.idle_power_w);
    read(t, "mfu_max", g.mfu_max);
    read(t, "mfu_half_hidden", g.mfu_half_hidden);
    read(t, "mfu_attention", g.mfu_attention);
    if (g.mfu_attention != 0 && g.mfu_attention < 1e-3)
      fail(*get(t, "mfu_attention"), p + ".mfu_attention must be 0 (the width curve's) or >= 0.001 (got " +
                                         util::format_number(g.mfu_attention) + ")");
    if (g.idle_power_w > g.busy_power_w)
      fail(*get(t, "idle_power_w"), p + ".idle_power_w must be <= busy_power_w (got " +
                                        util::format_number(g.idle_power_w) + " > " + util::format_number(g.busy_power_w) + ")");
    sc.topology.gpu_types.push_back(g);
  }
}

void Builder::build_models(Scenario& sc) {
  sc.llms = builtin_llms();
  std::map<std::string, const toml::node*> seen;
  const auto list = entries(&root_, "model");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const toml::table& t = *list[i];
    const std::string p = "model[" + std::to_string(i) + "]";
    require_nonempty(t, "name", p + ".name");
    const std::string name = required<std::string>(t, "name");
    const toml::node& nn = *get(t, "name");
    if (find_builtin_llm(name)) fail(nn, p + ".name: '" + name + "' is a built-in model (expected a new name)");
    if (auto it = seen.find(name); it != seen.end())
      fail(nn, p + ".name: duplicate model '" + name + "' (first defined" + line_note(*it->second) + ")");
    seen[name] = &nn;
    LlmSpec m;
    m.name = name;
    read(t, "layers", m.layers);
    read(t, "hidden", m.hidden);
    read(t, "vocab", m.vocab);
    read(t, "seq_len", m.seq_len);
    read(t, "bytes_per_elem", m.bytes_per_elem);
    read_choice<Head>(t, "head", p + ".head", "head", {{"lm", Head::kLm}, {"classification", Head::kClassification}},
                      m.head);
    sc.llms.push_back(m);
  }
}

void Builder::build_workload(Scenario& sc) {
  const toml::table& t = *table(root_, "workload");
  WorkloadOptions& w = sc.workload;
  read(t, "num_jobs", w.num_jobs);
  read(t, "arrival_rate_per_hour", w.arrival_rate_per_hour);
  read(t, "load_scale", w.load_scale);
  read(t, "duration_min_h", w.duration_min_h);
  read(t, "duration_max_h", w.duration_max_h);
  read(t, "duration_pareto_alpha", w.duration_pareto_alpha);
  read(t, "reference_gpu", w.reference_gpu);

  const double rate = w.arrival_rate_per_hour * w.load_scale / units::kSecondsPerHour;
  if (!std::isfinite(rate) || !(rate > 0)) {
    const toml::node* at = get(t, "load_scale");
    fail(at ? *at : *get(t, "arrival_rate_per_hour"),
         "workload.arrival_rate_per_hour x load_scale is out of range (expected a finite rate > 0)");
  }
  if (!get(t, "trace")) check_arrival_span(sc, t);
  if (!(w.duration_max_h > w.duration_min_h)) {
    const toml::node* at = get(t, "duration_max_h");
    fail(at ? *at : *get(t, "duration_min_h"),
         "workload.duration_max_h must be > duration_min_h (got " + util::format_number(w.duration_max_h) +
             " <= " + util::format_number(w.duration_min_h) + ")");
  }
  {
    const double la = std::pow(w.duration_min_h, w.duration_pareto_alpha);
    const double ha = std::pow(w.duration_max_h, w.duration_pareto_alpha);
    if (!std::isfinite(la) || !std::isfinite(ha) || !(la > 0) || !std::isfinite(ha * la) || !(ha * la > 0)) {
      const toml::node* at = get(t, "duration_pareto_alpha");
      fail(at ? *at : t, "workload.duration_pareto_alpha = " + util::format_number(w.duration_pareto_alpha) +
                             " with durations [" + util::format_number(w.duration_min_h) + ", " +
                             util::format_number(w.duration_max_h) +
                             "] h overflows the bounded-Pareto sampler (expected a smaller alpha or a narrower range)");
    }
  }
  if (sc.reference_gpu_index() < 0) {
    const std::vector<std::string> names = util::names_of(sc.topology.gpu_types);
    fail(*get(t, "reference_gpu"), "workload.reference_gpu: unknown GPU type '" + w.reference_gpu + "'" +
                                       util::suggestion_suffix(w.reference_gpu, names) + " (expected one of " +
                                       util::quoted_list(names) + ")");
  }
  build_mix(sc, t);
}

/// The generated arrivals span about num_jobs / rate; it must stay below kMaxArrivalSpanS, the
/// latest arrival a trace may give (with hourly prices, every simulated hour until the last
/// arrival is an event of the simulation).
void Builder::check_arrival_span(const Scenario& sc, const toml::table& t) const {
  const WorkloadOptions& w = sc.workload;
  const double rate = w.arrival_rate_per_hour * w.load_scale / units::kSecondsPerHour;
  const double span_s = static_cast<double>(w.num_jobs) / rate;
  if (span_s <= kMaxArrivalSpanS) return;
  const toml::node* at = get(t, "load_scale");
  if (!at) at = get(t, "arrival_rate_per_hour");
  if (!at) at = get(t, "num_jobs");
  fail(at ? *at : static_cast<const toml::node&>(t),
       "workload: num_jobs / (arrival_rate_per_hour x load_scale) = " + util::format_number(span_s) +
           " s of arrivals (expected at most " + util::format_number(kMaxArrivalSpanS) +
           " s: a higher arrival rate or fewer jobs)");
}

void Builder::build_mix(Scenario& sc, const toml::table& t) {
  WorkloadOptions& w = sc.workload;
  const std::vector<std::string> model_names = util::names_of(sc.llms);
  const auto list = entries(&t, "mix");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const toml::table& mt = *list[i];
    const std::string p = "workload.mix[" + std::to_string(i) + "]";
    ModelMixEntry e;
    const std::string model = required<std::string>(mt, "model");
    const auto it = std::find(model_names.begin(), model_names.end(), model);
    if (it == model_names.end())
      fail(*get(mt, "model"), p + ".model: unknown model '" + model + "'" + util::suggestion_suffix(model, model_names) +
                                  " (expected one of " + util::quoted_list(model_names) + ", or a [[model]] defined in the file)");
    e.model = static_cast<int>(it - model_names.begin());
    read(mt, "weight", e.weight);
    read(mt, "gpus_per_stage", e.gpus_per_stage);
    read(mt, "micro_batch_size", e.micro_batch_size);
    read(mt, "micro_batches", e.micro_batches);
    read(mt, "stage_multiplier", e.stage_multiplier);
    read(mt, "data_parallel", e.data_parallel);
    read(mt, "slack_s", e.slack_s);
    w.mix.push_back(e);
  }
  double total_w = 0;
  std::size_t heaviest = 0;
  for (std::size_t i = 0; i < w.mix.size(); ++i) {
    total_w += w.mix[i].weight;
    if (w.mix[i].weight > w.mix[heaviest].weight) heaviest = i;
  }
  if (!std::isfinite(total_w)) {
    const toml::node* at = get(*list[heaviest], "weight");
    fail(at ? *at : static_cast<const toml::node&>(*list[heaviest]),
         "workload.mix weights are too large (expected weights whose sum is a finite number)");
  }

  if (w.mix.empty() && !get(t, "trace"))
    fail(t, "[workload] needs at least one [[workload.mix]] entry (expected [[workload.mix]] with model = "
            "\"...\", or trace = \"jobs.csv\")");
}

void Builder::build_scheduler(Scenario& sc) {
  const toml::table* st = table(root_, "scheduler");
  if (!st) return;
  SchedulerParams& s = sc.scheduler;
  read(*st, "preset", s.preset);
  if (const toml::node* pn = get(*st, "preset"); pn && !find_preset(s.preset)) {
    const std::vector<std::string> names = preset_names();
    fail(*pn, "scheduler.preset: unknown preset '" + s.preset + "'" + util::suggestion_suffix(s.preset, names) +
                  " (expected one of " + util::quoted_list(names) + ")");
  }
  read(*st, "max_region_switches", s.max_region_switches);
  read(*st, "epsilon", s.epsilon);
  read(*st, "priority_runtime_weight", s.priority_runtime_weight);
  read(*st, "priority_network_weight", s.priority_network_weight);
  read(*st, "priority_aging", s.priority_aging);
  read(*st, "view_staleness_s", s.view_staleness_s);
  if (s.view_staleness_s > 0 && s.view_staleness_s < kMinMonitorPeriodS)
    fail(*get(*st, "view_staleness_s"),
         "scheduler.view_staleness_s = " + util::format_number(s.view_staleness_s) +
             " is finer than the bandwidth monitor measures (expected 0, a live view, or a period of at least " +
             util::format_number(kMinMonitorPeriodS) + " s)");
  read(*st, "view_noise_sigma", s.view_noise_sigma);
  read(*st, "view_refresh_s", s.view_refresh_s);
  read(*st, "variant_patience", s.variant_patience);
  if (const toml::node* th = get(*st, "tiresias_thresholds_gpu_s")) {
    const toml::array& a = *th->as_array();
    if (a.empty() || a.size() > 16)
      fail(*th, "scheduler.tiresias_thresholds_gpu_s: expected 1 to 16 thresholds (K − 1 for K queues), got " +
                    std::to_string(a.size()));
    s.tiresias_thresholds_gpu_s.clear();
    for (std::size_t k = 0; k < a.size(); ++k) {
      const double v = number_of(*a.get(k));
      if (k > 0 && !(v > s.tiresias_thresholds_gpu_s.back()))
        fail(*a.get(k), "scheduler.tiresias_thresholds_gpu_s[" + std::to_string(k) + "] = " + util::format_number(v) +
                            " is not above the threshold before it (" +
                            util::format_number(s.tiresias_thresholds_gpu_s.back()) + "): expected increasing thresholds");
      s.tiresias_thresholds_gpu_s.push_back(v);
    }
  }
  read(*st, "tiresias_promote_knob", s.tiresias_promote_knob);
  read(*st, "gavel_round_s", s.gavel_round_s);
  if (const toml::node* n = get(*st, "wait_awhile_signal")) {
    const std::string name = n->as_string()->get();
    const std::vector<std::string> names = {"price", "carbon"};
    if (name == "price")
      s.wait_awhile_signal = WaitAwhileSignal::kPrice;
    else if (name == "carbon")
      s.wait_awhile_signal = WaitAwhileSignal::kCarbon;
    else
      fail(*n, "scheduler.wait_awhile_signal: unknown signal '" + name + "'" + util::suggestion_suffix(name, names) +
                   " (expected one of " + util::quoted_list(names) + ")");
  }
  read(*st, "wait_awhile_min_saving", s.wait_awhile_min_saving);
}

void Builder::build_faults(Scenario& sc) {
  const toml::table* ft = table(root_, "faults");
  if (!ft) return;
  FaultParams& f = sc.faults;
  read(*ft, "restart_s", f.restart_s);
  read(*ft, "checkpoint_bytes_per_param", f.checkpoint_bytes_per_param);
  read(*ft, "preemption_notice_s", f.preemption_notice_s);
  // A number or a word the schema accepted ("auto", "none").
  auto number_or_word = [&](std::string_view k, std::optional<double>& out) {
    const toml::node* n = get(*ft, k);
    if (!n) return;
    if (const auto* w = n->as_string()) out = w->get() == "none" ? std::optional<double>(std::numeric_limits<double>::infinity()) : std::nullopt;
    else out = number_of(*n);
  };
  number_or_word("checkpoint_interval_s", f.checkpoint_interval_s);
  if (const toml::node* m = get(*ft, "migrate_after_s")) f.migrate_after_s = number_of(*m);
  read_choice<bool>(*ft, "checkpoint_storage", "faults.checkpoint_storage", "storage",
                    {{"global", false}, {"regional", true}}, f.checkpoint_regional);
  number_or_word("checkpoint_cost_s", f.checkpoint_cost_s);
  if (!f.checkpoint_interval_s && f.checkpoint_cost_s && *f.checkpoint_cost_s == 0) {
    const toml::node* at = get(*ft, "checkpoint_interval_s");
    fail(at ? *at : *get(*ft, "checkpoint_cost_s"),
         "faults.checkpoint_interval_s = \"auto\" needs a positive checkpoint cost (Young/Daly's sqrt(2 C M) is 0 "
         "for faults.checkpoint_cost_s = 0; give an interval in s, or a cost)");
  }
}

std::string Builder::unfit_details(const JobProfile& p, const Topology& topo) const {
  int max_region = 0;
  std::string max_name;
  for (const auto& r : topo.regions)
    if (r.gpu_count > max_region) {
      max_region = r.gpu_count;
      max_name = r.name;
    }
  double max_stage = 0;
  for (double m : p.memory_bytes) max_stage = std::max(max_stage, m);
  const int need = p.data_parallel * p.stages * p.gpus_per_stage;
  std::string s = std::to_string(topo.total_gpus()) + " GPUs in total, at most " + std::to_string(max_region) +
                  " in one region ('" + max_name + "'); its largest stage needs " + gb(max_stage) + " on " +
                  std::to_string(p.gpus_per_stage) + (p.gpus_per_stage == 1 ? " GPU" : " GPUs");
  if (need > topo.total_gpus())
    s += "; expected a smaller job (gpus_per_stage, stage_multiplier) or more GPUs (cluster.capacity_scale)";
  else
    s += "; expected regions whose GPUs hold whole stages, joined by [[network.link]] entries";
  return s;
}

void Builder::check_mix_fits(const Scenario& sc) {
  const toml::table& t = *table(root_, "workload");
  const auto list = entries(&t, "mix");
  double max_mem = 0;
  for (const auto& r : sc.topology.regions)
    if (r.gpu_count > 0) max_mem = std::max(max_mem, sc.topology.gpu_types[static_cast<std::size_t>(r.gpu_type)].memory_bytes);
  for (std::size_t i = 0; i < sc.workload.mix.size(); ++i) {
    const ModelMixEntry& e = sc.workload.mix[i];
    const LlmSpec& llm = sc.llms[static_cast<std::size_t>(e.model)];
    const std::string p = "workload.mix[" + std::to_string(i) + "]";
    Job j;
    j.gpus_per_stage = e.gpus_per_stage;
    j.micro_batch_size = e.micro_batch_size;
    j.micro_batches = e.micro_batches;
    j.data_parallel = e.data_parallel;
    j.stages = generated_stages(e, llm, sc.topology, sc.compute);
    if (j.stages <= 0) {
      j.stages = llm.layers;
      const JobProfile finest = make_profile(j, llm, sc.compute);
      double need = 0;
      for (double m : finest.memory_bytes) need = std::max(need, m);
      fail(*list[i], p + ": model '" + llm.name +
                         "' does not fit on any GPU in the cluster even with one layer per stage (a stage needs up to " +
                         gb(need) + " on " + std::to_string(e.gpus_per_stage) +
                         (e.gpus_per_stage == 1 ? " GPU" : " GPUs") + ", the largest GPU has " + gb(max_mem) +
                         "; expected fewer micro_batches, a smaller micro_batch_size or more gpus_per_stage)");
    }
    if (std::int64_t{std::max(j.data_parallel, 1)} * j.stages * j.micro_batches > kMaxPipelineCells)
      fail(*list[i], p + ": a job of model '" + llm.name + "' has " +
                         (j.data_parallel > 1 ? std::to_string(j.data_parallel) + " replicas x " : std::string()) +
                         std::to_string(j.stages) + " stages x " + std::to_string(j.micro_batches) + " micro-batches = " +
                         std::to_string(std::int64_t{std::max(j.data_parallel, 1)} * j.stages * j.micro_batches) +
                         " pipeline cells per iteration (expected at most " + std::to_string(kMaxPipelineCells) +
                         ", whose exact timing takes about 25 ms: fewer micro_batches or a smaller stage_multiplier)");
    if (is_flexible(j)) {
      if (const std::string why = flexible_unfit(j, llm, sc); !why.empty())
        fail(*list[i], p + ": a job of model '" + llm.name + "' with data_parallel = 0 on " + std::to_string(j.stages) +
                           " slots of " + std::to_string(j.gpus_per_stage) + (j.gpus_per_stage == 1 ? " GPU" : " GPUs") +
                           " (stage_multiplier = " + util::format_number(e.stage_multiplier) + " x the least feasible stages) " + why);
      if (!get(t, "trace")) check_iterations(sc, make_profile(reference_variant(j, llm, sc.topology, sc.compute), llm, sc.compute), i);
      continue;
    }
    const JobProfile prof = make_profile(j, llm, sc.compute);
    if (!fits_empty_cluster(prof, sc.topology, sc.compute.allreduce)) {
      fail(*list[i], p + ": job of model '" + llm.name + "' needs " +
                         (j.data_parallel > 1 ? std::to_string(j.data_parallel) + " replicas x " : std::string()) +
                         std::to_string(j.stages) + " stages x " +
                         std::to_string(j.gpus_per_stage) + " GPUs = " + std::to_string(j.total_gpus()) +
                         " GPUs but fits no placement in the cluster (" + unfit_details(prof, sc.topology) + ")");
    }
    if (!get(t, "trace")) check_iterations(sc, prof, i);
  }
}

/// Why flexible job `j` (data_parallel = 0) can never run, or "" if one of its variants
/// (model/flexible_job.h) fits the idle cluster (the check the schedulers' idle fallback
/// relies on: sched/scheduler.h).
std::string Builder::flexible_unfit(const Job& j, const LlmSpec& llm, const Scenario& sc) const {
  const std::vector<Job> all = data_parallel_variants(j, llm);
  if (all.empty())
    return "has no split into D replicas of S stages (expected slots and micro_batches = " + std::to_string(j.micro_batches) +
           " with a common divisor D >= slots / " + std::to_string(llm.layers) + " layers)";
  std::string tried;
  for (const Job& v : all) {
    const JobProfile prof = make_profile(v, llm, sc.compute);
    if (fits_empty_cluster(prof, sc.topology, sc.compute.allreduce)) return "";
    tried += (tried.empty() ? "" : ", ") + std::to_string(v.data_parallel) + "x" + std::to_string(v.stages);
  }
  return "fits no placement in the cluster as any of its D x S splits (" + tried + "; " +
         unfit_details(make_profile(all.back(), llm, sc.compute), sc.topology) + ")";
}

/// The generator gives a job I = round(D / T_ref) iterations (model/workload.h); the longest
/// run length D = duration_max_h must not give more than kMaxJobIterations (a job's work, energy
/// and cost then stay finite, and I fits its integer).
void Builder::check_iterations(const Scenario& sc, const JobProfile& prof, std::size_t i) const {
  const GpuType& ref = sc.topology.gpu_types[static_cast<std::size_t>(sc.reference_gpu_index())];
  const double t_ref = ideal_iteration_time(prof, ref, sc.compute);
  const double most = units::hours_to_s(sc.workload.duration_max_h) / t_ref;
  if (most <= kMaxJobIterations) return;
  const toml::table& t = *table(root_, "workload");
  const toml::node* at = get(t, "duration_max_h");
  const auto list = entries(&t, "mix");
  fail(at ? *at : static_cast<const toml::node&>(*list[i]),
       "workload.mix[" + std::to_string(i) + "]: a job of model '" + sc.llms[static_cast<std::size_t>(sc.workload.mix[i].model)].name +
           "' would run up to " + util::format_number(most) + " iterations (duration_max_h = " +
           util::format_number(sc.workload.duration_max_h) + " h at " + util::format_number(t_ref) + " s per iteration on '" +
           ref.name + "'; expected at most " + util::format_number(kMaxJobIterations) +
           " iterations: a smaller duration_max_h or a larger job)");
}

/// Line (1-based) of the trace row that produced `job`, or 0. parse_trace_csv sorts jobs by
/// arrival, so we re-parse row by row to find it.
int find_trace_line(const std::string& text, const Job& job, const std::vector<LlmSpec>& llms, const Topology& topo,
                    const ComputeOptions& compute) {
  std::istringstream in(text);
  std::string line, header;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    if (header.empty()) {
      header = line;
      continue;
    }
    try {
      const auto jobs = parse_trace_csv(header + "\n" + line + "\n", "", llms, topo, compute);
      if (jobs.size() != 1) continue;
      const Job& j = jobs[0];
      if (j.arrival_s == job.arrival_s && j.model == job.model && j.stages == job.stages &&
          j.gpus_per_stage == job.gpus_per_stage && j.micro_batch_size == job.micro_batch_size &&
          j.micro_batches == job.micro_batches && j.iterations == job.iterations &&
          j.data_parallel == job.data_parallel)
        return lineno;
    } catch (const InputError&) {
    }
  }
  return 0;
}

void Builder::load_trace(Scenario& sc) {
  const toml::table& t = *table(root_, "workload");
  const toml::node* tn = get(t, "trace");
  if (!tn) return;
  std::string shown, text;
  read_named_file(*tn, "workload.trace", "trace", shown, text);
  try {
    sc.trace_jobs = parse_trace_csv(text, shown, sc.llms, sc.topology, sc.compute);
    sc.trace_path = shown;
  } catch (const InputError& e) {
    fail(*tn, "workload.trace: " + std::string(e.what()));
  }
  if (sc.trace_jobs.size() > static_cast<std::size_t>(schema::kMaxJobs))
    fail(*tn, "workload.trace: '" + shown + "' has " + std::to_string(sc.trace_jobs.size()) + " jobs (expected at most " +
                  std::to_string(schema::kMaxJobs) + ")");
  if (sc.trace_jobs.empty()) fail(*tn, "workload.trace: '" + shown + "' contains no jobs (expected one job per line after the header)");

  // Traces repeat a few job shapes many times: check each shape once.
  std::map<std::array<int, 6>, bool> shape_fits;
  for (const Job& j : sc.trace_jobs) {
    const std::array<int, 6> shape = {j.model, j.stages, j.gpus_per_stage, j.micro_batch_size, j.micro_batches,
                                      j.data_parallel};
    if (auto it = shape_fits.find(shape); it != shape_fits.end() && it->second) continue;
    const LlmSpec& llm = sc.llms[static_cast<std::size_t>(j.model)];
    if (is_flexible(j)) {
      const std::string why = flexible_unfit(j, llm, sc);
      shape_fits[shape] = why.empty();
      if (why.empty()) continue;
      const int line = find_trace_line(text, j, sc.llms, sc.topology, sc.compute);
      fail(*tn, "workload.trace: " + shown + (line > 0 ? ":" + std::to_string(line) : std::string()) +
                    ": job (arrival " + util::format_number(j.arrival_s) + " s, model '" + llm.name +
                    "') with data_parallel = 0 on " + std::to_string(j.stages) + " slots " + why);
    }
    const JobProfile prof = make_profile(j, llm, sc.compute);
    const bool fits = fits_empty_cluster(prof, sc.topology, sc.compute.allreduce);
    shape_fits[shape] = fits;
    if (fits) continue;
    const int line = find_trace_line(text, j, sc.llms, sc.topology, sc.compute);
    fail(*tn, "workload.trace: " + shown + (line > 0 ? ":" + std::to_string(line) : std::string()) +
                  ": job (arrival " + util::format_number(j.arrival_s) + " s, model '" + llm.name + "') needs " +
                  (j.data_parallel > 1 ? std::to_string(j.data_parallel) + " replicas x " : std::string()) +
                  std::to_string(j.stages) + " stages x " + std::to_string(j.gpus_per_stage) + " GPUs = " +
                  std::to_string(j.total_gpus()) + " GPUs but fits no placement in the cluster (" +
                  unfit_details(prof, sc.topology) + ")");
  }
}

void Builder::read_series_options(const toml::table& sim) {
  if (const toml::node* n = get(sim, "series_end")) {
    const std::string name = n->as_string()->get();
    const std::vector<std::string> names = {"error", "hold", "wrap"};
    if (name == "error")
      series_end_ = SeriesEnd::kError;
    else if (name == "hold")
      series_end_ = SeriesEnd::kHold;
    else if (name == "wrap")
      series_end_ = SeriesEnd::kWrap;
    else
      fail(*n, "sim.series_end: unknown policy '" + name + "'" + util::suggestion_suffix(name, names) + " (expected one of " +
                   util::quoted_list(names) + ")");
  }
  if (const toml::node* n = get(sim, "start_utc")) {
    const std::string text = n->as_string()->get();
    const util::DatetimeParse d = util::parse_datetime(text);
    if (!d.epoch_s)
      fail(*n, "sim.start_utc: '" + text + "' is not a UTC datetime (" + d.why + "; expected e.g. \"2024-01-01T00:00:00Z\")");
    if (std::fmod(*d.epoch_s, 86400.0) != 0)
      fail(*n, "sim.start_utc: '" + text + "' is not midnight UTC (expected 00:00:00Z of a day: simulation time 0 is "
                   "midnight UTC, as the 24-hour price profiles assume)");
    start_epoch_s_ = *d.epoch_s;
  }
}

std::string Builder::resolved_path(const toml::node& n) const {
  namespace fs = std::filesystem;
  const fs::path given(n.as_string()->get());
  return ((given.is_absolute() || base_dir_.empty() || base_dir_ == ".") ? given
                                                                         : (fs::path(base_dir_) / given).lexically_normal())
      .string();
}

void Builder::read_named_file(const toml::node& n, const std::string& key_path, const char* what, std::string& shown,
                              std::string& text) const {
  const std::string given_text = n.as_string()->get();
  if (given_text.empty()) fail(n, key_path + " must not be empty (expected a CSV file path)");
  const std::filesystem::path given(given_text);
  shown = resolved_path(n);
  if (auto why = read_input_file(shown, kMaxTraceBytes, text))
    fail(n, key_path + ": cannot open " + what + " file '" + shown + "': " + *why +
                (given.is_absolute() || *why != "no such file" ? ""
                                                               : " (relative paths are resolved against the scenario file's directory)"));
}

SeriesTable Builder::read_series_file(const toml::node& n, const std::string& key_path,
                                      const std::vector<SeriesColumn>& columns) const {
  std::string shown, text;
  read_named_file(n, key_path, "series", shown, text);
  try {
    return read_series_csv(text, shown, columns, start_epoch_s_);
  } catch (const InputError& e) {
    fail(n, key_path + ": " + std::string(e.what()));
  }
}

Scenario Builder::build() {
  if (root_.empty())
    fail(region_of(root_, file_), kEmptyScenarioMessage);
  check_schema(root_, file_);

  Scenario sc;
  sc.source_path = file_;
  const toml::table& st = *table(root_, "scenario");
  require_nonempty(st, "name", "scenario.name");
  read(st, "name", sc.name);
  read(st, "seed", sc.seed);

  if (const toml::table* sim = table(root_, "sim")) {
    if (get(*sim, "mfu")) {
      double mfu = 0;
      read(*sim, "mfu", mfu);
      sc.compute.mfu = mfu;
    }
    read(*sim, "tp_efficiency", sc.compute.tp_efficiency);
    read(*sim, "optimizer_step_s", sc.compute.optimizer_step_s);
    if (const toml::node* n = get(*sim, "pipeline_schedule")) {
      std::string name;
      read(*sim, "pipeline_schedule", name);
      const PipelineSchedule* s = find_pipeline_schedule(name);
      if (!s) {
        const std::vector<std::string> names = pipeline_schedule_names();
        fail(*n, "sim.pipeline_schedule: unknown pipeline schedule '" + name + "'" + util::suggestion_suffix(name, names) +
                     " (expected one of " + util::quoted_list(names) + ")");
      }
      sc.compute.pipeline_schedule = s->kind();
    }
    read_choice<Recompute>(*sim, "recompute", "sim.recompute", "recomputation",
                           {{"full", Recompute::kFull}, {"none", Recompute::kNone}}, sc.compute.recompute);
    read_choice<LayerPartition>(*sim, "layer_partition", "sim.layer_partition", "layer partition",
                                {{"even", LayerPartition::kEven}, {"balanced", LayerPartition::kBalanced}},
                                sc.compute.layer_partition);
    read_choice<DpSync>(*sim, "dp_sync", "sim.dp_sync", "synchronisation",
                        {{"allreduce", DpSync::kAllReduce}, {"diloco", DpSync::kDiLoCo}}, sc.compute.dp_sync);
    read_choice<AllReduceKind>(*sim, "allreduce", "sim.allreduce", "all-reduce",
                               {{"ring", AllReduceKind::kRing}, {"hierarchical", AllReduceKind::kHierarchical}},
                               sc.compute.allreduce);
    read(*sim, "sync_bytes_per_param", sc.compute.sync_bytes_per_param);
    read(*sim, "diloco_interval", sc.compute.diloco_interval);
    read_series_options(*sim);
  }
  build_gpus(sc);
  build_models(sc);
  build_cluster(sc);
  build_faults(sc);
  build_network(sc);
  build_workload(sc);
  build_scheduler(sc);
  check_mix_fits(sc);
  load_trace(sc);
  return sc;
}

}  // namespace builder_detail

using builder_detail::Builder;

toml::table parse_scenario_toml(std::string_view text, const std::string& file) {
  toml::table root = parse_toml(text, file);
  if (root.empty()) throw InputError(file, 1, 1, kEmptyScenarioMessage);
  return root;
}

Scenario build_scenario(const toml::table& root, const std::string& file, const std::string& base_dir) {
  return as_input_errors(file, "the scenario", [&] { return Builder(root, file, base_dir).build(); });
}

Scenario load_scenario_string(const std::string& toml_text, const std::string& file_for_messages,
                              const std::vector<Override>& overrides, const std::string& base_dir) {
  return as_input_errors(file_for_messages, "the scenario", [&] {
    toml::table root = parse_scenario_toml(toml_text, file_for_messages);
    apply_overrides(root, overrides);
    return Builder(root, file_for_messages, base_dir).build();
  });
}

Scenario load_scenario_file(const std::string& path, const std::vector<Override>& overrides) {
  std::string text;
  if (auto why = read_input_file(path, kMaxTomlBytes, text)) throw InputError(path, 0, 0, "cannot open scenario file: " + *why);
  std::string base = std::filesystem::path(path).parent_path().string();
  if (base.empty()) base = ".";
  return load_scenario_string(text, path, overrides, base);
}

}  // namespace geopipe::config
