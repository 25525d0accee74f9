#include "core/links/reachability.h"

namespace hnow::daemon {

bool Reachability::needsCheck(const std::string& agent, const std::string& dataAddress) {
  auto [it, added] = agents_.try_emplace(agent);
  if (!added && it->second.address == dataAddress) return false;
  it->second = {dataAddress, true, ""};
  return true;
}

void Reachability::checked(const std::string& agent, const std::string& dataAddress, const Result<void>& outcome) {
  auto it = agents_.find(agent);
  // It registered again from elsewhere meanwhile: that address is checked on its own.
  if (it == agents_.end() || it->second.address != dataAddress) return;
  if (outcome) {
    it->second.reachable = true;
    it->second.note.clear();
    return;
  }
  it->second.reachable = false;
  it->second.note = "hnowd cannot connect to its data plane at " + dataAddress + ": " + outcome.error().message +
                    "; planned as a leaf, it pulls from others";
}

bool Reachability::refusedBy(const std::string& agent, const std::string& reporter, const std::string& why) {
  Entry& e = agents_[agent];
  const bool news = e.reachable;
  if (!news) return false;  // the first reason stands
  e.reachable = false;
  e.note = reporter + " cannot connect to its data plane" + (e.address.empty() ? "" : " at " + e.address) + ": " +
           why + "; planned as a leaf, it pulls from others";
  return true;
}

bool Reachability::reachable(const std::string& agent) const {
  auto it = agents_.find(agent);
  return it == agents_.end() || it->second.reachable;
}

ReachabilityView Reachability::view(const std::string& agent) const {
  auto it = agents_.find(agent);
  if (it == agents_.end()) return {};
  return {it->second.reachable, it->second.note};
}

void Reachability::planLeaves(std::vector<TreeNode>& nodes) const {
  for (std::size_t i = 1; i < nodes.size(); ++i)
    if (!reachable(nodes[i].name)) nodes[i].relays = false;
}

}  // namespace hnow::daemon
