#include "sched/ordering.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace geopipe {
namespace {

class FifoStrict final : public OrderingPolicy {
 public:
  bool strict() const override { return true; }
  void begin(const SchedContext&, const std::vector<int>& queue, const ClusterView&) override {
    queue_ = &queue;  // O(1): a blocked FIFO head costs nothing however long the queue is
    pos_ = 0;
  }
  int next() override { return pos_ < queue_->size() ? (*queue_)[pos_++] : -1; }

 private:
  const std::vector<int>* queue_ = nullptr;
  size_t pos_ = 0;
};

class PriorityBackfill final : public OrderingPolicy {
 public:
  explicit PriorityBackfill(const SchedulerParams& p) : prm_(p) {}
  bool strict() const override { return false; }

  void begin(const SchedContext& ctx, const std::vector<int>& queue, const ClusterView& view) override {
    const Topology& topo = *ctx.topo;
    const int R = view.regions();
    // Mean residual over connected inter-region directions, and the largest free region.
    double res_sum = 0;
    int res_n = 0, max_free = 0;
    for (int a = 0; a < R; ++a) {
      max_free = std::max(max_free, view.free_gpus[static_cast<size_t>(a)]);
      for (int b = 0; b < R; ++b)
        if (a != b && topo.link(a, b).capacity_bytes_per_s > 0) {
          res_sum += view.residual_bw(a, b);
          ++res_n;
        }
    }
    const double mean_res = res_n ? res_sum / res_n : 0.0;
    scored_.clear();
    for (int j : queue) {
      const Cached& c = cached(ctx, j);
      const Job& job = ctx.job(j);
      double pressure = 0;
      if (job.total_gpus() > max_free) pressure = c.beta / std::max(mean_res, 1.0);
      const double wait = view.now_s - job.arrival_s;
      const double score = prm_.priority_runtime_weight * c.runtime_s * (1.0 + prm_.priority_network_weight * pressure) -
                           prm_.priority_aging * wait;
      scored_.push_back({score, job.arrival_s, j});
    }
    // A min-heap in (score, arrival, id): a strict total order, so the jobs come out exactly
    // as a sort would list them.
    std::make_heap(scored_.begin(), scored_.end(), after);
  }
  int next() override {
    if (scored_.empty()) return -1;
    std::pop_heap(scored_.begin(), scored_.end(), after);
    const int j = scored_.back().job;
    scored_.pop_back();
    return j;
  }

 private:
  struct Cached {
    bool known = false;
    double runtime_s = 0;  // I × ideal iteration time on the fastest GPU type present
    double beta = 0;       // A / min_i f_i on that GPU type
  };
  struct Item {
    double score, arrival;
    int job;
  };
  /// Heap comparator: a after b (so the heap's top is the first job to consider).
  static bool after(const Item& a, const Item& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.arrival != b.arrival) return a.arrival > b.arrival;
    return a.job > b.job;
  }

  const Cached& cached(const SchedContext& ctx, int j) {
    if (cache_.size() <= static_cast<size_t>(j)) cache_.resize(static_cast<size_t>(j) + 1);
    Cached& c = cache_[static_cast<size_t>(j)];
    if (c.known) return c;
    c.known = true;
    const JobProfile& p = ctx.profile(j);
    const Topology& topo = *ctx.topo;
    double best_t = std::numeric_limits<double>::infinity();
    int best_r = 0;
    for (int r = 0; r < topo.num_regions(); ++r) {
      if (topo.regions[static_cast<size_t>(r)].gpu_count <= 0) continue;
      const double t = ideal_iteration_time(p, topo.gpu_of(r), *ctx.compute);
      if (t < best_t) {
        best_t = t;
        best_r = r;
      }
    }
    c.runtime_s = p.iterations * best_t;
    double fmin = std::numeric_limits<double>::infinity();
    for (int i = 0; i < p.stages; ++i) fmin = std::min(fmin, forward_time(p, i, topo.gpu_of(best_r), *ctx.compute));
    c.beta = p.activation_bytes / fmin;
    return c;
  }

  SchedulerParams prm_;
  std::vector<Cached> cache_;
  std::vector<Item> scored_;
};

}  // namespace

std::unique_ptr<OrderingPolicy> make_fifo_strict() { return std::make_unique<FifoStrict>(); }
std::unique_ptr<OrderingPolicy> make_priority_backfill(const SchedulerParams& p) {
  return std::make_unique<PriorityBackfill>(p);
}

}  // namespace geopipe
