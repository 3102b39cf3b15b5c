#include "cli/timeline_json.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "geopipe_version.h"
#include "model/units.h"
#include "sim/job_row.h"
#include "sim/metrics.h"
#include "sim/timeline.h"
#include "util/input_error.h"
#include "util/output_file.h"
#include "util/system.h"

namespace geopipe::cli {
namespace {

using Json = nlohmann::ordered_json;

/// A simulated time as the file's whole microseconds. Integers keep every viewer exact: a
/// slice ending at t and the next one starting at t on the same lane meet exactly (Perfetto
/// converts to integer nanoseconds, where fractional values could overlap by 1 ns and misnest).
/// Beyond 2^53 µs (285 years; the viewers stop at 292) the value is written as a double.
Json us(double t_s) {
  const double v = std::round(t_s * 1e6);
  return std::fabs(v) < 9e15 ? Json(static_cast<std::int64_t>(v)) : Json(v);
}
Json us_between(double t0_s, double t1_s) {
  const Json a = us(t0_s), b = us(t1_s);
  if (a.is_number_integer() && b.is_number_integer()) return b.get<std::int64_t>() - a.get<std::int64_t>();
  return std::round(t1_s * 1e6) - std::round(t0_s * 1e6);
}

InputError timeline_error(const std::string& message) { return InputError("--timeline", 0, 0, message); }


std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

/// A scenario metric as --json prints it: integers stay integers, a non-finite value is null.
Json metrics_json(const ScenarioMetrics& m) {
  Json out = Json::object();
  for_each_metric(m, [&](const MetricDef& d, const auto& v) {
    if (d.source != MetricSource::kSimulation) return;  // a timeline is of a simulation
    if constexpr (std::is_floating_point_v<std::decay_t<decltype(v)>>)
      out[d.name] = std::isfinite(v) ? Json(v) : Json(nullptr);
    else
      out[d.name] = v;
  });
  return out;
}

/// Thread ids of one process: the lanes of region 0, then region 1's, ..., then the queue
/// track. A region that ran nothing still gets one (empty) lane, so every region has a track.
struct Tracks {
  std::vector<int> first;  ///< per region: tid of lane 0
  std::vector<int> count;  ///< per region: lanes
  int queue = 0;
  explicit Tracks(const Timeline& tl) {
    int next = 1;
    for (int lanes : tl.lanes) {
      first.push_back(next);
      count.push_back(std::max(1, lanes));
      next += count.back();
    }
    queue = next;
  }
  int tid(int region, int lane) const { return first[static_cast<std::size_t>(region)] + lane; }
};

/// Writes the elements of the traceEvents array, separated by ",\n".
struct EventSink {
  const std::function<void(std::string_view)>& out;
  bool first = true;
  void operator()(const Json& ev) {
    if (!first) out(",\n");
    first = false;
    out(dump(ev));
  }
};

void write_run(const Scenario& sc, const RunOutcome& run, int pid, EventSink& event) {
  const Timeline& tl = *run.result.timeline;
  const std::vector<JobRecord>& jobs = run.result.jobs;
  const Topology& topo = sc.topology;
  const Tracks tracks(tl);
  auto meta = [&](const char* name, int tid, Json args) {
    Json ev{{"ph", "M"}, {"pid", pid}};
    if (tid > 0) ev["tid"] = tid;
    ev["name"] = name;
    ev["args"] = std::move(args);
    event(ev);
  };
  meta("process_name", 0, {{"name", run.scheduler}});
  meta("process_sort_index", 0, {{"sort_index", pid}});
  for (int r = 0; r < topo.num_regions(); ++r)
    for (int lane = 0; lane < tracks.count[static_cast<std::size_t>(r)]; ++lane) {
      const int tid = tracks.tid(r, lane);
      meta("thread_name", tid, {{"name", topo.regions[static_cast<std::size_t>(r)].name}});
      meta("thread_sort_index", tid, {{"sort_index", tid}});
    }
  meta("thread_name", tracks.queue, {{"name", "queue"}});
  meta("thread_sort_index", tracks.queue, {{"sort_index", tracks.queue}});

  // Jobs: one complete slice per (job, region it uses).
  for (const TimelineSlice& s : tl.slices) {
    if (static_cast<std::size_t>(s.job) >= jobs.size()) throw std::logic_error("timeline: the run's job records are missing");
    const JobRecord& rec = jobs[static_cast<std::size_t>(s.job)];
    const std::string& model = sc.llms[static_cast<std::size_t>(rec.model)].name;
    Json per_region = Json::object();
    for (int reg : rec.stage_region) {
      Json& g = per_region[topo.regions[static_cast<std::size_t>(reg)].name];
      g = (g.is_null() ? 0 : g.get<int>()) + rec.gpus_per_stage;
    }
    Json args{{"job", rec.id},
              {"model", model},
              {"stages", rec.stages},
              {"gpus_per_stage", rec.gpus_per_stage},
              {"data_parallel", rec.data_parallel},
              {"regions", regions_text(sc, rec.stage_region, rec.stages)},
              {"stages_here", s.stages},
              {"gpus_here", s.stages * rec.gpus_per_stage},
              {"gpus_per_region", std::move(per_region)},
              {"iteration_s", rec.mean_iteration_s},
              {"first_iteration_s", rec.first_iteration_s},
              {"iterations", rec.iterations},
              {"energy_j", rec.energy_j},
              {"cost_usd", rec.cost_usd()},
              {"electricity_cost_usd", rec.electricity_cost_usd},
              {"egress_cost_usd", rec.egress_cost_usd},
              {"carbon_g", rec.carbon_g},
              {"cross_region_bytes", rec.cross_region_bytes},
              {"sync_bytes", rec.sync_bytes},
              {"arrival_s", rec.arrival_s},
              {"start_s", rec.start_s},
              {"finish_s", rec.finish_s},
              {"queue_delay_s", rec.start_s - rec.arrival_s},
              {"jct_s", rec.finish_s - rec.arrival_s}};
    event(Json{{"ph", "X"},
               {"pid", pid},
               {"tid", tracks.tid(s.region, s.lane)},
               {"ts", us(s.start_s)},
               {"dur", us_between(s.start_s, s.finish_s)},
               {"name", model + " #" + std::to_string(rec.id) + (s.failed ? " (failed)" : "")},
               {"cat", "job"},
               {"args", std::move(args)}});
  }
  // Arrivals: an instant on the queue track per job (jobs are in arrival order).
  for (const JobRecord& rec : jobs) {
    const std::string& model = sc.llms[static_cast<std::size_t>(rec.model)].name;
    event(Json{{"ph", "i"},
               {"s", "t"},
               {"pid", pid},
               {"tid", tracks.queue},
               {"ts", us(rec.arrival_s)},
               {"name", "arrive " + model + " #" + std::to_string(rec.id)},
               {"cat", "arrival"},
               {"args", {{"job", rec.id}, {"model", model}, {"arrival_s", rec.arrival_s}, {"start_s", rec.start_s}}}});
  }
  // Failures and completed checkpoints: instants on the queue track (docs/timeline.md).
  for (const TimelineMark& m : tl.marks) {
    const JobRecord& rec = jobs.at(static_cast<std::size_t>(m.job));
    const std::string& model = sc.llms[static_cast<std::size_t>(rec.model)].name;
    const bool ckpt = m.kind == TimelineMark::Kind::kCheckpoint;
    const char* what = ckpt ? "checkpoint" : m.kind == TimelineMark::Kind::kFailure ? "failure" : "eviction";
    Json args{{"job", rec.id}, {"model", model}, {"t_s", m.t_s}};
    if (ckpt) args["checkpoint_s"] = m.duration_s;
    event(Json{{"ph", "i"},
               {"s", "t"},
               {"pid", pid},
               {"tid", tracks.queue},
               {"ts", us(m.t_s)},
               {"name", std::string(what) + " " + model + " #" + std::to_string(rec.id)},
               {"cat", what},
               {"args", std::move(args)}});
  }
  // Counters (process-scoped; the tid is the queue track's, which viewers ignore for counters).
  auto counter = [&](const std::string& name, double t, Json args) {
    event(Json{{"ph", "C"},
               {"pid", pid},
               {"tid", tracks.queue},
               {"ts", us(t)},
               {"name", name},
               {"cat", "counter"},
               {"args", std::move(args)}});
  };
  auto region_name = [&](int r) -> const std::string& { return topo.regions[static_cast<std::size_t>(r)].name; };
  for (const TimelineLinkSample& l : tl.links)
    counter("link " + region_name(l.from) + "->" + region_name(l.to), l.t_s,
            {{"allocated_gbps", units::bytes_per_s_to_gbps(l.allocated_bytes_per_s)},
             {"capacity_gbps", units::bytes_per_s_to_gbps(topo.link(l.from, l.to).capacity_bytes_per_s)}});
  for (const TimelineBusySample& b : tl.busy) counter("busy GPUs " + region_name(b.region), b.t_s, {{"gpus", b.busy_gpus}});
  for (const TimelinePriceSample& p : tl.prices) counter("price " + region_name(p.region), p.t_s, {{"usd_per_kwh", p.usd_per_kwh}});
  for (const TimelineQueueSample& q : tl.queue) counter("waiting jobs", q.t_s, {{"jobs", q.waiting}});
}

Json other_data(const Scenario& sc, std::uint64_t seed, const std::vector<RunOutcome>& runs) {
  const Topology& topo = sc.topology;
  Json regions = Json::array();
  for (const Region& r : topo.regions)
    regions.push_back({{"name", r.name},
                       {"gpu", topo.gpu_types[static_cast<std::size_t>(r.gpu_type)].name},
                       {"gpus", r.gpu_count},
                       {"pue", r.pue}});
  Json links = Json::array();
  for (int a = 0; a < topo.num_regions(); ++a)
    for (int b = 0; b < topo.num_regions(); ++b)
      if (a != b && topo.link(a, b).capacity_bytes_per_s > 0)
        links.push_back({{"from", topo.regions[static_cast<std::size_t>(a)].name},
                         {"to", topo.regions[static_cast<std::size_t>(b)].name},
                         {"capacity_gbps", units::bytes_per_s_to_gbps(topo.link(a, b).capacity_bytes_per_s)},
                         {"latency_ms", topo.link(a, b).latency_s * 1e3}});
  Json results = Json::array();
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const Timeline& tl = *runs[k].result.timeline;
    Json lanes = Json::object();
    for (int r = 0; r < topo.num_regions(); ++r)
      lanes[topo.regions[static_cast<std::size_t>(r)].name] = tl.lanes[static_cast<std::size_t>(r)];
    results.push_back({{"scheduler", runs[k].scheduler},
                       {"pid", static_cast<int>(k) + 1},
                       {"end_s", tl.end_s},
                       {"lanes", std::move(lanes)},
                       {"price_samples_truncated", tl.prices_truncated},
                       {"metrics", metrics_json(runs[k].result.metrics)}});
  }
  return Json{{"generator", std::string("geopipe ") + GEOPIPE_VERSION},
              {"format", "Chrome trace-event JSON; ts and dur in microseconds of simulated time (0 = 00:00 UTC); "
                         "docs/timeline.md"},
              {"scenario", sc.name},
              {"seed", seed},
              {"regions", std::move(regions)},
              {"links", std::move(links)},
              {"results", std::move(results)}};
}

/// Buffered writes to a file descriptor; remembers the first error.

}  // namespace

