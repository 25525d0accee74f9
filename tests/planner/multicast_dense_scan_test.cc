// planner/multicast_dense_scan.h: the AVX2 sender choice against the same
// choice written one sender at a time, on random inputs built to tie:
// times from a handful of values, receivers that are the bottleneck (every
// sender in time ties at Avail_j + R), own sources and not, senders holding
// nothing, node counts that are and are not multiples of 8; each kernel
// this processor runs (AVX2, AVX-512).
#include <doctest/doctest.h>

#include <limits>
#include <random>
#include <vector>

#include "planner/multicast_dense_scan.h"

using namespace hnow::planner;

namespace {

struct RandomScan {
  std::vector<double> sendEnd, linkTo;
  std::vector<std::uint64_t> held[2], sourced[2];
  std::vector<int> sourceOf;
  DenseScanInput in;

  RandomScan(std::mt19937& rng, int n, int messages) {
    const int padded = (n + 7) / 8 * 8;
    std::uniform_int_distribution<int> small(0, 3), node(0, n - 1), coin(0, 1);
    sendEnd.assign(padded, std::numeric_limits<double>::infinity());
    linkTo.assign(padded, 0.0);
    for (int w = 0; w < 2; ++w) held[w].assign(padded, 0), sourced[w].assign(padded, 0);
    // Few values, so equal times are common; or, every other input, any
    // values, whose products round, so a fused multiply-add (which
    // -mavx512f allows the compiler) would change the bits.
    const bool reals = coin(rng) == 1;
    std::uniform_real_distribution<double> real(0.1, 3.0);
    for (int i = 0; i < n; ++i) {
      sendEnd[i] = reals ? real(rng) : 1.0 + small(rng) * 0.5;
      linkTo[i] = reals ? real(rng) * 1e-3 : small(rng) * 0.25;
    }
    for (int k = 0; k < messages; ++k) {
      const int source = node(rng);
      sourceOf.push_back(source);
      const std::uint64_t bit = std::uint64_t{1} << (k % 64);
      sourced[k / 64][source] |= bit;
      held[k / 64][source] |= bit;
      for (int i = 0; i < n; ++i)
        if (small(rng) == 0) held[k / 64][i] |= bit;  // relays
    }
    in.padded = padded;
    in.sendEnd = sendEnd.data();
    in.linkTo = linkTo.data();
    in.bytes = reals ? 1000.0 * real(rng) : 1.0 + small(rng);
    in.receive = 0.5 + small(rng) * 0.5;
    // Sometimes far behind every sender (all tie at Avail_j + R), sometimes
    // ahead of them all, sometimes in between.
    in.available = small(rng) * 1.5;
    for (int w = 0; w < 2; ++w) {
      in.held[w] = held[w].data();
      in.sourced[w] = sourced[w].data();
      for (int k = w * 64; k < messages && k < (w + 1) * 64; ++k)
        if (coin(rng)) in.wanted[w] |= std::uint64_t{1} << (k % 64);
    }
    in.sourceOf = sourceOf.data();
  }
};

}  // namespace

TEST_CASE("the dense sender scan picks what the plain one does, ties included") {
  if (!denseScanAvailable()) {
    MESSAGE("skipped: this processor has no AVX2, so the planner uses the bucket scans (tested elsewhere)");
    return;
  }
  for (DenseScanKernel kernel : {DenseScanKernel::kAvx2, DenseScanKernel::kAvx512}) {
    if (!denseScanKernelAvailable(kernel)) {
      MESSAGE("skipped the AVX-512 kernel: this processor has no AVX-512");
      continue;
    }
    std::mt19937 rng(404);
    int found = 0, receiverBound = 0;
    for (int trial = 0; trial < 4000; ++trial) {
      const int n = 1 + trial % kDenseScanMax;
      const int messages = 1 + static_cast<int>(rng() % 128);
      RandomScan scan(rng, n, messages);
      const DenseScanResult fast = denseScanWith(kernel, scan.in);
      const DenseScanResult plain = denseScanPlain(scan.in);
      INFO("kernel " << static_cast<int>(kernel) << ", trial " << trial << ", " << n << " nodes, " << messages
                     << " messages");
      REQUIRE(fast.found == plain.found);
      if (!plain.found) continue;
      ++found;
      receiverBound += plain.time == scan.in.available + scan.in.receive;
      CHECK(fast.time == plain.time);
      CHECK(fast.notOwnSource == plain.notOwnSource);
      CHECK(fast.message == plain.message);
      CHECK(fast.sender == plain.sender);
    }
    // The inputs exercised both cases of the tie rules.
    CHECK(found > 3000);
    CHECK(receiverBound > 500);
    CHECK(found - receiverBound > 500);
  }
}
