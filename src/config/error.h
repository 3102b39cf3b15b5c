// Error helpers of the config layer that do not depend on toml++: "did you mean" suggestions
// and list formatting. (The toml++-specific helpers are in config/toml_error.h, which only
// src/config and src/sweepfile include.)
//
// Every bad input is reported as geopipe::InputError ("file:line:col: what is wrong
// (expected ...)"), declared in util/input_error.h.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/input_error.h"

namespace geopipe::config {

/// Levenshtein distance (insertions, deletions, substitutions all cost 1), ASCII
/// case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` if its edit distance is <= max(1, word.size() / 3); ties go
/// to the earliest candidate. An exact (case-insensitive) match is returned too.
std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" or "" when nothing is close enough.
std::string suggestion_suffix(std::string_view word, const std::vector<std::string>& candidates);

/// "'a', 'b', 'c'" (at most `max_items` items, then ", ...").
std::string quoted_list(const std::vector<std::string>& items, std::size_t max_items = 20);

/// Shortest decimal text that reads back to the same double ("0.1", "-1", "1e+20", "nan").
std::string format_number(double v);

}  // namespace geopipe::config
