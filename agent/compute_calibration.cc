#include "agent/compute_calibration.h"

#include <algorithm>
#include <cstdint>

namespace hnow::agent {

namespace {

// xorshift64*: cheap, cannot be folded away by the compiler because the
// result is kept in a volatile.
std::uint64_t referenceUnit(std::uint64_t seed) {
  std::uint64_t x = seed | 1;
  for (int i = 0; i < (1 << 18); ++i) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    x *= 0x2545F4914F6CDD1DULL;
  }
  return x;
}

}  // namespace

double calibrateComputeSecondsPerUnit(const hnow::Clock& clock, double computeFactor) {
  volatile std::uint64_t sink = 0;
  double best = 1e9;
  for (int run = 0; run < 5; ++run) {
    auto start = clock.now();
    sink = sink + referenceUnit(run + 1);
    best = std::min(best, hnow::seconds(clock.now() - start));
  }
  return best * computeFactor;
}

}  // namespace hnow::agent
