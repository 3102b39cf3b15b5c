// Opening and checking an existing result file: open_input() (see results/hdf5/file.h), the one check
// every reader of an existing file goes through, so that they accept and refuse the same files
// with the same message. The rules are listed in docs/hdf5-format.md, "Validation".
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include "results/hdf5/file.h"
#include "sim/model_version.h"
#include "util/input_error.h"

namespace geopipe::sweep::h5 {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void damaged(const std::string& path, const std::string& what) {
  throw InputError(path, 0, 0, "damaged result file: " + what + kDamagedAdvice);
}

bool valid_utf8(const char* s, std::size_t n) { return util::valid_utf8(std::string_view(s, n)); }

/// A fixed-length text field is sane: UTF-8, and only NUL bytes after its first NUL.
bool sane_text(const unsigned char* row, const Field& f) {
  const char* p = reinterpret_cast<const char*>(row + f.off);
  std::size_t n = 0;
  while (n < f.size && p[n] != '\0') ++n;
  for (std::size_t k = n; k < f.size; ++k)
    if (p[k] != '\0') return false;
  return valid_utf8(p, n);
}

/// One bit per position.
class PosBits {
 public:
  explicit PosBits(std::size_t n) : w_((n + 63) / 64, 0) {}
  bool test(std::size_t i) const { return (w_[i / 64] >> (i % 64)) & 1u; }
  void set(std::size_t i) { w_[i / 64] |= std::uint64_t{1} << (i % 64); }

 private:
  std::vector<std::uint64_t> w_;
};

bool is_hex16(const std::string& s) {
  return s.size() == 16 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

/// "K/N" -> (K, N) with 0 <= K < N, N >= 2; false otherwise.
bool parse_shard(const std::string& s, std::uint64_t& k, std::uint64_t& n) {
  const auto slash = s.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 >= s.size() || s.size() > 41) return false;
  k = n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i == slash) continue;
    if (s[i] < '0' || s[i] > '9') return false;
    std::uint64_t& v = i < slash ? k : n;
    if (v > (~std::uint64_t{0} - 9) / 10) return false;
    v = v * 10 + static_cast<std::uint64_t>(s[i] - '0');
  }
  return n >= 2 && k < n;
}

/// The attributes on their own.
void check_meta(const StoreMeta& m, const std::string& path) {
  if (!is_hex16(m.sweep_hash)) damaged(path, "attribute sweep_hash '" + m.sweep_hash + "' is not 16 hex digits");
  if (m.total_scenarios < 1 || m.total_scenarios > kMaxTotalScenarios)
    damaged(path, "attribute total_scenarios = " + std::to_string(m.total_scenarios) + " is out of range (expected 1 to " +
                      std::to_string(kMaxTotalScenarios) + ")");
  if (m.num_scenarios > m.total_scenarios)
    damaged(path, "attribute num_scenarios = " + std::to_string(m.num_scenarios) + " exceeds total_scenarios = " +
                      std::to_string(m.total_scenarios));
  if (m.schedulers.empty()) damaged(path, "attribute schedulers is empty");
  std::set<std::string> names;
  for (const auto& s : m.schedulers)
    if (s.empty() || !valid_utf8(s.data(), s.size()) || !names.insert(s).second)
      damaged(path, "attribute schedulers has an empty, repeated or non-UTF-8 name");
  if (m.collection && !m.shard.empty()) damaged(path, "a collection (attribute collection = 1) has a shard attribute");
  if (!m.collection && m.total_scenarios % m.schedulers.size() != 0)
    damaged(path, "attribute total_scenarios = " + std::to_string(m.total_scenarios) + " is not a multiple of the " +
                      std::to_string(m.schedulers.size()) + " schedulers");
  std::uint64_t k = 0, n = 0;
  if (!m.shard.empty() && !parse_shard(m.shard, k, n))
    damaged(path, "attribute shard '" + m.shard + "' is not K/N with 0 <= K < N");
  for (const std::string* t : {&m.sweep_name, &m.sweep_toml, &m.base_toml, &m.layout, &m.created_utc,
                               &m.geopipe_version, &m.design})
    if (!valid_utf8(t->data(), t->size())) damaged(path, "a text attribute is not UTF-8");
  names.clear();
  for (const auto& a : m.axes)
    if (a.empty() || !valid_utf8(a.data(), a.size()) || !names.insert(a).second)
      damaged(path, "attribute axes has an empty, repeated or non-UTF-8 name");
}

