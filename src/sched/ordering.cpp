#include "sched/ordering.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sched/estimate.h"

namespace geopipe {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class FifoStrict final : public OrderingPolicy {
 public:
  bool strict() const override { return true; }
  void begin(const SchedContext&, const WaitingQueue& queue, const ClusterView&) override {
    queue_ = &queue;  // O(1): a blocked FIFO head costs nothing however long the queue is
    pos_ = queue.begin();
  }
  int next() override { return pos_ != queue_->end() ? *pos_++ : -1; }
  void started(int) override {}
  void skip_shape(int) override {}  // strict: the pass ends at the first job that cannot start
  void skip_job(int) override {}

 private:
  const WaitingQueue* queue_ = nullptr;
  WaitingQueue::const_iterator pos_;
};

/// Min over a growing array of doubles (removed entries are +inf), with "first index >= from
/// whose value is < thr" in O(log n).
class MinTree {
 public:
  int size() const { return size_; }
  void push(double v) {
    if (size_ == cap_) grow();
    set(size_++, v);
  }
  void set(int i, double v) {
    size_t k = static_cast<size_t>(i + cap_);
    t_[k] = v;
    for (k >>= 1; k >= 1; k >>= 1) t_[k] = std::min(t_[2 * k], t_[2 * k + 1]);
  }
  int first_below(int from, double thr) const {
    if (from >= size_) return -1;  // entries at and past size_ are +inf
    // Up from leaf `from` until a right sibling's subtree holds a value below thr, then down to
    // its leftmost such leaf: the first such index >= from, in O(log n) without recursion.
    size_t k = static_cast<size_t>(from + cap_);
    if (!(t_[k] < thr)) {
      for (;;) {
        if (k == 1) return -1;
        if (!(k & 1) && t_[k + 1] < thr) {
          ++k;
          break;
        }
        k >>= 1;
      }
      while (k < static_cast<size_t>(cap_)) {
        k *= 2;
        if (!(t_[k] < thr)) ++k;
      }
    }
    return static_cast<int>(k) - cap_;
  }
  void clear() {
    std::fill(t_.begin(), t_.end(), kInf);
    size_ = 0;
  }

 private:
  void grow() {
    const int cap = cap_ ? 2 * cap_ : 16;
    std::vector<double> t(static_cast<size_t>(2 * cap), kInf);
    for (int i = 0; i < size_; ++i) t[static_cast<size_t>(cap + i)] = t_[static_cast<size_t>(cap_ + i)];
    for (int k = cap - 1; k >= 1; --k) t[static_cast<size_t>(k)] = std::min(t[static_cast<size_t>(2 * k)], t[static_cast<size_t>(2 * k + 1)]);
    t_.swap(t);
    cap_ = cap;
  }
  std::vector<double> t_;
  int cap_ = 0, size_ = 0;
};

class PriorityBackfill final : public OrderingPolicy {
 public:
  explicit PriorityBackfill(const SchedulerParams& p, bool refresh_runtime = false)
      : prm_(p),
        refresh_runtime_(refresh_runtime),
        records_only_(p.priority_runtime_weight >= 0 && p.priority_network_weight >= 0 && p.priority_aging >= 0),
        arrival_order_(p.priority_runtime_weight == 0 && p.priority_aging >= 0) {}
  bool strict() const override { return false; }

  void begin(const SchedContext& ctx, const WaitingQueue& queue, const ClusterView& view) override {
    ctx_ = &ctx;
    restore_skipped();
    sync(ctx, queue);
    const Topology& topo = *ctx.topo;
    const int R = view.regions();
    // Mean residual over connected inter-region directions (a-major order; which directions
    // those are is fixed by the topology: listed once), and the largest free region.
    if (dirs_topo_ != &topo) {
      dirs_topo_ = &topo;
      dirs_.clear();
      for (int a = 0; a < R; ++a)
        for (int b = 0; b < R; ++b)
          if (a != b && topo.link(a, b).capacity_bytes_per_s > 0) dirs_.push_back(static_cast<size_t>(a * R + b));
    }
    max_free_ = 0;
    for (int a = 0; a < R; ++a) max_free_ = std::max(max_free_, view.free_gpus[static_cast<size_t>(a)]);
    double res_sum = 0;
    for (size_t d : dirs_) res_sum += view.residual[d];
    const int res_n = static_cast<int>(dirs_.size());
    mean_res_ = res_n ? res_sum / res_n : 0.0;
    now_s_ = view.now_s;
    for (size_t s = 0; s < shapes_.size(); ++s) {
      Shape& sh = shapes_[s];
      sh.active = sh.alive > 0;
      if (sh.active) find_head(sh);
    }
    pending_ = -1;
  }

