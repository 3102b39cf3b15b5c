// Content keys of a result file and copying its rows under new ids (results/hdf5/extend.h).
#include "results/hdf5/extend.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "util/input_error.h"

namespace geopipe::sweep::h5 {
namespace {

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

std::unordered_map<config::ContentKey, std::int64_t, ContentKeyHash> result_keys(
    const Input& in, std::vector<std::pair<std::int64_t, std::int64_t>>* duplicates) {
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
    const auto [it, fresh] = keys.emplace(*key, id);  // ascending ids: the first stays
    if (!fresh && duplicates) duplicates->emplace_back(id, it->second);
  });
  return keys;
}

std::uint64_t copy_remapped(const Input& in, Writer& w, const IdPairs& pairs, const std::string& shown) {
  if (pairs.empty()) return 0;
  // Copies the rows of one table whose id (`f_id`) is an old id of `pairs` and that keep(row,
  // id) accepts, once per new id, with the new id; returns the number written.
  // Rows of a table of an older format get the newer columns filled (fill_columns_since).
  const auto copy = [&](hid_t src, hsize_t n, const char* name, hid_t dset, hid_t type, hsize_t& in_file,
                        const Layout& l, const Field& f_id, int format, auto keep) {
    Appender out{dset, type, in_file, shown, name, Rows(l.size)};
    each_row(src, type, l.size, n, in.path, name, [&](const unsigned char* row) {
      const std::int64_t id = get_i64(row, f_id);
      if (id < 0 || !keep(row, id)) return;
      auto it = std::lower_bound(pairs.begin(), pairs.end(), std::make_pair(id, std::numeric_limits<std::int64_t>::min()));
      for (; it != pairs.end() && it->first == id; ++it) {
        unsigned char* copy_row = out.add();
        std::memcpy(copy_row, row, l.size);
        if (format < kFormatVersion) fill_columns_since(copy_row, l, format, in.evaluator());
        put_i64(copy_row, f_id, it->second);
        out.flush_if_full();
      }
    });
    out.flush();
    return out.written;
  };
  const auto reused = [&](std::int64_t id) {
    const auto it = std::lower_bound(pairs.begin(), pairs.end(), std::make_pair(id, std::numeric_limits<std::int64_t>::min()));
    return it != pairs.end() && it->first == id;
  };

  // /metrics (status 1); the old ids copied, whose /jobs rows follow them.
  std::vector<std::int64_t> ok;
  const Layout& ml = metrics_layout();
  const Field& m_status = ml.at("status");
  std::uint64_t rows = copy(in.metrics.get(), in.n_metrics, "metrics", w.metrics.get(), w.mtype.get(), w.m_rows, ml,
                            ml.at("id"), in.metrics_format, [&](const unsigned char* row, std::int64_t id) {
                              if (get_i64(row, m_status) != 1 || !reused(id)) return false;
                              ok.push_back(id);
                              return true;
                            });
  const Layout& el = errors_layout();
  rows += copy(in.errors.get(), in.n_errors, "errors", w.errors.get(), w.etype.get(), w.e_rows, el, el.at("id"), static_cast<int>(kFormatVersion),
               [](const unsigned char*, std::int64_t) { return true; });
  if (in.jobs.valid() && w.jobs.valid()) {
    std::sort(ok.begin(), ok.end());
    const Layout& jl = w.jlayout;  // the new file's widths (at least the old ones)
    copy(in.jobs.get(), in.n_jobs, "jobs", w.jobs.get(), w.jtype.get(), w.j_rows, jl, jl.at("scenario_id"),
         in.jobs_format,
         [&](const unsigned char*, std::int64_t id) { return std::binary_search(ok.begin(), ok.end(), id); });
  }
  return rows;
}

}  // namespace geopipe::sweep::h5
