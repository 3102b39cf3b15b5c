// Rebuilding result files from their valid rows (see results/hdf5/rebuild.h).
#include "results/hdf5/rebuild.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <utility>

#include "util/input_error.h"
#include "util/system.h"

namespace geopipe::sweep {
namespace h5 {
namespace {

// ---------------------------------------------------------------------------------------------
// Bounded-memory copying (resume, finalize, merge must not need memory proportional to the
// number of rows: a sweep can have millions of scenarios)
// ---------------------------------------------------------------------------------------------

constexpr std::size_t kSortBudgetBytes = 8u << 20;        ///< rows held for one sort pass
constexpr unsigned kBucketShift = 10;                     ///< id histogram: 1024 ids per bucket

/// One bit per scenario id.
class Bits {
 public:
  explicit Bits(std::uint64_t n = 0) : w_((n + 63) / 64, 0), n_(n) {}
  void set(std::uint64_t i) { w_[i / 64] |= std::uint64_t{1} << (i % 64); }
  bool test(std::uint64_t i) const { return i < n_ && (w_[i / 64] >> (i % 64)) & 1u; }
  std::uint64_t count() const {
    std::uint64_t c = 0;
    for (auto x : w_) c += static_cast<std::uint64_t>(__builtin_popcountll(x));
    return c;
  }

 private:
  std::vector<std::uint64_t> w_;
  std::uint64_t n_;
};

struct SrcTable {
  hid_t dset;
  hsize_t rows;
  const std::string* path;
  const char* name;
  int format = static_cast<int>(kFormatVersion);  ///< the format of its columns: older ones need fill_columns_since
  MetricSource evaluator = MetricSource::kSimulation;  ///< its file's (for fill_columns_since)
};

using Key = std::pair<std::int64_t, std::int64_t>;

/// The work of one sorted_copy() call (see there).
template <class KeyFn, class ValidFn, class SinkFn, class DupFn>
class SortedCopy {
 public:
  SortedCopy(const std::vector<SrcTable>& srcs, const Layout& l, hid_t memtype, const IdIndex& ids, KeyFn key,
             ValidFn valid, SinkFn sink, DupFn dup)
      : srcs_(srcs), l_(l), memtype_(memtype), ids_(ids), key_(key), valid_(valid), sink_(sink), dup_(dup),
        budget_rows_(std::max<std::size_t>(kSortBudgetBytes / l.size, kBlockRows)),
        hist_((ids.size() >> kBucketShift) + 1, 0), buf_(l.size), acc_(l.size), out_(l.size) {}

  void run() {
    scan();
    if (!spilled_) {
      emit();
      return;
    }
    for (std::size_t b0 = 0; b0 < hist_.size();) {
      std::size_t b1 = b0;
      std::uint64_t n = 0;
      while (b1 < hist_.size() && (b1 == b0 || n + hist_[b1] <= budget_rows_)) n += hist_[b1++];
      const std::size_t lo = b0 << kBucketShift;
      const std::size_t hi = b1 << kBucketShift;
      if (n > 0) {
        collect(lo, hi, n);
        emit();
      }
      b0 = b1;
    }
  }

 private:
  struct Block {
    std::size_t src;
    hsize_t start, count;
    std::size_t lo, hi;  ///< positions (IdIndex) of the block's valid rows' ids
  };

  /// The position of a valid row's id (valid rows have ids of the index).
  std::size_t pos(const unsigned char* row) const { return ids_.pos(key_(row).first); }

  void read(const Block& b) {
    read_block(srcs_[b.src].dset, memtype_, l_.size, b.start, b.count, buf_, *srcs_[b.src].path,
               srcs_[b.src].name);
    if (const auto& s = srcs_[b.src]; s.format < kFormatVersion)
      for (std::size_t r = 0; r < buf_.n; ++r) fill_columns_since(buf_.row(r), l_, s.format, s.evaluator);
  }

