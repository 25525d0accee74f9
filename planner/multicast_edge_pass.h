#pragma once
// FEF's step (seed 004 §4.1, planner/multicast_heuristics.cc): node j has
// just received message k, so for every destination d still waiting for k
// the edge j -> d, of weight (S(j) + X(j, d)·l) + R(d), replaces d's
// lightest edge from a holder if lighter (the lower sender on equal
// weight); then the lightest edge over the waiting destinations (the lower
// destination on equal weight) is the message's next. One pass over the
// message's waiting set, O(N) a step: the hot loop of FEF. Written plainly,
// and with AVX2 and AVX-512, eight or four destinations an instruction with
// masked loads and stores (no branch per destination); every kernel does
// the same arithmetic, so the same bits (tests/planner/multicast_edge_pass_test.cc).
#include <cstdint>

namespace hnow::planner {

// The arrays are read (and bestWeight, bestFrom written back unchanged
// where nothing waits) in whole groups of 8 from 0: they must extend to
// count rounded up to 8.
struct EdgePassInput {
  int count = 0;                        // destinations 0..count-1
  const std::uint64_t* waiting = nullptr;  // B_k as bits, (count + 63) / 64 words, none past count
  int sender = 0;                       // j
  double send = 0.0;                    // S(j, l_k)
  double bytes = 0.0;                   // l_k
  const double* link = nullptr;         // [d]: X(j, d), per byte
  const double* receive = nullptr;      // [d]: R(d, l_k)
  double* bestWeight = nullptr;         // [d]: d's lightest edge so far, updated
  int* bestFrom = nullptr;              // [d]: its holder, updated
};

struct EdgePassResult {
  double weight = 0.0;  // the lightest waiting destination's edge
  int to = -1;          // that destination, -1 if none is waiting
};

enum class EdgePassKernel { kPlain, kAvx2, kAvx512 };
bool edgePassKernelAvailable(EdgePassKernel kernel);
EdgePassResult edgePassWith(EdgePassKernel kernel, const EdgePassInput& in);
// With the widest kernel this processor runs.
EdgePassResult edgePass(const EdgePassInput& in);

}  // namespace hnow::planner
