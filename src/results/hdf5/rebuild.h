// Rebuilding result files from their valid rows: what ResultStore::resume(), finalize() and
// merge_stores() (results/hdf5/store.h) write. Internal to src/results/hdf5: only the store's
// own files include it.
//
// Owns: copying the valid rows of one or more existing files into a new one, sorted by id and
// with bounded memory (a sweep can have millions of scenarios), and the metadata the new file
// gets in each mode. The caller owns the lock and the tmp+rename around it (produce() of
// results/hdf5/file.h); merge_stores() (results/hdf5/merge.cpp) uses it for files of one sweep and to sort a
// collection.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "results/hdf5/file.h"

namespace geopipe::sweep::h5 {

/// What a rebuild is for: the metadata of the new file depends on it.
///   Resume:   new `layout`, complete = 0, left in SWMR-write mode for appending
///   Finalize: complete = every scenario of the file has a metrics or errors row
///   Merge:    shard = "", complete = every scenario of the sweep has a row
///   Retire:   the rows set aside by an extension: shard = "" (a subset), complete as Finalize
enum class Rebuild { Resume, Finalize, Merge, Retire };

/// Writes at `tmp` a new file with the metadata of inputs[0] and every valid row of the inputs:
/// /scenarios merged by id (each input's is sorted), /metrics
/// (status 1, id a scenario of the file), /errors (id a scenario) and /jobs (scenario with a
/// metrics row) sorted by id / (scenario_id, job_id), one row per key. In Merge mode an id may
/// be in several inputs if its content key is the same, and its results must agree
/// (metrics_difference, the error message; InputError naming both files otherwise). Memory stays bounded.
/// `rows_out` = metrics + errors rows written. /jobs text columns are as wide as the widest
/// input's and at least `job_text` (a resumed sweep may write longer texts). With `keep`, only
/// the scenarios whose id it accepts are copied. The inputs are closed before it returns.
Writer rebuild(const std::vector<std::string>& inputs, const std::string& tmp, const std::string& shown,
               Rebuild mode, const std::string& layout, std::uint64_t* rows_out,
               const JobTextBytes& job_text = {}, const std::function<bool(std::int64_t)>& keep = {});

}  // namespace geopipe::sweep::h5
