#pragma once
// Finished operations hnowd still answers about: kept for clients still
// reading their report, forgotten past the newest `kept` so a long-running
// hnowd does not grow with every send, manifest or run (soak).
// Forgetting happens when the next operation starts, never from inside a
// finished operation's own callbacks (the operation may be on the stack).
#include <cstddef>
#include <cstdint>
#include <deque>

namespace hnow::daemon {

class FinishedOperations {
 public:
  static constexpr std::size_t kKept = 32;
  explicit FinishedOperations(std::size_t kept = kKept) : kept_(kept) {}

  // `id` has finished (once per operation).
  void add(std::uint64_t id) { ids_.push_back(id); }
  // Erases from `operations` (a map by id) the finished ones older than the newest `kept`.
  template <class Map>
  void forgetOldest(Map& operations) {
    while (ids_.size() > kept_) {
      operations.erase(ids_.front());
      ids_.pop_front();
    }
  }

 private:
  std::size_t kept_;
  std::deque<std::uint64_t> ids_;  // oldest first
};

}  // namespace hnow::daemon
