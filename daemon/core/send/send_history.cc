#include "core/send/send_history.h"

namespace hnow::daemon {

void SendHistory::start(const std::vector<int>& parent, const std::vector<TreeNode>& nodes) {
  stretches_.assign(parent.size(), {});
  TreeVersion plan{0.0, "plan", std::vector<int>(parent.size(), -1), nodes};
  for (std::size_t i = 1; i < parent.size(); ++i) {
    stretches_[i].push_back({parent[i], 0.0, 0, -1.0, 0});
    plan.stretchOf[i] = 0;
  }
  versions_ = {std::move(plan)};
}

void SendHistory::moved(double atS, int node, int parent, std::uint64_t bytes, const std::string& reason,
                        const std::vector<TreeNode>& nodes) {
  if (versions_.empty() || node <= 0 || static_cast<std::size_t>(node) >= stretches_.size()) return;
  auto& mine = stretches_[static_cast<std::size_t>(node)];
  if (!mine.empty() && mine.back().open()) {
    mine.back().toS = atS;
    mine.back().toBytes = bytes;
  }
  mine.push_back({parent, atS, bytes, -1.0, 0});
  if (versions_.back().atS != atS || versions_.back().reason != reason) {
    TreeVersion next = versions_.back();
    next.atS = atS;
    next.reason = reason;
    next.nodes = nodes;
    versions_.push_back(std::move(next));
  }
  versions_.back().stretchOf[static_cast<std::size_t>(node)] = static_cast<int>(mine.size()) - 1;
}

void SendHistory::ended(double atS, int node, std::uint64_t bytes) {
  if (node <= 0 || static_cast<std::size_t>(node) >= stretches_.size()) return;
  auto& mine = stretches_[static_cast<std::size_t>(node)];
  if (mine.empty() || !mine.back().open()) return;
  mine.back().toS = atS;
  mine.back().toBytes = bytes;
}

int SendHistory::parentIn(const TreeVersion& version, int node) const {
  const int index = version.stretchOf[static_cast<std::size_t>(node)];
  return index < 0 ? -1 : stretch(node, index).parent;
}

}  // namespace hnow::daemon
