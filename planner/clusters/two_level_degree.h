#pragma once
// seed 001 §5.1–§5.2, the bounded-degree model: at most d_i nodes of
// cluster i take part in global transfers at once.
#include <span>

#include "planner/transfer.h"
#include "planner/clusters/two_level.h"

namespace hnow::planner {

// The instance I(d_i, d_i) of §5.1, adjusted for a multicast as in §5.2:
// cluster i keeps its first min(d_i, n_i) nodes if fewer than d_i of them
// need the message, else its first min(d_i, n'_i); members come first, so
// the kept nodes are a prefix. degree[i] <= 0 means no limit.
TwoLevelInstance degreeReducedInstance(const TwoLevelInstance& instance,
                                       std::span<const int> degree);

// Phase 1: LCF (broadcast) or LCF Multicast on the reduced instance, whose
// nodes are the first nodes of each cluster; phase 2: every cluster
// broadcasts locally to its remaining nodes that need the message, each
// node joining once its phase-1 work is over.
Schedule boundedDegreeLcf(const TwoLevelInstance& instance, std::span<const int> degree,
                          bool multicast);

// Local broadcast inside each cluster on top of `schedule`: every node that
// holds the message after it sends, as soon as it is free, to the
// lowest-numbered node that still needs the message (blocking model).
Schedule completeLocally(const TwoLevelInstance& instance, Schedule schedule);

}  // namespace hnow::planner