void check_timeline_path(const std::string& path, const std::vector<std::string>& inputs, const std::string& jobs_csv) {
  util::check_output_path(path, inputs, "--timeline", "the timeline");
  auto spelled_alike = [](const std::string& x, const std::string& y) {  // neither need exist yet
    std::error_code ec1, ec2;
    const auto ax = std::filesystem::absolute(x, ec1).lexically_normal();
    const auto ay = std::filesystem::absolute(y, ec2).lexically_normal();
    return x == y || (!ec1 && !ec2 && ax == ay);
  };
  if (!jobs_csv.empty() && (spelled_alike(path, jobs_csv) || util::same_file(path, jobs_csv)))
    throw timeline_error("'" + path + "' is also the --jobs-csv file (expected another path)");
  util::check_can_create(path, "--timeline", "the timeline");
}

void write_timeline_json(const Scenario& sc, std::uint64_t seed, const std::vector<RunOutcome>& runs,
                         const std::function<void(std::string_view)>& out) {
  for (const RunOutcome& r : runs)
    if (!r.result.timeline) throw std::logic_error("write_timeline_json: a run without a timeline (SimOptions::record_timeline)");
  out("{\"displayTimeUnit\": \"ms\",\n\"otherData\": ");
  out(dump(other_data(sc, seed, runs)));
  out(",\n\"traceEvents\": [\n");
  EventSink sink{out};
  for (std::size_t k = 0; k < runs.size(); ++k) write_run(sc, runs[k], static_cast<int>(k) + 1, sink);
  out("\n]}\n");
}

void write_timeline_file(const std::string& path, const Scenario& sc, std::uint64_t seed,
                         const std::vector<RunOutcome>& runs) {
  util::OutputFile out(path, {sc.source_path, sc.trace_path}, "--timeline", "the timeline");
  std::ostream& os = out.stream();
  write_timeline_json(sc, seed, runs, [&](std::string_view s) { os.write(s.data(), static_cast<std::streamsize>(s.size())); });
  out.commit();
}

}  // namespace geopipe::cli
