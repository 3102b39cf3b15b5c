// The grid design of a sweep file (sweepfile/design.h): the cartesian product of the [[axis]]
// entries and [[zip]] groups, in file order with the last one varying fastest, followed by the
// explicit [[point]] entries. A file with none of them has one point: the base scenario.
#include "sweepfile/design.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "sweepfile/members.h"

namespace geopipe::config::sweep_internal {
namespace {

/// One dimension of the product: a single [[axis]], or a [[zip]] group.
struct Dim {
  std::vector<Member> members;
  Pos pos;
  std::size_t size() const { return members.front().values.size(); }
};

class GridDesign final : public SweepDesign {
 public:
  GridDesign(const SweepFile& file, const toml::table& root);

  std::uint64_t num_points() const override;
  double approx_points() const override;
  std::vector<Entry> probes() const override;
  void materialise(SweepSpec& spec) const override;
  std::string hint_for(const InputError& e) const override;

 private:
  const SweepFile& file_;
  std::vector<Dim> dims_;                      ///< [[axis]] and [[zip]] in file order
  std::vector<std::vector<Entry>> points_;     ///< [[point]] entries

  Dim parse_zip(const toml::table& z, const std::string& zname) const;
  void check_swept_once() const;
  /// Product of the dimension sizes, saturated at kMaxScenarios (0 without dimensions).
  std::uint64_t product() const;
};

GridDesign::GridDesign(const SweepFile& file, const toml::table& root) : file_(file) {
  std::vector<const toml::table*> axes, zips, points;
  file_.array_of_tables(root, "axis", axes);
  file_.array_of_tables(root, "zip", zips);
  file_.array_of_tables(root, "point", points);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    Dim d;
    d.members.push_back(parse_member(file_, *axes[i], "axis[" + std::to_string(i) + "]", false));
    d.pos = pos_of(*axes[i]);
    dims_.push_back(std::move(d));
  }
  for (std::size_t i = 0; i < zips.size(); ++i) dims_.push_back(parse_zip(*zips[i], "zip[" + std::to_string(i) + "]"));
  std::stable_sort(dims_.begin(), dims_.end(), [](const Dim& a, const Dim& b) {
    return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.column < b.pos.column;
  });
  check_swept_once();
  for (std::size_t i = 0; i < points.size(); ++i)
    points_.push_back(file_.parse_entries(*points[i], "point[" + std::to_string(i) + "]"));
}

Dim GridDesign::parse_zip(const toml::table& z, const std::string& zname) const {
  file_.check_keys(z, {"axis"}, "in [[zip]]", "a [[zip]] holds only [[zip.axis]] entries");
  const toml::node* an = z.get("axis");
  if (!an)
    file_.fail(z, zname + ": [[zip]] needs at least one [[zip.axis]] entry (expected [[zip.axis]] with param and values)");
  const toml::array* aa = an->as_array();
  if (!aa)
    file_.fail(*an, zname + ".axis: expected an array of tables [[zip.axis]], got " + type_of(*an) +
                        (an->is_table() ? " (write [[zip.axis]], not [zip.axis])" : ""));
  if (aa->empty()) file_.fail(*an, zname + ".axis: empty (expected at least one [[zip.axis]] entry)");
  Dim d;
  d.pos = pos_of(z);
  for (std::size_t j = 0; j < aa->size(); ++j) {
    const toml::node& e = *aa->get(j);
    const std::string mname = zname + ".axis[" + std::to_string(j) + "]";
    if (!e.is_table()) file_.fail(e, mname + ": expected a table, got " + type_of(e));
    Member m = parse_member(file_, *e.as_table(), mname, true);
    for (const Member& prev : d.members)
      if (prev.param == m.param)
        file_.fail(m.param_pos, mname + ".param: '" + m.param + "' appears twice in this [[zip]] (first as " +
                                    prev.name + ")");
    if (!d.members.empty() && m.values.size() != d.size()) {
      const Member& first = d.members.front();
      file_.fail(m.data_pos, mname + " ('" + m.param + "') has " + std::to_string(m.values.size()) +
                                 (m.values.size() == 1 ? " value" : " values") + " but " + first.name + " ('" +
                                 first.param + "') has " + std::to_string(first.values.size()) +
                                 " (expected all members of a [[zip]] to have the same number of values)");
    }
    d.members.push_back(std::move(m));
  }
  return d;
}

/// A parameter may be swept by one dimension only.
void GridDesign::check_swept_once() const {
  std::map<std::string, const Member*> owner;
  for (const Dim& d : dims_)
    for (const Member& m : d.members) {
      auto [it, fresh] = owner.emplace(m.param, &m);
      if (!fresh)
        file_.fail(m.param_pos, m.name + ".param: '" + m.param + "' is already swept by " + it->second->name +
                                    " (line " + std::to_string(it->second->param_pos.line) +
                                    "; expected each parameter in one [[axis]] or [[zip]] only, use a [[zip]] to "
                                    "vary parameters together)");
    }
}

std::uint64_t GridDesign::product() const {
  std::uint64_t product = dims_.empty() ? 0 : 1;
  for (const Dim& d : dims_) product = saturating_mul(product, d.size());
  return product;
}

std::uint64_t GridDesign::num_points() const {
  if (dims_.empty() && points_.empty()) return 1;
  return std::min(kMaxScenarios, product() + points_.size());
}

double GridDesign::approx_points() const {
  double approx = dims_.empty() ? 0 : 1;
  for (const Dim& d : dims_) approx *= static_cast<double>(d.size());
  return approx + static_cast<double>(points_.size());
}

std::vector<Entry> GridDesign::probes() const {
  std::vector<Entry> out;
  for (const Dim& d : dims_)
    for (const Member& m : d.members) {  // the first value, reported at `param`
      Value v;
      v.text = m.values.front().text;
      v.pos = m.param_pos;
      out.push_back(Entry{m.param, std::move(v)});
    }
  for (const auto& pt : points_) out.insert(out.end(), pt.begin(), pt.end());
  return out;
}

void GridDesign::materialise(SweepSpec& spec) const {
  // Columns: swept parameters in order of first appearance.
  std::map<std::string, std::size_t> col;
  auto column = [&](const std::string& param, bool numeric) {
    auto [it, fresh] = col.emplace(param, spec.columns.size());
    if (fresh) spec.columns.push_back(SweepColumn{param, numeric});
    else spec.columns[it->second].numeric = spec.columns[it->second].numeric && numeric;
  };
  for (const Dim& d : dims_)
    for (const Member& m : d.members) {
      bool numeric = true;
      for (const Value& v : m.values) numeric = numeric && v.numeric;
      column(m.param, numeric);
    }
  for (const auto& pt : points_)
    for (const Entry& e : pt) column(e.path, e.value.numeric);

  if (dims_.empty() && points_.empty()) {
    spec.points.listed.push_back(SweepPoint{{}, {}, {}});
    return;
  }
  const std::size_t ncol = spec.columns.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto cell = [&](const std::string& param, const Value& v) {
    return SweepGrid::Cell{col.at(param), file_.override_of(param, v), v.numeric ? v.number : nan, v.text};
  };
  // The product is generated on demand (SweepGrid): one level per value of each dimension.
  for (const Dim& d : dims_) {
    std::vector<SweepGrid::Level> levels(d.size());
    for (std::size_t k = 0; k < d.size(); ++k)
      for (const Member& m : d.members) levels[k].push_back(cell(m.param, m.values[k]));
    spec.points.grid.factors.push_back(std::move(levels));
  }
  for (const auto& pt : points_) {
    SweepPoint p;
    p.numeric.assign(ncol, nan);
    p.text.assign(ncol, "");
    for (const Entry& e : pt) {
      const SweepGrid::Cell c = cell(e.path, e.value);
      p.overrides.push_back(c.override);
      p.numeric[c.column] = c.numeric;
      p.text[c.column] = c.text;
    }
    spec.points.listed.push_back(std::move(p));
  }
}

std::string GridDesign::hint_for(const InputError& e) const {
  // A range of floats given to an integer parameter: suggest rounding.
  for (const Dim& d : dims_)
    for (const Member& m : d.members)
      if (m.from_range && !m.integer && e.line() == m.data_pos.line && e.column() == m.data_pos.column &&
          e.message().find("expected an integer") != std::string::npos)
        return " (add integer = true to " + m.name + " to round range values)";
  return "";
}

}  // namespace

std::unique_ptr<SweepDesign> parse_grid_design(const SweepFile& file, const toml::table& root) {
  return std::make_unique<GridDesign>(file, root);
}

}  // namespace geopipe::config::sweep_internal