  int next() override {
    if (pending_ >= 0) shapes_[static_cast<size_t>(pending_)].active = false;  // unreported
    const Item* best = nullptr;
    for (const Shape& sh : shapes_)
      if (sh.active && (!best || before(sh.head, *best))) best = &sh.head;
    if (!best) return -1;
    pending_ = ctx_->shape(best->job);
    return best->job;
  }

  void started(int j) override {
    const int s = ctx_->shape(j);
    Shape& sh = shapes_[static_cast<size_t>(s)];
    sh.tree.set(pos_[static_cast<size_t>(j)], kInf);
    --sh.alive;
    --alive_total_;
    if (pending_ == s) pending_ = -1;
    // Jobs of the shape passed over by skip_job in this pass stay out of it (with none, as
    // always under a placement policy that caches failures: alive > 0).
    sh.active = sh.alive > sh.skipped;
    if (sh.active) find_head(sh);
  }

  void skip_shape(int s) override {
    shapes_[static_cast<size_t>(s)].active = false;
    if (pending_ == s) pending_ = -1;
  }

  /// Takes the job out of its shape's tree for the rest of the pass (begin() puts it back).
  void skip_job(int j) override {
    const int s = ctx_->shape(j);
    Shape& sh = shapes_[static_cast<size_t>(s)];
    sh.tree.set(pos_[static_cast<size_t>(j)], kInf);
    skipped_.push_back(j);
    ++sh.skipped;
    if (pending_ == s) pending_ = -1;
    sh.active = sh.alive > sh.skipped;
    if (sh.active) find_head(sh);
  }

 private:
  /// What the score needs of a job's shape (SchedContext::shape): its profiles differ only in
  /// `iterations`, which neither figure reads.
  struct ShapeFigures {
    bool known = false;
    double best_iteration_s = 0;  // ideal iteration time on the fastest GPU type present
    double beta = 0;              // A / min_i f_i on that GPU type
  };
  struct Item {
    double score = 0, arrival = 0;
    int job = -1;
  };
  /// The waiting jobs of one shape, in arrival order; removed ones stay as +inf in the tree.
  struct Shape {
    std::vector<int> jobs;
    MinTree tree;  // over runtime_s
    int first = 0;  // no waiting job before this position
    int alive = 0;
    int skipped = 0;      // of the alive jobs, passed over by skip_job in the current pass
    bool active = false;  // in the current pass: may still yield jobs
    Item head;            // its first job in the current pass
  };

  static bool before(const Item& a, const Item& b) {
    if (a.score != b.score) return a.score < b.score;
    if (a.arrival != b.arrival) return a.arrival < b.arrival;
    return a.job < b.job;
  }

  Item score(int j) {
    const double runtime_s = runtime_s_[static_cast<size_t>(j)];
    const Job& job = ctx_->job(j);
    double pressure = 0;
    if (job.total_gpus() > max_free_) pressure = figures(*ctx_, j).beta / std::max(mean_res_, 1.0);
    const double wait = now_s_ - job.arrival_s;
    const double score = prm_.priority_runtime_weight * runtime_s * (1.0 + prm_.priority_network_weight * pressure) -
                         prm_.priority_aging * wait;
    return {score, job.arrival_s, j};
  }

  /// The shape's first job in the order: the best of its records (see ordering.h).
  void find_head(Shape& sh) {
    sh.first = sh.tree.first_below(sh.first, kInf);
    if (arrival_order_) {  // score = −aging·wait: the shape's earliest waiting job comes first
      sh.head = score(sh.jobs[static_cast<size_t>(sh.first)]);
      return;
    }
    Item best;
    for (int p = sh.first; p >= 0;) {
      const int j = sh.jobs[static_cast<size_t>(p)];
      const Item it = score(j);
      if (best.job < 0 || before(it, best)) best = it;
      p = sh.tree.first_below(p + 1, records_only_ ? runtime_s_[static_cast<size_t>(j)] : kInf);
    }
    sh.head = best;
  }

  /// Puts the jobs passed over by skip_job in the last pass back into their shapes' trees.
  void restore_skipped() {
    for (int j : skipped_) {
      Shape& sh = shapes_[static_cast<size_t>(ctx_->shape(j))];
      const int p = pos_[static_cast<size_t>(j)];
      sh.tree.set(p, runtime_s_[static_cast<size_t>(j)]);
      sh.first = sh.first < 0 ? p : std::min(sh.first, p);
      sh.skipped = 0;
    }
    skipped_.clear();
  }

