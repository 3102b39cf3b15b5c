// Lookup by name in a table of named entries (the built-in GPUs and models, the scheduler
// presets, the metrics, a result table's columns, ...), and the table's names for error messages
// ("expected one of ..." lists and did-you-mean suggestions).
//
// A table is any forward range of entries held by the caller (usually a std::vector, often a
// function-local static); an entry's name is what `proj` returns for it (by default its `name`
// member; a member pointer such as &Field::name or any callable works too) and must convert to
// std::string_view: std::string, std::string_view or a non-null const char*. Names are compared
// exactly (case-sensitive, byte for byte); the first match in table order wins. Header-only, no
// allocation except the returned names; thread-safe for tables nobody modifies.
#pragma once

#include <functional>
#include <ranges>
#include <string>
#include <string_view>
#include <vector>

namespace geopipe::util {

/// The default projection: an entry's `name` member.
struct NameMember {
  template <class Entry>
  constexpr const auto& operator()(const Entry& e) const noexcept {
    return e.name;
  }
};

/// The first entry of `table` whose name is `name`, or nullptr. The pointer is into `table`.
template <std::ranges::forward_range Table, class Proj = NameMember>
const std::ranges::range_value_t<Table>* find_named(const Table& table, std::string_view name, Proj proj = {}) {
  for (const auto& e : table)
    if (std::string_view(std::invoke(proj, e)) == name) return &e;
  return nullptr;
}

/// The position of the first entry of `table` whose name is `name`, or -1 (for tables indexed by
/// int, as a scenario's regions, GPU types and models are).
template <std::ranges::forward_range Table, class Proj = NameMember>
int index_of_named(const Table& table, std::string_view name, Proj proj = {}) {
  int i = 0;
  for (const auto& e : table) {
    if (std::string_view(std::invoke(proj, e)) == name) return i;
    ++i;
  }
  return -1;
}

/// The names of `table`'s entries, in table order.
template <std::ranges::forward_range Table, class Proj = NameMember>
std::vector<std::string> names_of(const Table& table, Proj proj = {}) {
  std::vector<std::string> out;
  for (const auto& e : table) out.emplace_back(std::string_view(std::invoke(proj, e)));
  return out;
}

/// The names of `table`'s entries in table order, unquoted, separated by `sep`: "a, b, c"
/// ("" for an empty table).
template <std::ranges::forward_range Table, class Proj = NameMember>
std::string joined_names(const Table& table, std::string_view sep = ", ", Proj proj = {}) {
  std::string out;
  bool first = true;
  for (const auto& e : table) {
    if (!first) out += sep;
    out += std::string_view(std::invoke(proj, e));
    first = false;
  }
  return out;
}

}  // namespace geopipe::util
