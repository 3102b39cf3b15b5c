// --format philly: the derived Philly trace of Pollux/adaptdl's simulator (docs/trace-import.md,
// "Formats"): timestamp,duration,num_gpus,gpu_time,cluster, one finished job per row.
#include "traceimport/format_reader.h"

namespace geopipe::traceimport::detail {
namespace {

class PhillyReader final : public FormatReader {
 public:
  explicit PhillyReader(std::string path) : path_(std::move(path)) {}

  std::size_t header(const util::CsvRecord& rec) override {
    const Columns c(rec, path_, "philly", {"timestamp", "duration", "num_gpus", "gpu_time", "cluster"},
                    {"timestamp", "duration", "num_gpus"});
    timestamp_ = c.at("timestamp");
    duration_ = c.at("duration");
    gpus_ = c.at("num_gpus");
    return c.count();
  }

  // No state column: the derived trace lists finished jobs only.
  bool row(const util::CsvRecord& rec, RowFields& out) const override {
    const auto& cells = rec.cells;
    out.submit_cell = &cells[timestamp_];
    out.submit_s = time_cell(cells[timestamp_], path_, "timestamp");
    out.gpus = count_cell(cells[gpus_], path_, "num_gpus", kMaxRowGpus);
    out.fractional_gpu = false;
    out.run_cell = &cells[duration_];
    out.run_s = seconds_cell(cells[duration_], path_, "duration");
    return true;
  }

 private:
  std::string path_;
  std::size_t timestamp_ = 0, duration_ = 0, gpus_ = 0;
};

}  // namespace

std::unique_ptr<FormatReader> make_philly_reader(const std::string& path) { return std::make_unique<PhillyReader>(path); }

}  // namespace geopipe::traceimport::detail
