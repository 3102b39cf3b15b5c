// geopipe analyze sobol|morris|oat: sensitivity indices of a sampling design's result file
// (report/analyze.h), printed as a table, CSV (RFC 4180) or JSON (docs/analysis.md).
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/flags.h"
#include "report/analyze.h"
#include "util/csv.h"
#include "util/input_error.h"

namespace geopipe::cli {
namespace {

using sweep::AnalyzeReport;

using util::csv_field;
using util::csv_number;

/// A number for JSON: null for NaN.
using Json = nlohmann::ordered_json;  // keys in the order written

Json json_number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

struct Column {
  const char* name;
  const std::vector<double>* values;
};

std::vector<Column> columns_of(const AnalyzeReport& r) {
  const std::string& m = r.options.method;
  if (m == "sobol")
    return {{"S1", &r.sobol.S1}, {"S1_conf", &r.sobol.S1_conf}, {"ST", &r.sobol.ST}, {"ST_conf", &r.sobol.ST_conf}};
  if (m == "morris")
    return {{"mu", &r.morris.mu}, {"mu_star", &r.morris.mu_star}, {"sigma", &r.morris.sigma}, {"mu_star_conf", &r.morris.mu_star_conf}};
  return {};
}

/// OAT effects as columns.
struct OatColumns {
  std::vector<double> levels, y_min, y_max, range;
  explicit OatColumns(const AnalyzeReport& r) {
    for (const auto& e : r.oat) {
      levels.push_back(static_cast<double>(e.levels));
      y_min.push_back(e.y_min);
      y_max.push_back(e.y_max);
      range.push_back(e.range);
    }
  }
  std::vector<Column> columns() const { return {{"levels", &levels}, {"y_min", &y_min}, {"y_max", &y_max}, {"range", &range}}; }
};

/// The line that replaces the indices when y does not vary.
std::string constant_text(const AnalyzeReport& r) {
  return fmt::format("{} is {:.6g} at every one of the {} points: no factor moves it, so there are no indices "
                     "(each would divide by Var(y) = 0)",
                     r.quantity, r.constant_value, r.points);
}

std::string noise_text(const AnalyzeReport& r) {
  const auto& n = r.noise;
  const std::string u = r.unit.empty() ? "" : " " + r.unit;
  if (std::isnan(n.rms_standard_error))
    return "seed noise: not measured (" + std::string(n.seeds_min == 1 ? "one seed per point" : "a point has one seed") +
           "; use seeds >= 2 to see whether it swamps the indices)";
  const std::string seeds =
      n.seeds_min == n.seeds_max ? std::to_string(n.seeds_min) : fmt::format("{}-{}", n.seeds_min, n.seeds_max);
  std::string s = fmt::format("seed noise: standard error of a point's mean over {} seeds = {:.4g}{} (rms)", seeds,
                              n.rms_standard_error, u);
  if (!std::isnan(n.point_standard_error))
    s += fmt::format(", {:.4g}{} without the part common to all points (the same seeds everywhere)", n.point_standard_error, u);
  s += fmt::format("; sd of y over points = {:.4g}{}: seed noise explains {:.2f}% of Var(y)", std::sqrt(n.variance), u,
                   100 * n.share());
  if (n.share() > 0.25) s += " -- more than a quarter: use more seeds before trusting these indices";
  return s;
}

/// The flag on results that leave unfinished jobs out (only with --allow-unfinished).
std::string unfinished_text(const AnalyzeReport& r) {
  return fmt::format(
      "WARNING: {} scenario{} left jobs unfinished: their {} is a value over the jobs that completed or ran, not over "
      "every job (analysed because of --allow-unfinished; docs/analysis.md, \"Unfinished jobs\")",
      r.unfinished_scenarios, r.unfinished_scenarios == 1 ? "" : "s", r.options.metric);
}

void print_table(const AnalyzeReport& r, std::ostream& os) {
  const auto& o = r.options;
  if (r.unfinished_scenarios > 0) os << unfinished_text(r) << "\n";
  os << "analyze " << o.method << ": " << r.quantity << (r.unit.empty() ? "" : " [" + r.unit + "]")
     << ", mean over the seeds of each point\n";
  os << fmt::format("{}: {} points, {} factors", o.file, r.points, r.factors.size());
  if (r.constant) {
    os << "\n" << constant_text(r) << "\n";
    return;
  }
  if (o.method == "sobol")
    os << fmt::format(" ({} samples x {}{})", r.sobol.samples, r.points / std::max<std::size_t>(r.sobol.samples, 1),
                      r.second_order ? ", with second order" : "");
  if (o.method == "morris") os << fmt::format(" ({} trajectories)", r.morris.trajectories);
  if (o.method != "oat")
    os << fmt::format("; conf = half-width of the {:g}% CI from {} bootstrap resamples", 100 * o.bootstrap.confidence,
                      o.bootstrap.resamples);
  os << "\n";
  std::size_t w = 6;
  for (const auto& f : r.factors) w = std::max(w, f.size());
  OatColumns oc(r);
  const std::vector<Column> cols = o.method == "oat" ? oc.columns() : columns_of(r);
  os << fmt::format("{:<{}}", "factor", w);
  for (const auto& c : cols) os << fmt::format(" {:>12}", c.name);
  os << "\n";
  for (std::size_t j = 0; j < r.factors.size(); ++j) {
    os << fmt::format("{:<{}}", r.factors[j], w);
    for (const auto& c : cols) os << fmt::format(" {:>12.4g}", (*c.values)[j]);
    os << "\n";
  }
  if (o.method == "oat") os << fmt::format("base point: y = {:.6g}\n", r.base_value);
  if (r.second_order) {
    os << "second order:\n" << fmt::format("{:<{}} {:<{}} {:>12} {:>12}\n", "factor_a", w, "factor_b", w, "S2", "S2_conf");
    const std::size_t d = r.factors.size();
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = a + 1; b < d; ++b)
        os << fmt::format("{:<{}} {:<{}} {:>12.4g} {:>12.4g}\n", r.factors[a], w, r.factors[b], w, r.sobol.S2[a * d + b],
                          r.sobol.S2_conf[a * d + b]);
  }
  os << noise_text(r) << "\n";
}

void print_csv(const AnalyzeReport& r, std::ostream& os) {
  if (r.constant) {  // no indices: the header, and each factor with empty cells
    std::cerr << "geopipe: " << constant_text(r) << "\n";
  }
  OatColumns oc(r);
  const std::vector<Column> cols = r.options.method == "oat" ? oc.columns() : columns_of(r);
  os << "factor";
  if (r.second_order) os << ",factor_b";
  for (const auto& c : cols) os << "," << c.name;
  if (r.second_order) os << ",S2,S2_conf";
  os << "\r\n";
  const std::size_t d = r.factors.size();
  for (std::size_t j = 0; j < d; ++j) {
    os << csv_field(r.factors[j]);
    if (r.second_order) os << ",";
    for (const auto& c : cols) os << "," << (r.constant ? std::string() : csv_number((*c.values)[j]));
    if (r.second_order) os << ",,";
    os << "\r\n";
  }
  if (r.second_order)
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = a + 1; b < d; ++b) {
        os << csv_field(r.factors[a]) << "," << csv_field(r.factors[b]);
        for (std::size_t k = 0; k < cols.size(); ++k) os << ",";
        os << "," << csv_number(r.sobol.S2[a * d + b]) << "," << csv_number(r.sobol.S2_conf[a * d + b]) << "\r\n";
      }
}

