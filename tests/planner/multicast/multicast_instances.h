#pragma once
// Multicast instances shared by the planner tests: the seed's worked example
// and random ones in the ranges of seed 004 §7.
#include <algorithm>
#include <random>
#include <vector>

#include "planner/multicast/multicast.h"

namespace hnow::testing {

// Seed 004 §6, Figures 4 and 5: P0, P1 send in 1 and receive in 3; P2, P3
// send in 2 and receive in 6; P0 → {P1, P2}, P1 → {P2, P3}, P2 → {P0, P1, P3};
// sizes and links contribute nothing. Message k has source P_k, as in the seed.
inline planner::MulticastInstance seedExample() {
  planner::MulticastInstance in;
  in.nodes = {{1, 0, 3, 0}, {1, 0, 3, 0}, {2, 0, 6, 0}, {2, 0, 6, 0}};
  in.messages = {{0, 0, {1, 2}}, {1, 0, {2, 3}}, {2, 0, {0, 1, 3}}};
  in.linkPerByte = planner::uniformLinks(4, 0.0);
  return in;
}

// n nodes, overheads in [80, 400] µs and per-byte costs in [1e-4, 1e-2]
// µs/byte (seed §7), links of 155 Mbit/s or 1 Gbit/s (uniform or per pair),
// messages of 0 to 1.5 MB from random sources to random non-empty subsets.
inline planner::MulticastInstance randomInstance(std::mt19937& rng, int n, int messages,
                                                 bool perPairLinks) {
  std::uniform_real_distribution<double> overhead(80e-6, 400e-6), perByte(1e-10, 1e-8);
  std::uniform_int_distribution<int> node(0, n - 1), sizeKind(0, 2), coin(0, 1);
  planner::MulticastInstance in;
  for (int v = 0; v < n; ++v) in.nodes.push_back({overhead(rng), perByte(rng), overhead(rng), perByte(rng)});
  const double slow = 8.0 / 155e6, fast = 8.0 / 1e9;
  in.linkPerByte = planner::uniformLinks(n, coin(rng) ? slow : fast);
  if (perPairLinks)
    for (double& x : in.linkPerByte) x = coin(rng) ? slow : fast;
  for (int k = 0; k < messages; ++k) {
    planner::MulticastMessage m;
    m.source = node(rng);
    const int kind = sizeKind(rng);
    m.bytes = kind == 0 ? 0.0 : kind == 1 ? 1024.0 : (coin(rng) ? 1.0e6 : 1.5e6);
    for (int v = 0; v < n; ++v)
      if (v != m.source && coin(rng)) m.destinations.push_back(v);
    if (m.destinations.empty()) m.destinations.push_back((m.source + 1) % n);
    std::shuffle(m.destinations.begin(), m.destinations.end(), rng);
    in.messages.push_back(m);
  }
  return in;
}

}  // namespace hnow::testing
