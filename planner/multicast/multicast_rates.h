#pragma once
// From measured rates to seed 004's multiple multicast model, and from a
// multicast plan back to one tree per message, for manifests.
#include <span>
#include <vector>

#include "base/result.h"
#include "planner/broadcast/broadcast_tree.h"
#include "planner/multicast/multicast.h"
#include "planner/node_rates.h"

namespace hnow::planner {

// From measured rates (docs/architecture.md "From measured rates to each
// model"), a transfer i -> j of m bytes takes S(i,m) + X(i,j)·m + R(j,m) with
// X(i,j) = 1/min(uplink i, downlink j).
// Seed 004 §2 lets a sender go on once S(i,m) is over; on one uplink that
// would let a node start every send at once, each at the full rate. So the
// bytes' time on the sender's own uplink is charged to the send (the uplink
// is the sender's resource) and only the rest to the network:
//   S(i,m) = S_c(i) + m / uplink(i),
//   X(i,j) = 1 / min(uplink i, downlink j) - 1 / uplink(i)  (0 unless j's downlink is slower),
//   R(j,m) = R_c(j),
// keeping the end-to-end time S_c + m / min(up, down) + R_c of that model.
// Overheads not measured (0) become 1 µs: §5's preemption needs them positive.
// Errors: a node that takes part (a source or a destination) without a
// positive uplink or downlink, and what checkInstance refuses.
Result<MulticastInstance> multicastFromRates(std::span<const NodeRates> rates,
                                             std::vector<MulticastMessage> messages);

// Per message, the tree its plan builds: each destination's parent is the
// node that sent it the message, children in the order the plan sends.
// `plan` must be a plan of `instance` (every destination served once).
std::vector<BroadcastTree> treesOfMulticastPlan(const MulticastInstance& instance, const MulticastPlan& plan);

}  // namespace hnow::planner
