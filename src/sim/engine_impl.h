// The engine's internals, not part of geopipe's API (sim/engine.h is): the state of a running
// job, the interface of an event source and the Engine class, shared by its three source files:
//  * sim/engine.cpp: the event loop, starting, timing, settling and finishing jobs, the
//    scheduler's calls and the checks that a run never ends with work undone;
//  * sim/engine_faults.cpp: failures, checkpoints, preemptions and restarts (docs/model.md,
//    "Failures and checkpoints");
//  * sim/event_sources.cpp: the event sources (completions, faults, arrivals, prices, link
//    capacities, the bandwidth monitor) and the order in which the engine asks them.
// Everything here lives in geopipe::engine_detail; only simulate() (sim/engine.h) uses it.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

#include "model/data_parallel.h"
#include "model/faults.h"
#include "model/flexible_job.h"
#include "model/pipeline_schedule.h"
#include "model/rng.h"
#include "model/units.h"
#include "sim/bandwidth_monitor.h"
#include "sim/engine.h"
#include "sim/energy.h"
#include "sim/metrics_accumulator.h"
#include "sim/network.h"
#include "util/input_error.h"

namespace geopipe::engine_detail {

/// "1.2e+15 s": a simulated time for a message.
std::string format_seconds(double t);

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// A running job. Its D replicas' stages are replica-major: replica k's stage i at k·S + i, its
// hop i (stage i -> i+1) at k·(S−1) + i; D = 1 is one pipeline.
struct Running {
  long version = 0;
  std::vector<int> regions;        // per stage
  std::vector<double> fwd, bwd;    // per stage, s
  std::vector<double> hop_lat;     // per hop, s (one way, forward direction)
  std::vector<double> hop_lat_b;   // per hop, s (one way, backward direction)
  std::vector<int> flow_f, flow_b; // per hop: flow ids, -1 for intra-region hops
  std::vector<double> bw_f, bw_b;  // per hop: current bandwidth (scratch for the recurrence)
  std::vector<int> power_region;   // distinct regions of the job
  std::vector<double> power_w;     // facility power drawn in each of those regions
  double T = 0, T_nocomm = 0;      // with DiLoCo: T per iteration averaged over a cycle
  double remaining = 0;            // iterations left at last_t (DiLoCo: unused, see u)
  double last_t = 0;
  double busy_gpu_s_per_iter = 0;
  double bytes_per_iter = 0;
  double egress_usd_per_iter = 0;
  int gpus = 0;

  // Data parallelism (D > 1; docs/model.md, "Data parallelism"): per stage i its replicas'
  // synchronisation ring; its hops flat, stage by stage from sync_offset[i].
  int replicas = 1;
  std::vector<SyncRing> rings;          // per stage
  std::vector<double> sync_bytes;       // per stage: params_i × sync_bytes_per_param
  std::vector<int> sync_offset;         // per stage, into the flat hop arrays (size S + 1)
  std::vector<int> sync_flow;           // per ring hop: flow id, -1 inside a region
  std::vector<double> sync_lat, sync_bw;  // per ring hop: one-way latency, current bandwidth
  std::vector<double> stage_end;        // per stage (D·S): end of its last backward (scratch)
  double sync_egress_usd = 0;           // egress of one synchronisation of every stage
  double sync_cross_bytes = 0;          // cross-region bytes of one synchronisation
  double sync_s = 0;                    // seconds of one synchronisation (SyncRates::sync_s_per_sync)
  // DiLoCo: the cycle clock, the position u of U and the inner iteration and sync times.
  bool diloco = false;
  DilocoClock clock;
  double u = 0, U = 0, T_inner = 0, Y = 0;

  // Faults (docs/model.md, "Failures and checkpoints"): this attempt's failure rate,
  // checkpoint cost and interval, the end of its last completed checkpoint (or its start), and
  // whether it writes a checkpoint now (no progress, idle power: update_timing).
  double lambda = 0, ckpt_cost_s = 0, ckpt_every_s = 0, segment_start_s = 0;
  bool checkpointing = false;
  double ckpt_end_s = 0;  // the end of the checkpoint it writes (checkpointing)
  // Spot capacity: the rate of its preemptions; after a notice it is being evicted.
  double lambda_spot = 0;
  bool evicting = false;
  // Regional checkpoints (FaultParams::checkpoint_regional): an attempt with a stage away from
  // its checkpoint's shard first restores (no progress, idle power) until every moved shard has
  // crossed its link (a flow of unbounded demand each, max-min shared) and the shards between
  // unconnected regions are read (restore_fixed_end_s).
  bool restoring = false;
  std::vector<int> restore_flow;      // per moved shard: its flow
  std::vector<int> restore_pair;      // its direction a * R + b
  std::vector<double> restore_left;   // its bytes left
  std::vector<double> restore_rate;   // its rate since the last timing, bytes/s
  double restore_fixed_end_s = 0, restore_start_s = 0;
  // Migration (faults.migrate_after_s): stalled on a link that is down, since when.
  bool stalled = false;
  double stall_since_s = 0;
  int job = -1;               ///< the job in this slot (a free slot keeps its last one)
  double attempt_start_s = 0; ///< when this attempt started (the eviction order of gpus_series)

