// The waiting queue the engine hands to a scheduler: job ids in increasing order (= arrival
// order), with removal of any job in amortised O(log n) so that a queue of a million waiting
// jobs costs no more per scheduler call than a short one (docs/limits.md, "Documented maxima").
//
// Layout: the ids ever pushed and not yet compacted away, sorted, with a parallel "removed"
// flag. Removed entries are skipped by iteration; they are dropped from both ends at once and
// from the middle by a compaction when they outnumber the live ones, so a full iteration
// visits at most 2 x size() + 1 entries, and front()/back() are O(1).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace geopipe {

class WaitingQueue {
 public:
  /// Forward iterator over the live ids, in increasing order. Invalidated by any change.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = int;
    using difference_type = std::ptrdiff_t;
    using pointer = const int*;
    using reference = const int&;

    const_iterator() = default;
    reference operator*() const { return q_->ids_[i_]; }
    const_iterator& operator++() {
      ++i_;
      skip();
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator c = *this;
      ++*this;
      return c;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

   private:
    friend class WaitingQueue;
    const_iterator(const WaitingQueue* q, std::size_t i) : q_(q), i_(i) { skip(); }
    void skip() {
      while (i_ < q_->ids_.size() && q_->removed_[i_]) ++i_;
    }
    const WaitingQueue* q_ = nullptr;
    std::size_t i_ = 0;
  };

  WaitingQueue() = default;
  /// A queue holding `ids`, which must be strictly increasing.
  explicit WaitingQueue(const std::vector<int>& ids) {
    for (int id : ids) push_back(id);
  }

  /// Appends a newly arrived job; `id` must exceed every id pushed before.
  void push_back(int id) {
    assert(ids_.empty() || id > ids_.back());
    ids_.push_back(id);
    removed_.push_back(0);
    ++live_;
  }

  /// Puts `id` back in id order: a job that waits again (a restart after a failure, docs/model.md
  /// "Failures and checkpoints"); `id` must not be waiting. O(n) unless it exceeds every id.
  void insert(int id) {
    if (ids_.empty() || id > ids_.back()) {
      push_back(id);
      return;
    }
    compact();  // removed entries out: ids_ holds exactly the live ids
    const auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    assert(it == ids_.end() || *it != id);
    removed_.insert(removed_.begin() + (it - ids_.begin()), 0);
    ids_.insert(it, id);
    ++live_;
  }

  /// Removes `id`; returns false (and changes nothing) if it is not waiting.
  bool erase(int id) {
    const auto it = std::lower_bound(ids_.begin() + static_cast<std::ptrdiff_t>(head_), ids_.end(), id);
    if (it == ids_.end() || *it != id) return false;
    const std::size_t i = static_cast<std::size_t>(it - ids_.begin());
    if (removed_[i]) return false;
    removed_[i] = 1;
    --live_;
    ++dead_;
    while (ids_.size() > head_ && removed_.back()) {  // keep back() live
      ids_.pop_back();
      removed_.pop_back();
      --dead_;
    }
    while (head_ < ids_.size() && removed_[head_]) {  // keep front() live
      ++head_;
      --dead_;
    }
    if (head_ == ids_.size()) clear();
    else if (dead_ + head_ > live_ && dead_ + head_ > 64) compact();
    return true;
  }

  std::size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }
  int front() const { return ids_[head_]; }  ///< requires !empty()
  int back() const { return ids_.back(); }   ///< requires !empty()

  const_iterator begin() const { return const_iterator(this, head_); }
  const_iterator end() const { return const_iterator(this, ids_.size()); }
  /// The first live id greater than `id`, in O(log n) (+ the removed entries skipped).
  const_iterator upper_bound(int id) const {
    const auto it = std::upper_bound(ids_.begin() + static_cast<std::ptrdiff_t>(head_), ids_.end(), id);
    return const_iterator(this, static_cast<std::size_t>(it - ids_.begin()));
  }

  /// The live ids as a vector (tests, diagnostics).
  std::vector<int> to_vector() const { return std::vector<int>(begin(), end()); }

 private:
  void clear() {
    ids_.clear();
    removed_.clear();
    head_ = dead_ = live_ = 0;
  }
  void compact() {
    std::size_t w = 0;
    for (std::size_t i = head_; i < ids_.size(); ++i)
      if (!removed_[i]) ids_[w++] = ids_[i];
    ids_.resize(w);
    removed_.assign(w, 0);
    head_ = dead_ = 0;
  }

  std::vector<int> ids_;               ///< sorted; entries [0, head_) are removed
  std::vector<std::uint8_t> removed_;  ///< removed_[i]: ids_[i] has left the queue
  std::size_t head_ = 0;               ///< index of the first live id (ids_.size() if empty)
  std::size_t dead_ = 0;               ///< removed entries at or after head_
  std::size_t live_ = 0;
};

}  // namespace geopipe
