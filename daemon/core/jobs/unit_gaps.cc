#include "core/jobs/unit_gaps.h"

#include <algorithm>

namespace hnow::daemon {

UnitGaps UnitGaps::of(std::uint64_t total, std::vector<UnitRange> done) {
  std::sort(done.begin(), done.end());
  UnitGaps gaps;
  std::uint64_t at = 0;
  for (auto [first, end] : done) {
    end = std::min(end, total);
    if (first >= end) continue;
    if (first > at) gaps.ranges_.push_back({at, first});
    at = std::max(at, end);
  }
  if (at < total) gaps.ranges_.push_back({at, total});
  for (const auto& [first, end] : gaps.ranges_) gaps.count_ += end - first;
  return gaps;
}

std::vector<UnitRange> UnitGaps::pieces(std::uint64_t v, std::uint64_t n) const {
  std::vector<UnitRange> out;
  std::uint64_t skipped = 0;  // to-do units before the range looked at
  for (const auto& [first, end] : ranges_) {
    if (n == 0) break;
    const std::uint64_t length = end - first;
    if (v >= skipped + length) {
      skipped += length;
      continue;
    }
    const std::uint64_t from = first + (v - skipped);
    const std::uint64_t take = std::min<std::uint64_t>(n, end - from);
    out.push_back({from, from + take});
    v += take;
    n -= take;
    skipped += length;
  }
  return out;
}

}  // namespace hnow::daemon