  /// Reads every block once: notes the id range of its valid rows and counts their ids in the
  /// histogram; keeps the valid rows in acc_ until they exceed the budget (then spilled_).
  void scan() {
    hsize_t total_rows = 0;
    for (const auto& src : srcs_) total_rows += src.rows;
    acc_.data.reserve(static_cast<std::size_t>(std::min<hsize_t>(total_rows, budget_rows_ + 1)) * l_.size);
    for (std::size_t s = 0; s < srcs_.size(); ++s)
      for (hsize_t start = 0; start < srcs_[s].rows; start += kBlockRows) {
        const hsize_t count = std::min<hsize_t>(kBlockRows, srcs_[s].rows - start);
        Block b{s, start, count, std::numeric_limits<std::size_t>::max(), 0};
        read(b);
        for (std::size_t i = 0; i < buf_.n; ++i) {
          const unsigned char* row = buf_.row(i);
          if (!valid_(row)) continue;
          const std::size_t k = pos(row);
          b.lo = std::min(b.lo, k);
          b.hi = std::max(b.hi, k);
          ++hist_[k >> kBucketShift];
          if (!spilled_) {
            std::memcpy(acc_.add(), row, l_.size);
            src_.push_back(s);
            if (acc_.n > budget_rows_) {
              spilled_ = true;
              acc_ = Rows(l_.size);
              src_.clear();
            }
          }
        }
        if (b.lo <= b.hi) blocks_.push_back(b);
      }
  }

  /// Collects in acc_ the `n` valid rows whose id's position is in [lo, hi), reading only the
  /// blocks whose range intersects it (the last block read is kept from one pass to the next).
  void collect(std::size_t lo, std::size_t hi, std::uint64_t n) {
    acc_.clear();
    src_.clear();
    acc_.data.reserve(static_cast<std::size_t>(n) * l_.size);
    for (std::size_t bi = 0; bi < blocks_.size(); ++bi) {
      const Block& b = blocks_[bi];
      if (b.hi < lo || b.lo >= hi) continue;
      if (cached_ != bi) {
        read(b);
        cached_ = bi;
      }
      for (std::size_t i = 0; i < buf_.n; ++i) {
        const unsigned char* row = buf_.row(i);
        if (!valid_(row)) continue;
        const std::size_t k = pos(row);
        if (k >= lo && k < hi) {
          std::memcpy(acc_.add(), row, l_.size);
          src_.push_back(b.src);
        }
      }
    }
  }

  /// Sorts acc_ (stable, first row of each key kept; dup_ sees each later one) and hands it to
  /// sink_ in pieces.
  void emit() {
    idx_.resize(acc_.n);
    std::iota(idx_.begin(), idx_.end(), std::size_t{0});
    std::stable_sort(idx_.begin(), idx_.end(),
                     [&](std::size_t a, std::size_t b) { return key_(acc_.row(a)) < key_(acc_.row(b)); });
    out_.clear();
    std::size_t kept = 0;
    for (std::size_t j = 0; j < idx_.size(); ++j) {
      if (j > 0 && key_(acc_.row(idx_[j])) == key_(acc_.row(idx_[kept]))) {
        dup_(acc_.row(idx_[kept]), *srcs_[src_[idx_[kept]]].path, acc_.row(idx_[j]), *srcs_[src_[idx_[j]]].path);
        continue;
      }
      kept = j;
      std::memcpy(out_.add(), acc_.row(idx_[j]), l_.size);
      if (out_.n >= kBlockRows) {
        sink_(static_cast<const Rows&>(out_));
        out_.clear();
      }
    }
    if (out_.n > 0) sink_(static_cast<const Rows&>(out_));
    out_.clear();
  }

