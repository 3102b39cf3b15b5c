// Whole result files of the store (sweep/h5store.h): metadata, crash-safe production and
// opening for reading. Internal to src/sweep: only the h5*.cpp files of the store include it.
//
// Owns: the root attributes (StoreMeta <-> file; format_version), the way a file reaches its
// final path (written at "<path>.<what>-tmp", fsync'ed and renamed over the destination:
// produce()), the Writer (an open file being written with its tables and types; open_new
// creates the tables, finish_new writes the metadata and starts SWMR), and opening an
// existing file for reading (open_for_read copes with a killed writer's status flags;
// open_input opens and checks every table for copying). Single tables are in h5_table.h.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "sweep/h5_error.h"
#include "sweep/h5_table.h"
#include "sweep/h5store.h"

namespace geopipe::sweep::h5 {

/// Version of the layout this build writes (docs/hdf5-format.md, "Format versions"). Files of
/// older versions can be read (summarize, Python) but not resumed or merged.
/// 1: the first release; 2: /metrics gains sched_truncated_searches, /jobs gains
/// first_iteration_s, carbon_g and cross_region_bytes.
constexpr std::int64_t kFormatVersion = 2;

// ---------------------------------------------------------------------------------------------
// Metadata (root attributes)
// ---------------------------------------------------------------------------------------------

/// Writes every StoreMeta field as a root attribute (format_version = kFormatVersion).
void write_meta(hid_t file, const StoreMeta& m, const std::string& path);
/// Reads the root attributes; InputError if the file is not a geopipe result file or was
/// written by a newer format_version.
StoreMeta read_meta(hid_t file, const std::string& path);

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// An open result file being written.
struct Writer {
  Hid file;  // declared first: destroyed last
  Hid scen, metrics, errors, jobs;
  Hid stype, mtype, etype, jtype;
  hsize_t s_rows = 0, m_rows = 0, e_rows = 0, j_rows = 0;

  /// Closes the datasets, then the file, reporting a failure of the final write.
  void close(const std::string& path);
};

/// Creates `fpath` (truncating the placeholder) with empty tables. `shown` names it in messages.
Writer open_new(const std::string& fpath, const std::string& shown, const Layout& scen_layout,
                std::uint64_t scen_rows, bool has_jobs);

/// Writes the root attributes; with `swmr`, switches to SWMR-write mode (nothing can be created
/// or changed in the file's structure afterwards). Flushes.
void finish_new(Writer& w, const StoreMeta& meta, bool swmr, const std::string& shown);

/// Builds a new file at `tmp` with build(tmp) -> Writer, then renames it over `path`. Closes it
/// first unless `keep_open`. On any failure removes tmp and rethrows: `path` is untouched.
Writer produce(const std::string& tmp, const std::string& path, bool must_not_exist, bool keep_open,
               const std::function<Writer(const std::string&)>& build);

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// Attempts to read a metadata block whose checksum fails, when reading in SWMR mode (HDF5's
/// default, 100, with its doubling back-off sleeps, never ends on a damaged file; 20 attempts
/// sleep at most ~1 ms per block).
constexpr unsigned kMetadataReadAttempts = 20;

/// Opens an existing file for reading, also one whose writer was killed (see h5_file.cpp).
/// Bounded in time on a damaged file.
Hid open_for_read(const std::string& path);

/// Opens /name; a missing table is not_geopipe if `required`, else an invalid Hid.
Hid open_table(hid_t file, const char* name, const std::string& path, bool required = true);

/// An existing result file opened for copying its rows.
struct Input {
  std::string path;
  Hid file;
  StoreMeta meta;
  Layout scen_layout;
  Hid scen, metrics, errors, jobs;
  hsize_t n_scen = 0, n_metrics = 0, n_errors = 0, n_jobs = 0;
};

/// Opens `path` and checks its metadata and tables (/jobs is optional).
Input open_input(const std::string& path);

}  // namespace geopipe::sweep::h5