void print_json(const AnalyzeReport& r, std::ostream& os) {
  const auto& o = r.options;
  Json j;
  j["analysis"] = o.method;
  j["file"] = o.file;
  j["metric"] = o.metric;
  j["scheduler"] = o.scheduler;
  j["paired_vs"] = o.paired_vs.empty() ? Json(nullptr) : Json(o.paired_vs);
  j["quantity"] = r.quantity;
  j["unit"] = r.unit;
  j["points"] = r.points;
  j["unfinished_scenarios"] = r.unfinished_scenarios;
  j["constant"] = r.constant;
  if (r.constant) {
    j["constant_value"] = json_number(r.constant_value);
    j["note"] = constant_text(r);
    j["factors"] = Json::array();
    for (const auto& f : r.factors) j["factors"].push_back({{"factor", f}});
    os << j.dump(2) << "\n";
    return;
  }
  if (o.method != "oat") {
    j["resamples"] = o.bootstrap.resamples;
    j["confidence"] = o.bootstrap.confidence;
  }
  if (o.method == "sobol") {
    j["samples"] = r.sobol.samples;
    j["second_order"] = r.second_order;
    j["variance"] = json_number(r.sobol.variance);
  }
  if (o.method == "morris") j["trajectories"] = r.morris.trajectories;
  if (o.method == "oat") j["base_value"] = json_number(r.base_value);
  j["seed_noise"] = {{"seeds_min", r.noise.seeds_min},
                     {"seeds_max", r.noise.seeds_max},
                     {"rms_standard_error", json_number(r.noise.rms_standard_error)},
                     {"point_standard_error", json_number(r.noise.point_standard_error)},
                     {"variance", json_number(r.noise.variance)},
                     {"share", json_number(r.noise.share())}};
  OatColumns oc(r);
  const std::vector<Column> cols = o.method == "oat" ? oc.columns() : columns_of(r);
  Json factors = Json::array();
  for (std::size_t k = 0; k < r.factors.size(); ++k) {
    Json f = {{"factor", r.factors[k]}};
    for (const auto& c : cols) {
      const double v = (*c.values)[k];
      f[c.name] = std::string(c.name) == "levels" ? Json(static_cast<std::uint64_t>(v)) : json_number(v);
    }
    factors.push_back(std::move(f));
  }
  j["factors"] = std::move(factors);
  if (r.second_order) {
    Json s2 = Json::array();
    const std::size_t d = r.factors.size();
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = a + 1; b < d; ++b)
        s2.push_back({{"factor_a", r.factors[a]},
                      {"factor_b", r.factors[b]},
                      {"S2", json_number(r.sobol.S2[a * d + b])},
                      {"S2_conf", json_number(r.sobol.S2_conf[a * d + b])}});
    j["S2"] = std::move(s2);
  }
  os << j.dump(2) << "\n";
}

}  // namespace

