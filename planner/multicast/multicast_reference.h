#pragma once
// Reference implementations of the multicast heuristics (seed 004 §4–§5):
// direct, slow (ECF is O(N^4) and worse on all-to-all), and obviously
// faithful to the seed's pseudo-code and the tie rules of
// multicast_heuristics.h. planMulticast must choose exactly the same
// transfers; tests and the bench compare the two.
#include <span>

#include "planner/multicast/multicast_heuristics.h"

namespace hnow::planner {

Result<MulticastPlan> planMulticastReference(const MulticastInstance& instance, MulticastAlgorithm algorithm,
                                             const MulticastOptions& options = {});

Result<MulticastPlan> scheduleReceiverOrderReference(const MulticastInstance& instance,
                                                     std::span<const int> receivers, bool preemptive);

}  // namespace hnow::planner
