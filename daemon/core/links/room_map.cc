#include "core/links/room_map.h"

#include <optional>
#include <set>

#include "base/ip_network.h"

namespace hnow::daemon {

namespace {

constexpr const char* kCoordinatorRoom = "hnowd";
constexpr const char* kUnknownRoom = "unknown";

// "10.1.2.3:9000" -> "10.1.2.3", "[fd00::5]:9000" -> "fd00::5".
std::string hostOfAddress(const std::string& address) {
  if (!address.empty() && address.front() == '[') {
    const std::size_t close = address.find(']');
    return close == std::string::npos ? "" : address.substr(1, close - 1);
  }
  return address.substr(0, address.rfind(':'));
}

bool labelled(const RoomMember& m) { return !m.site.empty() && m.site != kOneRoom; }

// The labels of the labelled agents on `subnet`; none for an unknown subnet.
std::set<std::string> labelsOn(const std::string& subnet, const std::vector<RoomMember>& agents,
                               const std::vector<std::string>& subnets) {
  std::set<std::string> labels;
  if (subnet.empty()) return labels;
  for (std::size_t i = 0; i < agents.size(); ++i)
    if (labelled(agents[i]) && subnets[i] == subnet) labels.insert(agents[i].site);
  return labels;
}

RoomAssignment bySiteLabels(const RoomMember& coordinator, const std::vector<RoomMember>& agents,
                            const std::vector<std::string>& subnets) {
  RoomAssignment out{{}, "site labels"};
  const std::string hnowdSubnet = subnetOfMember(coordinator);
  const std::set<std::string> hnowdLabels = labelsOn(hnowdSubnet, agents, subnets);
  const std::string hnowdRoom = hnowdLabels.size() == 1 ? *hnowdLabels.begin() : kCoordinatorRoom;
  out.roomOf[coordinator.name] = hnowdRoom;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const RoomMember& a = agents[i];
    if (labelled(a)) {
      out.roomOf[a.name] = a.site;
      continue;
    }
    const std::set<std::string> labels = labelsOn(subnets[i], agents, subnets);
    if (labels.size() == 1) out.roomOf[a.name] = *labels.begin();
    else if (subnets[i].empty() || subnets[i] == hnowdSubnet) out.roomOf[a.name] = hnowdRoom;
    else out.roomOf[a.name] = subnets[i];
  }
  return out;
}

RoomAssignment bySubnets(const RoomMember& coordinator, const std::vector<RoomMember>& agents,
                         const std::vector<std::string>& subnets) {
  RoomAssignment out{{}, "subnets"};
  const std::string hnowdSubnet = subnetOfMember(coordinator);
  const std::string hnowdRoom = hnowdSubnet.empty() ? kUnknownRoom : hnowdSubnet;
  out.roomOf[coordinator.name] = hnowdRoom;
  for (std::size_t i = 0; i < agents.size(); ++i)
    out.roomOf[agents[i].name] = subnets[i].empty() ? hnowdRoom : subnets[i];
  return out;
}

}  // namespace

std::string subnetOfMember(const RoomMember& member) {
  std::optional<IpNetwork> first, holding;
  const std::optional<IpNetwork> host = parseIpAddress(hostOfAddress(member.dataAddress));
  for (const std::string& text : member.networks) {
    const std::optional<IpNetwork> network = parseIpNetwork(text);
    if (!network) continue;  // an agent's own text: skipped, not trusted
    if (!first) first = network;
    if (host && !holding && holds(*network, *host)) holding = network;
  }
  if (holding) return textOf(subnetOf(*holding));
  return first ? textOf(subnetOf(*first)) : "";
}

RoomAssignment assignRooms(const RoomMember& coordinator, const std::vector<RoomMember>& agents) {
  std::vector<std::string> subnets;
  std::set<std::string> labels, distinctSubnets;
  for (const RoomMember& a : agents) {
    subnets.push_back(subnetOfMember(a));
    if (labelled(a)) labels.insert(a.site);
    if (!subnets.back().empty()) distinctSubnets.insert(subnets.back());
  }
  if (labels.size() >= 2) return bySiteLabels(coordinator, agents, subnets);
  if (const std::string own = subnetOfMember(coordinator); !own.empty()) distinctSubnets.insert(own);
  if (distinctSubnets.size() >= 2) return bySubnets(coordinator, agents, subnets);
  RoomAssignment out{{}, "one room"};
  out.roomOf[coordinator.name] = kOneRoom;
  for (const RoomMember& a : agents) out.roomOf[a.name] = kOneRoom;
  return out;
}

}  // namespace hnow::daemon
