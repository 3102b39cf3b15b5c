// Content keys of scenarios (sweepfile/scenario_key.h; the canonical form is documented in
// docs/hdf5-format.md, "Scenario keys").
#include "sweepfile/scenario_key.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <cmath>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include <toml++/toml.h>

#include "config/input_file.h"
#include "config/overrides.h"
#include "config/schema.h"
#include "sweepfile/parse.h"
#include "config/toml_error.h"
#include "config/toml_text.h"
#include "util/hash.h"

namespace geopipe::config {
namespace {

using schema::Field;
using schema::Kind;
using schema::TableSpec;

/// SplitMix64's finaliser: every input bit affects every output bit.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Two independent 64-bit hashes of the same bytes: FNV-1a from two offset bases, each
// finalised by mix64.
constexpr std::uint64_t kLaneB = 0x84222325CBF29CE4ULL;
std::uint64_t lane_a(std::string_view s) { return mix64(util::fnv1a64(s)); }
std::uint64_t lane_b(std::string_view s) { return mix64(util::fnv1a64(s, kLaneB)); }

ContentDigest entry_digest(const std::string& path, const std::string& value) {
  std::string s;
  s.reserve(path.size() + value.size() + 1);
  s += path;
  s += '\0';
  s += value;
  return {lane_a(s), lane_b(s)};
}

void add(ContentDigest& d, const ContentDigest& e) {
  d.a += e.a;
  d.b += e.b;
}
void sub(ContentDigest& d, const ContentDigest& e) {
  d.a -= e.a;
  d.b -= e.b;
}

/// The shortest text that reads back as the same double.
std::string canonical_double(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

/// Any node as TOML text, marked: only for values validation rejects (kept distinct anyway).
std::string marked_text(const toml::node& n) {
  std::ostringstream os;
  n.visit([&](const auto& x) { os << x; });
  return "?" + os.str();
}

std::string canonical_number(const Field& f, const toml::node& n) {
  if (f.kind == Kind::kInt) {
    if (auto i = n.value<std::int64_t>()) return std::to_string(*i);
  } else if (auto d = n.value<double>()) {
    return canonical_double(*d);
  } else if (const auto* w = n.as_string(); w && f.accepts_word(w->get())) {
    return toml_quote(w->get());
  }
  return marked_text(n);
}

/// The canonical value of `text` for a number parameter without going through TOML, when the
/// text is a plain TOML number: -?(0|[1-9][0-9]*) for an integer, that followed by .digits
/// and/or an exponent for a float (what a sweep writes for its values). Exactly what
/// canonical_number() gives for the node TOML would parse; nullopt for any other text.
std::optional<std::string> plain_number(const Field& f, std::string_view text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - from;
  };
  if (i < text.size() && text[i] == '-') ++i;
  const std::size_t int_start = i;
  const std::size_t nint = digits();
  if (nint == 0 || (nint > 1 && text[int_start] == '0')) return std::nullopt;
  bool is_float = false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (digits() == 0) return std::nullopt;
    is_float = true;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return std::nullopt;
    is_float = true;
  }
  if (i != text.size()) return std::nullopt;
  if (!is_float) {
    std::int64_t v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;  // out of range: TOML's verdict
    return f.kind == Kind::kInt ? std::to_string(v) : canonical_double(static_cast<double>(v));
  }
  if (f.kind == Kind::kInt) return std::nullopt;  // a float for an integer parameter: TOML's verdict
  double d = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), d);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(d)) return std::nullopt;
  return canonical_double(d);
}

}  // namespace

std::string ContentDigest::hex() const { return util::hex16(a) + util::hex16(b); }

std::string ContentKey::hex() const { return util::hex16(hi) + util::hex16(lo); }

std::optional<ContentKey> ContentKey::from_hex(std::string_view text) {
  if (text.size() != 32) return std::nullopt;
  std::uint64_t part[2] = {0, 0};
  for (std::size_t i = 0; i < 32; ++i) {
    const char c = text[i];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return std::nullopt;
    part[i / 16] = part[i / 16] << 4 | static_cast<std::uint64_t>(d);
  }
  return ContentKey{part[0], part[1]};
}

PointKeyPrefix::PointKeyPrefix(const ContentDigest& point, int model_version) {
  std::string s = "geopipe scenario key";
  s += '\0';
  s += std::to_string(model_version);
  s += '\0';
  s += util::hex16(point.a) + util::hex16(point.b);
  s += '\0';
  a_ = util::fnv1a64(s);
  b_ = util::fnv1a64(s, kLaneB);
}

