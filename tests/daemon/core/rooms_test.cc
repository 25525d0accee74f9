// The one decider of rooms (daemon/core/links/rooms.h): subnets when nothing is
// labelled, hnowd in the room it shares with agents, labels as they were
// for one room.
#include <doctest/doctest.h>

#include <limits>

#include "core/links/rooms.h"
#include "core/send/send_tree.h"

using namespace hnow::daemon;

namespace {

AgentView agentAt(const std::string& name, const std::string& site, const std::string& network) {
  AgentView a;
  a.record.name = name;
  a.record.site = site;
  a.registration.name = name;
  a.registration.networks = {network};
  a.registration.dataAddress = network.substr(0, network.find('/')) + ":7000";
  return a;
}

}  // namespace

TEST_CASE("agents on two subnets are two rooms, hnowd in the one it shares, with no label set") {
  std::vector<AgentView> agents;
  for (int k = 1; k <= 4; ++k) agents.push_back(agentAt("a" + std::to_string(k), "default", "10.9.1." + std::to_string(k + 1) + "/24"));
  for (int k = 1; k <= 4; ++k) agents.push_back(agentAt("b" + std::to_string(k), "default", "10.9.2." + std::to_string(k + 1) + "/24"));
  const RoomMember hnowd{"hnowd", "", {"10.9.1.1/24"}, "", "10.9.1.1:7411"};
  const AgentRooms rooms = agentRooms(agents, hnowd);
  CHECK(rooms.foundBy == "subnets");
  CHECK(rooms.coordinatorRoom == "10.9.1.0/24");
  CHECK(rooms.roomOf.at("a3") == "10.9.1.0/24");
  CHECK(rooms.roomOf.at("b2") == "10.9.2.0/24");
  // hnowd on a subnet of its own: a room nobody shares, planned alone.
  const AgentRooms apart = agentRooms(agents, {"hnowd", "", {"10.9.3.1/24"}, "", "10.9.3.1:7411"});
  CHECK(apart.coordinatorRoom.empty());
}

TEST_CASE("one subnet and one label: no rooms, every agent keeps its site label") {
  std::vector<AgentView> agents{agentAt("a1", "lab", "10.9.1.2/24"), agentAt("a2", "lab", "10.9.1.3/24")};
  const AgentRooms rooms = agentRooms(agents, {"hnowd", "", {"10.9.1.1/24"}, "", ""});
  CHECK(rooms.foundBy.empty());
  CHECK(rooms.roomOf.at("a1") == "lab");
}

TEST_CASE("hnowd planned in the room it shares: its copies into that room cross no trunk, the other room is entered once") {
  std::vector<TreeNode> nodes{{"hnowd", "A", {50e6, 50e6}}};
  for (int i = 0; i < 8; ++i) nodes.push_back({"n" + std::to_string(i), i < 4 ? "A" : "B", {50e6, 50e6}});
  for (std::size_t i = 1; i < nodes.size(); ++i) nodes[i].roomTrunk = {12.5e6, 12.5e6};
  const auto sites = siteLinksOf(nodes);
  CHECK(sites.siteOf[0] == sites.siteOf[1]);
  CHECK_FALSE(sites.crossesSites(0, 1));
  CHECK(sites.crossesSites(0, 5));
  auto planned = planSendTree("auto", nodes, 128 << 20, 128 << 10, true);
  REQUIRE(planned);
  CHECK(planned->boundSeconds == doctest::Approx((128 << 20) / 12.5e6));
  CHECK(planned->predictedSeconds <= planned->boundSeconds * 1.10);
}

TEST_CASE("rooms of agents that pace their own links have no trunk: plans are predicted as on one switch, rooms only grouping them") {
  const double kUnlimited = std::numeric_limits<double>::infinity();
  std::vector<TreeNode> nodes{{"hnowd", "", {50e6, 50e6}}};
  for (int i = 0; i < 8; ++i) nodes.push_back({"n" + std::to_string(i), i % 2 ? "B" : "A", {50e6, 50e6}});
  std::vector<TreeNode> oneRoom = nodes;
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    nodes[i].roomTrunk = {kUnlimited, kUnlimited};
    oneRoom[i].site = "A";
  }
  auto paced = planSendTree("auto", nodes, 64 << 20, 128 << 10, true);
  auto plain = planSendTree("auto", oneRoom, 64 << 20, 128 << 10, true);
  REQUIRE(paced);
  REQUIRE(plain);
  CHECK(paced->predictedSeconds <= plain->predictedSeconds * 1.02);
  CHECK(paced->boundSeconds == doctest::Approx(plain->boundSeconds));
}