void add_analyze_command(CLI::App& app, int& rc) {
  struct Args {
    sweep::AnalyzeOptions o;
    std::string format = "table", resamples, confidence, seed;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "analyze", "Sensitivity indices (Sobol', Morris, one-at-a-time) of a sampling design's result file, with bootstrap CIs");
  cmd->add_option("method", a->o.method, "sobol, morris or oat (the sweep's design)")->required();
  cmd->add_option("file", a->o.file, "Result file (HDF5) of a design = \"sobol\" / \"morris\" / \"oat\" sweep")->required();
  cmd->add_option("--metric", a->o.metric, "The metric (default avg_jct_s; value for a [test_function] file; `geopipe list metrics`)");
  cmd->add_option("--scheduler", a->o.scheduler, "The scheduler analysed (default: the file's first)");
  cmd->add_option("--paired-vs", a->o.paired_vs,
                  "Analyse the paired change scheduler / this baseline - 1 (per point and seed) instead of the metric");
  cmd->add_option("--resamples", a->resamples, "Bootstrap resamples (default 1000; 0: no CIs)");
  cmd->add_option("--confidence", a->confidence, "CI level in (0, 1) (default 0.95)");
  cmd->add_option("--seed", a->seed, "Seed of the bootstrap (default 1)");
  cmd->add_option("--format", a->format, "table (default), csv or json");
  cmd->add_flag("--allow-unfinished", a->o.allow_unfinished,
                "Analyse results whose scenarios left jobs unfinished (model version 1 files) instead of refusing them; "
                "they are flagged");
  cmd->callback([a, cmd, &rc] {
    rc = guarded([&] {
      reject_empty_values(*cmd);
      auto& o = a->o;
      static const std::vector<std::string> methods = {"sobol", "morris", "oat"};
      if (std::find(methods.begin(), methods.end(), o.method) == methods.end())
        throw InputError("method", 0, 0, "unknown analysis '" + o.method + "' (expected sobol, morris or oat)");
      if (a->format != "table" && a->format != "csv" && a->format != "json")
        throw InputError("--format", 0, 0, "unknown format '" + a->format + "' (expected table, csv or json)");
      if (!a->resamples.empty()) o.bootstrap.resamples = parse_unsigned_flag("--resamples", a->resamples, 0, 1'000'000);
      if (!a->seed.empty()) o.bootstrap.seed = parse_unsigned_flag("--seed", a->seed, 0, UINT64_MAX);
      if (!a->confidence.empty()) {
        std::size_t used = 0;
        double c = 0;
        try {
          c = std::stod(a->confidence, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != a->confidence.size() || !(c > 0 && c < 1))
          throw InputError("--confidence", 0, 0, "expected a level in (0, 1) such as 0.95, got '" + a->confidence + "'");
        o.bootstrap.confidence = c;
      }
      const sweep::AnalyzeReport r = sweep::analyze(o);
      if (r.unfinished_scenarios > 0 && a->format != "table") std::cerr << "geopipe: " << unfinished_text(r) << "\n";
      if (a->format == "csv") print_csv(r, std::cout);
      else if (a->format == "json") print_json(r, std::cout);
      else print_table(r, std::cout);
      return kExitOk;
    });
  });
}

}  // namespace geopipe::cli