  /// The state of a slot about to hold a newly started job: every field as default-constructed,
  /// the vectors emptied but keeping their storage (a slot is reused by job after job).
  void reset() {
    version = 0;
    for (auto* v : {&regions, &flow_f, &flow_b, &power_region, &sync_offset, &sync_flow}) v->clear();
    for (auto* v : {&fwd, &bwd, &hop_lat, &hop_lat_b, &bw_f, &bw_b, &power_w, &sync_bytes, &sync_lat, &sync_bw,
                    &stage_end})
      v->clear();
    rings.clear();
    T = T_nocomm = remaining = last_t = busy_gpu_s_per_iter = bytes_per_iter = egress_usd_per_iter = 0;
    gpus = 0;
    replicas = 1;
    sync_egress_usd = sync_cross_bytes = sync_s = 0;
    diloco = false;
    u = U = T_inner = Y = 0;
    lambda = ckpt_cost_s = ckpt_every_s = segment_start_s = ckpt_end_s = lambda_spot = attempt_start_s = 0;
    checkpointing = evicting = restoring = stalled = false;
    for (auto* v : {&restore_flow, &restore_pair}) v->clear();
    for (auto* v : {&restore_left, &restore_rate}) v->clear();
    restore_fixed_end_s = restore_start_s = stall_since_s = 0;
    job = -1;
  }
};

struct Completion {
  double t;
  int job;
  long version;
  bool operator>(const Completion& o) const { return t > o.t || (t == o.t && job > o.job); }
};

class Engine;

/// What a source did at an event time; the engine ORs them over the sources.
struct Fired {
  bool call = false;   ///< the scheduler should be called (if jobs wait)
  bool epoch = false;  ///< resources may have grown: placement-failure caches expire (view.h)
};

/// One source of engine events (docs/model.md, "Events and metrics"). The engine asks every
/// source for its next time, takes the least, and at that time t calls, in list order, each
/// source's before(t), then fire(t) of the sources that change state (kChange: completions,
/// arrivals, price boundaries, link capacities), re-shares the links, then fire(t) of the
/// observers (kObserve: the bandwidth monitor), then the scheduler if a source asked for it
/// and jobs wait. A new time-varying input is one class here and one line in the Engine's
/// constructor. fire(t) is called at every event time, whether or not the source's own next
/// time was t (it acts on what is due by t).
class EventSource {
 public:
  enum class Phase { kChange, kObserve };
  explicit EventSource(Engine& e) : e_(e) {}
  virtual ~EventSource() = default;
  virtual Phase phase() const { return Phase::kChange; }
  /// Time of the next event (+inf if none, or none that matters now).
  virtual double next_s() = 0;
  /// Before anything changes at event time t.
  virtual void before(double /*t*/) {}
  virtual Fired fire(double t) = 0;
  /// Can a later event of this source change what a scheduler that failed now would see? (The
  /// run fails when nothing runs, nothing arrives and no source can: check_progress.)
  virtual bool may_unblock_later() const { return false; }
  /// What its events are, and what input makes fewer of them: the event-budget error names
  /// the source with the most event times ("the simulation needs more than N event times").
  virtual std::string what() const = 0;
  virtual std::string fewer() const = 0;

  std::uint64_t events = 0;  ///< event times at which this source's next_s() was the least

 protected:
  Engine& e_;
};

class Engine {
  friend class CompletionSource;
  friend class ArrivalSource;
  friend class PriceSource;
  friend class LinkCapacitySource;
  friend class MonitorSource;
  friend class FaultSource;
  friend class GpuCapacitySource;
  friend class WakeSource;
 public:
  Engine(const Scenario& sc, const std::vector<Job>& jobs, Scheduler& sched, std::uint64_t seed, const SimOptions& opt);
  ~Engine();

  /// Runs the simulation; its metrics' `wall_s` is set by simulate(), which times the whole of it.
  SimResult run();

 private:
  void make_sources();

