#pragma once
// seed 001 §6.2, Interleaved LCF for a broadcast in the postal model.
#include "planner/transfer.h"
#include "planner/clusters/two_level.h"

namespace hnow::planner {

// Every node holding the message alternates a local transfer (to a node of
// its cluster without the message) and a global transfer (to the largest
// cluster no copy was sent to), starting with a local one. When the step due
// has nothing to do the node does the other one instead, so no node idles
// while it has work (the "no idle time" of Theorem 6.4's proof). Each cluster
// gets exactly one copy from outside: k - 1 global transfers. The instance's
// model must be postal; ties as in two_level_lcf.h.
Schedule interleavedLcf(const TwoLevelInstance& instance);

}  // namespace hnow::planner
