#include "plan/dispatch.h"

#include <algorithm>

namespace geopipe::sweep {

std::uint64_t count(const std::vector<IdRange>& ranges) {
  std::uint64_t n = 0;
  for (const IdRange& r : ranges) n += static_cast<std::uint64_t>(r.last - r.first);
  return n;
}

IdCursor::IdCursor(const Plan& plan, const std::vector<std::int64_t>& done, const std::vector<std::uint32_t>* allowance)
    : plan_(plan), done_(done), allowance_(allowance) {
  remaining_ = plan.shard_total();
  if (allowance_) {  // (no shards with an allowance: the runner refuses them)
    remaining_ = 0;
    for (const std::uint32_t a : *allowance_) remaining_ += a;
    remaining_ *= plan.schedulers();
  }
  for (std::int64_t d : done)
    if (d >= 0 && static_cast<std::uint64_t>(d) < plan.total() && plan.in_shard(static_cast<std::uint64_t>(d)) &&
        allowed(static_cast<std::uint64_t>(d)))
      --remaining_;
  advance();
}

bool IdCursor::allowed(std::uint64_t id) const {
  if (!allowance_) return true;
  const ScenarioKey k = plan_.key(id);
  return k.seed_index < (*allowance_)[static_cast<std::size_t>(k.point)];
}

std::uint64_t IdCursor::take(std::uint64_t n, std::vector<IdRange>& out) {
  std::uint64_t got = 0;
  while (got < n && !empty()) {
    const auto id = static_cast<std::int64_t>(next_);
    if (!out.empty() && out.back().last == id)
      ++out.back().last;
    else
      out.push_back({id, id + 1});
    ++got;
    ++next_;
    advance();
  }
  remaining_ -= got;
  return got;
}

void IdCursor::advance() {
  const std::uint64_t S = plan_.schedulers();
  while (next_ < plan_.total()) {
    if (!plan_.in_shard(next_)) {  // jump to the first id of the next pair in our shard
      const std::uint64_t pair = next_ / S, N = plan_.shards(), K = plan_.shard();
      const std::uint64_t next_pair = pair + ((K + N - pair % N) % N);
      next_ = next_pair * S;
      continue;
    }
    if (!allowed(next_)) {  // beyond the point's allowance: jump to the next point
      next_ = (plan_.key(next_).point + 1) * plan_.seeds() * S;
      continue;
    }
    while (dpos_ < done_.size() && done_[dpos_] < static_cast<std::int64_t>(next_)) ++dpos_;
    if (dpos_ < done_.size() && done_[dpos_] == static_cast<std::int64_t>(next_)) {
      ++next_;
      continue;
    }
    return;
  }
}

void BatchSizer::observe(double scenario_s) {
  const double s = std::max(scenario_s, 1e-7);
  mean_s_ = n_ == 0 ? s : 0.9 * mean_s_ + 0.1 * s;
  ++n_;
}

std::uint64_t BatchSizer::next(std::uint64_t remaining) const {
  const double per_exec = n_ == 0 ? 1.0 : kTargetS * threads_ / mean_s_;
  const double tail = static_cast<double>(remaining) / (2.0 * executors_);
  double b = std::min(per_exec, std::max(tail, static_cast<double>(threads_)));
  b = std::clamp(b, 1.0, kMaxBatch);
  return static_cast<std::uint64_t>(b);
}

void Reorder::dispatched(const std::vector<IdRange>& batch) {
  for (const IdRange& r : batch) order_.push_back(r);
}

void Reorder::add(ScenarioResult&& r) {
  if (!order_.empty() && r.id == order_.front().first) {
    sink_.append(r);
    advance();
  } else {
    early_.emplace(r.id, std::move(r));
  }
}

void Reorder::release_all() {
  for (auto& [id, r] : early_) sink_.append(r);
  early_.clear();
}

void Reorder::advance() {
  while (true) {
    if (++order_.front().first == order_.front().last) order_.pop_front();
    if (order_.empty() || early_.empty() || early_.begin()->first != order_.front().first) return;
    sink_.append(early_.begin()->second);
    early_.erase(early_.begin());
  }
}

}  // namespace geopipe::sweep
