#pragma once
// What hnowd has caught and done since it started, counted where each event
// happens: the totals /metrics exports (docs/metrics.md). They start at 0
// with every hnowd, as Prometheus counters may.
#include <cstdint>

namespace hnow::daemon {

struct EventCounts {
  std::uint64_t replans = 0;        // new trees sends adopted, counted as each send ends
  std::uint64_t reissues = 0;       // job shares given to another agent, counted as each job ends
  std::uint64_t corruptChunks = 0;  // chunks an agent found differing from the source's digest and fetched again
  std::uint64_t relayFaults = 0;    // relays caught passing on bytes that differ from the source's
  // The planner's time for each send's tree or stripes.
  std::uint64_t plans = 0;
  double planSeconds = 0.0;

  void planned(double took) {
    ++plans;
    planSeconds += took;
  }
};

}  // namespace hnow::daemon
