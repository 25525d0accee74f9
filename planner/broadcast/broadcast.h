#pragma once
// Broadcast in the sender-determined model of seed 000 §2: node p needs t(p)
// to send one message to anyone; one transfer at a time per node.
#include <span>
#include <vector>

#include "planner/transfer.h"

namespace hnow::planner {

// Seed 000 §3 / Theorem 4.1: with no idle senders a schedule is fixed by the
// order in which nodes become ready; each next node is served by whichever
// ready node can finish a send earliest (ties: the source, then the faster
// sender, then the slot created first). `order` lists every node but the source.
Schedule scheduleFromReadyOrder(std::span<const double> sendTime, int source,
                                std::span<const int> order);

// The two decoders behind scheduleFromReadyOrder (per speed class, or one
// queue for all); they must agree exactly. For tests only.
Schedule scheduleFromReadyOrderForTesting(std::span<const double> sendTime, int source,
                                          std::span<const int> order, bool byClass);

// Seed 000 §3: fastest-node-first. Receivers in non-decreasing t (ties by
// index), each served by the sender that can finish earliest. O(n log n).
Schedule fastestNodeFirst(std::span<const double> sendTime, int source);

// What a homogeneous MPI does: a binomial tree over ranks in node order,
// rotated so the source is rank 0; each node sends to its children largest
// subtree first as soon as it holds the message (MPICH's MPIR_Bcast_binomial).
Schedule binomialBroadcast(std::span<const double> sendTime, int source);

// The source sends to every other node in index order.
Schedule flatBroadcast(std::span<const double> sendTime, int source);

// A pipeline in node order starting at the source (as Kascade does).
Schedule chainBroadcast(std::span<const double> sendTime, int source);

// A lower bound on any broadcast: every node but the source made as fast as
// the fastest of them. Decreasing send times never delays a ready time (seed
// 000 §5, the monotonic cost property), and with equal times the order is
// irrelevant, so the ready-order schedule of the relaxed cluster is a bound.
double broadcastLowerBound(std::span<const double> sendTime, int source);

}  // namespace hnow::planner