  const std::vector<SrcTable>& srcs_;
  const Layout& l_;
  hid_t memtype_;
  const IdIndex& ids_;
  KeyFn key_;
  ValidFn valid_;
  SinkFn sink_;
  DupFn dup_;
  std::size_t budget_rows_;
  std::vector<std::uint64_t> hist_;  ///< valid rows per bucket of 1024 id positions
  Rows buf_, acc_, out_;             ///< block read, rows to sort, sorted piece for sink_
  std::vector<std::size_t> src_;     ///< the source of each row of acc_
  std::vector<Block> blocks_;        ///< blocks with valid rows
  std::vector<std::size_t> idx_;
  bool spilled_ = false;
  std::size_t cached_ = std::numeric_limits<std::size_t>::max();  ///< block in buf_
};

/// Copies the valid rows of `srcs` (in that order) sorted by key, keeping the first row of
/// each key, to sink(const Rows&) (called with consecutive sorted runs); dup(kept row, its
/// file, row, its file) is called for every further row of a key (it may throw). key(row).first must
/// be an id of `ids` for valid rows. Rows are collected in passes over id ranges of at most
/// ~kSortBudgetBytes; a pass reads only the blocks whose id range intersects it, so nearly
/// sorted tables (the usual case) are read about twice. Small tables: one read, one sort.
template <class KeyFn, class ValidFn, class SinkFn, class DupFn>
void sorted_copy(const std::vector<SrcTable>& srcs, const Layout& l, hid_t memtype, const IdIndex& ids, KeyFn key,
                 ValidFn valid, SinkFn sink, DupFn dup) {
  SortedCopy<KeyFn, ValidFn, SinkFn, DupFn>(srcs, l, memtype, ids, key, valid, sink, dup).run();
}

/// InputError: one scenario with two different results.
[[noreturn]] void results_differ(std::int64_t id, const std::string& a, const std::string& b,
                                 const std::string& what) {
  throw InputError(b, 0, 0,
                   "scenario " + std::to_string(id) + " has a different result in '" + a + "': " + what +
                       " (expected the same result for the same scenario: were the files written by builds "
                       "that simulate differently? otherwise this is a determinism bug)");
}

// ---------------------------------------------------------------------------------------------
// The steps of rebuild()
// ---------------------------------------------------------------------------------------------

/// The scenarios of the new file (ids, filled by merge_scenarios), and which of them have a
/// valid metrics row (ok) or a metrics or errors row (done), by position. Memory follows the
/// rows of /scenarios, never the total_scenarios attribute.
struct Coverage {
  explicit Coverage(std::uint64_t n) : total(n) {}
  /// Sizes the bits once every id is in `ids`.
  void sized() {
    ok = Bits(ids.size());
    done = Bits(ids.size());
  }
  std::size_t pos(std::int64_t id) const { return ids.pos(id); }

