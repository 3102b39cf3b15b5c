// A sweep from the command line (sweepfile/quick_sweep.h).
#include "sweepfile/quick_sweep.h"

#include <filesystem>
#include <sstream>

#include <toml++/toml.h>

#include "config/toml_text.h"
#include "util/input_error.h"

namespace geopipe::config {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

/// `text` as the TOML value it spells (2, 0.5, true, [1, 2]) or else as a quoted string.
std::string value_text(const std::string& text) {
  try {
    const toml::table t = toml::parse("x = " + text);
    const toml::node* n = t.get("x");
    if (n && t.size() == 1 && (n->is_number() || n->is_boolean() || n->is_array())) return text;
  } catch (const toml::parse_error&) {
  }
  return toml_quote(text);
}

}  // namespace

std::string quick_sweep_text(const QuickSweep& q) {
  std::ostringstream os;
  std::string cmd = q.command;  // "geopipe sweep --base ...": the marker is its start
  if (cmd.rfind("geopipe sweep", 0) != 0) cmd = "geopipe sweep " + cmd;
  os << "# Written by: " << cmd << "\n# (geopipe sweep THIS_FILE -o OUT.h5 runs the same sweep)\n";
  const std::string stem = std::filesystem::path(q.base).stem().string();
  os << "[sweep]\nname = " << toml_quote(q.name.empty() ? stem + "-sweep" : q.name) << "\n";
  os << "base = " << toml_quote(q.base) << "\n";
  if (q.schedulers == "all") {
    os << "schedulers = \"all\"\n";
  } else {
    os << "schedulers = [";
    const auto names = split(q.schedulers, ',');
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i].empty())
        throw InputError("--schedulers", 0, 0, "empty name in '" + q.schedulers + "' (expected a,b,... or all)");
      os << (i ? ", " : "") << toml_quote(names[i]);
    }
    os << "]\n";
  }
  os << "seeds = " << value_text(q.seeds) << "\n";
  if (!q.sets.empty()) {
    os << "\n[sweep.set]\n";
    for (const std::string& kv : q.sets) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
        throw InputError("--set", 0, 0, "'" + kv + "': expected PARAM=VALUE (e.g. workload.num_jobs=50)");
      os << toml_quote(kv.substr(0, eq)) << " = " << value_text(kv.substr(eq + 1)) << "\n";
    }
  }
  for (const std::string& a : q.axes) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--axis", 0, 0, "'" + a + "': expected PARAM=V1,V2,... (e.g. network.bandwidth_scale=0.5,1,2)");
    const std::string param = a.substr(0, eq);
    const auto values = split(a.substr(eq + 1), ',');
    os << "\n[[axis]]\nparam = " << toml_quote(param) << "\nvalues = [";
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i].empty())
        throw InputError("--axis", 0, 0, "'" + a + "': an empty value (expected PARAM=V1,V2,... without empty entries)");
      os << (i ? ", " : "") << value_text(values[i]);
    }
    os << "]\n";
  }
  if (q.axes.empty()) os << "\n[[point]]                # no --axis: the base scenario alone\n";
  return os.str();
}

}  // namespace geopipe::config
