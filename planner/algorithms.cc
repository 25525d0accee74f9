#include "planner/algorithms.h"

#include "planner/broadcast/broadcast.h"
#include "planner/broadcast/broadcast_search.h"

namespace hnow::planner {

namespace {

template <Schedule (*F)(std::span<const double>, int)>
SendTimeBroadcast heuristic(std::span<const double> t, int source, const SearchLimits&) {
  return {F(t, source)};
}

SendTimeBroadcast searched(std::span<const double> t, int source, const SearchLimits& limits) {
  OptimalBroadcast best = optimalBroadcast(t, source, limits);
  return {std::move(best.schedule), best.stats.searchNodes, best.provenOptimal};
}

constexpr unsigned kSendAndPlan = kSendUse | kBroadcastUse;
constexpr unsigned kHeuristicUses = kManifestUse | kMulticastUse;

}  // namespace

const std::vector<Algorithm>& algorithms() {
  using B = BroadcastAlgorithm;
  using M = MulticastAlgorithm;
  static const std::vector<Algorithm> table{
      // A file's broadcast (hnow send; hnow plan's broadcast over send times).
      {"auto", kSendUse | kManifestUse, "the fastest predicted of the others"},
      {"tree", kSendUse, "the faster of the store-and-forward and pipelined trees, never striped"},
      {"striped", kSendUse, "the file cut in stripes, each down a tree of its own (Kumar-Ross bound)"},
      {"fnf", kSendAndPlan, "fastest node first (seed 000 §3)", B::kFnf, &heuristic<fastestNodeFirst>},
      {"snf", kReduceUse, "slowest node first, a reduction (seed 003 §4)"},
      {"optimal", kSendAndPlan | kReduceUse, "branch-and-bound (seed 000 §5; a reduction: seed 003 §5-6)", B::kOptimal,
       &searched},
      {"lcf", kSendUse | kClusterBroadcastUse | kClusterMulticastUse,
       "largest cluster first over the sites (seed 001 §3)", B::kLcf},
      {"interleaved-lcf", kClusterBroadcastUse, "LCF interleaving clusters, postal model (seed 001 §6.2)"},
      {"binomial", kSendAndPlan | kReduceUse, "MPICH's binomial tree in node order", B::kBinomial,
       &heuristic<binomialBroadcast>, {}, false, true},
      {"chain", kSendAndPlan, "host order, as Kascade does", B::kChain, &heuristic<chainBroadcast>, {}, false, true},
      {"flat", kSendAndPlan, "the source sends to everyone", B::kFlat, &heuristic<flatBroadcast>, {}, false, true},
      // Several files at once (hnow send --manifest; hnow plan's multicast): seed 004.
      {"fef", kHeuristicUses, "fastest edge first (§4.1)", {}, nullptr, M::kFastestEdgeFirst},
      {"ecf", kHeuristicUses, "earliest completion first (§4.2)", {}, nullptr, M::kEarliestCompletionFirst},
      {"wr", kHeuristicUses, "work racing (§4.3)", {}, nullptr, M::kWorkRacing},
      {"eaf", kHeuristicUses, "earliest available first (§4.4)", {}, nullptr, M::kEarliestAvailableFirst},
      {"rr", kHeuristicUses, "round robin", {}, nullptr, M::kRoundRobin},
      {"rrs", kHeuristicUses, "receiver random selection", {}, nullptr, M::kReceiverRandomSelection},
      {"ecfp", kHeuristicUses, "ECF, preemptive (§5)", {}, nullptr, M::kEarliestCompletionFirst, true},
      {"wrp", kHeuristicUses, "WR, preemptive (§5)", {}, nullptr, M::kWorkRacing, true},
      {"eafp", kHeuristicUses, "EAF, preemptive (§5)", {}, nullptr, M::kEarliestAvailableFirst, true},
      {"rrp", kHeuristicUses, "RR, preemptive (§5)", {}, nullptr, M::kRoundRobin, true},
      {"rrsp", kHeuristicUses, "RRS, preemptive (§5)", {}, nullptr, M::kReceiverRandomSelection, true},
      {"independent", kManifestUse, "each file down its own pipelined tree, all at once"},
      {"residual", kManifestUse, "each file's tree over what the earlier ones leave of each link"},
      // Divisible load with results returned (seed 002).
      {"fifo", kWorksharingUse, "results return in the order the work went out (Theorem 2)"},
      {"lifo", kWorksharingUse, "results return in the reverse order (Theorem 1)"},
      {"small-results", kWorksharingUse, "return order by Smith's rule, optimal to first order in the result ratio (§V-B)"},
      {"best", kWorksharingUse, "every worker subset, serve and return order searched (8 workers at most)"},
  };
  return table;
}

const Algorithm* findAlgorithm(unsigned use, std::string_view name) {
  for (const Algorithm& a : algorithms())
    if ((a.uses & use) != 0 && a.name == name) return &a;
  return nullptr;
}

std::vector<std::string> algorithmNames(unsigned use) {
  std::vector<std::string> names;
  for (const Algorithm& a : algorithms())
    if ((a.uses & use) != 0) names.emplace_back(a.name);
  return names;
}

std::string algorithmChoices(unsigned use) {
  std::string choices;
  for (const std::string& name : algorithmNames(use)) choices += (choices.empty() ? "" : "|") + name;
  return choices;
}

}  // namespace hnow::planner
