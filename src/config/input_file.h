// Reading an input file whole, bounded in time and memory: the one reader of every file geopipe
// reads as input, each caller giving its kind's size limit (the files and their limits are listed
// in docs/limits.md, "Input files"). Plain C++ over POSIX; no toml++.
//
// Only a regular file (or a symbolic link to one) is read. The path is checked with stat(),
// then opened with O_RDONLY | O_NONBLOCK | O_CLOEXEC (so a FIFO that appears in between never
// blocks) and checked again with fstat() on the open descriptor (so what is read is what was
// checked). A file larger than the limit is refused before reading, and at most limit + 1 bytes
// are ever read (a file that grows while it is read is refused too).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace geopipe::config {

/// Largest CSV trace (workload.trace) accepted: 256 MiB. TOML files: kMaxTomlBytes
/// (config/toml_limits.h).
inline constexpr std::size_t kMaxTraceBytes = std::size_t{256} << 20;

/// Reads the regular file at `path` into `out` (replacing its content). Returns nothing on
/// success, else why it could not, as a phrase that follows "cannot read FILE: ":
///   "no such file", "it is a directory", "it is not a regular file (a FIFO)" (or a character
///   device, a block device, a socket), "it is 1073741824 bytes (expected at most 16 MiB)",
///   "the path contains a control character (expected a file name)", or strerror() of the
///   failing call ("Permission denied").
std::optional<std::string> read_input_file(const std::string& path, std::size_t limit, std::string& out);

/// `limit` as text: "16 MiB", "256 MiB", "1000 bytes".
std::string byte_limit_text(std::size_t limit);

}  // namespace geopipe::config
