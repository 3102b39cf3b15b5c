// Small wrappers over the operating system that several layers need: wall-clock timestamps
// for file metadata and existence checks for output paths. (Reading input files with size
// limits lives in the config layer, which owns input errors.)
#pragma once

#include <optional>
#include <string>

namespace geopipe::util {

/// The current UTC time as ISO 8601 with seconds, e.g. "2026-11-30T14:27:12Z".
std::string utc_now_iso8601();

/// Is standard output a terminal (not a file, a pipe or a Slurm log)?
bool stdout_is_terminal();

/// True if anything exists at `path`, a dangling symbolic link included (lstat), so that an
/// output path that is a link is never silently replaced.
bool path_exists(const std::string& path);

/// True if both paths exist and name the same file (same device and inode, so links and
/// different spellings of one path count): an output must never overwrite an input.
bool same_file(const std::string& a, const std::string& b);

/// For a stat() mode that is not a regular file: "it is a directory", "it is not a regular file
/// (a FIFO)" (or a character device, a block device, a socket, a special file).
std::string non_regular_phrase(unsigned mode);

/// Why the existing `path` is not a regular file (non_regular_phrase), or nothing when it is one
/// or does not exist; links are followed. HDF5 opens a FIFO blockingly and --force would
/// remove a device node, so every result file path is checked with this first.
std::optional<std::string> not_a_regular_file(const std::string& path);

}  // namespace geopipe::util