  std::uint64_t total;
  IdIndex ids;
  Bits ok, done;
};

/// Opens every input; all must be shards of one sweep with the same /scenarios columns. The
/// rows retired by an extension may come from a file of an older format (Retire keeps it).
std::vector<Input> open_inputs(const std::vector<std::string>& inputs, Rebuild mode) {
  std::vector<Input> ins;
  ins.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ins.push_back(open_input(inputs[i]));
    const Input& in = ins.back();
    if (mode == Rebuild::Retire) require_extendable(in);
    else require_current_version(in);
    const Input& first = ins.front();
    if (in.meta.sweep_hash != first.meta.sweep_hash)
      throw InputError(in.path, 0, 0,
                       "sweep_hash " + in.meta.sweep_hash + " differs from " + first.meta.sweep_hash + " of '" +
                           first.path + "': not shards of the same sweep");
    if (!in.scen_layout.same_as(first.scen_layout) || in.meta.total_scenarios != first.meta.total_scenarios)
      throw InputError(in.path, 0, 0,
                       "/scenarios columns [" + in.scen_layout.describe() + "] or total_scenarios differ from '" +
                           first.path + "'");
  }
  return ins;
}

/// A read position in one input's /scenarios.
struct Cursor {
  Rows buf;
  std::size_t pos = 0;
  hsize_t next = 0;
  std::int64_t last = -1;
};

/// The row of `in`'s /scenarios at `c` (read block by block), nullptr past the end.
const unsigned char* current_row(Cursor& c, const Input& in, hid_t memtype, std::size_t row_size) {
  if (c.pos >= c.buf.n) {
    if (c.next >= in.n_scen) return nullptr;
    const hsize_t count = std::min<hsize_t>(kBlockRows, in.n_scen - c.next);
    read_block(in.scen.get(), memtype, row_size, c.next, count, c.buf, in.path, "scenarios");
    c.next += count;
    c.pos = 0;
  }
  return c.buf.row(c.pos);
}

/// /scenarios: k-way merge of the inputs' sorted tables, streamed. Fills cov.ids.
void merge_scenarios(const std::vector<Input>& ins, Writer& w, const std::string& shown, Coverage& cov,
                     const std::function<bool(std::int64_t)>& keep) {
  const Layout& sl = ins.front().scen_layout;
  const Field sid = sl.at("id");
  const std::uint64_t total = cov.total;
  std::vector<Cursor> cur(ins.size());
  Rows out(sl.size);
  for (;;) {
    std::size_t best = ins.size();
    std::int64_t best_id = 0;
    for (std::size_t i = 0; i < ins.size(); ++i) {
      const unsigned char* r = current_row(cur[i], ins[i], w.stype.get(), sl.size);
      if (!r) continue;
      const std::int64_t id = get_i64(r, sid);
      if (id <= cur[i].last)
        throw InputError(ins[i].path, 0, 0, "/scenarios is not sorted by id or repeats id " + std::to_string(id));
      if (id < 0 || static_cast<std::uint64_t>(id) >= total)
        throw InputError(ins[i].path, 0, 0,
                         "/scenarios has id " + std::to_string(id) + " outside [0, total_scenarios = " +
                             std::to_string(total) + ")");
      if (best < ins.size() && id == best_id) {
        // The same scenario in two inputs of one sweep (overlapping shards, a file given
        // twice): one row; its results must agree (copy_*). Different keys under one sweep
        // hash mean that a trace file changed between the runs.
        const Field& skey = sl.at("key");
        if (get_str(r, skey) != get_str(cur[best].buf.row(cur[best].pos), skey))
          throw InputError(ins[i].path, 0, 0,
                           "scenario " + std::to_string(id) + " has content key " + get_str(r, skey) + ", but " +
                               get_str(cur[best].buf.row(cur[best].pos), skey) + " in '" + ins[best].path +
                               "' (expected one scenario: did a trace file of the sweep change between the runs?)");
        ++cur[i].pos;
        cur[i].last = id;
        continue;
      }
      if (best == ins.size() || id < best_id) {
        best = i;
        best_id = id;
      }
    }
    if (best == ins.size()) break;
    cur[best].last = best_id;
    if (keep && !keep(best_id)) {
      ++cur[best].pos;
      continue;
    }
    std::memcpy(out.add(), cur[best].buf.row(cur[best].pos), sl.size);
    ++cur[best].pos;
    cov.ids.push(best_id);
    if (out.n >= kScenarioChunk) {
      write_rows(w.scen.get(), w.stype.get(), w.s_rows, out, 0, out.n, shown, "scenarios");
      out.clear();
    }
  }
  write_rows(w.scen.get(), w.stype.get(), w.s_rows, out, 0, out.n, shown, "scenarios");
  cov.sized();
}

/// The table `dset` (with `rows` rows) of every input that has it, for sorted_copy.
std::vector<SrcTable> tables_of(const std::vector<Input>& ins, Hid Input::*dset, hsize_t Input::*rows,
                                const char* name, int Input::*format = nullptr) {
  std::vector<SrcTable> srcs;
  for (const Input& in : ins)
    if ((in.*dset).valid())
      srcs.push_back({(in.*dset).get(), in.*rows, &in.path, name, format ? in.*format : static_cast<int>(kFormatVersion),
                      in.evaluator()});
  return srcs;
}

/// Copies the rows of `srcs` (layout `l`) whose id is a scenario of the file and keep(row),
/// sorted by id, one per id, to `dset` (`dset_rows` rows so far); calls mark(position) for each
/// row written and, with `check`, differ(kept row, other row) -> "" or the difference for each
/// further row of an id (a merge: results_differ). Returns the number of rows written.
template <class KeepFn, class MarkFn, class DifferFn>
std::uint64_t copy_by_id(const std::vector<SrcTable>& srcs, const Layout& l, hid_t dset, hid_t type,
                         hsize_t& dset_rows, const char* name, const std::string& shown, const Coverage& cov,
                         KeepFn keep, MarkFn mark, bool check, DifferFn differ) {
  const Field& fid = l.at("id");
  std::uint64_t rows = 0;
  sorted_copy(
      srcs, l, type, cov.ids, [&](const unsigned char* r) { return Key(get_i64(r, fid), 0); },
      [&](const unsigned char* r) { return cov.pos(get_i64(r, fid)) != IdIndex::npos && keep(r); },
      [&](const Rows& sorted) {
        for (std::size_t i = 0; i < sorted.n; ++i) mark(cov.pos(get_i64(sorted.row(i), fid)));
        write_rows(dset, type, dset_rows, sorted, 0, sorted.n, shown, name);
        rows += sorted.n;
      },
      [&](const unsigned char* a, const std::string& pa, const unsigned char* b, const std::string& pb) {
        if (!check) return;
        const std::string d = differ(a, b);
        if (!d.empty()) results_differ(get_i64(a, fid), pa, pb, d);
      });
  return rows;
}

/// /metrics: rows with status 1 of a scenario of the file. Marks cov.ok and cov.done; returns
/// the number of rows written. With `check`, rows of one id must agree (metrics_difference).
std::uint64_t copy_metrics(const std::vector<Input>& ins, Writer& w, const std::string& shown, Coverage& cov,
                           bool check) {
  const Field& mst = metrics_layout().at("status");
  return copy_by_id(
      tables_of(ins, &Input::metrics, &Input::n_metrics, "metrics", &Input::metrics_format), metrics_layout(),
      w.metrics.get(),
      w.mtype.get(), w.m_rows, "metrics", shown, cov, [&](const unsigned char* r) { return get_i64(r, mst) == 1; },
      [&](std::uint64_t id) {
        cov.ok.set(id);
        cov.done.set(id);
      },
      check, metrics_difference);
}

/// /errors: rows of a scenario of the file. Marks cov.done; returns the number of rows written.
/// With `check`, a scenario that failed in one input must not have metrics in another, and its
/// messages must agree.
std::uint64_t copy_errors(const std::vector<Input>& ins, Writer& w, const std::string& shown, Coverage& cov,
                          bool check) {
  const Field& eid = errors_layout().at("id");
  const Field& emsg = errors_layout().at("message");
  return copy_by_id(
      tables_of(ins, &Input::errors, &Input::n_errors, "errors"), errors_layout(), w.errors.get(), w.etype.get(),
      w.e_rows, "errors", shown, cov,
      [&](const unsigned char* r) {
        if (check && cov.ok.test(cov.pos(get_i64(r, eid))))
          throw InputError(shown, 0, 0,
                           "scenario " + std::to_string(get_i64(r, eid)) +
                               " failed in one input ('" + get_str(r, emsg) + "') and has metrics in another "
                               "(expected the same result for the same scenario: were the files written by builds "
                               "that simulate differently? otherwise this is a determinism bug)");
        return true;
      },
      [&](std::uint64_t id) { cov.done.set(id); }, check,
      [&](const unsigned char* a, const unsigned char* b) {
        const std::string ma = get_str(a, emsg), mb = get_str(b, emsg);
        return ma == mb ? std::string() : "error '" + ma + "' vs '" + mb + "'";
      });
}

/// /jobs: rows of a scenario with a metrics row (cov.ok), sorted by (scenario_id, job_id).
void copy_jobs(const std::vector<Input>& ins, Writer& w, const std::string& shown, const Coverage& cov) {
  const Field& js = w.jlayout.at("scenario_id");
  const Field& jj = w.jlayout.at("job_id");
  sorted_copy(
      tables_of(ins, &Input::jobs, &Input::n_jobs, "jobs", &Input::jobs_format), w.jlayout, w.jtype.get(),
      cov.ids,
      [&](const unsigned char* r) { return Key(get_i64(r, js), get_i64(r, jj)); },
      [&](const unsigned char* r) {
        const std::size_t p = cov.pos(get_i64(r, js));
        return p != IdIndex::npos && cov.ok.test(p);
      },
      [&](const Rows& sorted) {
        write_rows(w.jobs.get(), w.jtype.get(), w.j_rows, sorted, 0, sorted.n, shown, "jobs");
      },
      [](const unsigned char*, const std::string&, const unsigned char*, const std::string&) {});
}

/// The new file's metadata: `meta` (the first input's) with this format_version (Retire: the
/// input's, whose /scenarios columns it copies), the number of scenarios written, and layout,
/// shard and complete as `mode` wants (see Rebuild).
StoreMeta final_meta(StoreMeta meta, Rebuild mode, const std::string& layout, hsize_t num_scenarios,
                     const Coverage& cov) {
  const std::uint64_t total = cov.total;
  if (mode != Rebuild::Retire) meta.format_version = static_cast<int>(kFormatVersion);
  meta.num_scenarios = num_scenarios;
  switch (mode) {
    case Rebuild::Resume:
      meta.layout = layout;
      meta.complete = false;
      break;
    case Rebuild::Finalize: {
      // complete = every scenario of this file has a metrics or errors row.
      meta.complete = cov.done.count() == cov.ids.size();
      break;
    }
    case Rebuild::Retire:
      meta.shard = "";
      meta.complete = cov.done.count() == cov.ids.size();
      break;
    case Rebuild::Merge:
      meta.shard = "";
      meta.complete = total > 0 && cov.done.count() == total;
      break;
  }
  return meta;
}

}  // namespace

Writer rebuild(const std::vector<std::string>& inputs, const std::string& tmp, const std::string& shown,
               Rebuild mode, const std::string& layout, std::uint64_t* rows_out, const JobTextBytes& job_text,
               const std::function<bool(std::int64_t)>& keep) {
  std::vector<Input> ins = open_inputs(inputs, mode);
  // The inputs were checked, but copying reads them again: a crash then removes the new file.
  const CrashGuard guard(inputs.size() == 1 ? inputs.front() : shown);
  CrashGuard::remove_on_crash(tmp);
  struct Forget {
    const std::string& tmp;
    ~Forget() { CrashGuard::forget_on_crash(tmp); }
  } forget{tmp};
  // /jobs if any input has it, with text columns as wide as the widest input's (and job_text).
  std::optional<JobTextBytes> jobs;
  std::uint64_t scen_rows = 0;
  for (const Input& in : ins) {
    if (in.jobs.valid()) jobs = job_text.max_with(job_text_of(in.jobs_layout)).max_with(jobs.value_or(job_text));
    scen_rows += in.n_scen;
  }
  StoreMeta meta = ins.front().meta;
  Coverage cov(meta.total_scenarios);

  Writer w = open_new(tmp, shown, ins.front().scen_layout, scen_rows, jobs);
  merge_scenarios(ins, w, shown, cov, keep);
  if (ins.front().meta.format_version >= 4) write_parameters(w, ins.front().parameters, shown);
  copy_design(ins.front(), w, shown);  // the inputs are one sweep's files
  const bool check = mode == Rebuild::Merge;  // one result per scenario: inputs must agree
  std::uint64_t rows = copy_metrics(ins, w, shown, cov, check);
  rows += copy_errors(ins, w, shown, cov, check);
  if (jobs) copy_jobs(ins, w, shown, cov);
  ins.clear();  // close the inputs (resume and finalize replace one of them)

  finish_new(w, final_meta(std::move(meta), mode, layout, w.s_rows, cov), mode == Rebuild::Resume, shown);
  if (rows_out) *rows_out = rows;
  return w;
}

}  // namespace h5

}  // namespace geopipe::sweep
