#pragma once
// The receiver-first heuristics' sender choice (seed 004 §4.3 step 2, for
// one message size, without preemption) evaluated over every sender at once
// with AVX2 (or AVX-512): four (eight) senders per instruction, no branch per sender, and no
// sender order to keep up to date after each commit. On the 80-node
// all-to-all this replaces a walk of ~5-10 senders in a bucket queue plus
// two bucket moves per step, whose cost was mostly mispredicted branches and
// dependent loads (docs/bench-multicast.md, "Sixth round"). The bucket queue
// stays for machines without AVX2 and for large clusters, where a step
// touching every sender would cost more than a walk of the first few.
//
// The choice is the least key (time, notOwnSource, message, sender) of
// multicast_heuristics.h's tie rules, the same as the scans of
// multicast_candidates.cc: tests/planner/multicast_dense_scan_test.cc checks
// it against denseScanPlain on random inputs full of ties.
#include <cstdint>

namespace hnow::planner {

// Arrays of `padded` entries (a multiple of 8, at least the node count, at
// most kDenseScanMax);
// the entries past the nodes must hold nothing (held 0) and have an
// infinite sendEnd. Two words of message bits (M <= 128).
constexpr int kDenseScanMax = 256;

struct DenseScanInput {
  int padded = 0;
  const double* sendEnd = nullptr;  // [i]: Avail_i + S(i, bytes)
  const double* linkTo = nullptr;   // [i]: X(i, j), per byte
  double bytes = 0.0;
  double receive = 0.0;             // R(j, bytes)
  double available = 0.0;           // Avail_j
  const std::uint64_t* held[2] = {nullptr, nullptr};     // [w][i]: messages i holds
  const std::uint64_t* sourced[2] = {nullptr, nullptr};  // [w][i]: messages i is the source of
  std::uint64_t wanted[2] = {0, 0};                      // messages of this size j still needs
  const int* sourceOf = nullptr;                         // [k]: m_k's source
};

struct DenseScanResult {
  bool found = false;  // some sender holds something j wants
  double time = 0.0;
  int notOwnSource = 1;
  int message = -1;
  int sender = -1;
};

// True when this processor runs denseScan (AVX2), checked once.
bool denseScanAvailable();

// The least key over all senders, with the widest kernel this processor
// runs; requires denseScanAvailable().
DenseScanResult denseScan(const DenseScanInput& in);

// The kernels, for the tests: AVX2, and AVX-512 where the processor has it.
enum class DenseScanKernel { kAvx2, kAvx512 };
bool denseScanKernelAvailable(DenseScanKernel kernel);
DenseScanResult denseScanWith(DenseScanKernel kernel, const DenseScanInput& in);

// The same choice written plainly, one sender at a time: the tests' oracle.
DenseScanResult denseScanPlain(const DenseScanInput& in);

}  // namespace hnow::planner
