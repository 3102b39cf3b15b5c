// --format alibaba-2023: the pod lists of Alibaba's 2023 GPU-sharing trace
// (cluster-trace-gpu-v2023, openb_pod_list_*.csv; docs/trace-import.md, "Formats"):
// name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,
// deletion_time,scheduled_time, times in seconds since the trace's start. A pod is submitted
// at creation_time and runs from scheduled_time to deletion_time; gpu_milli is the share of
// each of its num_gpu GPUs (1000 = a whole GPU).
#include "traceimport/format_reader.h"

namespace geopipe::traceimport::detail {
namespace {

constexpr double kWholeGpuMilli = 1000;

class Alibaba2023Reader final : public FormatReader {
 public:
  Alibaba2023Reader(std::string path, const std::vector<std::string>& states) : path_(std::move(path)), states_(states) {}

  std::size_t header(const util::CsvRecord& rec) override {
    const Columns c(rec, path_, "alibaba-2023",
                    {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos", "pod_phase", "creation_time",
                     "deletion_time", "scheduled_time"},
                    {"num_gpu", "gpu_milli", "pod_phase", "creation_time", "deletion_time", "scheduled_time"});
    gpus_ = c.at("num_gpu");
    milli_ = c.at("gpu_milli");
    phase_ = c.at("pod_phase");
    created_ = c.at("creation_time");
    deleted_ = c.at("deletion_time");
    scheduled_ = c.at("scheduled_time");
    return c.count();
  }

  bool row(const util::CsvRecord& rec, RowFields& out) const override {
    const auto& cells = rec.cells;
    if (!states_.keeps(cells[phase_].text)) return false;  // a Pending pod has no scheduled_time: never read
    out.submit_cell = &cells[created_];
    out.submit_s = time_cell(cells[created_], path_, "creation_time");
    out.gpus = count_cell(cells[gpus_], path_, "num_gpu", kMaxRowGpus);
    const double milli = count_cell(cells[milli_], path_, "gpu_milli", kWholeGpuMilli);
    out.fractional_gpu = out.gpus > 0 && milli < kWholeGpuMilli;
    out.run_cell = &cells[deleted_];
    out.run_s = time_cell(cells[deleted_], path_, "deletion_time") - time_cell(cells[scheduled_], path_, "scheduled_time");
    return true;
  }

 private:
  std::string path_;
  StateFilter states_;
  std::size_t gpus_ = 0, milli_ = 0, phase_ = 0, created_ = 0, deleted_ = 0, scheduled_ = 0;
};

}  // namespace

std::unique_ptr<FormatReader> make_alibaba2023_reader(const std::string& path, const std::vector<std::string>& states) {
  return std::make_unique<Alibaba2023Reader>(path, states);
}

}  // namespace geopipe::traceimport::detail