  /// Brings the per-shape lists up to `queue`: jobs with ids above the last seen are new
  /// arrivals (appended); started jobs were removed by started(). Anything else (a queue not
  /// built that way) is repaired by rebuilding from the queue.
  void sync(const SchedContext& ctx, const WaitingQueue& queue) {
    if (shapes_.size() < static_cast<size_t>(ctx.num_shapes)) shapes_.resize(static_cast<size_t>(ctx.num_shapes));
    if (pos_.size() < ctx.jobs->size()) pos_.resize(ctx.jobs->size(), -1);
    if (runtime_s_.size() < ctx.jobs->size()) runtime_s_.resize(ctx.jobs->size(), kUnknown);
    auto it = queue.upper_bound(last_seen_);
    for (; it != queue.end(); ++it) add(ctx, *it);
    if (!queue.empty()) last_seen_ = std::max(last_seen_, queue.back());
    if (alive_total_ != static_cast<long>(queue.size())) {
      for (Shape& sh : shapes_) {
        sh.jobs.clear();
        sh.tree.clear();
        sh.first = sh.alive = 0;
      }
      alive_total_ = 0;
      for (int j : queue) add(ctx, j);
    }
  }
  void add(const SchedContext& ctx, int j) {
    Shape& sh = shapes_[static_cast<size_t>(ctx.shape(j))];
    pos_[static_cast<size_t>(j)] = static_cast<int>(sh.jobs.size());
    sh.jobs.push_back(j);
    sh.tree.push(runtime(ctx, j));
    ++sh.alive;
    ++alive_total_;
  }

  /// R̂ of job j: its iterations × its shape's ideal iteration time (computed when it is first
  /// added, then read from runtime_s_).
  double runtime(const SchedContext& ctx, int j) {
    double& r = runtime_s_[static_cast<size_t>(j)];
    if (std::isnan(r) || refresh_runtime_) r = ctx.profile(j).iterations * figures(ctx, j).best_iteration_s;
    return r;
  }

  const ShapeFigures& figures(const SchedContext& ctx, int j) {
    const auto s = static_cast<size_t>(ctx.shape(j));
    if (shape_figures_.size() <= s) shape_figures_.resize(s + 1);
    ShapeFigures& c = shape_figures_[s];
    if (c.known) return c;
    c.known = true;
    const JobProfile& p = ctx.profile(j);
    const Topology& topo = *ctx.topo;
    const FastestIdeal fastest = fastest_ideal_iteration(p, topo, *ctx.compute);
    const int best_r = fastest.region;
    c.best_iteration_s = fastest.iteration_s;
    double fmin = kInf;
    for (int i = 0; i < p.stages; ++i) fmin = std::min(fmin, forward_time(p, i, topo.gpu_of(best_r), *ctx.compute));
    c.beta = p.activation_bytes / fmin;
    return c;
  }

  SchedulerParams prm_;
  /// R̂ is computed again whenever a job is (re)added, so that a job back in the queue after a
  /// preemption is ordered by the iterations it has left (srtf); otherwise once per job.
  bool refresh_runtime_;
  bool records_only_;
  /// w_rt = 0 and aging >= 0: every score is −aging·wait (or 0), which orders by arrival, so a
  /// shape's head is its first waiting job (the same order as the records' scan, in O(log q)).
  bool arrival_order_;
  const SchedContext* ctx_ = nullptr;
  static constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  std::vector<ShapeFigures> shape_figures_;  // by shape
  std::vector<double> runtime_s_;            // by job: R̂ once it was added, else kUnknown
  std::vector<Shape> shapes_;
  std::vector<int> pos_;  // per job: position in its shape's list
  std::vector<int> skipped_;  // jobs passed over by skip_job in the current pass
  long alive_total_ = 0;
  int last_seen_ = -1;
  int pending_ = -1;  // shape of the job last returned by next() and not yet reported
  int max_free_ = 0;
  double mean_res_ = 0, now_s_ = 0;
  const Topology* dirs_topo_ = nullptr;  // the topology dirs_ lists the directions of
  std::vector<size_t> dirs_;             // connected inter-region directions a * R + b, a-major
};

}  // namespace

std::unique_ptr<OrderingPolicy> make_fifo_strict(const SchedulerParams&) { return std::make_unique<FifoStrict>(); }
std::unique_ptr<OrderingPolicy> make_priority_backfill(const SchedulerParams& p) {
  return std::make_unique<PriorityBackfill>(p);
}
std::unique_ptr<OrderingPolicy> make_fifo_backfill(const SchedulerParams& p) {
  SchedulerParams q = p;
  q.priority_runtime_weight = q.priority_network_weight = q.priority_aging = 0;
  return std::make_unique<PriorityBackfill>(q);
}
std::unique_ptr<OrderingPolicy> make_remaining_first(const SchedulerParams& p) {
  SchedulerParams q = p;
  q.priority_runtime_weight = 1;
  q.priority_network_weight = q.priority_aging = 0;
  return std::make_unique<PriorityBackfill>(q, /*refresh_runtime=*/true);
}
std::unique_ptr<OrderingPolicy> make_shortest_first(const SchedulerParams& p) {
  SchedulerParams q = p;
  q.priority_runtime_weight = 1;
  q.priority_network_weight = q.priority_aging = 0;
  return std::make_unique<PriorityBackfill>(q);
}

}  // namespace geopipe
