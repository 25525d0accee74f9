#pragma once
// The units of a job's input still to compute: the whole input, or what is
// left when a restarted hnowd resumes a job whose other shares it accepted
// before (their results kept in state.db). Plans count "to-do units", the
// n-th unit still to compute; a share of to-do units becomes one share per
// contiguous range of the input it covers, so no share straddles a result
// already kept and every result still sits at its place in input order.
// Pure.
#include <cstdint>
#include <utility>
#include <vector>

namespace hnow::daemon {

// [first, end) units of the input.
using UnitRange = std::pair<std::uint64_t, std::uint64_t>;

class UnitGaps {
 public:
  UnitGaps() = default;
  // The units of [0, total) that no range of `done` ([first, end), in any
  // order; overlaps and ranges past `total` are clipped) covers.
  static UnitGaps of(std::uint64_t total, std::vector<UnitRange> done = {});

  // How many units are still to compute.
  std::uint64_t count() const { return count_; }
  // The input ranges of to-do units [v, v + n) (clipped to count()), in order.
  std::vector<UnitRange> pieces(std::uint64_t v, std::uint64_t n) const;
  const std::vector<UnitRange>& ranges() const { return ranges_; }

 private:
  std::vector<UnitRange> ranges_;
  std::uint64_t count_ = 0;
};

}  // namespace hnow::daemon