  /// The earliest end of a series under sim.series_end = "error" (+inf if none).
  static double error_limit_of_series(const Topology& topo);

  [[noreturn]] void series_ended(double t) const;

  bool valid(const Completion& c) const {
    const int s = slot_of_[static_cast<size_t>(c.job)];
    return s >= 0 && slots_[static_cast<size_t>(s)].version == c.version;
  }

  /// f(job j's JobRecord) with SimOptions::record_jobs, else f(its JobTally): the fields both
  /// have (metrics_accumulator.h), written once for either.
  template <class F>
  decltype(auto) on_record(int j, F&& f) {
    if (opt_.record_jobs) return f(rec_[static_cast<size_t>(j)]);
    return f(tally_[static_cast<size_t>(j)]);
  }

  /// Flexible job shape k (of `job`): its variants that fit (model/flexible_job.h), their
  /// profiles and shape ids in the context; the shape's own profile is the first variant's.
  void add_variants(const Job& job, size_t k, const LlmSpec& llm);
  /// Flexible job j starts as its variant k: its profile becomes the variant's (with its
  /// iterations), its record shows the variant's D and S.
  void become_variant(int j, int k);

  /// Job j's profile (it has arrived and not finished).
  const JobProfile& profile(int j) const { return ctx_.profile(j); }
  /// Gives arriving job j its profile: its shape's, with its iterations (make_profile's, bit for
  /// bit: a shape's profiles differ only there). Pooled slots keep their vectors' storage.
  void acquire_profile(int j);
  void release_profile(int j);

  /// Whether a job runs, waits or will arrive (time series' steps matter only then).
  bool jobs_pending() const { return running_ > 0 || !queue_.empty() || next_arrival_ < jobs_.size(); }

  /// The state of running job j (slot_of_[j] >= 0).
  Running& running(int j) { return slots_[static_cast<size_t>(slot_of_[static_cast<size_t>(j)])]; }
  bool is_running(int j) const { return slot_of_[static_cast<size_t>(j)] >= 0; }

  double next_price_change(double t) const;

  // Accrue progress, energy, cost, ... of job j from its last update to t.
  void settle(int j, double t);

  // Recompute T_iter and power of job j from its current hop allocations; reschedule its end.
  void update_timing(int j, double t);

  /// T_iter and power of a running job of D > 1 replicas (docs/model.md, "Data parallelism"):
  /// each replica's pipeline exactly, then each stage's synchronisation over its ring at the
  /// rates its hops get now.
  ///  * allreduce: stage i's all-reduce starts when the last of its replicas' last backwards
  ///    ends; T = max over stages of (that end + its all-reduce) + the optimizer step.
  ///  * diloco: the replicas' inner iterations take T_inner = the slowest replica's iteration;
  ///    every H of them a blocking synchronisation of Y = the slowest stage's all-reduce (all
  ///    stages' rings at once); T (for power and the stall fraction) is the cycle's average
  ///    per iteration, (H·T_inner + Y)/H, and progress follows the cycle (DilocoClock).
  /// A hop or ring hop whose link is down stalls the job (T = +inf).
  void update_timing_dp(int j, double t);

  /// The synchronisation rings of a job of D > 1 replicas just placed (start()): one per stage
  /// over its replicas' regions (sync_ring), a flow of unbounded demand for each ring hop
  /// between two regions (a bulk transfer takes its max-min share), and the egress of one
  /// synchronisation: each cross-region ring hop sends ring_hop_bytes of the stage's bytes.
  void start_sync(Running& r, const JobProfile& p, int j);

  /// Starts job j on `pl` at t; the placement moves into the job's record (with SimOptions::record_jobs).
  void start(int j, Placement&& pl, double t);

  void finish(int j, double t);
  /// T_alone of job j run as profile `p` (docs/model.md, "Fairness"): its iterations × the
  /// compute-only ideal iteration time on the fastest GPU type of a region with GPUs (cached per
  /// fixed shape).
  double alone_s(int j, const JobProfile& p);

  /// Running job j gives back its GPUs, flows and slot (it finished or failed; settled).
  void release(int j);

  // Re-run max-min on changed links; settle and re-time the jobs whose share changed, and
  // time the jobs just started.
  void rebalance(double t);

