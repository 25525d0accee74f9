#pragma once
// The multiple multicast heuristics of seed 004 §4 and their preemptive
// forms (§5). Ties are broken so that results are reproducible
// (docs/multicast.md):
// - a (sender, receiver, message) choice by completion time: the earlier
//   completion, then the message's own source as sender, then the lower
//   message index, sender index, receiver index;
// - FEF by weight, then the lower receiver, sender, message index: the order
//   of the seed's sorted edge list, which reproduces its Figure 4(a);
// - WR and EAF pick the receiver by their key, then the smaller receive
//   overhead (R_c, then R_m), then the lower index; RR lets destinations take
//   turns in index order.
#include <cstdint>
#include <span>
#include <vector>

#include "base/result.h"
#include "planner/multicast/multicast.h"

namespace hnow::planner {

enum class MulticastAlgorithm {
  kFastestEdgeFirst,          // FEF, §4.1
  kEarliestCompletionFirst,   // ECF, §4.2
  kWorkRacing,                // WR, §4.3
  kEarliestAvailableFirst,    // EAF, §4.4 and §6
  kRoundRobin,                // RR
  kReceiverRandomSelection,   // RRS
};

struct MulticastOptions {
  bool preemptive = false;  // §5; not defined for FEF
  std::uint64_t seed = 1;   // RRS's receiver draws
};

// Plans `instance` (which must pass checkInstance) or says why not.
Result<MulticastPlan> planMulticast(const MulticastInstance& instance, MulticastAlgorithm algorithm,
                                    const MulticastOptions& options = {});

// A scheduling decision: `from` sends message `message` to `to`.
struct MulticastChoice {
  int from = 0;
  int to = 0;
  int message = 0;
};

// Replays a given sequence of choices with the bookkeeping of §4 (append) or
// §5 (preempt). An error value if a choice sends a message its sender does
// not hold yet or to a node that does not (or no longer) need it.
Result<MulticastPlan> scheduleChoices(const MulticastInstance& instance,
                                      std::span<const MulticastChoice> choices, bool preemptive);

// The receiver-first scheme of §4.3 with the receivers given in order (the
// draws of an RRS run, say): each step picks message and sender for the
// next receiver by earliest completion. An error value if a receiver has
// nothing left to receive or the order ends before every destination is served.
Result<MulticastPlan> scheduleReceiverOrder(const MulticastInstance& instance,
                                            std::span<const int> receivers, bool preemptive);

}  // namespace hnow::planner
