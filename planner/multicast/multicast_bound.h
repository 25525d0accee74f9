#pragma once
// The lower bound of seed 004 §3.2 on any multiple multicast schedule.
#include <vector>

#include "planner/multicast/multicast.h"

namespace hnow::planner {

// §3.2, idealized model (a node receives while sending any number of
// messages in parallel): L[k][v], the earliest time message k can have been
// received by v, is a shortest path from k's source through holders of k
// (its destinations, §3.1) with edge i→j costing S(i,l) + X(i,j)·l + R(j,l).
// The result is [k * n + v]; 0 at the source, +inf where v is not a destination.
std::vector<double> earliestReachTimes(const MulticastInstance& instance);

// §3.2, Equation 4: each destination's receives cannot overlap, so it ends no
// earlier than the single-machine schedule of its receives, receive k taking
// R(v,l_k) and ending no earlier than L[k][v]. The seed orders the receives
// earliest-reach-first; with messages of different sizes that order can
// overshoot (a long receive reaching at 10 and a short one at 5: reach order
// ends at 5 + R_long, latest-start order at 10 + R_short), so we order by the
// latest start L − R, the optimal order for this single-machine problem; for
// equal sizes it is the seed's order. The bound is the maximum over nodes.
double multicastLowerBound(const MulticastInstance& instance);

}  // namespace hnow::planner
