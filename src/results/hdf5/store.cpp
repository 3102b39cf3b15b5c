// ResultStore (results/hdf5/store.h): creating, appending to, resuming and finalizing the HDF5
// result file of a sweep. Layout and crash-safety design in docs/hdf5-format.md.
//
// This file defines ResultStore's members; store.h's free functions are defined in the file of
// their part of this folder (merging in merge.cpp, reading in read.cpp). It uses the HDF5 C API
// only through the folder's internal headers (results/hdf5/*.h but store.h), each of which states
// the part it owns. Every public entry point takes the Lock before it uses HDF5 (append() packs
// rows without it; the thread of create_in_background() holds it while it writes the file).
#include "results/hdf5/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sweepfile/scenario_key.h"
#include "config/toml_text.h"
#include "sim/metrics.h"
#include "sim/model_version.h"
#include "results/hdf5/error.h"
#include "results/hdf5/extend.h"
#include "results/hdf5/file.h"
#include "results/hdf5/rebuild.h"
#include "results/hdf5/table.h"
#include "util/hash.h"
#include "util/input_error.h"
#include "util/system.h"

namespace geopipe::sweep {

using namespace h5;

namespace {

// Write batches (rows buffered before a write).
constexpr std::size_t kMetricsBatch = 1024;
constexpr std::size_t kErrorsBatch = 256;
constexpr std::size_t kJobsBatch = 8192;

/// `meta` completed for a new file of `spec`: what the caller left empty comes from the sweep.
StoreMeta new_file_meta(const StoreMeta& meta, const config::SweepSpec& spec, const Plan& plan) {
  StoreMeta m = meta;
  m.format_version = static_cast<int>(kFormatVersion);
  m.model_version = kModelVersion;
  m.collection = false;
  m.design = spec.design;
  m.evaluator = metric_source_name(spec.evaluated_by());
  if (m.geopipe_version.empty()) m.geopipe_version = "unknown";
  if (m.created_utc.empty()) m.created_utc = util::utc_now_iso8601();
  if (m.sweep_name.empty()) m.sweep_name = spec.name;
  if (m.sweep_toml.empty()) m.sweep_toml = spec.text;
  if (m.base_toml.empty()) m.base_toml = spec.base_text;
  if (m.sweep_hash.empty()) m.sweep_hash = util::hex16(spec.hash);
  m.total_scenarios = plan.total();
  if (m.schedulers.empty()) m.schedulers = spec.schedulers;
  if (m.axes.empty())
    for (const auto& col : spec.columns) m.axes.push_back(col.param);
  m.complete = false;
  return m;
}

/// The /parameters rows of a sweep's file.
std::vector<ParamRow> parameter_rows(const config::SweepSpec& spec) {
  std::vector<ParamRow> rows;
  rows.reserve(spec.parameters.size());
  for (const auto& p : spec.parameters)
    rows.push_back({p.path, p.value, p.column >= 0 ? spec.columns[static_cast<std::size_t>(p.column)].param : ""});
  return rows;
}

/// /scenarios layout: string widths fit the longest value of the whole sweep (so that the
/// shards of one sweep have identical layouts).
Layout scenario_layout(const config::SweepSpec& spec) {
  std::size_t sched_w = kSchedulerWidth;
  for (const auto& s : spec.schedulers) sched_w = std::max(sched_w, s.size());
  std::vector<std::size_t> text_w(spec.columns.size(), kTextWidth);
  const auto widen = [&](std::size_t k, const std::string& text) {
    if (k < spec.columns.size() && !spec.columns[k].numeric) text_w[k] = std::max(text_w[k], config::toml_unquote(text).size());
  };
  spec.points.for_each_text(widen);
  for (std::size_t k = 0; k < spec.columns.size(); ++k) widen(k, spec.columns[k].fixed_text);
  Layout sl;
  sl.add("id", Kind::I64).add("point", Kind::I64).add("seed", Kind::U64).add("scheduler", Kind::Str, sched_w);
  sl.add("key", Kind::Str, kKeyWidth).add("point_key", Kind::Str, kKeyWidth);
  for (std::size_t k = 0; k < spec.columns.size(); ++k) {
    const auto& col = spec.columns[k];
    if (sl.find(col.param))
      throw std::invalid_argument("h5store: sweep column '" + col.param + "' clashes with a /scenarios column");
    if (col.numeric) sl.add(col.param, Kind::F64);
    else sl.add(col.param, Kind::Str, text_w[k]);
  }
  return sl;
}

/// Writes the /scenarios rows (layout `sl`) of every id of `plan` that is in its shard,
/// ascending, generated and written chunk by chunk: memory does not grow with the sweep.
void write_scenarios(Writer& nw, const Layout& sl, const config::SweepSpec& spec, const Plan& plan,
                     const std::string& path) {
  const Field& f_id = sl.at("id");
  const Field& f_point = sl.at("point");
  const Field& f_seed = sl.at("seed");
  const Field& f_sched = sl.at("scheduler");
  const Field& f_key = sl.at("key");
  const Field& f_point_key = sl.at("point_key");
  if (spec.point_digests.size() != spec.num_points())
    throw std::logic_error("h5store: the sweep has no content digest for every point");
  // A point that does not set a column's parameter has the resolved base's value there.
  std::vector<double> fill_num;
  std::vector<std::string> fill_text;
  for (const auto& col : spec.columns) {
    fill_num.push_back(number_of(col.fixed_text));
    fill_text.push_back(config::toml_unquote(col.fixed_text));
  }
  Rows rows(sl.size);
  std::optional<config::PointKeyPrefix> prefix;
  std::uint64_t prefix_point = 0;
  std::string point_hex;
  config::SweepPoint pt;
  for (std::uint64_t id = 0; id < plan.total(); ++id) {  // chunk by chunk: flat memory
    if (!plan.in_shard(id)) continue;
    const ScenarioKey k = plan.key(id);
    unsigned char* row = rows.add();
    if (!prefix || prefix_point != k.point) {  // the ids of one point are adjacent
      prefix.emplace(spec.point_digests[k.point], kModelVersion);
      prefix_point = k.point;
      point_hex = spec.point_digests[k.point].hex();
      pt = spec.point(static_cast<std::size_t>(k.point));
    }
    put_str(row, f_point_key, point_hex);
    put_str(row, f_key, prefix->key(spec.seeds[k.seed_index], spec.schedulers[k.scheduler_index]).hex());
    put_i64(row, f_id, static_cast<std::int64_t>(id));
    put_i64(row, f_point, static_cast<std::int64_t>(k.point));
    put_u64(row, f_seed, spec.seeds[k.seed_index]);
    put_str(row, f_sched, spec.schedulers[k.scheduler_index]);
    for (std::size_t j = 0; j < spec.columns.size(); ++j) {
      const Field& f = sl.fields[kScenarioLeadColumns + j];
      const bool set = (j < pt.text.size() && !pt.text[j].empty()) ||
                       (j < pt.numeric.size() && !std::isnan(pt.numeric[j]));  // else: the resolved base's value
      if (spec.columns[j].numeric)
        put_f64(row, f, set ? pt.numeric[j] : fill_num[j]);
      else
        put_str(row, f, set ? config::toml_unquote(pt.text[j]) : fill_text[j]);
    }
    if (rows.n >= kScenarioChunk) {
      write_rows(nw.scen.get(), nw.stype.get(), nw.s_rows, rows, 0, rows.n, path, "scenarios");
      rows.clear();
    }
  }
  write_rows(nw.scen.get(), nw.stype.get(), nw.s_rows, rows, 0, rows.n, path, "scenarios");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// ResultStore
// ---------------------------------------------------------------------------------------------

struct ResultStore::Impl {
  std::string path;
  Writer w;
  bool has_jobs = false;         ///< w.jlayout has fields
  bool open = false;
  bool finalized = false;
  Finalized finalized_as = Finalized::kRebuilt;  ///< how finalize() made the final file
  bool jobs_unflushed = false;  ///< /jobs rows written since the last H5Fflush
  bool dirty = false;           ///< rows written since the last H5Fflush
  bool durable = false;         ///< fsync after every H5Fflush
  Rows mbuf{metrics_layout().size}, ebuf{errors_layout().size}, jbuf;
  Layout jlayout;                ///< of /jobs (= w.jlayout once the file exists); no fields: none
  std::uint64_t written = 0;
  /// Does the file hold its rows in the rebuild's order, so that finalize() may keep it or copy
  /// it as stored instead of rebuilding it (docs/hdf5-format.md, "Finalize")? Only a file this
  /// store created; cleared by an append out of that order (ids ascending, each once; a
  /// scenario's jobs by job_id).
  bool as_rebuilt = false;
  /// Has every write of rows begun at a chunk boundary (no chunk written twice)? Cleared by a
  /// write that starts inside a chunk: in SWMR mode the chunk's first copy is never reused, so
  /// the file is then copied as stored, which leaves that space behind, instead of kept.
  bool chunks_once = true;
  std::int64_t last_id = -1;  ///< of the last append (while as_rebuilt)
  /// The file being written by another thread (create_in_background), until wait_created().
  std::future<Writer> creating;

  /// Waits for the file of create_in_background() (at once otherwise) and takes it; rethrows
  /// its failure, after which the store is closed. Never call it holding the Lock: the thread
  /// that writes the file holds it.
  void wait_created() {
    if (!creating.valid()) return;
    try {
      w = creating.get();
    } catch (...) {
      open = false;
      throw;
    }
  }

  /// A write of rows at row `at` of `name`: clears chunks_once unless `at` starts a chunk.
  void note_write(hid_t dset, hsize_t at, const char* name) {
    if (as_rebuilt && chunks_once && at % chunk_rows(dset, path, name) != 0) chunks_once = false;
  }

  void write_jobs() {
    if (jbuf.n == 0) return;
    note_write(w.jobs.get(), w.j_rows, "jobs");
    write_rows(w.jobs.get(), w.jtype.get(), w.j_rows, jbuf, 0, jbuf.n, path, "jobs");
    jbuf.clear();
    jobs_unflushed = true;
    dirty = true;
  }

  void gflush() {
    w_check(H5Fflush(w.file.get(), H5F_SCOPE_GLOBAL), path, "flushing the file");
    if (durable) sync();
    jobs_unflushed = false;
    dirty = false;
  }

  /// fsync of the sec2 driver's file descriptor: H5Fflush only writes to the page cache.
  void sync() {
    void* handle = nullptr;
    w_check(H5Fget_vfd_handle(w.file.get(), H5P_DEFAULT, &handle), path, "syncing the file");
    if (!handle || ::fsync(*static_cast<int*>(handle)) != 0)
      throw std::runtime_error(path + ": cannot sync the file to disk (--durable): " + std::strerror(errno));
  }

  /// Jobs rows first and flushed, then errors and metrics: a valid metrics row on disk implies
  /// that every jobs row of its scenario is on disk too. A write that fails (a full disk, a
  /// file-size limit) abandons the file (Writer::abandon): closing it would write metadata for
  /// rows that never reached the disk and leave a file cut short that nothing can read.
  void flush() {
    try {
      flush_rows();
    } catch (...) {
      abandon();
      throw;
    }
  }

  void abandon() {
    w.abandon();
    open = false;
  }

  void flush_rows() {
    write_jobs();
    if (jobs_unflushed && (mbuf.n > 0 || ebuf.n > 0)) gflush();
    if (ebuf.n > 0) {
      note_write(w.errors.get(), w.e_rows, "errors");
      write_rows(w.errors.get(), w.etype.get(), w.e_rows, ebuf, 0, ebuf.n, path, "errors");
      ebuf.clear();
      dirty = true;
    }
    if (mbuf.n > 0) {
      note_write(w.metrics.get(), w.m_rows, "metrics");
      write_rows(w.metrics.get(), w.mtype.get(), w.m_rows, mbuf, 0, mbuf.n, path, "metrics");
      mbuf.clear();
      dirty = true;
    }
    if (dirty) gflush();
  }

  void close() {
    open = false;
    w.close(path);
  }

  static std::unique_ptr<Impl> make(const std::string& path, Writer&& w, std::uint64_t written) {
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->w = std::move(w);
    impl->has_jobs = !impl->w.jlayout.fields.empty();
    impl->jlayout = impl->w.jlayout;
    impl->jbuf = Rows(impl->jlayout.size);
    impl->open = true;
    impl->written = written;
    return impl;
  }
};

ResultStore::ResultStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ResultStore::~ResultStore() {
  if (!impl_) return;
  try {
    impl_->wait_created();
  } catch (const std::exception& e) {
    std::cerr << "geopipe: " << e.what() << "\n";
  }
  Lock lock;
  if (!impl_->open) return;
  try {
    impl_->flush();
  } catch (const std::exception& e) {
    std::cerr << "geopipe: " << e.what() << "\n";
  }
  try {
    impl_->close();
  } catch (const std::exception& e) {
    std::cerr << "geopipe: " << e.what() << "\n";
  }
}

namespace {

/// What create() checks before it writes anything.
void check_create(const std::string& path, const config::SweepSpec& spec, const Plan& plan,
                  ResultStore::Existing existing) {
  if (existing == ResultStore::Existing::kRefuse && util::path_exists(path))
    throw InputError(path, 0, 0, "output file exists (use --resume to continue it, or remove it)");
  if (plan.total() != spec.num_scenarios())
    throw std::invalid_argument("h5store: the plan does not match the sweep (" + std::to_string(plan.total()) +
                                " vs " + std::to_string(spec.num_scenarios()) + " scenarios)");
}

/// Writes the new file of create() at its temporary path `tmp` (prepared) and renames it to
/// `path` (over an existing file only if `existing` is kReplace); returns it open, in SWMR mode.
/// `m`: new_file_meta(); `sl`: scenario_layout(spec).
Writer write_new_file(const std::string& tmp, const std::string& path, StoreMeta m, const Layout& sl,
                      const config::SweepSpec& spec, const Plan& plan, bool save_jobs,
                      ResultStore::Existing existing) {
  const bool must_not_exist = existing == ResultStore::Existing::kRefuse;
  return produce_prepared(tmp, path, must_not_exist, /*keep_open=*/true, [&](const std::string& t) {
    Writer nw = open_new(t, path, sl, plan.shard_total(),
                         save_jobs ? std::optional<JobTextBytes>(spec.job_text) : std::nullopt);
    write_scenarios(nw, sl, spec, plan, path);
    write_parameters(nw, parameter_rows(spec), path);
    write_design(nw, spec.points.sample.factor_names(), spec.points.sample.unit, path);
    m.num_scenarios = nw.s_rows;
    finish_new(nw, m, /*swmr=*/true, path);
    return nw;
  });
}

}  // namespace

std::unique_ptr<ResultStore> ResultStore::create(const std::string& path, const StoreMeta& meta,
                                                 const config::SweepSpec& spec, const Plan& plan, bool save_jobs,
                                                 Existing existing) {
  Lock lock;
  check_create(path, spec, plan, existing);
  const std::string tmp = path + ".create-tmp";
  prepare_tmp(tmp, path);
  Writer w = write_new_file(tmp, path, new_file_meta(meta, spec, plan), scenario_layout(spec), spec, plan, save_jobs,
                            existing);
  auto impl = Impl::make(path, std::move(w), 0);
  impl->as_rebuilt = true;
  return std::unique_ptr<ResultStore>(new ResultStore(std::move(impl)));
}

std::unique_ptr<ResultStore> ResultStore::create_in_background(const std::string& path, const StoreMeta& meta,
                                                               const config::SweepSpec& spec, const Plan& plan,
                                                               bool save_jobs, Existing existing) {
  Lock lock;
  check_create(path, spec, plan, existing);
  const std::string tmp = path + ".create-tmp";
  prepare_tmp(tmp, path);  // a directory that cannot take the file is refused now
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->open = true;
  impl->as_rebuilt = true;
  impl->has_jobs = save_jobs;
  if (save_jobs) impl->jlayout = jobs_layout(spec.job_text);  // what open_new gives /jobs
  impl->jbuf = Rows(impl->jlayout.size);
  try {
    impl->creating = std::async(std::launch::async, [tmp, path, m = new_file_meta(meta, spec, plan),
                                                     sl = scenario_layout(spec), &spec, plan, save_jobs, existing] {
      Lock in_thread;  // HDF5 is not thread-safe: every use of it holds the Lock
      return write_new_file(tmp, path, m, sl, spec, plan, save_jobs, existing);
    });
  } catch (...) {  // no thread: nothing was written but the placeholder
    ::unlink(tmp.c_str());
    throw;
  }
  return std::unique_ptr<ResultStore>(new ResultStore(std::move(impl)));
}

void ResultStore::check_fits(const StoreMeta& meta, const config::SweepSpec& spec, const Plan& plan, bool save_jobs) {
  Lock lock;
  const std::string shown = "the sweep '" + spec.name + "'";
  try {
    StoreMeta m = new_file_meta(meta, spec, plan);
    const Layout sl = scenario_layout(spec);
    Writer nw = open_new("geopipe-check-fits.h5", shown, sl, plan.shard_total(),
                         save_jobs ? std::optional<JobTextBytes>(spec.job_text) : std::nullopt, /*in_memory=*/true);
    write_parameters(nw, parameter_rows(spec), shown);
    const config::SweepSample& sample = spec.points.sample;
    const std::size_t d = sample.factors.size();  // one design row is enough: the structure is what may not fit
    if (d > 0) write_design(nw, sample.factor_names(), std::vector<double>(sample.unit.begin(), sample.unit.begin() + static_cast<std::ptrdiff_t>(std::min(d, sample.unit.size()))), shown);
    finish_new(nw, m, /*swmr=*/false, shown);
    nw.close(shown);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    std::size_t name_bytes = 0;
    for (const auto& c : spec.columns) name_bytes += c.param.size();
    throw InputError(spec.path, 0, 0,
                     "one HDF5 result file cannot hold this sweep (" + std::to_string(spec.columns.size()) +
                         " parameter columns whose names take " + std::to_string(name_bytes) + " bytes; HDF5: " + e.what() +
                         "): fewer factors, axes or points-file columns (docs/limits.md, \"Documented maxima\")");
  }
}

StoreContents ResultStore::read(const std::string& path) {
  Lock lock;
  Input in = open_input(path);
  StoreContents out;
  out.meta = std::move(in.meta);
  out.done_ids = std::move(in.done_ids);
  return out;
}

std::unique_ptr<ResultStore> ResultStore::resume(const std::string& path, const StoreContents& contents,
                                                 const std::string& layout, const JobTextBytes& job_text) {
  Lock lock;
  {
    Input in = open_input(path);
    require_current_version(in);
    if (!contents.meta.sweep_hash.empty() && contents.meta.sweep_hash != in.meta.sweep_hash)
      throw InputError(path, 0, 0, "the file changed since it was read (sweep_hash " + in.meta.sweep_hash +
                                       ", expected " + contents.meta.sweep_hash + ")");
  }
  std::uint64_t rows = 0;
  Writer w = produce(path + ".resume-tmp", path, /*must_not_exist=*/false, /*keep_open=*/true,
                     [&](const std::string& tmp) {
                       return rebuild({path}, tmp, path, Rebuild::Resume, layout, &rows, job_text);
                     });
  return std::unique_ptr<ResultStore>(new ResultStore(Impl::make(path, std::move(w), rows)));
}

std::unique_ptr<ResultStore> ResultStore::extend(const std::string& path, const StoreMeta& meta,
                                                 const config::SweepSpec& spec, const Plan& plan, Extension& out) {
  Lock lock;
  if (plan.total() != spec.num_scenarios())
    throw std::invalid_argument("h5store: the plan does not match the sweep");
  std::optional<Input> in(open_input(path));
  require_extendable(*in);  // a format-3 file is upgraded: the new /scenarios is written below

  // Which results the new sweep contains, by content key.
  // A sweep may hold one scenario at several ids (a sampling design that draws a point twice):
  // the file then has a row per id, all with one key. The first is the one copied; the others
  // count as used too, not as results the sweep no longer has.
  std::vector<std::pair<std::int64_t, std::int64_t>> duplicates;  // (id, first id of its key)
  const auto keys = result_keys(*in, &duplicates);
  IdPairs pairs;
  out = Extension{};
  std::vector<std::int64_t> used;
  std::optional<config::PointKeyPrefix> prefix;
  std::uint64_t prefix_point = 0;
  for (std::uint64_t id = 0; id < plan.total(); ++id) {
    if (!plan.in_shard(id)) continue;
    const ScenarioKey k = plan.key(id);
    if (!prefix || prefix_point != k.point) {
      prefix.emplace(spec.point_digests[k.point], kModelVersion);
      prefix_point = k.point;
    }
    const config::ContentKey ck = prefix->key(spec.seeds[k.seed_index], spec.schedulers[k.scheduler_index]);
    const auto it = keys.find(ck);
    if (it == keys.end()) continue;
    pairs.emplace_back(it->second, static_cast<std::int64_t>(id));
    used.push_back(it->second);
    out.reused.push_back(static_cast<std::int64_t>(id));
  }
  std::sort(pairs.begin(), pairs.end());
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  const std::size_t firsts = used.size();
  for (const auto& [dup, first] : duplicates)
    if (std::binary_search(used.begin(), used.begin() + static_cast<std::ptrdiff_t>(firsts), first)) used.push_back(dup);
  std::sort(used.begin(), used.end());
  std::vector<std::int64_t> retired;
  std::set_difference(in->done_ids.begin(), in->done_ids.end(), used.begin(), used.end(), std::back_inserter(retired));
  out.retired = retired.size();

  // 1. The results no longer in the sweep, to a file of their own (never silently dropped).
  if (!retired.empty()) {
    for (int n = 1;; ++n) {
      out.retired_path = path + ".retired-" + std::to_string(n) + ".h5";
      if (!util::path_exists(out.retired_path) && !util::path_exists(out.retired_path + ".retire-tmp")) break;
    }
    produce(out.retired_path + ".retire-tmp", out.retired_path, /*must_not_exist=*/true, /*keep_open=*/false,
            [&](const std::string& tmp) {
              return rebuild({path}, tmp, out.retired_path, Rebuild::Retire, in->meta.layout, nullptr, {},
                             [&](std::int64_t id) { return std::binary_search(retired.begin(), retired.end(), id); });
            });
  }

  // 2. The new file: the new sweep's scenarios, the kept results under their new ids.
  const Layout sl = scenario_layout(spec);
  std::optional<JobTextBytes> jobs;
  if (in->jobs.valid()) jobs = spec.job_text.max_with(job_text_of(in->jobs_layout));
  StoreMeta m = new_file_meta(meta, spec, plan);
  m.created_utc = in->meta.created_utc;
  std::uint64_t rows = 0;
  Writer w = produce(path + ".extend-tmp", path, /*must_not_exist=*/false, /*keep_open=*/true,
                     [&](const std::string& tmp) {
    Writer nw = open_new(tmp, path, sl, plan.shard_total(), jobs);
    write_scenarios(nw, sl, spec, plan, path);
    write_parameters(nw, parameter_rows(spec), path);
    write_design(nw, spec.points.sample.factor_names(), spec.points.sample.unit, path);
    rows = copy_remapped(*in, nw, pairs, path);
    in.reset();  // closed before the new file replaces it
    m.num_scenarios = nw.s_rows;
    finish_new(nw, m, /*swmr=*/true, path);
    return nw;
  });
  return std::unique_ptr<ResultStore>(new ResultStore(Impl::make(path, std::move(w), rows)));
}

void ResultStore::append(const ScenarioResult& r) {
  Impl& s = *impl_;  // rows are packed without the Lock (no HDF5), which a write then takes
  if (!s.open) throw std::logic_error("ResultStore::append: the store is closed (" + s.path + ")");
  if (r.id < 0) throw std::invalid_argument("ResultStore::append: negative scenario id");
  if (s.as_rebuilt) {  // the rebuild's order: ids ascending, each once; a scenario's jobs by job_id
    bool in_order = r.id > s.last_id;
    if (r.ok && s.has_jobs)
      for (std::size_t j = 1; in_order && j < r.jobs.size(); ++j) in_order = r.jobs[j - 1].job_id < r.jobs[j].job_id;
    s.as_rebuilt = in_order;
    s.last_id = r.id;
  }
  if (r.ok) {
    if (s.has_jobs) {  // all of the scenario's job rows, or none (put_job_row may throw)
      const std::size_t before = s.jbuf.n;
      try {
        for (const JobRow& j : r.jobs) put_job_row(s.jbuf.add(), s.jlayout, r.id, j);
      } catch (...) {
        s.jbuf.n = before;
        s.jbuf.data.resize(before * s.jbuf.row_size);
        throw;
      }
    }
    const Layout& ml = metrics_layout();
    unsigned char* row = s.mbuf.add();
    put_i64(row, ml.fields[0], r.id);
    put_i64(row, ml.fields[1], 1);
    const auto fields = metric_fields(r.metrics);
    for (std::size_t i = 0; i < fields.size() && i + 2 < ml.fields.size(); ++i)
      put_f64(row, ml.fields[i + 2], fields[i].value);
  } else {
    const Layout& el = errors_layout();
    unsigned char* row = s.ebuf.add();
    put_i64(row, el.fields[0], r.id);
    put_str(row, el.fields[1], r.error.empty() ? std::string("unknown error") : r.error);
  }
  ++s.written;
  if (s.mbuf.n >= kMetricsBatch || s.ebuf.n >= kErrorsBatch) {
    s.wait_created();
    Lock lock;
    s.flush();
  } else if (s.jbuf.n >= kJobsBatch) {
    s.wait_created();
    Lock lock;
    try {
      s.write_jobs();
    } catch (...) {
      s.abandon();
      throw;
    }
  }
}

void ResultStore::flush() {
  impl_->wait_created();
  Lock lock;
  if (impl_->open) impl_->flush();
}

void ResultStore::finalize() {
  impl_->wait_created();
  Lock lock;
  Impl& s = *impl_;
  if (s.finalized) return;
  if (!s.open) throw std::logic_error("ResultStore::finalize: the store is closed (" + s.path + ")");
  s.flush();
  s.close();
  // Every scenario of the file has its one row, written in the rebuild's order: the file holds
  // what a rebuild would write (docs/hdf5-format.md, "Finalize"). With no chunk written twice it
  // is kept (copied, marked complete, renamed over itself); else its tables are copied as
  // stored, without the space of the rewritten chunks. Neither reads back and compresses again.
  const bool as_written = s.as_rebuilt && s.written == s.w.s_rows;
  s.finalized_as = !as_written ? Finalized::kRebuilt : s.chunks_once ? Finalized::kKept : Finalized::kCompacted;
  produce(s.path + ".final-tmp", s.path, /*must_not_exist=*/false, /*keep_open=*/false, [&](const std::string& tmp) {
    switch (s.finalized_as) {
      case Finalized::kKept: return copy_marked_complete(s.path, tmp, s.path);
      case Finalized::kCompacted: return compact_marked_complete(s.path, tmp, s.path);
      case Finalized::kRebuilt: break;
    }
    return rebuild({s.path}, tmp, s.path, Rebuild::Finalize, "", nullptr);
  });
  s.finalized = true;
}

std::uint64_t ResultStore::rows_written() const { return impl_->written; }

ResultStore::Finalized ResultStore::finalized_as() const { return impl_->finalized_as; }

void ResultStore::set_durable(bool on) { impl_->durable = on; }  // no HDF5: no Lock (see append)

// ---------------------------------------------------------------------------------------------
// OutputLock
// ---------------------------------------------------------------------------------------------

OutputLock::OutputLock(const std::string& path) : lock_path_(path + ".lock") {
  for (int attempt = 0; attempt < 100; ++attempt) {
    fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      const int e = errno;
      throw InputError(path, 0, 0, "cannot create the lock file '" + lock_path_ + "': " + std::strerror(e));
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      char buf[256] = {0};
      const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
      std::string holder = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("unknown");
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
      ::close(fd_);
      fd_ = -1;
      if (e == EWOULDBLOCK)
        throw InputError(path, 0, 0,
                         "another geopipe process is writing this file (" + holder +
                             ") (expected one writer per output: wait for it to end or stop it; its lock is '" +
                             lock_path_ + "')");
      throw InputError(path, 0, 0, "cannot lock '" + lock_path_ + "': " + std::strerror(e));
    }
    // The holder before us may have removed the file between our open and our flock: then the
    // lock is on a deleted file and does not count. Retry with the file at the path.
    struct stat at_path {}, locked {};
    if (::stat(lock_path_.c_str(), &at_path) == 0 && ::fstat(fd_, &locked) == 0 && at_path.st_ino == locked.st_ino &&
        at_path.st_dev == locked.st_dev) {
      char host[256] = {0};
      ::gethostname(host, sizeof host - 1);
      const std::string who = "pid " + std::to_string(::getpid()) + " on " + host + " since " + util::utc_now_iso8601() + "\n";
      if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, who.data(), who.size(), 0);
      CrashGuard::remove_on_crash(lock_path_);
      return;
    }
    ::close(fd_);
    fd_ = -1;
  }
  throw InputError(path, 0, 0, "cannot lock '" + lock_path_ + "': it keeps being replaced");
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  CrashGuard::forget_on_crash(lock_path_);
  ::unlink(lock_path_.c_str());  // while still holding the lock: see the constructor
  ::close(fd_);
}


}  // namespace geopipe::sweep