ContentKey PointKeyPrefix::key(std::uint64_t seed, std::string_view scheduler) const {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, seed);
  const std::string_view seed_text(buf, static_cast<std::size_t>(r.ptr - buf));
  const std::string_view nul("\0", 1);
  const std::uint64_t a = util::fnv1a64(scheduler, util::fnv1a64(nul, util::fnv1a64(seed_text, a_)));
  const std::uint64_t b = util::fnv1a64(scheduler, util::fnv1a64(nul, util::fnv1a64(seed_text, b_)));
  return {mix64(a), mix64(b)};
}

ContentKey scenario_key(const ContentDigest& point, std::uint64_t seed, const std::string& scheduler,
                        int model_version) {
  return PointKeyPrefix(point, model_version).key(seed, scheduler);
}

struct PointKeyer::Impl {
  std::string base_dir;
  toml::table doc;                                    ///< base + fixed; point overrides land here too
  std::map<std::string, std::string> entries;         ///< canonical form of base + fixed
  std::map<std::string, std::string> texts;           ///< TOML text of each entry of base + fixed
  ContentDigest base;                                 ///< digest of the keyed `entries`
  /// Paths of leaves added later (Field::keyed_only_when_set) -> their default's canonical value:
  /// an entry with that value is not part of the digest.
  std::map<std::string, std::string> unkeyed_default;

  bool keyed(const std::string& path, const std::string& value) const {
    const auto it = unkeyed_default.find(path);
    return it == unkeyed_default.end() || it->second != value;
  }
  std::unordered_map<std::string, OverrideTarget> targets;         ///< by override path
  std::unordered_map<std::string, std::string> values;             ///< by canonical path '\0' value text
  std::unordered_map<std::string, std::string> traces;             ///< file -> "csv:<bytes>:<fnv>"
  std::unordered_map<const Field*, std::string> defaults;          ///< default_of, by schema field

  /// A key naming a file (Field::names_file: workload.trace, the time series): the file's size
  /// and digest instead of its path.
  std::string trace_value(const std::string& given) {
    namespace fs = std::filesystem;
    const fs::path g(given);
    const std::string file =
        (g.is_absolute() || base_dir.empty() || base_dir == ".") ? given : (fs::path(base_dir) / g).lexically_normal().string();
    auto it = traces.find(file);
    if (it != traces.end()) return it->second;
    std::string text;
    std::string v;
    if (auto why = read_input_file(file, kMaxTraceBytes, text))
      v = "unreadable " + toml_quote(file);  // the scenario loader reports it
    else
      v = "csv:" + std::to_string(text.size()) + ":" + util::hex16(util::fnv1a64(text));
    return traces.emplace(file, v).first->second;
  }

  std::string value_of(const Field& f, const std::string& /*path*/, const toml::node& n) {
    switch (f.kind) {
      case Kind::kInt:
      case Kind::kFloat:
        return canonical_number(f, n);
      case Kind::kString: {
        const auto s = n.value<std::string>();
        if (!s) return marked_text(n);
        return f.names_file ? trace_value(*s) : toml_quote(*s);
      }
      case Kind::kFloatArray:
      case Kind::kStringArray: {
        const toml::array* a = n.as_array();
        if (!a) return marked_text(n);
        std::string out = "[";
        for (std::size_t i = 0; i < a->size(); ++i) {
          const toml::node& e = *a->get(i);
          out += i ? "," : "";
          if (f.kind == Kind::kFloatArray) {
            const auto d = e.value<double>();
            out += d ? canonical_double(*d) : marked_text(e);
          } else {
            const auto s = e.value<std::string>();
            out += s ? toml_quote(*s) : marked_text(e);
          }
        }
        return out + "]";
      }
      case Kind::kTable:
      case Kind::kTableArray:
        break;
    }
    return marked_text(n);
  }

  /// A default as documented: its TOML value when it is one, else the text ("none", "= x").
  /// Once per field: a field of a table array (every link, every region) has one default, and
  /// each toml::parse of a text that is not a value throws (~60k instructions each; 114 of the
  /// 179 parses of a six-region base before).
  const std::string& default_of(const Field& f, const std::string& path) {
    auto it = defaults.find(&f);
    if (it != defaults.end()) return it->second;
    std::optional<std::string> v;
    try {
      const toml::table t = toml::parse("x = " + f.default_text);
      if (const toml::node* n = t.get("x")) v = value_of(f, path, *n);
    } catch (const toml::parse_error&) {
    }
    if (!v) v = "default " + toml_quote(f.default_text);
    return defaults.emplace(&f, std::move(*v)).first->second;
  }

