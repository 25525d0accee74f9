#include "core/send/held_source.h"

#include <cstdio>

namespace hnow::daemon {

std::optional<HeldSource> chooseHeldSource(const std::string& algo, const std::vector<TreeNode>& holders,
                                           const std::vector<TreeNode>& receivers, std::uint64_t size,
                                           std::uint32_t chunkBytes, double fromHnowdSeconds) {
  if (algo == "striped" || receivers.empty() || !(fromHnowdSeconds > 0)) return std::nullopt;
  std::optional<HeldSource> best;
  for (std::size_t h = 0; h < holders.size(); ++h) {
    if (!(holders[h].rates.uplinkBytesPerSecond > 0)) continue;
    std::vector<TreeNode> nodes{holders[h]};
    nodes.insert(nodes.end(), receivers.begin(), receivers.end());
    auto tree = planSendTree(algo, nodes, size, chunkBytes, false);
    if (!tree) continue;
    if (!best || tree->predictedSeconds < best->tree.predictedSeconds) best = HeldSource{h, std::move(tree).value()};
  }
  if (!best || best->tree.predictedSeconds > (1.0 - kHeldSourceGain) * fromHnowdSeconds) return std::nullopt;
  char why[200];
  std::snprintf(why, sizeof why, "served by %s, which holds it at --dest already: %.2f s predicted against %.2f s from hnowd",
                holders[best->holder].name.c_str(), best->tree.predictedSeconds, fromHnowdSeconds);
  best->tree.why = why + (best->tree.why.empty() ? "" : "; " + best->tree.why);
  return best;
}

}  // namespace hnow::daemon
