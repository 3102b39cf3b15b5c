// merge_stores() (results/hdf5/store.h): joining result files by content.
//
// Files of one sweep (equal sweep_hash: shards, a file and its copy, an interrupted file and
// its resumed twin) are joined by id (rebuild(), Rebuild::Merge): ids and metadata stay those of
// the sweep. Files of different sweeps become a *collection* (docs/hdf5-format.md, "Merge"):
// one scenario per content key, numbered 0..n-1 in the order of the inputs, points numbered by
// point_key, the union of the axis columns. In both cases a scenario in more than one input is
// kept once, and its results must agree (else InputError naming it).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "config/toml_text.h"
#include "sim/model_version.h"
#include "results/hdf5/extend.h"
#include "results/hdf5/rebuild.h"
#include "util/hash.h"
#include "util/input_error.h"
#include "util/system.h"

namespace geopipe::sweep {
namespace h5 {
namespace {

/// Where the collection's parameters are: its /scenarios layout (the lead columns, text widths
/// the widest input's, then one column per parameter that varies: the inputs' axis columns in
/// order of first appearance, one per parameter however an input spelled it, then a column
/// named by its path for each parameter fixed in every input but not at the same value) and
/// its /parameters.
struct CollectionParams {
  Layout layout;
  std::vector<ParamRow> parameters;
  std::vector<std::string> column_path;  ///< per axis column of `layout`: the parameter's path
};

CollectionParams collection_params(const std::vector<Input>& ins) {
  CollectionParams out;
  std::size_t sched_w = kSchedulerWidth;
  struct Col {
    Field field;  // size = text width
    const std::string* first;
  };
  std::vector<Col> cols;
  std::map<std::string, std::size_t> col_of_path;  // parameter path -> cols index
  // Every parameter's value in each input ("" entry: not there), and whether some input sweeps it.
  std::map<std::string, std::vector<std::optional<std::string>>> values;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    const Input& in = ins[i];
    const Layout& sl = in.scen_layout;
    sched_w = std::max(sched_w, sl.at("scheduler").size);
    std::map<std::string, std::string> path_of_col;
    for (const ParamRow& p : in.parameters) {
      if (!p.column.empty()) path_of_col[p.column] = p.path;
      auto& v = values[p.path];
      v.resize(ins.size());
      if (p.column.empty()) v[i] = p.value;
    }
    for (std::size_t k = kScenarioLeadColumns; k < sl.fields.size(); ++k) {
      const Field& f = sl.fields[k];
      const auto pc = path_of_col.find(f.name);
      const std::string path = pc == path_of_col.end() ? f.name : pc->second;
      const auto [it, fresh] = col_of_path.try_emplace(path, cols.size());
      if (fresh) {
        cols.push_back({f, &in.path});
        continue;
      }
      Col& c = cols[it->second];
      if (c.field.kind != f.kind)
        throw InputError(in.path, 0, 0,
                         "parameter '" + path + "' (column '" + f.name + "') holds " +
                             (f.kind == Kind::F64 ? "numbers" : "text") + ", but " +
                             (c.field.kind == Kind::F64 ? "numbers" : "text") + " in '" + *c.first +
                             "' (expected one kind of value per parameter to join the files)");
      c.field.size = std::max(c.field.size, f.size);
    }
  }
  // Fixed in every input but not at one value: a column of its own.
  for (auto& [path, v] : values) {
    v.resize(ins.size());
    if (col_of_path.count(path)) continue;
    const bool same = std::all_of(v.begin(), v.end(), [&](const auto& x) { return x && *x == *v.front(); });
    if (same) {
      out.parameters.push_back({path, *v.front(), ""});
      continue;
    }
    const bool numeric = std::all_of(v.begin(), v.end(), [](const auto& x) { return x && !std::isnan(number_of(*x)); });
    Field f{path, numeric ? Kind::F64 : Kind::Str, kTextWidth, 0};
    for (const auto& x : v)
      if (x && !numeric) f.size = std::max(f.size, config::toml_unquote(*x).size());
    col_of_path.emplace(path, cols.size());
    cols.push_back({f, nullptr});
  }
  Layout& l = out.layout;
  l.add("id", Kind::I64).add("point", Kind::I64).add("seed", Kind::U64).add("scheduler", Kind::Str, sched_w);
  l.add("key", Kind::Str, kKeyWidth).add("point_key", Kind::Str, kKeyWidth);
  out.column_path.resize(cols.size());
  for (const auto& [path, k] : col_of_path) out.column_path[k] = path;
  for (std::size_t k = 0; k < cols.size(); ++k) {
    const Field& f = cols[k].field;
    if (l.find(f.name))
      throw InputError(cols[k].first ? *cols[k].first : ins.front().path, 0, 0,
                       "column '" + f.name + "' of two different parameters (expected one name per parameter)");
    l.add(f.name, f.kind, f.kind == Kind::Str ? f.size : 0);
    out.parameters.push_back({out.column_path[k], "", f.name});
  }
  std::sort(out.parameters.begin(), out.parameters.end(),
            [](const ParamRow& a, const ParamRow& b) { return a.path < b.path; });
  return out;
}

/// One sweep of a collection: its name and hash, the comment line that names it in the
/// collection's texts, and its sweep and base texts.
struct SweepPart {
  std::string name, hash, head, sweep_toml, base_toml;
};

constexpr std::string_view kHeadOpen = "# ==== sweep '";
constexpr std::string_view kHeadHash = "' (sweep_hash ";

/// FNV-1a 64 of "geopipe collection" and the sorted distinct hashes, each after a NUL byte.
std::string collection_hash(std::vector<std::string> hashes) {
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  std::uint64_t h = util::fnv1a64("geopipe collection");
  for (const auto& x : hashes) h = util::fnv1a64(x, util::fnv1a64(std::string_view("\0", 1), h));
  return util::hex16(h);
}

/// `text` split at its head lines (kHeadOpen ... ") ====\n"): (head, body) in order; nullopt
/// if it does not start with one.
std::optional<std::vector<std::pair<std::string, std::string>>> split_at_heads(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const bool head = std::string_view(text).substr(at).starts_with(kHeadOpen);
    const std::size_t eol = text.find('\n', at);
    const std::size_t next = eol == std::string::npos ? text.size() : eol + 1;
    const std::string_view line(text.data() + at, next - at);
    if (head && line.ends_with(") ====\n")) {
      out.emplace_back(std::string(line), std::string());
    } else {
      if (out.empty()) return std::nullopt;
      out.back().second.append(line);
    }
    at = next;
  }
  return out;
}

/// The sweeps of input `in`: itself, or, for a collection whose texts split into sweeps whose
/// hashes give its own sweep_hash, those sweeps (so that merging a collection with one of its
/// own inputs names each sweep once). A collection whose texts do not split so (a sweep text
/// that holds a line like a head) stays one part, as it was merged.
std::vector<SweepPart> sweep_parts(const Input& in) {
  const StoreMeta& m = in.meta;
  std::vector<SweepPart> whole{{m.sweep_name, m.sweep_hash,
                                "# ==== sweep '" + m.sweep_name + "' (sweep_hash " + m.sweep_hash + ", from " +
                                    in.path + ") ====\n",
                                m.sweep_toml, m.base_toml}};
  if (!m.collection) return whole;
  const auto sw = split_at_heads(m.sweep_toml), base = split_at_heads(m.base_toml);
  if (!sw || !base || sw->size() != base->size() || sw->empty()) return whole;
  std::vector<SweepPart> parts;
  std::vector<std::string> hashes;
  for (std::size_t k = 0; k < sw->size(); ++k) {
    const std::string& head = (*sw)[k].first;
    if (head != (*base)[k].first) return whole;
    const std::size_t h = head.rfind(kHeadHash);
    if (h == std::string::npos || h < kHeadOpen.size()) return whole;
    const std::string hash = head.substr(h + kHeadHash.size(), 16);
    if (hash.size() != 16 || head.compare(h + kHeadHash.size() + 16, 2, ", ") != 0) return whole;
    parts.push_back({head.substr(kHeadOpen.size(), h - kHeadOpen.size()), hash, head, (*sw)[k].second,
                     (*base)[k].second});
    hashes.push_back(hash);
  }
  if (collection_hash(hashes) != m.sweep_hash) return whole;
  return parts;
}

/// The collection's metadata: the first input's, with the union of schedulers and axes, the
/// sweep files and bases of every distinct sweep (in order, each under a comment line naming
/// it; an input collection's sweeps one by one) and a sweep_hash of the set of sweeps.
StoreMeta collection_meta(const std::vector<Input>& ins, const Layout& l) {
  StoreMeta m = ins.front().meta;
  m.format_version = static_cast<int>(kFormatVersion);
  m.model_version = kModelVersion;
  m.collection = true;
  m.design = "";  // the inputs' designs differ; a collection has no /design
  m.shard = "";
  m.layout = "";
  m.schedulers.clear();
  m.axes.clear();
  for (std::size_t k = kScenarioLeadColumns; k < l.fields.size(); ++k) m.axes.push_back(l.fields[k].name);
  std::vector<std::string> hashes, names;
  m.sweep_toml.clear();
  m.base_toml.clear();
  for (const Input& in : ins) {
    for (const auto& s : in.meta.schedulers)
      if (std::find(m.schedulers.begin(), m.schedulers.end(), s) == m.schedulers.end()) m.schedulers.push_back(s);
    for (const SweepPart& p : sweep_parts(in)) {
      if (std::find(hashes.begin(), hashes.end(), p.hash) != hashes.end()) continue;
      hashes.push_back(p.hash);
      if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
      m.sweep_toml += p.head + p.sweep_toml + (p.sweep_toml.ends_with('\n') ? "" : "\n");
      m.base_toml += p.head + p.base_toml + (p.base_toml.ends_with('\n') ? "" : "\n");
    }
  }
  m.sweep_name.clear();
  for (const auto& n : names) m.sweep_name += (m.sweep_name.empty() ? "" : " + ") + n;
  m.sweep_hash = collection_hash(std::move(hashes));
  return m;
}

/// Where the result of one scenario of the collection comes from, and whom it must agree with.
struct Provider {
  std::int32_t input = -1;  ///< -1: no input has a result for it
  std::int64_t old_id = -1;
};

/// A scenario that has a result in more than one input: its result must be the provider's.
struct Check {
  std::int64_t old_id;  ///< in the checking input
  std::int64_t new_id;
};

/// Digest of every result row of `in` whose id `wanted` maps (to a slot): calls got(slot,
/// digest, row, is_metrics).
template <class Wanted, class Got>
void result_digests(const Input& in, Wanted wanted, Got got) {
  const Layout& ml = metrics_layout();
  const Layout& el = errors_layout();
  Hid mt = make_type(ml, in.path), et = make_type(el, in.path);
  const Field& mid = ml.at("id");
  const Field& mst = ml.at("status");
  const Field& eid = el.at("id");
  // A row of an older format is compared as its readers see it: the columns its format lacks
  // filled (fill_columns_since), not left at 0.
  std::vector<unsigned char> filled;
  each_row(in.metrics.get(), mt.get(), ml.size, in.n_metrics, in.path, "metrics", [&](const unsigned char* r) {
    if (get_i64(r, mst) != 1) return;
    const auto slot = wanted(get_i64(r, mid));
    if (!slot) return;
    if (in.metrics_format < static_cast<int>(kFormatVersion)) {
      filled.assign(r, r + ml.size);
      fill_columns_since(filled.data(), ml, in.metrics_format, in.evaluator());
      r = filled.data();
    }
    got(*slot, metrics_digest(r), r, true);
  });
  each_row(in.errors.get(), et.get(), el.size, in.n_errors, in.path, "errors", [&](const unsigned char* r) {
    if (get_i64(r, eid) < 0) return;
    if (const auto slot = wanted(get_i64(r, eid))) got(*slot, error_digest(r), r, false);
  });
}

/// A result row as the conflict message shows it.
struct Shown {
  bool metrics = false;
  std::vector<unsigned char> row;
};

/// The differing part of two results.
std::string difference(const Shown& a, const Shown& b) {
  if (a.metrics && b.metrics) return metrics_difference(a.row.data(), b.row.data());
  const Field& msg = errors_layout().at("message");
  if (!a.metrics && !b.metrics) return "error '" + get_str(a.row.data(), msg) + "' vs '" + get_str(b.row.data(), msg) + "'";
  return a.metrics ? "metrics vs error '" + get_str(b.row.data(), msg) + "'"
                   : "error '" + get_str(a.row.data(), msg) + "' vs metrics";
}

/// Writes at `tmp` (a closed file, rows in input order) the collection of `paths`; fills `sum`.
void collect(const std::vector<std::string>& paths, const std::string& tmp, const std::string& shown,
             MergeSummary& sum) {
  std::vector<Input> ins;
  for (const auto& p : paths) ins.push_back(open_input(p));
  const CollectionParams cp = collection_params(ins);
  const Layout& l = cp.layout;
  StoreMeta meta = collection_meta(ins, l);
  std::optional<JobTextBytes> jobs;
  std::uint64_t rows_in = 0;
  for (const Input& in : ins) {
    if (in.jobs.valid()) jobs = job_text_of(in.jobs_layout).max_with(jobs.value_or(JobTextBytes{}));
    rows_in += in.n_scen;
  }
  Writer w = open_new(tmp, shown, l, rows_in, jobs);

  // /scenarios, in input order, one per key; who provides each result, who must agree.
  std::unordered_map<config::ContentKey, std::int64_t, ContentKeyHash> new_id;
  std::unordered_map<std::string, std::int64_t> point_of;  // point_key -> point
  std::vector<Provider> provider;
  // Per output scenario: the last input it was seen in and in how many inputs (a design may hold
  // one scenario at several ids of one file: that is a repeat, not a scenario of two files).
  std::vector<std::int32_t> last_input;
  std::vector<std::uint32_t> files_of;
  std::vector<IdPairs> pairs(ins.size());
  std::vector<std::vector<Check>> checks(ins.size());
  Rows out(l.size);
  const Rows fill = fill_row(l);
  const Field &o_id = l.at("id"), &o_point = l.at("point"), &o_seed = l.at("seed"), &o_sched = l.at("scheduler"),
              &o_key = l.at("key"), &o_pkey = l.at("point_key");
  for (std::size_t i = 0; i < ins.size(); ++i) {
    const Input& in = ins[i];
    const Layout& sl = in.scen_layout;
    const Field &s_id = sl.at("id"), &s_seed = sl.at("seed"), &s_sched = sl.at("scheduler"), &s_key = sl.at("key"),
                &s_pkey = sl.at("point_key");
    // Each output axis column: from this input's column for the parameter, else its fixed
    // value in this input (NaN / "" if it has none).
    struct Source {
      const Field* out;
      const Field* in;   // this input's column, or nullptr
      double number;     // else this
      std::string text;  // or this
    };
    std::map<std::string, const ParamRow*> param_of;
    for (const ParamRow& p : in.parameters) param_of[p.path] = &p;
    std::vector<Source> axes;
    for (std::size_t k = kScenarioLeadColumns; k < l.fields.size(); ++k) {
      const std::string& path = cp.column_path[k - kScenarioLeadColumns];
      const auto p = param_of.find(path);
      Source src{&l.fields[k], nullptr, std::numeric_limits<double>::quiet_NaN(), ""};
      if (p != param_of.end() && !p->second->column.empty()) src.in = sl.find(p->second->column);
      else if (p == param_of.end()) src.in = sl.find(l.fields[k].name);
      else {
        src.number = number_of(p->second->value);
        src.text = config::toml_unquote(p->second->value);
      }
      axes.push_back(std::move(src));
    }
    Hid mt = make_type(sl, in.path);
    each_row(in.scen.get(), mt.get(), sl.size, in.n_scen, in.path, "scenarios", [&](const unsigned char* r) {
      const std::string key_hex = get_str(r, s_key);
      const auto key = config::ContentKey::from_hex(key_hex);
      if (!key) throw InputError(in.path, 0, 0, "damaged result file: a scenario has the key '" + key_hex + "'");
      const std::int64_t old = get_i64(r, s_id);
      const bool done = std::binary_search(in.done_ids.begin(), in.done_ids.end(), old);
      auto [it, fresh] = new_id.try_emplace(*key, static_cast<std::int64_t>(provider.size()));
      const std::int64_t nid = it->second;
      if (fresh) {
        last_input.push_back(-1);
        files_of.push_back(0);
      }
      if (last_input[static_cast<std::size_t>(nid)] != static_cast<std::int32_t>(i)) {
        last_input[static_cast<std::size_t>(nid)] = static_cast<std::int32_t>(i);
        ++files_of[static_cast<std::size_t>(nid)];
      }
      if (fresh) {
        provider.emplace_back();
        const std::string pkey = get_str(r, s_pkey);
        const auto pt = point_of.try_emplace(pkey, static_cast<std::int64_t>(point_of.size())).first->second;
        unsigned char* o = out.add();
        std::memcpy(o, fill.row(0), l.size);
        put_i64(o, o_id, nid);
        put_i64(o, o_point, pt);
        put_u64(o, o_seed, static_cast<std::uint64_t>(get_i64(r, s_seed)));
        put_str(o, o_sched, get_str(r, s_sched));
        put_str(o, o_key, key_hex);
        put_str(o, o_pkey, pkey);
        for (const Source& a : axes) {
          if (a.out->kind == Kind::F64) put_f64(o, *a.out, a.in ? get_f64(r, *a.in) : a.number);
          else put_str(o, *a.out, a.in ? get_str(r, *a.in) : a.text);
        }
        if (out.n >= kScenarioChunk) {
          write_rows(w.scen.get(), w.stype.get(), w.s_rows, out, 0, out.n, shown, "scenarios");
          out.clear();
        }
      }
      if (!done) return;
      Provider& p = provider[static_cast<std::size_t>(nid)];
      if (p.input < 0) {
        p = Provider{static_cast<std::int32_t>(i), old};
        pairs[i].emplace_back(old, nid);
      } else {
        checks[i].push_back(Check{old, nid});
      }
    });
  }
  write_rows(w.scen.get(), w.stype.get(), w.s_rows, out, 0, out.n, shown, "scenarios");
  sum.scenarios = w.s_rows;
  std::uint64_t in_files = 0;  // scenario rows counted once per file
  for (const std::uint32_t n : files_of) {
    in_files += n;
    if (n > 1) ++sum.duplicates;
  }
  sum.repeats = rows_in - in_files;

  // The results, each from its provider.
  for (std::size_t i = 0; i < ins.size(); ++i) {
    std::sort(pairs[i].begin(), pairs[i].end());
    copy_remapped(ins[i], w, pairs[i], shown);
  }

  // Every further result of a scenario must be the provider's (compared by digest; the rows
  // are read again only to show a difference).
  struct Want {
    std::uint64_t digest = 0;
    bool have = false;
  };
  std::unordered_map<std::int64_t, Want> want;  // new id -> the provider's result
  for (const auto& c : checks)
    for (const Check& x : c) want.emplace(x.new_id, Want{});
  sum.checked = want.size();
  if (!want.empty()) {
    for (std::size_t i = 0; i < ins.size(); ++i)
      result_digests(
          ins[i],
          [&](std::int64_t old) -> std::optional<std::int64_t> {
            const auto it = std::lower_bound(pairs[i].begin(), pairs[i].end(),
                                             std::make_pair(old, std::numeric_limits<std::int64_t>::min()));
            if (it == pairs[i].end() || it->first != old || !want.count(it->second)) return std::nullopt;
            return it->second;
          },
          [&](std::int64_t nid, std::uint64_t d, const unsigned char*, bool) { want[nid] = Want{d, true}; });
    for (std::size_t i = 0; i < ins.size(); ++i) {
      if (checks[i].empty()) continue;
      std::sort(checks[i].begin(), checks[i].end(), [](const Check& a, const Check& b) { return a.old_id < b.old_id; });
      const auto find = [&](std::int64_t old) -> std::optional<std::int64_t> {
        const auto it = std::lower_bound(checks[i].begin(), checks[i].end(), old,
                                         [](const Check& c, std::int64_t v) { return c.old_id < v; });
        if (it == checks[i].end() || it->old_id != old) return std::nullopt;
        return it->new_id;
      };
      result_digests(ins[i], find, [&](std::int64_t nid, std::uint64_t d, const unsigned char* row, bool is_m) {
        const Want& x = want.at(nid);
        if (x.have && x.digest == d) return;
        // Show the difference: the provider's row, read again.
        const Provider& p = provider[static_cast<std::size_t>(nid)];
        const Input& pin = ins[static_cast<std::size_t>(p.input)];
        Shown a, b;
        b.metrics = is_m;
        b.row.assign(row, row + (is_m ? metrics_layout().size : errors_layout().size));
        result_digests(
            pin, [&](std::int64_t old) { return old == p.old_id ? std::optional<std::int64_t>(0) : std::nullopt; },
            [&](std::int64_t, std::uint64_t, const unsigned char* r, bool m) {
              a.metrics = m;
              a.row.assign(r, r + (m ? metrics_layout().size : errors_layout().size));
            });
        std::string key = "?";
        for (const auto& [k, id] : new_id)
          if (id == nid) key = k.hex();
        throw InputError(ins[i].path, 0, 0,
                         "the scenario with key " + key + " has a different result in '" + pin.path + "' (id " +
                             std::to_string(p.old_id) + "): " + difference(a, b) +
                             " (expected the same result for the same scenario: were the files written by builds "
                             "that simulate differently? otherwise this is a determinism bug)");
      });
    }
  }
  ins.clear();
  write_parameters(w, cp.parameters, shown);
  meta.num_scenarios = meta.total_scenarios = w.s_rows;
  finish_new(w, meta, /*swmr=*/false, shown);
  w.close(shown);
}

}  // namespace
}  // namespace h5

