// Strict parsing of command-line flag values. CLI11 converts "-1" to 2^64 - 1 for an unsigned
// option and accepts "nan" for a double; these parsers accept only what the flag documents and
// throw InputError("--flag", 0, 0, "'<value>' is not ... (expected ...)") otherwise (exit 2).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace geopipe::cli {

/// Largest accepted --threads: beyond it thread creation fails or the arena thrashes; a rank of
/// a bigger node is better split into several MPI ranks (docs/limits.md, "Resource flags").
inline constexpr std::uint64_t kMaxThreads = 1024;

/// Longest time accepted by interval flags: one day, in seconds.
inline constexpr double kMaxIntervalS = 86400.0;

/// A decimal integer in [lo, hi]: digits only (no sign, no spaces, no exponent).
std::uint64_t parse_unsigned_flag(std::string_view flag, const std::string& text, std::uint64_t lo, std::uint64_t hi);

/// A finite number of seconds in (0, max_s].
double parse_seconds_flag(std::string_view flag, const std::string& text, double max_s = kMaxIntervalS);

/// "K/N" with 0 <= K < N (both strict decimal integers) -> (K, N).
void parse_shard_flag(const std::string& text, std::uint64_t& k, std::uint64_t& n);

/// `text` itself, which must not be empty (names, paths): an empty value is never a default.
const std::string& nonempty_flag(std::string_view flag, const std::string& text, std::string_view expected);

/// Every option of `cmd` that was given a value was given a non-empty one: `--scheduler ''`,
/// `--jobs-csv ''` or `-o ''` is an error (InputError naming the option and what it takes),
/// never the option's default or "not given". Called first by every command.
void reject_empty_values(const CLI::App& cmd);

}  // namespace geopipe::cli
