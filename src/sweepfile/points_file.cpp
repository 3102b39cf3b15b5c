// The points-file design of a sweep file (sweepfile/design.h; docs/sweep-format.md,
// "Sampling designs"): the points of a CSV file, so that any outside tool (SALib, a notebook,
// Dakota) can choose them.
//
//   [sweep]
//   design = "points_file"
//   [points_file]
//   path = "points.csv"     # relative to the sweep file's directory
//
// The CSV (the syntax of util/csv_read.h, shared with workload traces: RFC 4180, a BOM skipped,
// # comment lines) has a header of parameter paths and one point per row; a cell is a number
// (util::parse_decimal), true/false, a TOML value ([1, 2]), a quoted cell a string, or else a
// string. Every error points into the CSV (file:line:col).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "config/input_file.h"
#include "sweepfile/design.h"
#include "config/toml_text.h"
#include "util/csv_read.h"

namespace geopipe::config::sweep_internal {
namespace {

namespace fs = std::filesystem;

/// One field of the CSV: its text (unquoted), whether it was quoted, and where it starts.
struct Cell {
  std::string text;
  bool quoted = false;
  Pos pos;
};

/// The records of the CSV in the one syntax of geopipe's CSV readers (util/csv_read.h).
std::vector<std::vector<Cell>> parse_csv(const std::string& text, const std::string& path) {
  std::vector<std::vector<Cell>> rows;
  for (util::CsvRecord& rec : util::read_csv(text, path)) {
    std::vector<Cell> row;
    for (util::CsvCell& c : rec.cells) row.push_back(Cell{std::move(c.text), c.quoted, Pos{c.line, c.column}});
    rows.push_back(std::move(row));
  }
  return rows;
}

/// A cell as the value of an override: numbers and booleans as such, a quoted cell or any other
/// text as a string, unless it is a TOML array or inline table.
Value value_of(const Cell& c, const std::string& path) {
  Value v;
  v.pos = c.pos;
  v.origin = path;
  if (!c.quoted) {
    const std::string& t = c.text;
    if (const std::optional<double> d = util::parse_decimal(t)) {  // the one number syntax (util/csv_read.h)
      const bool integer = t.find_first_not_of("+-0123456789") == std::string::npos;
      if (integer && std::fabs(*d) >= 9.2e18)
        throw InputError(path, c.pos.line, c.pos.column, "'" + t + "' is too large for an integer (expected at most 2^63 - 1)");
      v.text = integer ? std::to_string(std::strtoll(t.c_str(), nullptr, 10)) : float_text(*d);
      v.number = *d;
      v.numeric = true;
      return v;
    }
    if (t == "true" || t == "false" || (!t.empty() && (t.front() == '[' || t.front() == '{'))) {
      v.text = t;
      return v;
    }
  }
  v.text = toml_quote(c.text);
  return v;
}

class PointsFileDesign final : public SweepDesign {
 public:
  PointsFileDesign(const SweepFile& file, const toml::table& root);

  std::uint64_t num_points() const override { return rows_.size(); }
  double approx_points() const override { return static_cast<double>(rows_.size()); }
  std::vector<Entry> probes() const override;
  void materialise(SweepSpec& spec) const override;
  std::string hint_for(const InputError&) const override { return ""; }

