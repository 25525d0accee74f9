#pragma once
// Every algorithm hnow plans with, in one table: its name, what it plans,
// its help line and its entry in the planner. The command line's choices
// and help, the request files' readers (conf/) and hnowd's services all
// read this table, so a new algorithm is registered here once, beside the
// planner function that is its entry.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "planner/broadcast/broadcast_choice.h"
#include "planner/multicast/multicast_heuristics.h"
#include "planner/search_limits.h"
#include "planner/transfer.h"

namespace hnow::planner {

// What an algorithm plans, as bits: one name may serve several.
enum AlgorithmUse : unsigned {
  kSendUse = 1u << 0,              // hnow send --algo: a file over measured rates
  kManifestUse = 1u << 1,          // hnow send --manifest --algo: several files at once
  kBroadcastUse = 1u << 2,         // hnow plan, op = "broadcast": per-node send times (seed 000)
  kReduceUse = 1u << 3,            // hnow plan, op = "reduce" (seed 003)
  kClusterBroadcastUse = 1u << 4,  // hnow plan, op = "cluster-broadcast" (seed 001)
  kClusterMulticastUse = 1u << 5,  // hnow plan, op = "cluster-multicast"
  kMulticastUse = 1u << 6,         // hnow plan, op = "multicast" (seed 004)
  kWorksharingUse = 1u << 7,       // hnow plan, op = "worksharing" (seed 002)
};

// A broadcast in seed 000's model, from each node's time to send one
// message: the schedule, and what a search cost.
struct SendTimeBroadcast {
  Schedule schedule;
  long long searchNodes = 0;  // SearchStats's
  std::optional<bool> provenOptimal{};  // a search's only
};
using SendTimeEntry = SendTimeBroadcast (*)(std::span<const double> sendTime, int source, const SearchLimits& limits);

struct Algorithm {
  std::string_view name;
  unsigned uses = 0;  // AlgorithmUse bits
  std::string_view help;
  // A tree of a file broadcast over measured rates (none for a choice among
  // them: auto, tree, striped).
  std::optional<BroadcastAlgorithm> broadcast{};
  // The schedule over per-node send times, for a store-and-forward broadcast.
  SendTimeEntry sendTimes = nullptr;
  // A multicast heuristic of seed 004 and whether in its preemptive form (§5).
  std::optional<MulticastAlgorithm> multicast{};
  bool preemptive = false;
  // A baseline: a tree as another tool builds it, planned beside hnow's
  // own for comparison and run as that tool would (no trunk rearranged).
  bool baseline = false;
};

// The table, in the order help lines list it.
const std::vector<Algorithm>& algorithms();
// The algorithm called `name` for `use`, or null.
const Algorithm* findAlgorithm(unsigned use, std::string_view name);
// The names for `use` (any of its bits), in the table's order.
std::vector<std::string> algorithmNames(unsigned use);
// "a|b|c": the names for `use`, for a help line.
std::string algorithmChoices(unsigned use);

}  // namespace hnow::planner
