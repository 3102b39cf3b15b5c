// Content keys of a result file and copying its rows under new ids (sweep/h5_extend.h).
#include "sweep/h5_extend.h"

#include <algorithm>
#include <stdexcept>

#include "util/input_error.h"

namespace geopipe::sweep::h5 {
namespace {

/// Calls each(row) for every row of a table, read block by block with `memtype` (row size
/// `row_size`).
template <class Fn>
void each_row(hid_t dset, hid_t memtype, std::size_t row_size, hsize_t rows, const std::string& path,
              const char* name, Fn each) {
  Rows buf(row_size);
  for (hsize_t start = 0; start < rows; start += kBlockRows) {
    const hsize_t count = std::min<hsize_t>(kBlockRows, rows - start);
    read_block(dset, memtype, row_size, start, count, buf, path, name);
    for (std::size_t i = 0; i < buf.n; ++i) each(buf.row(i));
  }
}

/// Rows to append to one table, written whenever a block is full.
struct Appender {
  hid_t dset, type;
  hsize_t& in_file;
  const std::string& shown;
  const char* name;
  Rows rows;
  std::uint64_t written = 0;

  unsigned char* add() { return rows.add(); }
  void flush_if_full() {
    if (rows.n >= kBlockRows) flush();
  }
  void flush() {
    write_rows(dset, type, in_file, rows, 0, rows.n, shown, name);
    written += rows.n;
    rows.clear();
  }
};

}  // namespace

std::unordered_map<config::ContentKey, std::int64_t, ContentKeyHash> result_keys(const Input& in) {
  if (in.meta.format_version < 3)
    throw std::logic_error("h5store: result_keys of a file without keys (" + in.path + ")");
  const Layout& sl = in.scen_layout;
  const Field& f_id = sl.at("id");
  const Field& f_key = sl.at("key");
  std::unordered_map<config::ContentKey, std::int64_t, ContentKeyHash> keys;
  keys.reserve(in.done_ids.size());
  std::size_t next_done = 0;  // done_ids and /scenarios are both ascending
  Hid mt = make_type(sl, in.path);
  each_row(in.scen.get(), mt.get(), sl.size, in.n_scen, in.path, "scenarios", [&](const unsigned char* row) {
    const std::int64_t id = get_i64(row, f_id);
    while (next_done < in.done_ids.size() && in.done_ids[next_done] < id) ++next_done;
    if (next_done >= in.done_ids.size() || in.done_ids[next_done] != id) return;
    const auto key = config::ContentKey::from_hex(get_str(row, f_key));
    if (!key) throw InputError(in.path, 0, 0, "damaged result file: scenario " + std::to_string(id) + " has no key");
    keys.emplace(*key, id);  // ascending ids: the first stays
  });
  return keys;
}

std::uint64_t copy_remapped(const Input& in, Writer& w, const IdPairs& pairs, const std::string& shown) {
  if (pairs.empty()) return 0;
  // The new ids of an old id (pairs are sorted by old id).
  auto new_ids = [&](std::int64_t old) {
    return std::equal_range(pairs.begin(), pairs.end(), std::make_pair(old, std::numeric_limits<std::int64_t>::min()),
                            [](const auto& a, const auto& b) { return a.first < b.first; });
  };
  // Old ids with a /metrics row: their /jobs rows are copied.
  std::vector<std::int64_t> ok;
  std::uint64_t rows = 0;

  const Layout& ml = metrics_layout();
  const Field& m_id = ml.at("id");
  const Field& m_status = ml.at("status");
  Appender metrics{w.metrics.get(), w.mtype.get(), w.m_rows, shown, "metrics", Rows(ml.size)};
  each_row(in.metrics.get(), w.mtype.get(), ml.size, in.n_metrics, in.path, "metrics", [&](const unsigned char* row) {
    const std::int64_t id = get_i64(row, m_id);
    if (id < 0 || get_i64(row, m_status) != 1) return;
    const auto [lo, hi] = new_ids(id);
    if (lo == hi) return;
    ok.push_back(id);
    for (auto it = lo; it != hi; ++it) {
      unsigned char* out = metrics.add();
      std::memcpy(out, row, ml.size);
      put_i64(out, m_id, it->second);
      metrics.flush_if_full();
    }
  });
  metrics.flush();
  rows += metrics.written;

  const Layout& el = errors_layout();
  const Field& e_id = el.at("id");
  Appender errors{w.errors.get(), w.etype.get(), w.e_rows, shown, "errors", Rows(el.size)};
  each_row(in.errors.get(), w.etype.get(), el.size, in.n_errors, in.path, "errors", [&](const unsigned char* row) {
    const std::int64_t id = get_i64(row, e_id);
    if (id < 0) return;
    const auto [lo, hi] = new_ids(id);
    for (auto it = lo; it != hi; ++it) {
      unsigned char* out = errors.add();
      std::memcpy(out, row, el.size);
      put_i64(out, e_id, it->second);
      errors.flush_if_full();
    }
  });
  errors.flush();
  rows += errors.written;

  if (in.jobs.valid() && w.jobs.valid()) {
    std::sort(ok.begin(), ok.end());
    const Layout& jl = w.jlayout;  // the new file's widths (at least the old ones)
    const Field& j_sid = jl.at("scenario_id");
    Appender jobs{w.jobs.get(), w.jtype.get(), w.j_rows, shown, "jobs", Rows(jl.size)};
    each_row(in.jobs.get(), w.jtype.get(), jl.size, in.n_jobs, in.path, "jobs", [&](const unsigned char* row) {
      const std::int64_t id = get_i64(row, j_sid);
      if (id < 0 || !std::binary_search(ok.begin(), ok.end(), id)) return;
      const auto [lo, hi] = new_ids(id);
      for (auto it = lo; it != hi; ++it) {
        unsigned char* out = jobs.add();
        std::memcpy(out, row, jl.size);
        put_i64(out, j_sid, it->second);
        jobs.flush_if_full();
      }
    });
    jobs.flush();
  }
  return rows;
}

}  // namespace geopipe::sweep::h5