  // ---- Failures and checkpoints (docs/model.md, "Failures and checkpoints") ----
  // A running job's attempt has a failure time (Poisson, rate λ, from its own stream) and a
  // checkpoint timer; a failed job waits restart_s holding nothing, then waits in the queue.
  enum class FaultKind : int {
    kFailure = 0,
    kEvicted = 1,          ///< the end of a preemption notice that left no time for a checkpoint
    kCheckpointEnd = 2,
    kPreemptNotice = 3,    ///< spot capacity takes the job's GPUs back after preemption_notice_s
    kCheckpointStart = 4,
    kRestart = 5,
    kMigrate = 6,          ///< a job stalled on a link that is down for faults.migrate_after_s
  };
  struct FaultEvent {
    double t;
    int job;
    int attempt;
    FaultKind kind;
    /// (time, job id, kind): a failure before a checkpoint's end at the same time.
    bool operator>(const FaultEvent& o) const {
      if (t != o.t) return t > o.t;
      if (job != o.job) return job > o.job;
      return kind > o.kind;
    }
  };
  /// Per job, while faults act.
  struct JobFaults {
    double resume_remaining = 0;  ///< iterations left at its last completed checkpoint (all before one)
    double resume_u = 0;          ///< DiLoCo: its cycle position there
    long version = 0;             ///< its Running::version when it failed (completions of old attempts stay invalid)
    int attempt = 0;              ///< failures so far
    bool restarting = false;      ///< between a failure and the end of restart_s
    /// Regional checkpoints: the regions of the stages of the attempt that wrote (or last
    /// restored) its checkpoint; empty: none yet (it starts from the beginning).
    std::vector<int> ckpt_regions;
  };

  /// A new attempt of job j starts on `r` at t (start()): where it resumes, its rate, checkpoint
  /// cost and interval, and its first fault events.
  void start_attempt(int j, Running& r, const JobProfile& p, double t);

  /// A job just timed at its start: refuses an attempt that expects more than
  /// kMaxExpectedFailuresPerSegment failures before its next checkpoint (or its end), which
  /// would practically never finish.
  void check_segment(int j, const Running& r, double t) const;

  bool fault_valid(const FaultEvent& e) const;

  void checkpoint_starts(int j, double t);

  void checkpoint_ends(int j, double t);

  /// Spot capacity preempts job j at t: it gets preemption_notice_s. If a checkpoint fits in
  /// it (or the one it writes ends within it) it saves its work and leaves at the checkpoint's
  /// end; otherwise it trains on and loses its work since its last checkpoint at the end of the
  /// notice. Either way it then restarts as after a failure.
  void preempt_notice(int j, double t, double notice);

  /// Job j stops at t, failed or evicted (a preemption's end): it loses its work since its last
  /// completed checkpoint, gives back its GPUs and links, and waits restart_s before it waits
  /// in the queue again.
  void job_stops(int j, double t, bool failed);

  /// Failed or preempted job j waits again: the scheduler sees what is left of it (its
  /// profile's iterations, which its estimates and priorities read), not its whole length. A
  /// DiLoCo job keeps its whole length (its progress is a cycle position).
  void job_restarts(int j, double t);

  /// A preempting scheduler's view of the running jobs at t (SchedContext::running).
  void fill_running(double t);

  /// Regional checkpoints: job j's new attempt on `r` starts by moving the shards of its
  /// checkpoint that are not where its stages now are (start_attempt).
  void begin_restore(int j, Running& r, const JobProfile& p, double t);
  /// A restoring job's shard rates, idle power and the end of its restore (update_timing).
  void restore_timing(int j, double t);
  /// The restore of job j ends at t: its flows go, it trains (CompletionSource).
  void restore_ends(int j, double t);
  /// faults.migrate_after_s: job j stalls on a link that is down (link_down) or not any more.
  void note_stall(int j, Running& r, bool link_down, double t);
  /// Idle power of every stage of running job r (a job that neither trains nor communicates).
  void idle_power(Running& r, const JobProfile& p);

  /// GPUs running job r holds in region `reg`.
  int gpus_in(const Running& r, int reg) const;
  /// Region reg's available GPUs (its gpus_series) become `gpus` at t: free GPUs follow, and
  /// if the jobs there hold more than it has, jobs are evicted (preempt_notice with
  /// faults.preemption_notice_s) whose attempts started last first (ties: the higher job id),
  /// until they, with the jobs already under a notice there, give back what is missing.
  /// Returns whether the region gained GPUs.
  bool gpus_change(int reg, int gpus, double t);
  /// The free GPUs a scheduler sees in region r: none while jobs under a notice still hold
  /// more than the region has (free_ < 0 then).
  int visible_free(int r) const { return std::max(0, free_[static_cast<size_t>(r)]); }

  void build_view(double t);

  // The run needs more than opt_.max_events event times: an InputError that names the source
  // of most of them (ties: the first in list order) and what makes it produce fewer.
  [[noreturn]] void event_budget_exhausted(double t) const;

