#pragma once
// Random clusters as in seed 000 §5 and seed 003 §6: nodes come in a few
// classes (machines bought in batches) and every node picks its class
// uniformly at random. How the class send times are drawn is ours (the seeds
// do not give their tables): per cluster, `classes` distinct integers drawn
// uniformly from 1..kMaxClassTime. Integers make simultaneous completions
// common, which is where the searches' tie rules matter.
#include <cstdint>
#include <random>
#include <vector>

namespace hnow::bench {

inline constexpr int kMaxClassTime = 10;

// One generator per table row, seeded from a fixed seed and the row's
// parameters: a row's clusters do not depend on which other rows were run.
// (The distributions' draws are fixed for one standard library, libstdc++
// here; another library may draw other clusters.)
std::mt19937_64 rowGenerator(std::uint64_t seed, int n, int classes);

// `classes` distinct send times from 1..kMaxClassTime, ascending.
std::vector<double> drawClassTimes(std::mt19937_64& rng, int classes);

// Seed 000's setting: node 0 is the source and belongs to the fastest class;
// nodes 1..n-1 pick a class uniformly (so a class may end up empty).
// With `sourceAlone` they pick among the slower classes only: the source is
// the only fastest node, the shape of seed 000's counterexample to FNF.
std::vector<double> drawBroadcastCluster(std::mt19937_64& rng, int n, int classes,
                                         bool sourceAlone = false);

// Seed 003's setting: all n nodes pick a class uniformly; the sink is then a
// slowest node (the one that should never send, seed 003 §2).
struct ReductionCluster {
  std::vector<double> sendTime;
  int sink = 0;
};
ReductionCluster drawReductionCluster(std::mt19937_64& rng, int n, int classes);

}  // namespace hnow::bench