  void flatten(const TableSpec& spec, const toml::table* t, const std::string& prefix) {
    for (const Field& f : spec.fields) {
      const std::string path = prefix.empty() ? f.name : prefix + "." + f.name;
      const toml::node* n = t ? t->get(f.name) : nullptr;
      if (f.kind == Kind::kTable) {
        flatten(*f.table, n ? n->as_table() : nullptr, path);
      } else if (f.kind == Kind::kTableArray) {
        if (const toml::array* a = n ? n->as_array() : nullptr)
          for (std::size_t i = 0; i < a->size(); ++i)
            flatten(*f.table, a->get(i)->as_table(), path + "[" + std::to_string(i) + "]");
      } else {
        if (n) {
          entries[path] = value_of(f, path, *n);
          texts[path] = sweep_internal::toml_text(*n);  // as a sweep point's value text (sweepfile/parse.h)
        } else if (!f.default_text.empty()) {
          entries[path] = default_of(f, path);
          texts[path] = f.default_text;
        }
        if (f.keyed_only_when_set && !f.default_text.empty()) unkeyed_default[path] = default_of(f, path);
      }
    }
  }

  /// The canonical (path, value) of one point override; the value cached unless it is a plain
  /// number (a sampling design's values are mostly distinct: caching them would only cost).
  std::pair<const std::string*, std::string> resolve(const Override& o) {
    auto t = targets.find(o.path);
    if (t == targets.end()) t = targets.emplace(o.path, override_target(doc, o)).first;
    const OverrideTarget& tg = t->second;
    if (tg.field && (tg.field->kind == Kind::kFloat || tg.field->kind == Kind::kInt))
      if (auto v = plain_number(*tg.field, o.value)) return {&tg.path, std::move(*v)};
    std::string k = tg.path;
    k += '\0';
    k += o.value;
    auto v = values.find(k);
    if (v == values.end()) {
      apply_override(doc, o);  // types the value exactly as the scenario loader will see it
      const toml::node* n = tg.table->get(tg.key);
      v = values.emplace(std::move(k), n ? value_of(*tg.field, tg.path, *n) : std::string("?")).first;
    }
    return {&tg.path, v->second};
  }
};

PointKeyer::PointKeyer(const std::string& base_text, const std::string& base_path, const std::vector<Override>& fixed)
    : impl_(std::make_unique<Impl>()) {
  const std::string dir = std::filesystem::path(base_path).parent_path().string();
  impl_->base_dir = dir.empty() ? std::string(".") : dir;
  impl_->doc = parse_toml(base_text, base_path);
  apply_overrides(impl_->doc, fixed);
  impl_->flatten(schema::scenario_root(), &impl_->doc, "");
  for (const auto& [path, value] : impl_->entries)
    if (impl_->keyed(path, value)) add(impl_->base, entry_digest(path, value));
}

PointKeyer::~PointKeyer() = default;

ContentDigest PointKeyer::digest(const std::vector<Override>& overrides) {
  ContentDigest d = impl_->base;
  // A later override of the same parameter wins, as when the scenario is built.
  std::map<std::string_view, std::string> set;
  for (const Override& o : overrides) {
    auto [path, value] = impl_->resolve(o);
    set[*path] = std::move(value);
  }
  for (const auto& [path, value] : set) {
    const std::string p(path);
    if (auto it = impl_->entries.find(p); it != impl_->entries.end() && impl_->keyed(p, it->second))
      sub(d, entry_digest(p, it->second));
    if (impl_->keyed(p, value)) add(d, entry_digest(p, value));
  }
  return d;
}

std::vector<PointKeyer::Entry> PointKeyer::fixed_entries() const {
  std::vector<Entry> out;
  out.reserve(impl_->entries.size());
  for (const auto& [path, value] : impl_->entries) out.push_back({path, value, impl_->texts.at(path)});
  return out;
}

std::string PointKeyer::canonical_path(const Override& o) { return *impl_->resolve(o).first; }

std::vector<std::string> PointKeyer::canonical(const std::vector<Override>& overrides) {
  std::map<std::string, std::string> e = impl_->entries;
  for (const Override& o : overrides) {
    const auto [path, value] = impl_->resolve(o);
    e[*path] = value;
  }
  std::vector<std::string> out;
  for (const auto& [path, value] : e)
    if (impl_->keyed(path, value)) out.push_back(path + " = " + value);
  return out;
}

}  // namespace geopipe::config
