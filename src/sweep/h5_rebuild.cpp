// Rebuilding result files from their valid rows (see h5_rebuild.h), and merge_stores().
#include "sweep/h5_rebuild.h"

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
};

using Key = std::pair<std::int64_t, std::int64_t>;

/// Copies the valid rows of `srcs` (in that order) sorted by key, keeping the first row of
/// each key, to sink(const Rows&) (called with consecutive sorted runs). key(row).first must
/// be in [0, id_limit) for valid rows. Rows are collected in passes over id ranges of at most
/// ~kSortBudgetBytes; a pass reads only the blocks whose id range intersects it, so nearly
/// sorted tables (the usual case) are read about twice. Small tables: one read, one sort.
template <class KeyFn, class ValidFn, class SinkFn>
void sorted_copy(const std::vector<SrcTable>& srcs, const Layout& l, hid_t memtype, std::uint64_t id_limit,
                 KeyFn key, ValidFn valid, SinkFn sink) {
  const std::size_t budget_rows = std::max<std::size_t>(kSortBudgetBytes / l.size, kBlockRows);
  struct Block {
    std::size_t src;
    hsize_t start, count;
    std::int64_t lo, hi;
  };
  std::vector<Block> blocks;
  std::vector<std::uint64_t> hist((id_limit >> kBucketShift) + 1, 0);
  Rows buf(l.size), acc(l.size);
  bool spilled = false;
  hsize_t total_rows = 0;
  for (const auto& src : srcs) total_rows += src.rows;
  acc.data.reserve(static_cast<std::size_t>(std::min<hsize_t>(total_rows, budget_rows + 1)) * l.size);
  for (std::size_t s = 0; s < srcs.size(); ++s)
    for (hsize_t start = 0; start < srcs[s].rows; start += kBlockRows) {
      const hsize_t count = std::min<hsize_t>(kBlockRows, srcs[s].rows - start);
      read_block(srcs[s].dset, memtype, l.size, start, count, buf, *srcs[s].path, srcs[s].name);
      Block b{s, start, count, std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()};
      for (std::size_t i = 0; i < buf.n; ++i) {
        const unsigned char* row = buf.row(i);
        if (!valid(row)) continue;
        const std::int64_t k = key(row).first;
        b.lo = std::min(b.lo, k);
        b.hi = std::max(b.hi, k);
        ++hist[static_cast<std::uint64_t>(k) >> kBucketShift];
        if (!spilled) {
          std::memcpy(acc.add(), row, l.size);
          if (acc.n > budget_rows) {
            spilled = true;
            acc = Rows(l.size);
          }
        }
      }
      if (b.lo <= b.hi) blocks.push_back(b);
    }
  // Sorts acc (stable, first row of each key kept) and hands it to sink in pieces.
  Rows out(l.size);
  std::vector<std::size_t> idx;
  auto emit = [&] {
    idx.resize(acc.n);
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::size_t a, std::size_t b) { return key(acc.row(a)) < key(acc.row(b)); });
    out.clear();
    for (std::size_t j = 0; j < idx.size(); ++j) {
      if (j > 0 && key(acc.row(idx[j])) == key(acc.row(idx[j - 1]))) continue;
      std::memcpy(out.add(), acc.row(idx[j]), l.size);
      if (out.n >= kBlockRows) {
        sink(static_cast<const Rows&>(out));
        out.clear();
      }
    }
    if (out.n > 0) sink(static_cast<const Rows&>(out));
    out.clear();
  };
  if (!spilled) {
    emit();
    return;
  }
  std::size_t cached = std::numeric_limits<std::size_t>::max();
  for (std::size_t b0 = 0; b0 < hist.size();) {
    std::size_t b1 = b0;
    std::uint64_t n = 0;
    while (b1 < hist.size() && (b1 == b0 || n + hist[b1] <= budget_rows)) n += hist[b1++];
    const auto lo = static_cast<std::int64_t>(b0 << kBucketShift);
    const auto hi = static_cast<std::int64_t>(b1 << kBucketShift);
    if (n > 0) {
      acc.clear();
      acc.data.reserve(static_cast<std::size_t>(n) * l.size);
      for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
        const Block& b = blocks[bi];
        if (b.hi < lo || b.lo >= hi) continue;
        if (cached != bi) {
          read_block(srcs[b.src].dset, memtype, l.size, b.start, b.count, buf, *srcs[b.src].path,
                     srcs[b.src].name);
          cached = bi;
        }
        for (std::size_t i = 0; i < buf.n; ++i) {
          const unsigned char* row = buf.row(i);
          if (!valid(row)) continue;
          const std::int64_t k = key(row).first;
          if (k >= lo && k < hi) std::memcpy(acc.add(), row, l.size);
        }
      }
      emit();
    }
    b0 = b1;
  }
}

}  // namespace