/// InputError unless `have` is the layout this build writes (`want`).
void require_layout(const Layout& have, const Layout& want, const std::string& path, const char* name) {
  if (!have.same_as(want))
    throw InputError(path, 0, 0,
                     std::string("/") + name +
                         " has different columns than this geopipe build writes (written by another "
                         "version?): file has [" + have.describe() + "], expected [" + want.describe() + "]");
}

/// `l` has column `name` of an integer kind; returns it.
const Field& int_column(const Layout& l, const char* name, const std::string& path, const char* table) {
  const Field* f = l.find(name);
  if (!f || f->kind == Kind::Str || f->kind == Kind::F64)
    not_geopipe(path, std::string("/") + table + " has no integer '" + name + "' column");
  return *f;
}

/// Column count and string widths are bounded; rows x row size is bounded by the file size.
void check_size(const Layout& l, hsize_t rows, std::uint64_t file_size, const std::string& path, const char* table) {
  if (l.fields.size() > kMaxColumns)
    damaged(path, "/" + std::string(table) + " has " + std::to_string(l.fields.size()) + " columns");
  for (const auto& f : l.fields)
    if (f.kind == Kind::Str && (f.size == 0 || f.size > kMaxStringBytes))
      damaged(path, "/" + std::string(table) + " column '" + f.name + "' is text of " + std::to_string(f.size) +
                        " bytes (expected 1 to " + std::to_string(kMaxStringBytes) + ")");
  const std::uint64_t cap = kMaxInflation * file_size + kTableSlackBytes;
  if (rows > cap / std::max<std::size_t>(l.size, 1))
    damaged(path, "/" + std::string(table) + " claims " + std::to_string(rows) + " rows of " + std::to_string(l.size) +
                      " bytes, more than a file of " + std::to_string(file_size) + " bytes can hold");
}

/// Calls each(row index, row) for every row of `dset`, read block by block with layout `l`.
template <class Fn>
void scan(hid_t dset, const Layout& l, hsize_t rows, const std::string& path, const char* name, Fn each) {
  Hid mt = make_type(l, path);
  Rows buf(l.size);
  for (hsize_t start = 0; start < rows; start += kBlockRows) {
    read_block(dset, mt.get(), l.size, start, std::min<hsize_t>(kBlockRows, rows - start), buf, path, name);
    for (std::size_t i = 0; i < buf.n; ++i) each(start + i, buf.row(i));
  }
}

std::string row_at(const char* table, hsize_t row) {
  return "/" + std::string(table) + " row " + std::to_string(row);
}

/// /parameters (format 4): three text columns; paths ascending and distinct, UTF-8, each
/// `column` "" or an axis of the file. Read whole into in.parameters (its size is checked first).
void read_parameters(Input& in, std::uint64_t file_size) {
  const std::string& path = in.path;
  Hid dset = open_table(in.file.get(), "parameters", path);
  const Layout l = layout_of(dset.get(), path, "parameters");
  if (l.fields.size() != 3 || l.fields[0].name != "path" || l.fields[1].name != "value" ||
      l.fields[2].name != "column" || l.fields[0].kind != Kind::Str || l.fields[1].kind != Kind::Str ||
      l.fields[2].kind != Kind::Str)
    not_geopipe(path, "/parameters is not (path, value, column) text columns: [" + l.describe() + "]");
  const hsize_t n = table_rows(dset.get(), path, "parameters");
  check_size(l, n, file_size, path, "parameters");
  const std::set<std::string> axes(in.meta.axes.begin(), in.meta.axes.end());
  scan(dset.get(), l, n, path, "parameters", [&](hsize_t r, const unsigned char* row) {
    for (const Field& f : l.fields)
      if (!sane_text(row, f)) damaged(path, row_at("parameters", r) + ": column '" + f.name + "' is not UTF-8 text");
    ParamRow p{get_str(row, l.fields[0]), get_str(row, l.fields[1]), get_str(row, l.fields[2])};
    if (p.path.empty() || (!in.parameters.empty() && p.path <= in.parameters.back().path))
      damaged(path, row_at("parameters", r) + ": path '" + p.path + "' is empty or not in ascending order");
    if (!p.column.empty() && !axes.count(p.column))
      damaged(path, row_at("parameters", r) + ": column '" + p.column + "' is not an axis of the file");
    in.parameters.push_back(std::move(p));
  });
}

}  // namespace