  // Called when nothing runs, nothing will arrive and jobs wait, after this event's scheduler
  // call: throws SimulationFailure if no later measurement can change the view the scheduler
  // failed on, or if it failed on opt_.max_idle_measurements measurements of the idle network.
  void check_progress(double t);

  void call_scheduler(double t);

  const Scenario& sc_;
  const Topology& topo_;
  const std::vector<Job>& jobs_;
  Scheduler& sched_;
  SimOptions opt_;
  NetworkState net_;
  BandwidthMonitor monitor_;
  std::vector<JobProfile> shape_profiles_;  ///< per job shape (shapes_)
  /// Flexible shapes (SchedContext::variants, variant_shape): empty when no job is flexible.
  std::vector<std::vector<JobProfile>> variants_;
  std::vector<int> variant_shape_;
  int next_variant_shape_ = 0;
  /// The waiting and running jobs' profiles (SchedContext::profile_slot): at most one per
  /// such job, reused.
  std::vector<JobProfile> profile_pool_;
  std::vector<int> profile_slot_, free_profiles_;
  std::vector<int> shapes_;
  std::vector<double> ideal_by_shape_;  ///< per fixed job shape: its ideal iteration time for alone_s() (NaN: not yet)
  /// Per job: its slot in slots_ while it runs, else -1. The slots hold the running jobs' state
  /// (reused: memory follows the number of running jobs, at most the GPUs, not the jobs).
  std::vector<int> slot_of_;
  std::vector<Running> slots_;
  std::vector<int> free_slots_;
  /// Per job, by id: its record with SimOptions::record_jobs (returned as SimResult::jobs), else
  /// only what the metrics need (the other stays empty).
  std::vector<JobRecord> rec_;
  std::vector<JobTally> tally_;
  std::vector<int> free_, flow_count_;
  WaitingQueue queue_;
  std::vector<int> changed_, pending_start_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> heap_;
  SchedContext ctx_;
  ClusterView view_;
  std::vector<Decision> decisions_;
  static constexpr std::uint64_t kUnset = ~std::uint64_t{0};
  /// Measurements the monitor had taken when the cluster last fell idle with jobs waiting and
  /// none to arrive (kUnset while it is not in that state).
  std::uint64_t idle_since_measurement_ = kUnset;
  long epoch_ = 0;
  long capacity_version_ = 0;  ///< steps of capacity series that changed a capacity so far
  int running_ = 0;
  std::uint64_t events_ = 0;  ///< event times processed (bounded by opt_.max_events)
  bool has_profiles_ = false;
  bool has_link_series_ = false;
  size_t next_arrival_ = 0;           ///< first job not yet arrived
  double series_limit_s_ = kInf;      ///< error_limit_of_series
  std::vector<std::unique_ptr<EventSource>> sources_;  ///< in processing order (make_sources)
  const PipelineSchedule& schedule_ = sc_.compute.schedule();
  PipelineScratch scratch_;
  std::vector<double> inf_buf_, zero_buf_;
  MetricsAccumulator acc_;
  std::optional<TimelineRecorder> timeline_;  ///< only if opt_.record_timeline
  // Faults: on only when a region fails or checkpoints have a fixed interval (constructor).
  bool faults_on_ = false;
  std::uint64_t fault_seed_ = 0;  ///< the "faults" stream; attempt k of job j draws from its stream (j, k)
  std::uint64_t spot_seed_ = 0;   ///< the "spot" stream, likewise for preemptions
  std::vector<JobFaults> jf_;     ///< per job (faults_on_ only)
  std::priority_queue<FaultEvent, std::vector<FaultEvent>, std::greater<>> faults_;
  int restarting_ = 0;            ///< failed jobs within their restart_s
  // Spot availability series (Region::gpus_series): the GPUs each region has now (gpu_count
  // without a series). free_ = avail_ − what running jobs hold, negative while evicted jobs
  // use their notice.
  std::vector<int> avail_;
  bool has_gpu_series_ = false;
  bool migrate_on_ = false;  ///< faults.migrate_after_s set, faults on
  std::vector<int> victims_, tl_free_;  ///< scratch: eviction candidates; the timeline's free GPUs
  // A preempting scheduler (Scheduler::preempts()): what it sees of the running jobs and of
  // every job's service (SchedContext::running, service); empty for the others.
  bool preempting_ = false;
  std::vector<RunningJob> running_info_;
  std::vector<JobService> service_;
};

}  // namespace geopipe::engine_detail