Writer rebuild(const std::vector<std::string>& inputs, const std::string& tmp, const std::string& shown,
               Rebuild mode, const std::string& layout, std::uint64_t* rows_out) {
  std::vector<Input> ins;
  ins.reserve(inputs.size());
  bool has_jobs = false;
  std::uint64_t scen_rows = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ins.push_back(open_input(inputs[i]));
    const Input& in = ins.back();
    const Input& first = ins.front();
    if (in.meta.sweep_hash != first.meta.sweep_hash)
      throw InputError(in.path, 0, 0,
                       "sweep_hash " + in.meta.sweep_hash + " differs from " + first.meta.sweep_hash + " of '" +
                           first.path + "': not shards of the same sweep");
    if (!in.scen_layout.same_as(first.scen_layout) || in.meta.total_scenarios != first.meta.total_scenarios)
      throw InputError(in.path, 0, 0,
                       "/scenarios columns [" + in.scen_layout.describe() + "] or total_scenarios differ from '" +
                           first.path + "'");
    has_jobs = has_jobs || in.jobs.valid();
    scen_rows += in.n_scen;
  }
  StoreMeta meta = ins.front().meta;
  const std::uint64_t total = meta.total_scenarios;
  const Layout& sl = ins.front().scen_layout;
  const Field sid = sl.at("id");

  Writer w = open_new(tmp, shown, sl, scen_rows, has_jobs);

  // /scenarios: k-way merge of the inputs' sorted tables, streamed.
  Bits scen_bits(total), ok_bits(total), done_bits(total);
  {
    struct Cursor {
      Rows buf;
      std::size_t pos = 0;
      hsize_t next = 0;
      std::int64_t last = -1;
    };
    std::vector<Cursor> cur(ins.size());
    auto current = [&](std::size_t i) -> const unsigned char* {
      Cursor& c = cur[i];
      if (c.pos >= c.buf.n) {
        if (c.next >= ins[i].n_scen) return nullptr;
        const hsize_t count = std::min<hsize_t>(kBlockRows, ins[i].n_scen - c.next);
        read_block(ins[i].scen.get(), w.stype.get(), sl.size, c.next, count, c.buf, ins[i].path, "scenarios");
        c.next += count;
        c.pos = 0;
      }
      return c.buf.row(c.pos);
    };
    Rows out(sl.size);
    for (;;) {
      std::size_t best = ins.size();
      std::int64_t best_id = 0;
      for (std::size_t i = 0; i < ins.size(); ++i) {
        const unsigned char* r = current(i);
        if (!r) continue;
        const std::int64_t id = get_i64(r, sid);
        if (id <= cur[i].last)
          throw InputError(ins[i].path, 0, 0, "/scenarios is not sorted by id or repeats id " + std::to_string(id));
        if (id < 0 || static_cast<std::uint64_t>(id) >= total)
          throw InputError(ins[i].path, 0, 0,
                           "/scenarios has id " + std::to_string(id) + " outside [0, total_scenarios = " +
                               std::to_string(total) + ")");
        if (best < ins.size() && id == best_id)
          throw InputError(ins[i].path, 0, 0,
                           "scenario id " + std::to_string(id) + " is also in '" + ins[best].path +
                               "': overlapping shards (was a file given twice?)");
        if (best == ins.size() || id < best_id) {
          best = i;
          best_id = id;
        }
      }
      if (best == ins.size()) break;
      std::memcpy(out.add(), cur[best].buf.row(cur[best].pos), sl.size);
      cur[best].last = best_id;
      ++cur[best].pos;
      scen_bits.set(static_cast<std::uint64_t>(best_id));
      if (out.n >= kScenarioChunk) {
        write_rows(w.scen.get(), w.stype.get(), w.s_rows, out, 0, out.n, shown, "scenarios");
        out.clear();
      }
    }
    write_rows(w.scen.get(), w.stype.get(), w.s_rows, out, 0, out.n, shown, "scenarios");
  }

  auto in_range = [&](std::int64_t id) { return id >= 0 && static_cast<std::uint64_t>(id) < total; };
  std::uint64_t rows = 0;
  {
    const Field& mid = metrics_layout().at("id");
    const Field& mst = metrics_layout().at("status");
    std::vector<SrcTable> srcs;
    for (const Input& in : ins) srcs.push_back({in.metrics.get(), in.n_metrics, &in.path, "metrics"});
    sorted_copy(
        srcs, metrics_layout(), w.mtype.get(), total,
        [&](const unsigned char* r) { return Key(get_i64(r, mid), 0); },
        [&](const unsigned char* r) {
          const std::int64_t id = get_i64(r, mid);
          return in_range(id) && get_i64(r, mst) == 1 && scen_bits.test(static_cast<std::uint64_t>(id));
        },
        [&](const Rows& sorted) {
          for (std::size_t i = 0; i < sorted.n; ++i) {
            ok_bits.set(static_cast<std::uint64_t>(get_i64(sorted.row(i), mid)));
            done_bits.set(static_cast<std::uint64_t>(get_i64(sorted.row(i), mid)));
          }
          write_rows(w.metrics.get(), w.mtype.get(), w.m_rows, sorted, 0, sorted.n, shown, "metrics");
          rows += sorted.n;
        });
  }
  {
    const Field& eid = errors_layout().at("id");
    std::vector<SrcTable> srcs;
    for (const Input& in : ins) srcs.push_back({in.errors.get(), in.n_errors, &in.path, "errors"});
    sorted_copy(
        srcs, errors_layout(), w.etype.get(), total,
        [&](const unsigned char* r) { return Key(get_i64(r, eid), 0); },
        [&](const unsigned char* r) {
          const std::int64_t id = get_i64(r, eid);
          return in_range(id) && scen_bits.test(static_cast<std::uint64_t>(id));
        },
        [&](const Rows& sorted) {
          for (std::size_t i = 0; i < sorted.n; ++i)
            done_bits.set(static_cast<std::uint64_t>(get_i64(sorted.row(i), eid)));
          write_rows(w.errors.get(), w.etype.get(), w.e_rows, sorted, 0, sorted.n, shown, "errors");
          rows += sorted.n;
        });
  }
  if (has_jobs) {
    const Field& js = jobs_layout().at("scenario_id");
    const Field& jj = jobs_layout().at("job_id");
    std::vector<SrcTable> srcs;
    for (const Input& in : ins)
      if (in.jobs.valid()) srcs.push_back({in.jobs.get(), in.n_jobs, &in.path, "jobs"});
    sorted_copy(
        srcs, jobs_layout(), w.jtype.get(), total,
        [&](const unsigned char* r) { return Key(get_i64(r, js), get_i64(r, jj)); },
        [&](const unsigned char* r) {
          const std::int64_t s = get_i64(r, js);
          return in_range(s) && ok_bits.test(static_cast<std::uint64_t>(s));
        },
        [&](const Rows& sorted) {
          write_rows(w.jobs.get(), w.jtype.get(), w.j_rows, sorted, 0, sorted.n, shown, "jobs");
        });
  }
  ins.clear();  // close the inputs (resume and finalize replace one of them)

  meta.format_version = static_cast<int>(kFormatVersion);
  meta.num_scenarios = w.s_rows;
  switch (mode) {
    case Rebuild::Resume:
      meta.layout = layout;
      meta.complete = false;
      break;
    case Rebuild::Finalize: {
      // complete = every scenario of this file has a metrics or errors row.
      std::uint64_t covered = 0;
      for (std::uint64_t id = 0; id < total; ++id)
        if (scen_bits.test(id) && done_bits.test(id)) ++covered;
      meta.complete = covered == scen_bits.count();
      break;
    }
    case Rebuild::Merge:
      meta.shard = "";
      meta.complete = total > 0 && done_bits.count() == total;
      break;
  }
  finish_new(w, meta, mode == Rebuild::Resume, shown);
  if (rows_out) *rows_out = rows;
  return w;
}

}  // namespace h5

void merge_stores(const std::vector<std::string>& inputs, const std::string& output) {
  using namespace h5;
  Lock lock;
  if (inputs.empty()) throw InputError(output, 0, 0, "merge: no input files");
  if (util::path_exists(output)) throw InputError(output, 0, 0, "output file exists (remove it first)");
  for (const auto& in : inputs) (void)open_input(in);  // every input problem before creating anything
  produce(output + ".merge-tmp", output, /*must_not_exist=*/true, /*keep_open=*/false,
          [&](const std::string& tmp) { return rebuild(inputs, tmp, output, Rebuild::Merge, "", nullptr); });
}

}  // namespace geopipe::sweep
