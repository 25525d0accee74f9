// planner/multicast_edge_pass.h: FEF's pass with each vector kernel this
// processor runs against the plain loop, on random waiting sets and
// weights full of ties (equal weights, where the lower sender and the lower
// destination decide), counts that are and are not multiples of 8.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "planner/multicast_edge_pass.h"

using namespace hnow::planner;

TEST_CASE("FEF's vector passes update the lightest edges and pick the next exactly as the plain loop") {
  for (EdgePassKernel kernel : {EdgePassKernel::kAvx2, EdgePassKernel::kAvx512}) {
    if (!edgePassKernelAvailable(kernel)) {
      MESSAGE("skipped kernel " << static_cast<int>(kernel) << ": this processor does not have it");
      continue;
    }
    std::mt19937 rng(4711);
    std::uniform_int_distribution<int> small(0, 3), coin(0, 1);
    int changed = 0, tiedSender = 0, fusedWouldDiffer = 0;
    for (int trial = 0; trial < 3000; ++trial) {
      const int n = 1 + trial % 200;
      const int words = (n + 63) / 64;
      std::vector<std::uint64_t> waiting(words, 0);
      const int padded = (n + 7) / 8 * 8;  // the arrays' contract
      std::vector<double> link(padded, 0.0), receive(padded, 0.0), weight(padded, 0.0);
      std::vector<int> from(padded, 0);
      // Every other trial any values, whose products round, so a fused
      // multiply-add (which -mavx512f allows the compiler) would change the
      // bits; else few values, so weights tie.
      const bool reals = trial % 2 == 1;
      std::uniform_real_distribution<double> real(0.1, 3.0);
      for (int d = 0; d < n; ++d) {
        if (small(rng) != 0) waiting[d / 64] |= std::uint64_t{1} << (d % 64);
        link[d] = reals ? real(rng) * 1e-3 : small(rng) * 0.5;
        receive[d] = reals ? real(rng) : 1.0 + small(rng) * 0.5;
        weight[d] = reals ? 1.0 + real(rng) : 2.0 + small(rng) * 0.5;  // few values: often equal to the new edge's
        from[d] = static_cast<int>(rng() % n);
      }
      EdgePassInput in;
      in.count = n;
      in.waiting = waiting.data();
      in.sender = static_cast<int>(rng() % n);
      in.send = 0.5 * small(rng);
      in.bytes = reals ? 1000.0 * real(rng) : 1.0 + coin(rng);
      in.link = link.data();
      in.receive = receive.data();
      std::vector<double> plainWeight = weight, fastWeight = weight;
      std::vector<int> plainFrom = from, fastFrom = from;
      in.bestWeight = plainWeight.data();
      in.bestFrom = plainFrom.data();
      const EdgePassResult plain = edgePassWith(EdgePassKernel::kPlain, in);
      in.bestWeight = fastWeight.data();
      in.bestFrom = fastFrom.data();
      const EdgePassResult fast = edgePassWith(kernel, in);
      INFO("kernel " << static_cast<int>(kernel) << ", trial " << trial << ", " << n << " destinations");
      CHECK(fast.to == plain.to);
      if (plain.to >= 0) CHECK(fast.weight == plain.weight);
      CHECK(fastWeight == plainWeight);  // not-waiting entries untouched, waiting ones updated alike
      CHECK(fastFrom == plainFrom);
      changed += plainFrom != from;
      for (int d = 0; d < n && reals; ++d)
        fusedWouldDiffer += std::fma(link[d], in.bytes, in.send) != in.send + link[d] * in.bytes;
      for (int d = 0; d < n; ++d) tiedSender += plainWeight[d] == weight[d] && plainFrom[d] != from[d];
    }
    CHECK(changed > 1000);
    CHECK(fusedWouldDiffer > 100);  // the real-valued trials can tell a fused multiply-add
    CHECK(tiedSender > 100);  // equal weights went to the lower sender
  }
}
