#pragma once
// The flows of one operation's tree that a passive window can judge
// (link_verdict.h): what each copy received from its parent over the
// window, taken from its progress reports. A flow is judged only while its
// parent stayed ahead of it by more than the data plane keeps in flight per
// child the whole window (so the copy did not wait for its parent's own
// download), and not across a move to another parent. Pure: times and byte
// counts in, flows out. Node 0 is the source and holds everything.
#include <cstdint>
#include <deque>
#include <vector>

#include "base/clock.h"

namespace hnow::daemon {

struct TreeFlow {
  int from = 0;
  int to = 0;
  double bytesPerSecond = 0.0;
  // False: a copy that cannot be judged (its parent not far enough ahead,
  // a move, too few reports).
  bool fed = true;
  // Its parent held less than a child's in-flight window more than it at
  // the window's end: the parent had nothing more to send it, so its
  // uplink and the copy's downlink were not full (link_verdict.h).
  bool starved = false;
};

class TransferFlows {
 public:
  // `leadBytes`: more than the in-flight window per child (2 MiB).
  // `inFlightBytes`: what the data plane keeps in flight per child (2 MiB).
  explicit TransferFlows(std::size_t nodes, std::uint64_t leadBytes = 6u << 20, std::uint64_t inFlightBytes = 2u << 20);

  // Node `node` holds `bytes` (in order) at `now`.
  void held(TimePoint now, int node, std::uint64_t bytes);
  // Node `node` was told to pull from another parent at `now`.
  void moved(TimePoint now, int node);

  // Over [now - window, now]: every node `receiving`, fed when its parent
  // (`parent`) either `holdsAll` or stayed `leadBytes` ahead, the node did
  // not move, and its reports span at least half the window; starved when
  // the parent does not hold everything and was less than `inFlightBytes`
  // ahead at the end.
  std::vector<TreeFlow> flows(TimePoint now, Duration window, const std::vector<int>& parent,
                              const std::vector<bool>& receiving, const std::vector<bool>& holdsAll) const;

 private:
  struct Sample {
    TimePoint at;
    std::uint64_t bytes;
  };
  // Bytes `node` held at `t` by its latest report at or before it.
  std::uint64_t heldAt(std::size_t node, TimePoint t) const;

  std::uint64_t lead_;
  std::uint64_t inFlight_;
  std::vector<std::deque<Sample>> samples_;
  std::vector<TimePoint> movedAt_;
};

}  // namespace hnow::daemon
