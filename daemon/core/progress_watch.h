#pragma once
// Noticing a slowed link while data moves (issue 7) without waiting for the
// next periodic probe: a copy that, over the last `window`, received at less
// than `slowFraction` of the rate its plan gave it, while its parent held
// well more than the copy (so the parent is not what it waits for), sits
// behind a link that slowed. hnowd then asks both ends to probe now; their
// reports go through the rate table's drift detection (threshold and dwell)
// like any probe, so the watch only triggers measurements, never replans
// by itself. Pure: times and byte counts in, nodes to probe out.
#include <cstdint>
#include <deque>
#include <vector>

#include "core/clock.h"

namespace hnow::daemon {

struct ProgressWatchOptions {
  Duration window = std::chrono::milliseconds(1500);
  double slowFraction = 0.5;
  // The parent must be this far ahead: more than the data plane keeps in
  // flight per child (2 MiB), so the child is not just waiting for it.
  std::uint64_t leadBytes = 6u << 20;
  // A node is asked to probe at most this often (a probe costs bandwidth).
  Duration probeEvery = std::chrono::seconds(10);
};

class ProgressWatch {
 public:
  // Node 0 is the source (it holds everything); `expectedRate[i]` is the
  // bytes/s the plan gives node i (0: no expectation).
  ProgressWatch(std::size_t nodes, ProgressWatchOptions options = {});

  // The plan changed (start, replan): new expectations, old samples dropped.
  void expect(TimePoint now, std::vector<double> expectedRate);
  // Node i holds `bytes` at `now`; its parent is `parent`, which holds
  // `parentBytes` (the whole file for the source). Returns the nodes to ask
  // for a probe now: the parent and the node, when the link between them
  // looks slowed (the source, which is hnowd or fixed, is never returned).
  std::vector<int> observe(TimePoint now, int node, std::uint64_t bytes, int parent, std::uint64_t parentBytes);

 private:
  struct Sample {
    TimePoint at;
    std::uint64_t bytes;
  };
  ProgressWatchOptions options_;
  std::vector<double> expected_;
  std::vector<std::deque<Sample>> samples_;
  std::vector<TimePoint> lastProbe_;
  std::vector<bool> probed_;
};

}  // namespace hnow::daemon