MergeSummary merge_stores(const std::vector<std::string>& inputs, const std::string& output) {
  using namespace h5;
  Lock lock;
  if (inputs.empty()) throw InputError(output, 0, 0, "merge: no input files");
  if (util::path_exists(output)) throw InputError(output, 0, 0, "output file exists (remove it first)");
  const OutputLock writer(output);  // one writer per output
  MergeSummary sum;
  sum.inputs = inputs.size();
  std::vector<std::string> hashes;
  std::uint64_t rows_in = 0;
  std::string evaluator;  // the first input's
  for (const auto& in : inputs) {  // every input problem first
    const Input i = open_input(in);
    require_current_version(i);
    if (evaluator.empty()) evaluator = i.meta.evaluator;
    if (i.meta.evaluator != evaluator)
      throw InputError(in, 0, 0,
                       "holds the results of a " + i.meta.evaluator + ", but '" + inputs.front() + "' those of a " +
                           evaluator + " (expected files of one kind to merge: their metrics differ)");
    if (std::find(hashes.begin(), hashes.end(), i.meta.sweep_hash) == hashes.end()) hashes.push_back(i.meta.sweep_hash);
    rows_in += i.n_scen;
  }
  sum.sweeps = hashes.size();
  if (hashes.size() == 1) {  // files of one sweep: joined by id
    produce(output + ".merge-tmp", output, /*must_not_exist=*/true, /*keep_open=*/false,
            [&](const std::string& tmp) {
              Writer w = rebuild(inputs, tmp, output, Rebuild::Merge, "", nullptr);
              sum.scenarios = w.s_rows;
              return w;
            });
    sum.duplicates = rows_in - sum.scenarios;
    return sum;
  }
  // A collection: written in input order, then sorted by the same rebuild.
  sum.collection = true;
  const std::string collected = output + ".collect-tmp";
  struct Remove {
    const std::string& path;
    ~Remove() { std::remove(path.c_str()); }
  } remove_collected{collected};
  CrashGuard::remove_on_crash(collected);
  collect(inputs, collected, output, sum);
  produce(output + ".merge-tmp", output, /*must_not_exist=*/true, /*keep_open=*/false,
          [&](const std::string& tmp) { return rebuild({collected}, tmp, output, Rebuild::Merge, "", nullptr); });
  CrashGuard::forget_on_crash(collected);
  return sum;
}

}  // namespace geopipe::sweep
