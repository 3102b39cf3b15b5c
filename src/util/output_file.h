// The one way geopipe writes a file that is not an HDF5 result (docs/design.md, "Outputs"):
// per-job CSVs, timelines, generated sweep files. (HDF5 result files have their own crash-safe
// path with the same rules: results/hdf5/store.h.)
//
// Rules, for every such output:
//  * an input is never overwritten: the path must not name an input *file* (same device and
//    inode, so links, `./x` and other spellings count), nor may the temporary file beside it;
//  * a directory, FIFO, device or socket at the path is refused;
//  * the content goes to a temporary file beside the target ("PATH.tmp.PID", created
//    exclusively, never through a symbolic link) and is renamed over the target only when it
//    was written whole (flushed, fsynced, closed): readers see the old file or the new one;
//  * on any failure (a full disk: ENOSPC; a file-size limit: EFBIG, since main() ignores
//    SIGXFSZ) the temporary file is removed and InputError says what and why; so it is when
//    the object is destroyed uncommitted (an exception elsewhere), and when the process is
//    ended by SIGINT, SIGTERM or SIGHUP while it exists (a handler removes the temporary files
//    still open, then the signal takes its default action).
// Not thread-safe: one thread writes one OutputFile.
#pragma once

#include <ostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace geopipe::util {

/// Refuses an output path (InputError whose file part is `flag`, e.g. "--jobs-csv"): empty; an
/// input of `inputs` (by identity; empty entries are skipped); not a regular file; a symbolic
/// link at the temporary path. `what` names the output in messages ("the per-job CSV").
void check_output_path(const std::string& path, const std::vector<std::string>& inputs, std::string_view flag,
                       std::string_view what);

/// Can `path` be written (its temporary file created in its directory)? Creates and removes the
/// temporary file; InputError naming the reason (a missing or read-only directory) otherwise.
/// For commands that compute for a while before they write: they fail at once instead.
void check_can_create(const std::string& path, std::string_view flag, std::string_view what);

class OutputFile {
 public:
  /// check_output_path(), then creates the temporary file. InputError if it cannot.
  OutputFile(std::string path, const std::vector<std::string>& inputs, std::string flag, std::string what);
  ~OutputFile();  ///< uncommitted: the temporary file is removed, the target untouched
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// A stream onto the temporary file (buffered; a write error is kept and reported by commit()).
  std::ostream& stream();
  void write(std::string_view s) { stream() << s; }
  /// Writes everything out, fsyncs, closes and renames the temporary file over the target.
  /// InputError (the temporary file removed, the target untouched) if any write failed.
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return tmp_; }

 private:
  class Buf;
  std::string path_, tmp_, flag_, what_;
  int fd_ = -1;
  std::unique_ptr<Buf> buf_;
  std::unique_ptr<std::ostream> os_;
  bool committed_ = false;
  int slot_ = -1;  ///< in the signal handler's table of temporary files
  [[noreturn]] void fail(const std::string& doing, int err);
};

}  // namespace geopipe::util
