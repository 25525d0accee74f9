#pragma once
// Only what changed, per agent (docs/tree-send.md, "Agents that lack
// different files"): one bundle for every agent carries each file any of
// them lacks, so one machine that missed last week's update makes all of
// them receive last week's files again. hnowd groups the agents by the
// files they lack and packs a bundle per group; a group's agents receive
// only theirs.
//
// The agents lacking exactly the same files form a group. Two groups are
// merged, fewest wasted bytes first, while the bytes the merge makes
// agents receive for nothing stay small (kGroupWasteShare of what they
// lack, or kGroupWasteBytes), and while there are more than
// kMaxBundleGroups: every bundle is a broadcast of its own from hnowd's
// uplink, with its listing and its round of orders.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hnow::daemon {

inline constexpr std::size_t kMaxBundleGroups = 4;
inline constexpr double kGroupWasteShare = 0.05;
inline constexpr std::uint64_t kGroupWasteBytes = 1 << 20;

struct BundleGroup {
  std::vector<std::size_t> agents;  // indices into the agents asked, ascending
  std::vector<bool> missing;        // per scan entry: some agent of the group lacks it
  std::uint64_t bytes = 0;          // the bytes of those files
};

// `agentMissing[a][k]`: agent a lacks scan entry k, whose size is
// `sizes[k]`. Groups in order of their first agent; every agent in one.
std::vector<BundleGroup> groupByMissing(const std::vector<std::vector<bool>>& agentMissing,
                                        const std::vector<std::uint64_t>& sizes,
                                        std::size_t maxGroups = kMaxBundleGroups);

// The bytes agents would receive of files they hold already, were each
// sent its group's bundle: what the merges cost (0 for exact groups).
std::uint64_t wastedBytes(const std::vector<BundleGroup>& groups, const std::vector<std::vector<bool>>& agentMissing,
                          const std::vector<std::uint64_t>& sizes);

}  // namespace hnow::daemon