void IdIndex::push(std::int64_t id) {
  if (dense_ && id == static_cast<std::int64_t>(n_)) {
    ++n_;
    return;
  }
  if (dense_) {
    ids_.reserve(n_ + 1);
    for (std::size_t i = 0; i < n_; ++i) ids_.push_back(static_cast<std::int64_t>(i));
    dense_ = false;
  }
  ids_.push_back(id);
  ++n_;
}

std::size_t IdIndex::pos(std::int64_t id) const {
  if (id < 0) return npos;
  if (dense_) return static_cast<std::uint64_t>(id) < n_ ? static_cast<std::size_t>(id) : npos;
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  return it != ids_.end() && *it == id ? static_cast<std::size_t>(it - ids_.begin()) : npos;
}

Input open_input(const std::string& path) {
  const CrashGuard guard(path);  // HDF5 may crash on a damaged file: exit 2, not a signal
  Input in;
  in.path = path;
  in.file = open_for_read(path);
  std::error_code ec;
  const std::uint64_t file_size = fs::file_size(path, ec);
  if (ec) throw InputError(path, 0, 0, "cannot open: " + ec.message());
  {
    // Milliseconds on any valid file; HDF5 can loop forever on a damaged global heap.
    const Deadline deadline(kAttributeReadSeconds);
    in.meta = read_meta(in.file.get(), path);
  }
  const StoreMeta& m = in.meta;
  check_meta(m, path);
  const bool current = m.format_version >= 3;  // /metrics, /errors, /jobs as this build writes them

  // The tables and their columns.
  in.scen = open_table(in.file.get(), "scenarios", path);
  in.metrics = open_table(in.file.get(), "metrics", path);
  in.errors = open_table(in.file.get(), "errors", path);
  in.jobs = open_table(in.file.get(), "jobs", path, false);
  in.scen_layout = layout_of(in.scen.get(), path, "scenarios");
  const Layout& sl = in.scen_layout;
  const Layout ml = layout_of(in.metrics.get(), path, "metrics");
  const Layout el = layout_of(in.errors.get(), path, "errors");
  if (in.jobs.valid()) in.jobs_layout = layout_of(in.jobs.get(), path, "jobs");
  const Layout& jl = in.jobs_layout;
  if (current) {
    // Files of formats 3 to 5 have /metrics and /jobs without the columns added since (a file
    // retired from one by an extension may already have some of them): the oldest format from
    // the file's own whose columns the table has; readers fill the rest (fill_columns_since).
    const auto format_of = [&](const Layout& want, auto same) {
      for (int f = m.format_version; f < kFormatVersion; ++f)
        if (same(columns_of_format(want, f))) return f;
      return static_cast<int>(kFormatVersion);
    };
    in.metrics_format = format_of(metrics_layout(), [&](const Layout& l) { return ml.same_as(l); });
    if (in.metrics_format == kFormatVersion) require_layout(ml, metrics_layout(), path, "metrics");
    require_layout(el, errors_layout(), path, "errors");
    if (in.jobs.valid()) {
      const Layout want = jobs_layout(job_text_of(jl));
      in.jobs_format = format_of(want, [&](const Layout& l) { return jl.same_columns_as(l); });
      if (in.jobs_format == kFormatVersion && !jl.same_columns_as(want))
        throw InputError(path, 0, 0,
                         "/jobs has different columns than this geopipe build writes (written by another version?): "
                         "file has [" + jl.describe() + "], expected [" + jobs_layout({}).describe() + "]");
    }
  }
  const Field& s_id = int_column(sl, "id", path, "scenarios");
  const Field& s_point = int_column(sl, "point", path, "scenarios");
  const Field* s_sched = sl.find("scheduler");
  if (!s_sched || s_sched->kind != Kind::Str) not_geopipe(path, "/scenarios has no text 'scheduler' column");
  // Format 3 adds the content key after the scheduler, format 4 the point's after it.
  const std::size_t lead = scenario_lead_columns(m.format_version);
  for (std::size_t k = 4; k < lead; ++k) {
    const char* name = k == 4 ? "key" : "point_key";
    const Field* f = sl.fields.size() > k ? &sl.fields[k] : nullptr;
    if (!f || f->name != name || f->kind != Kind::Str || f->size != kKeyWidth)
      not_geopipe(path, std::string("/scenarios has no 32-byte text '") + name + "' column after '" +
                            sl.fields[k - 1].name + "'");
  }
  if (sl.fields.size() < lead || sl.fields.size() - lead != m.axes.size())
    damaged(path, "/scenarios has " + std::to_string(sl.fields.size()) + " columns for " +
                      std::to_string(m.axes.size()) + " axes (expected id, point, seed, scheduler" +
                      (lead >= 5 ? ", key" : "") + (lead >= 6 ? ", point_key" : "") + ", then the axes)");
  for (std::size_t k = 0; k < m.axes.size(); ++k)
    if (sl.fields[lead + k].name != m.axes[k])
      damaged(path, "/scenarios column '" + sl.fields[lead + k].name + "' is not the axis '" + m.axes[k] + "'");
  const Field& m_id = int_column(ml, "id", path, "metrics");
  const Field& m_status = int_column(ml, "status", path, "metrics");
  const Field& e_id = int_column(el, "id", path, "errors");
  const Field* e_msg = el.find("message");
  if (!e_msg || e_msg->kind != Kind::Str) not_geopipe(path, "/errors has no text 'message' column");

  // Sizes, before anything is allocated for the rows.
  in.n_scen = table_rows(in.scen.get(), path, "scenarios");
  in.n_metrics = table_rows(in.metrics.get(), path, "metrics");
  in.n_errors = table_rows(in.errors.get(), path, "errors");
  if (in.jobs.valid()) in.n_jobs = table_rows(in.jobs.get(), path, "jobs");
  check_size(sl, in.n_scen, file_size, path, "scenarios");
  check_size(ml, in.n_metrics, file_size, path, "metrics");
  check_size(el, in.n_errors, file_size, path, "errors");
  if (in.jobs.valid()) check_size(jl, in.n_jobs, file_size, path, "jobs");
  if (in.n_scen != m.num_scenarios)
    damaged(path, "/scenarios has " + std::to_string(in.n_scen) + " rows but attribute num_scenarios = " +
                      std::to_string(m.num_scenarios));
  if (m.format_version >= 4) read_parameters(in, file_size);
  in.design = open_table(in.file.get(), "design", path, false);
  if (in.design.valid()) {
    in.design_layout = layout_of(in.design.get(), path, "design");
    const Layout& dl = in.design_layout;
    bool ok = !dl.fields.empty() && dl.fields[0].name == "point" && dl.fields[0].kind == Kind::I64;
    for (std::size_t k = 1; k < dl.fields.size(); ++k) ok = ok && dl.fields[k].kind == Kind::F64;
    if (!ok) not_geopipe(path, "/design is not (point, then float64 factor columns): [" + dl.describe() + "]");
    in.n_design = table_rows(in.design.get(), path, "design");
    check_size(dl, in.n_design, file_size, path, "design");
  }
  const std::uint64_t n_sched = m.schedulers.size();
  std::uint64_t shard_k = 0, shard_n = 1;
  if (!m.shard.empty()) {
    parse_shard(m.shard, shard_k, shard_n);
    const std::uint64_t pairs = m.total_scenarios / n_sched;
    const std::uint64_t mine = (pairs / shard_n + (shard_k < pairs % shard_n ? 1 : 0)) * n_sched;
    if (in.n_scen != mine)
      damaged(path, "shard " + m.shard + " of " + std::to_string(m.total_scenarios) + " scenarios has " +
                        std::to_string(mine) + " scenarios, but /scenarios has " + std::to_string(in.n_scen) + " rows");
  }

  // /scenarios: ascending ids of this shard, consistent with their scheduler and point.
  std::vector<std::string> sorted_schedulers = m.schedulers;
  std::sort(sorted_schedulers.begin(), sorted_schedulers.end());
  std::vector<const Field*> s_keys;  // key, point_key
  for (std::size_t k = 4; k < lead; ++k) s_keys.push_back(&sl.fields[k]);
  std::int64_t last = -1;
  std::vector<const Field*> texts;
  for (const auto& f : sl.fields)
    if (f.kind == Kind::Str) texts.push_back(&f);
  scan(in.scen.get(), sl, in.n_scen, path, "scenarios", [&](hsize_t r, const unsigned char* row) {
    const std::int64_t id = get_i64(row, s_id);
    if (id <= last || static_cast<std::uint64_t>(id) >= m.total_scenarios)
      damaged(path, row_at("scenarios", r) + " has id " + std::to_string(id) + " (expected ids ascending in [0, " +
                        std::to_string(m.total_scenarios) + "))");
    last = id;
    const std::uint64_t pair = static_cast<std::uint64_t>(id) / n_sched;
    if (shard_n > 1 && pair % shard_n != shard_k)
      damaged(path, row_at("scenarios", r) + ": scenario " + std::to_string(id) + " is not in shard " + m.shard);
    for (const Field* f : texts)
      if (!sane_text(row, *f)) damaged(path, row_at("scenarios", r) + ": column '" + f->name + "' is not UTF-8 text");
    // A sweep's ids encode (point, seed, scheduler); a collection's are numbered in merge order.
    if (m.collection) {
      if (!std::binary_search(sorted_schedulers.begin(), sorted_schedulers.end(), get_str(row, *s_sched)))
        damaged(path, row_at("scenarios", r) + ": scheduler '" + get_str(row, *s_sched) +
                          "' is not in attribute schedulers");
    } else if (get_str(row, *s_sched) != m.schedulers[static_cast<std::uint64_t>(id) % n_sched]) {
      damaged(path, row_at("scenarios", r) + ": scheduler '" + get_str(row, *s_sched) + "' does not match id " +
                        std::to_string(id));
    }
    for (const Field* f : s_keys) {
      const std::string k = get_str(row, *f);
      if (k.size() != kKeyWidth || k.find_first_not_of("0123456789abcdef") != std::string::npos)
        damaged(path, row_at("scenarios", r) + ": " + f->name + " '" + k + "' is not 32 lower-case hex digits");
    }
    const std::int64_t point = get_i64(row, s_point);
    if (point < 0 || static_cast<std::uint64_t>(point) > (m.collection ? static_cast<std::uint64_t>(id) : pair))
      damaged(path, row_at("scenarios", r) + ": point " + std::to_string(point) + " does not match id " +
                        std::to_string(id));
    in.ids.push(id);
  });

  // /metrics and /errors: fill rows (id -1) or one row per scenario of the file.
  PosBits ok(in.ids.size()), failed(in.ids.size());
  auto position = [&](const char* table, hsize_t r, std::int64_t id) {
    const std::size_t p = in.ids.pos(id);
    if (p == IdIndex::npos)
      damaged(path, row_at(table, r) + " has id " + std::to_string(id) + ", which is not a scenario of this file");
    return p;
  };
  scan(in.metrics.get(), ml, in.n_metrics, path, "metrics", [&](hsize_t r, const unsigned char* row) {
    const std::int64_t id = get_i64(row, m_id), status = get_i64(row, m_status);
    if (id == -1 && status == 0) return;  // fill row
    const std::size_t p = position("metrics", r, id);
    if (status != 1) damaged(path, row_at("metrics", r) + " (id " + std::to_string(id) + ") has status " + std::to_string(status) + " (expected 1)");
    if (ok.test(p)) damaged(path, row_at("metrics", r) + " repeats id " + std::to_string(id));
    ok.set(p);
  });
  scan(in.errors.get(), el, in.n_errors, path, "errors", [&](hsize_t r, const unsigned char* row) {
    const std::int64_t id = get_i64(row, e_id);
    if (id == -1) return;  // fill row
    const std::size_t p = position("errors", r, id);
    if (ok.test(p) || failed.test(p))
      damaged(path, row_at("errors", r) + " repeats id " + std::to_string(id) + " (already in /metrics or /errors)");
    failed.set(p);
    if (!sane_text(row, *e_msg)) damaged(path, row_at("errors", r) + ": the message is not UTF-8 text");
  });

  // /jobs: fill rows or rows of a scenario of the file, each scenario's rows together (every
  // writer appends them so) and without a repeated job id.
  if (in.jobs.valid()) {
    const Field& j_sid = int_column(jl, "scenario_id", path, "jobs");
    const Field& j_job = int_column(jl, "job_id", path, "jobs");
    std::vector<const Field*> jtexts;
    for (const auto& f : jl.fields)
      if (f.kind == Kind::Str) jtexts.push_back(&f);
    PosBits seen(in.ids.size());
    std::size_t run_pos = IdIndex::npos;
    hsize_t run_row = 0;
    std::vector<std::int64_t> run_jobs;  // job ids of the current scenario's rows
    auto end_run = [&] {
      std::sort(run_jobs.begin(), run_jobs.end());
      const auto dup = std::adjacent_find(run_jobs.begin(), run_jobs.end());
      if (dup != run_jobs.end())
        damaged(path, "/jobs rows from " + std::to_string(run_row) + " repeat job " + std::to_string(*dup) +
                          " of scenario " + std::to_string(in.ids.id_at(run_pos)));
      run_jobs.clear();
    };
    scan(in.jobs.get(), jl, in.n_jobs, path, "jobs", [&](hsize_t r, const unsigned char* row) {
      const std::int64_t sid = get_i64(row, j_sid), job = get_i64(row, j_job);
      if (sid == -1) return;  // fill row
      const std::size_t p = position("jobs", r, sid);
      if (job < 0) damaged(path, row_at("jobs", r) + " has job_id " + std::to_string(job));
      if (p != run_pos) {
        if (run_pos != IdIndex::npos) end_run();
        if (seen.test(p))
          damaged(path, row_at("jobs", r) + ": the rows of scenario " + std::to_string(sid) + " are not together");
        seen.set(p);
        run_pos = p;
        run_row = r;
      }
      run_jobs.push_back(job);
      for (const Field* f : jtexts)
        if (!sane_text(row, *f)) damaged(path, row_at("jobs", r) + ": column '" + f->name + "' is not UTF-8 text");
    });
    if (run_pos != IdIndex::npos) end_run();
  }

  for (std::size_t p = 0; p < in.ids.size(); ++p)
    if (ok.test(p) || failed.test(p)) in.done_ids.push_back(in.ids.id_at(p));
  if (m.complete && in.done_ids.size() != in.ids.size())
    damaged(path, "attribute complete = 1, but " + std::to_string(in.ids.size() - in.done_ids.size()) +
                      " scenarios have no /metrics or /errors row");
  return in;
}

