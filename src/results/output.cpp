#include "results/output.h"

#include <deque>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "results/hdf5/store.h"
#include "util/hash.h"
#include "util/input_error.h"
#include "util/system.h"

namespace geopipe::sweep {
namespace {

// ---- HDF5 (results/hdf5/store.h) ------------------------------------------------------------------

/// The store with the output's lock: the store is closed first, then the lock released.
class LockedStore final : public ResultSink {
 public:
  LockedStore(std::unique_ptr<OutputLock> lock, std::unique_ptr<ResultStore> store)
      : lock_(std::move(lock)), store_(std::move(store)) {}
  void append(const ScenarioResult& r) override { store_->append(r); }
  void flush() override { store_->flush(); }
  void finalize() override { store_->finalize(); }

 private:
  std::unique_ptr<OutputLock> lock_;  // declared first: released last
  std::unique_ptr<ResultStore> store_;
};

/// The root attributes of the output of `spec` (this shard of `plan`).
StoreMeta meta_of(const OutputRequest& rq, const config::SweepSpec& spec, const Plan& plan) {
  const std::string shard =
      plan.shards() > 1 ? std::to_string(plan.shard()) + "/" + std::to_string(plan.shards()) : "";
  StoreMeta meta;
  meta.geopipe_version = rq.version;
  meta.created_utc = util::utc_now_iso8601();
  meta.sweep_name = spec.name;
  meta.sweep_toml = spec.text;
  meta.base_toml = spec.base_text;
  meta.sweep_hash = util::hex16(spec.hash);
  meta.layout = rq.layout;
  meta.num_scenarios = plan.shard_total();
  meta.total_scenarios = plan.total();
  meta.shard = shard;
  meta.schedulers = spec.schedulers;
  for (const auto& c : spec.columns) meta.axes.push_back(c.param);
  return meta;
}

void check_hdf5(const OutputRequest& rq, const config::SweepSpec& spec, const Plan& plan) {
  ResultStore::check_fits(meta_of(rq, spec, plan), spec, plan, rq.save_jobs);
}

OpenedOutput open_hdf5(const OutputRequest& rq, const config::SweepSpec& spec, const Plan& plan) {
  OpenedOutput out;
  if (auto why = util::not_a_regular_file(rq.path))  // --force must never remove a device or FIFO
    throw InputError(rq.path, 0, 0, "cannot use as the output: " + *why + " (expected a new or existing result file)");
  // One writer per output, before the file is read, removed or created.
  auto lock = std::make_unique<OutputLock>(rq.path);
  auto locked = [&](std::unique_ptr<ResultStore> store) -> std::unique_ptr<ResultSink> {
    store->set_durable(rq.durable);
    return std::make_unique<LockedStore>(std::move(lock), std::move(store));
  };
  const StoreMeta meta = meta_of(rq, spec, plan);
  const std::string& shard = meta.shard;
  if (util::path_exists(rq.path) && rq.resume) {
    StoreContents c = ResultStore::read(rq.path);
    if (c.meta.shard != shard)
      throw InputError(rq.path, 0, 0, "holds shard '" + c.meta.shard + "' (expected '" + shard + "')");
    out.resumed = true;
    // Results are matched to the sweep's scenarios by content key, also when the sweep file did
    // not change (its hash does not cover the content of trace files): results the sweep still
    // has are kept, the others set aside. Formats 1 and 2 have no keys: extend() refuses them;
    // it upgrades a format-3 file (it writes a new /scenarios).
    Extension ext;
    out.sink = locked(ResultStore::extend(rq.path, meta, spec, plan, ext));
    out.done = std::move(ext.reused);
    out.retired = ext.retired;
    out.retired_path = std::move(ext.retired_path);
    return out;
  }
  const bool exists = util::path_exists(rq.path);
  if (exists && !rq.force)
    throw InputError(rq.path, 0, 0,
                     "output file exists (expected a new file; use --resume to continue it or --force to overwrite "
                     "it)");
  // Written while the sweep starts computing (a failure to write it comes at the first flush).
  // With --force the new file is written beside the old one and renamed over it once complete:
  // the earlier result is never gone before its replacement exists.
  out.sink = locked(ResultStore::create_in_background(
      rq.path, meta, spec, plan, rq.save_jobs, exists ? ResultStore::Existing::kReplace : ResultStore::Existing::kRefuse));
  return out;
}

// ---- the formats -------------------------------------------------------------------------------

/// The shipped formats first, then the registered ones. A deque: registering a format keeps the
/// references format_for() returned valid.
std::deque<OutputFormat>& formats() {
  static std::deque<OutputFormat> all = {
      {"hdf5", {".h5", ".hdf5"}, open_hdf5, check_hdf5, merge_stores, ResultStore::read, read_joined,
       read_metric_by_scenario},
  };
  return all;
}

const OutputFormat& format_for(const std::string& path) {
  for (const OutputFormat& f : formats())
    for (const std::string& e : f.endings)
      if (std::string_view(path).ends_with(e)) return f;
  return formats().front();
}

}  // namespace

OpenedOutput open_output(const OutputRequest& request, const config::SweepSpec& spec, const Plan& plan) {
  return format_for(request.path).open(request, spec, plan);
}

void check_output(const OutputRequest& request, const config::SweepSpec& spec, const Plan& plan) {
  format_for(request.path).check(request, spec, plan);
}

StoreContents read_contents(const std::string& path) { return format_for(path).read_contents(path); }

Table read_results(const std::string& path) { return format_for(path).read_results(path); }

MetricByScenario read_metric(const std::string& path, const std::string& metric) {
  return format_for(path).read_metric(path, metric);
}

MergeSummary merge_results(const std::vector<std::string>& inputs, const std::string& output) {
  const OutputFormat& f = format_for(output);
  for (const std::string& in : inputs)
    if (&format_for(in) != &f)
      throw InputError(in, 0, 0,
                       std::string("is not a ") + f.name + " file like the output (expected inputs of one format)");
  return f.merge(inputs, output);
}

void register_output_format(OutputFormat format) {
  const auto refuse = [&](const std::string& why) {
    throw std::invalid_argument("register_output_format: format '" + format.name + "' " + why);
  };
  if (format.name.empty()) refuse("has no name");
  if (format.endings.empty()) refuse("has no file name endings (it could never be chosen)");
  if (!format.open || !format.check || !format.merge || !format.read_contents || !format.read_results ||
      !format.read_metric)
    refuse("lacks a function (every entry of OutputFormat is needed)");
  for (const std::string& e : format.endings)
    if (e.empty()) refuse("has an empty file name ending");
  for (const OutputFormat& f : formats()) {
    if (f.name == format.name) refuse("is already in the table");
    for (const std::string& mine : format.endings)
      for (const std::string& theirs : f.endings)
        if (std::string_view(mine).ends_with(theirs) || std::string_view(theirs).ends_with(mine))
          refuse("has the ending '" + mine + "', which would be ambiguous with '" + theirs + "' of format '" +
                 f.name + "'");
  }
  formats().push_back(std::move(format));
}

}  // namespace geopipe::sweep
