// --format helios (alias acme): the job logs of SenseTime's Helios (Venus, Earth, Saturn,
// Uranus) and Acme (Seren, Kalos) clusters (docs/trace-import.md, "Formats"):
// job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue,
// Acme adding type,gpu_time and Kalos fail_time. Columns are matched by name; the run time is
// `duration`, or end_time - start_time in a file without it.
#include "traceimport/format_reader.h"
#include "util/input_error.h"

namespace geopipe::traceimport::detail {
namespace {

class HeliosReader final : public FormatReader {
 public:
  HeliosReader(std::string path, const std::vector<std::string>& states) : path_(std::move(path)), states_(states) {}

  std::size_t header(const util::CsvRecord& rec) override {
    const Columns c(rec, path_, "helios",
                    {"job_id", "user", "vc", "gpu_num", "cpu_num", "node_num", "state", "submit_time", "start_time", "end_time",
                     "duration", "queue", "type", "gpu_time", "fail_time"},
                    {"gpu_num", "state", "submit_time"});
    gpus_ = c.at("gpu_num");
    state_ = c.at("state");
    submit_ = c.at("submit_time");
    duration_ = c.find("duration");
    start_ = c.find("start_time");
    end_ = c.find("end_time");
    if (duration_ < 0 && (start_ < 0 || end_ < 0))
      throw InputError(path_, rec.line, 1,
                       std::string("missing column '") + (start_ < 0 ? "start_time" : "end_time") +
                           "' (--format helios takes the run time from 'duration', or from 'start_time' and 'end_time')");
    return c.count();
  }

  bool row(const util::CsvRecord& rec, RowFields& out) const override {
    const auto& cells = rec.cells;
    if (!states_.keeps(cells[state_].text)) return false;
    out.submit_cell = &cells[submit_];
    out.submit_s = time_cell(cells[submit_], path_, "submit_time");
    out.gpus = count_cell(cells[gpus_], path_, "gpu_num", kMaxRowGpus);
    out.fractional_gpu = false;
    if (duration_ >= 0) {
      const util::CsvCell& d = cells[static_cast<std::size_t>(duration_)];
      out.run_cell = &d;
      out.run_s = seconds_cell(d, path_, "duration");
    } else {
      const util::CsvCell& s = cells[static_cast<std::size_t>(start_)];
      const util::CsvCell& e = cells[static_cast<std::size_t>(end_)];
      out.run_cell = &e;
      out.run_s = time_cell(e, path_, "end_time") - time_cell(s, path_, "start_time");
    }
    return true;
  }

 private:
  std::string path_;
  StateFilter states_;
  std::size_t gpus_ = 0, state_ = 0, submit_ = 0;
  int duration_ = -1, start_ = -1, end_ = -1;
};

}  // namespace

std::unique_ptr<FormatReader> make_helios_reader(const std::string& path, const std::vector<std::string>& states) {
  return std::make_unique<HeliosReader>(path, states);
}

}  // namespace geopipe::traceimport::detail