namespace {

void require_model_version(const Input& in) {
  if (in.meta.model_version != kModelVersion)
    throw InputError(in.path, 0, 0,
                     "holds results of model version " + std::to_string(in.meta.model_version) + " (geopipe " +
                         in.meta.geopipe_version + "); this build simulates model version " +
                         std::to_string(kModelVersion) +
                         ", whose results may differ, so it cannot add to or merge them (expected the geopipe that "
                         "wrote it, or a new file; docs/model.md, \"Model versions\")");
}

}  // namespace

void require_current_version(const Input& in) {
  if (in.meta.format_version == 3)
    throw InputError(in.path, 0, 0,
                     "was written in format version 3 by geopipe " + in.meta.geopipe_version +
                         ", which has no point keys; this build writes version " + std::to_string(kFormatVersion) +
                         " (expected the file upgraded first: `geopipe sweep SWEEP.toml -o FILE --resume` with the "
                         "sweep that wrote it, stored in its attribute sweep_toml, rewrites it in version " +
                         std::to_string(kFormatVersion) +
                         " reusing every result; docs/hdf5-format.md, \"Format versions\")");
  require_extendable(in);
}

void require_extendable(const Input& in) {
  if (in.meta.format_version < 3)
    throw InputError(in.path, 0, 0,
                     "was written in format version " + std::to_string(in.meta.format_version) + " by geopipe " +
                         in.meta.geopipe_version + "; this build writes version " + std::to_string(kFormatVersion) +
                         " and can only read it (expected the geopipe that wrote it to resume or merge it, or "
                         "a new file; docs/hdf5-format.md, \"Format versions\")");
  require_model_version(in);
}

}  // namespace geopipe::sweep::h5