 private:
  const SweepFile& file_;
  std::string csv_path_;
  std::string csv_text_;
  std::vector<Cell> header_;
  std::vector<std::vector<Value>> rows_;
};

PointsFileDesign::PointsFileDesign(const SweepFile& file, const toml::table& root) : file_(file) {
  const toml::table* t = design_table(file_, root, "points_file", {"path"}, "a [points_file] table (expected path = \"points.csv\")");
  const toml::node* p = t->get("path");
  if (!p) file_.fail(pos_of(*t), "points_file: missing 'path' (expected the CSV file of points)");
  if (!p->is_string() || p->as_string()->get().empty())
    file_.fail(*p, "points_file.path: expected a non-empty string (a CSV file), got " + type_of(*p));
  const fs::path given(p->as_string()->get());
  csv_path_ = given.is_absolute() ? given.string() : (fs::path(file_.path()).parent_path() / given).lexically_normal().string();
  if (auto why = read_input_file(csv_path_, kMaxTraceBytes, csv_text_))
    file_.fail(*p, "cannot open points file '" + given.string() + "' (resolved to '" + csv_path_ + "'): " + *why +
                       " (relative paths are resolved against the sweep file's directory)");
  std::vector<std::vector<Cell>> rows = parse_csv(csv_text_, csv_path_);
  if (rows.empty()) throw InputError(csv_path_, 1, 1, "empty points file (expected a header of parameter paths and one point per row)");
  header_ = std::move(rows.front());
  std::map<std::string, int> seen;
  for (std::size_t k = 0; k < header_.size(); ++k) {
    const Cell& h = header_[k];
    if (h.text.empty())
      throw InputError(csv_path_, h.pos.line, h.pos.column, "empty column name (expected a parameter path in every header cell)");
    if (!seen.emplace(h.text, h.pos.column).second)
      throw InputError(csv_path_, h.pos.line, h.pos.column,
                       "column '" + h.text + "' repeats column " + std::to_string(seen[h.text]) +
                           " (expected each parameter once)");
  }
  if (rows.size() < 2)
    throw InputError(csv_path_, 2, 1, "no points (expected one row per point after the header)");
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const std::vector<Cell>& row = rows[r];
    if (row.size() != header_.size()) {
      const Pos at = row.size() > header_.size() ? row[header_.size()].pos : row.back().pos;
      throw InputError(csv_path_, at.line, at.column,
                       "row has " + std::to_string(row.size()) + " cells, the header " + std::to_string(header_.size()) +
                           " (expected one value per column)");
    }
    std::vector<Value> values;
    for (const Cell& c : row) {
      if (c.text.empty() && !c.quoted)
        throw InputError(csv_path_, c.pos.line, c.pos.column, "empty value (expected a value in every cell)");
      values.push_back(value_of(c, csv_path_));
    }
    rows_.push_back(std::move(values));
  }
}

std::vector<Entry> PointsFileDesign::probes() const {
  std::vector<Entry> out;
  for (std::size_t k = 0; k < header_.size(); ++k) {  // the first row's value, at the header cell
    Value v = rows_.front()[k];
    v.pos = header_[k].pos;
    out.push_back(Entry{header_[k].text, std::move(v)});
  }
  return out;
}

void PointsFileDesign::materialise(SweepSpec& spec) const {
  const std::size_t first = spec.columns.size();
  for (std::size_t k = 0; k < header_.size(); ++k) {
    bool numeric = true;
    for (const auto& row : rows_) numeric = numeric && row[k].numeric;
    spec.columns.push_back(SweepColumn{header_[k].text, numeric});
  }
  const std::size_t ncol = spec.columns.size();
  spec.design_text = csv_text_;
  spec.design_paths.push_back(csv_path_);
  spec.points.listed.reserve(spec.points.listed.size() + rows_.size());
  for (const auto& row : rows_) {
    SweepPoint p;
    p.numeric.assign(ncol, std::numeric_limits<double>::quiet_NaN());
    p.text.assign(ncol, "");
    for (std::size_t k = 0; k < row.size(); ++k) {
      p.overrides.push_back(file_.override_of(header_[k].text, row[k]));
      p.numeric[first + k] = row[k].numeric ? row[k].number : std::numeric_limits<double>::quiet_NaN();
      p.text[first + k] = row[k].text;
    }
    spec.points.listed.push_back(std::move(p));
  }
}

}  // namespace

std::unique_ptr<SweepDesign> parse_points_file_design(const SweepFile& file, const toml::table& root) {
  return std::make_unique<PointsFileDesign>(file, root);
}

}  // namespace geopipe::config::sweep_internal
