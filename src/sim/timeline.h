// The timeline of one run: what `geopipe run --timeline` draws (docs/timeline.md). The engine
// fills it only when SimOptions::record_timeline is set; otherwise no recorder exists and the
// run does exactly the work it does without this file. Recording only reads the engine's
// state: it never alters a decision or a result.
//
// A Timeline holds plain structs in SI units (s, bytes/s, USD/kWh); a job's own data (model,
// energy, cost, ...) is in its JobRecord (SimResult::jobs, SimOptions::record_jobs), which a
// slice names by job id. Writing a file (Chrome trace-event JSON) is the CLI's business
// (cli/timeline_json.h). Not thread-safe; one recorder per run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "model/topology.h"

namespace geopipe {

/// One job on one of the regions it uses: [start_s, finish_s] on lane `lane` of `region`.
/// Lanes exist because a region runs several jobs at once while slices on one viewer track must
/// nest: a job takes the lowest lane of the region that is free at its start (a lane freed at
/// time t can be taken again at t), so the slices of one lane never overlap.
struct TimelineSlice {
  int job = 0;
  int region = 0;
  int lane = 0;
  int stages = 0;         ///< stages of the job placed in this region
  double start_s = 0;
  double finish_s = -1;   ///< -1 until the job finishes (every started job finishes in a run)
  bool failed = false;    ///< the attempt ended in a failure at finish_s (the job started again later)
};

/// A moment of a job's life that is not a start or an end: a failure (an instant), a completed
/// checkpoint (of duration_s, ending at t_s); docs/model.md, "Failures and checkpoints".
struct TimelineMark {
  enum class Kind { kFailure, kCheckpoint, kEviction };
  double t_s = 0;
  int job = 0;
  Kind kind = Kind::kFailure;
  double duration_s = 0;
};

/// Sum of the max-min allocations of the flows on link direction from -> to.
struct TimelineLinkSample {
  double t_s = 0;
  int from = 0, to = 0;
  double allocated_bytes_per_s = 0;   ///< capacity − residual (sim/network.h), in [0, capacity]
};

struct TimelineBusySample {
  double t_s = 0;
  int region = 0;
  int busy_gpus = 0;                  ///< GPUs allocated to running jobs
};

struct TimelinePriceSample {
  double t_s = 0;
  int region = 0;
  double usd_per_kwh = 0;
};

struct TimelineQueueSample {
  double t_s = 0;
  int waiting = 0;                    ///< jobs arrived and not started
};

/// Every counter starts with a sample at t = 0 and then has one sample per change of its value
/// (bitwise), at the event time of the change, after everything done at that time (completions,
/// arrivals, re-sharing, the scheduler's starts); each counter's samples are in increasing time.
struct Timeline {
  std::vector<TimelineSlice> slices;        ///< in start order; an attempt's slices are adjacent,
                                            ///< one per distinct region, in pipeline order
  std::vector<TimelineMark> marks;          ///< in time order (failures and checkpoints only)
  std::vector<int> lanes;                   ///< per region: lanes used (its most concurrent jobs)
  std::vector<TimelineLinkSample> links;    ///< directions with capacity > 0 only
  std::vector<TimelineBusySample> busy;
  std::vector<TimelinePriceSample> prices;  ///< every price change in [0, end_s]
  std::vector<TimelineQueueSample> queue;
  double end_s = 0;                         ///< the last event time (makespan when all finished)
  bool prices_truncated = false;            ///< more than kMaxPriceBoundaries hour boundaries:
                                            ///< price samples stop at the last one examined
  /// Hour boundaries examined for price changes, over all regions (bounds the work and the
  /// size of a timeline whose simulated time is extremely long, docs/timeline.md).
  static constexpr std::size_t kMaxPriceBoundaries = 1'000'000;
};

/// What the engine calls. Jobs are ids 0..jobs-1; regions and link directions are the
/// topology's. Times passed to it never decrease.
class TimelineRecorder {
 public:
  TimelineRecorder(const Topology& topo, std::size_t jobs);

  /// Job `job` started at t on `stage_region` (one region index per stage).
  void job_started(double t, int job, std::span<const int> stage_region);
  /// Job `job` (started) finished at t: its lanes are free from t on.
  void job_finished(double t, int job);
  /// Job `job` (started) failed (or was evicted: `failed` false) at t: its slices end (failed),
  /// its lanes are free; it may start again.
  void job_failed(double t, int job, bool failed = true);
  /// A mark of job `job` at t (a completed checkpoint: of `duration_s`, ending at t).
  void job_mark(double t, int job, TimelineMark::Kind kind, double duration_s = 0);
  /// The state after everything done at event time t: free GPUs per region, residual bandwidth
  /// per link direction (row-major R×R, as NetworkState::residuals()), jobs waiting.
  void sample(double t, std::span<const int> free_gpus, std::span<const double> capacity,
              std::span<const double> residual, std::size_t waiting);
  /// Ends the recording at t_end (adds the price changes in [0, t_end]) and returns it; the
  /// recorder is empty afterwards.
  Timeline finish(double t_end);

 private:
  const Topology& topo_;
  Timeline tl_;
  std::vector<int> first_slice_;               ///< per job: its first slice, -1 if not started
  std::vector<std::vector<char>> lane_busy_;   ///< per region, per lane
  std::vector<long> last_link_, last_busy_;    ///< index of each counter's last sample (-1: none)
  long last_queue_ = -1;
};

}  // namespace geopipe
