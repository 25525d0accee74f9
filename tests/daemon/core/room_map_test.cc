#include <doctest/doctest.h>

#include <algorithm>

#include "core/links/room_map.h"

using namespace hnow::daemon;

namespace {

RoomMember member(const std::string& name, const std::string& site, std::vector<std::string> networks,
                  const std::string& dataAddress = "", const std::string& gateway = "") {
  return RoomMember{name, site, std::move(networks), gateway, dataAddress};
}

RoomMember hnowd(std::vector<std::string> networks, const std::string& dataAddress = "") {
  return member("hnowd", "", std::move(networks), dataAddress);
}

using Rooms = std::map<std::string, std::string>;

}  // namespace

TEST_CASE("a member's subnet is that of the network holding its data address, else of its first") {
  CHECK(subnetOfMember(member("a", "", {"10.231.5.70/26"})) == "10.231.5.64/26");
  CHECK(subnetOfMember(member("a", "", {"172.17.0.1/16", "10.1.1.5/24"})) == "172.17.0.0/16");
  CHECK(subnetOfMember(member("a", "", {"172.17.0.1/16", "10.1.1.5/24"}, "10.1.1.5:9000")) == "10.1.1.0/24");
  CHECK(subnetOfMember(member("a", "", {"10.1.1.5/24", "fd00:1::5/64"}, "[fd00:1::5]:9000")) == "fd00:1::/64");
  // A data address no network holds (every interface, a name): the first.
  CHECK(subnetOfMember(member("a", "", {"10.1.1.5/24", "10.2.2.5/24"}, "0.0.0.0:9000")) == "10.1.1.0/24");
  CHECK(subnetOfMember(member("a", "", {"10.1.1.5/24", "10.2.2.5/24"}, "node7.example:9000")) == "10.1.1.0/24");
  // Malformed entries (an agent's own text) are skipped; none at all: unknown.
  CHECK(subnetOfMember(member("a", "", {"garbage", "10.1.1.5/99", "10.2.2.5/24"})) == "10.2.2.0/24");
  CHECK(subnetOfMember(member("a", "", {"garbage"})).empty());
  CHECK(subnetOfMember(member("a", "", {})).empty());
}

TEST_CASE("two or more site labels are the rooms, even when the agents share one subnet") {
  const RoomAssignment r = assignRooms(hnowd({"10.9.9.1/24"}), {member("a1", "lab-a", {"10.1.1.5/24"}),
                                                               member("a2", "lab-a", {"10.1.1.6/24"}),
                                                               member("b1", "lab-b", {"10.1.1.7/24"})});
  CHECK(r.how == "site labels");
  CHECK(r.roomOf == Rooms{{"hnowd", "hnowd"}, {"a1", "lab-a"}, {"a2", "lab-a"}, {"b1", "lab-b"}});
}

TEST_CASE("site labels win over subnets that split a label's agents") {
  const RoomAssignment r = assignRooms(hnowd({"10.1.1.1/24"}), {member("a1", "lab-a", {"10.1.1.5/24"}),
                                                               member("a2", "lab-a", {"10.2.2.5/24"}),
                                                               member("b1", "lab-b", {"10.3.3.5/24"})});
  CHECK(r.how == "site labels");
  CHECK(r.roomOf == Rooms{{"hnowd", "lab-a"}, {"a1", "lab-a"}, {"a2", "lab-a"}, {"b1", "lab-b"}});
}

TEST_CASE("the label default and an empty one are no labels: one other label does not make rooms of labels") {
  const RoomAssignment one = assignRooms(hnowd({"10.1.1.1/24"}), {member("a1", "default", {"10.1.1.5/24"}),
                                                                 member("a2", "", {"10.1.1.6/24"}),
                                                                 member("b1", "lab-b", {"10.1.1.7/24"})});
  CHECK(one.how == "one room");
  const RoomAssignment split = assignRooms(hnowd({"10.1.1.1/24"}), {member("a1", "default", {"10.1.1.5/24"}),
                                                                   member("b1", "lab-b", {"10.2.2.7/24"})});
  CHECK(split.how == "subnets");
  CHECK(split.roomOf == Rooms{{"hnowd", "10.1.1.0/24"}, {"a1", "10.1.1.0/24"}, {"b1", "10.2.2.0/24"}});
}

TEST_CASE("with labels hnowd joins the one label sharing its subnet, else a room of its own") {
  const std::vector<RoomMember> agents{member("a1", "lab-a", {"10.1.1.5/24"}), member("b1", "lab-b", {"10.2.2.5/24"})};
  CHECK(assignRooms(hnowd({"10.2.2.1/24"}), agents).roomOf.at("hnowd") == "lab-b");
  CHECK(assignRooms(hnowd({"10.3.3.1/24"}), agents).roomOf.at("hnowd") == "hnowd");
  CHECK(assignRooms(hnowd({}), agents).roomOf.at("hnowd") == "hnowd");
  // Two labels on hnowd's subnet: neither is its room.
  const std::vector<RoomMember> both{member("a1", "lab-a", {"10.1.1.5/24"}), member("b1", "lab-b", {"10.1.1.6/24"})};
  CHECK(assignRooms(hnowd({"10.1.1.1/24"}), both).roomOf.at("hnowd") == "hnowd");
  // Its data address picks its subnet among its networks.
  CHECK(assignRooms(hnowd({"10.1.1.1/24", "10.2.2.1/24"}, "10.2.2.1:7000"), agents).roomOf.at("hnowd") == "lab-b");
}

TEST_CASE("with labels an unlabelled agent joins the one label on its subnet, else hnowd's room or its subnet's") {
  const std::vector<RoomMember> agents{
      member("a1", "lab-a", {"10.1.1.5/24"}), member("b1", "lab-b", {"10.2.2.5/24"}),
      member("b2", "lab-b", {"10.1.1.6/24"}),  // lab-b reaches into a's subnet: it is no longer one label's
      member("u1", "", {"10.2.2.9/24"}),       // lab-b's subnet alone
      member("u2", "default", {"10.1.1.9/24"}),
      member("u3", "", {"10.9.9.9/24"}),       // hnowd's
      member("u4", "", {}),                    // an older agent
      member("u5", "", {"10.7.7.9/24"}), member("u6", "", {"10.7.7.10/24"})};
  const RoomAssignment r = assignRooms(hnowd({"10.9.9.1/24"}), agents);
  CHECK(r.how == "site labels");
  CHECK(r.roomOf == Rooms{{"hnowd", "hnowd"}, {"a1", "lab-a"}, {"b1", "lab-b"}, {"b2", "lab-b"},
                          {"u1", "lab-b"}, {"u2", "10.1.1.0/24"}, {"u3", "hnowd"}, {"u4", "hnowd"},
                          {"u5", "10.7.7.0/24"}, {"u6", "10.7.7.0/24"}});
  // hnowd in a label's room takes its unlabelled neighbours there too.
  const RoomAssignment withLab = assignRooms(hnowd({"10.2.2.1/24"}), {member("a1", "lab-a", {"10.1.1.5/24"}),
                                                                     member("b1", "lab-b", {"10.2.2.5/24"}),
                                                                     member("u4", "", {})});
  CHECK(withLab.roomOf == Rooms{{"hnowd", "lab-b"}, {"a1", "lab-a"}, {"b1", "lab-b"}, {"u4", "lab-b"}});
}

TEST_CASE("without labels, agents on two /26 of one /24 are two rooms named by their CIDR") {
  const RoomAssignment r = assignRooms(hnowd({"10.231.5.66/26"}), {member("a1", "", {"10.231.5.70/26"}),
                                                                  member("a2", "", {"10.231.5.71/26"}),
                                                                  member("b1", "", {"10.231.5.130/26"})});
  CHECK(r.how == "subnets");
  CHECK(r.roomOf == Rooms{{"hnowd", "10.231.5.64/26"}, {"a1", "10.231.5.64/26"}, {"a2", "10.231.5.64/26"},
                          {"b1", "10.231.5.128/26"}});
}

TEST_CASE("without labels, the same addresses on one /24 are one room") {
  const RoomAssignment r = assignRooms(hnowd({"10.231.5.66/24"}), {member("a1", "", {"10.231.5.70/24"}),
                                                                  member("b1", "", {"10.231.5.130/24"})});
  CHECK(r.how == "one room");
  CHECK(r.roomOf == Rooms{{"hnowd", kOneRoom}, {"a1", kOneRoom}, {"b1", kOneRoom}});
}

TEST_CASE("IPv6 subnets are rooms too, named canonically") {
  const RoomAssignment r =
      assignRooms(hnowd({"fd00:1::1/64"}), {member("a1", "", {"FD00:0001:0000:0000::5/64"}),
                                            member("b1", "", {"fd00:2::5/64"}, "[fd00:2::5]:9000")});
  CHECK(r.how == "subnets");
  CHECK(r.roomOf == Rooms{{"hnowd", "fd00:1::/64"}, {"a1", "fd00:1::/64"}, {"b1", "fd00:2::/64"}});
}

TEST_CASE("hnowd alone on its subnet is a room of its own, named by its subnet") {
  const RoomAssignment r = assignRooms(hnowd({"10.0.0.1/24"}), {member("a1", "", {"10.1.1.5/24"}),
                                                               member("a2", "", {"10.1.1.6/24"})});
  CHECK(r.how == "subnets");
  CHECK(r.roomOf == Rooms{{"hnowd", "10.0.0.0/24"}, {"a1", "10.1.1.0/24"}, {"a2", "10.1.1.0/24"}});
}

TEST_CASE("agents that reported no networks go to hnowd's room, or unknown when hnowd has none") {
  const std::vector<RoomMember> agents{member("a1", "", {"10.1.1.5/24"}), member("b1", "", {"10.2.2.5/24"}),
                                       member("old", "", {})};
  const RoomAssignment r = assignRooms(hnowd({"10.2.2.1/24"}), agents);
  CHECK(r.how == "subnets");
  CHECK(r.roomOf.at("old") == "10.2.2.0/24");
  const RoomAssignment blind = assignRooms(hnowd({}), agents);
  CHECK(blind.how == "subnets");
  CHECK(blind.roomOf == Rooms{{"hnowd", "unknown"}, {"a1", "10.1.1.0/24"}, {"b1", "10.2.2.0/24"}, {"old", "unknown"}});
  // Nothing known of anyone: one room.
  const RoomAssignment nothing = assignRooms(hnowd({}), {member("old", "", {}), member("older", "", {})});
  CHECK(nothing.how == "one room");
  CHECK(nothing.roomOf == Rooms{{"hnowd", kOneRoom}, {"old", kOneRoom}, {"older", kOneRoom}});
}

TEST_CASE("one subnet is one room, and different gateways on it do not split it") {
  const RoomAssignment r = assignRooms(hnowd({"10.1.1.1/24"}), {member("a1", "", {"10.1.1.5/24"}, "", "10.1.1.254"),
                                                               member("a2", "", {"10.1.1.6/24"}, "", "10.1.1.253"),
                                                               member("a3", "lab-a", {"10.1.1.7/24"}, "", "")});
  CHECK(r.how == "one room");
  CHECK(r.roomOf == Rooms{{"hnowd", kOneRoom}, {"a1", kOneRoom}, {"a2", kOneRoom}, {"a3", kOneRoom}});
  // No agents at all: hnowd alone.
  CHECK(assignRooms(hnowd({"10.1.1.1/24"}), {}).roomOf == Rooms{{"hnowd", kOneRoom}});
}

TEST_CASE("an agent's data address picks the network it is grouped by, not a bridge listed first") {
  const RoomAssignment r =
      assignRooms(hnowd({"10.1.1.1/24"}), {member("a1", "", {"172.17.0.1/16", "10.1.1.5/24"}, "10.1.1.5:9000"),
                                           member("b1", "", {"172.17.0.1/16", "10.2.2.5/24"}, "10.2.2.5:9000")});
  CHECK(r.how == "subnets");
  CHECK(r.roomOf == Rooms{{"hnowd", "10.1.1.0/24"}, {"a1", "10.1.1.0/24"}, {"b1", "10.2.2.0/24"}});
}

TEST_CASE("rooms do not depend on the order agents come in") {
  std::vector<RoomMember> agents{member("a1", "", {"10.1.1.5/24"}), member("b1", "", {"10.2.2.5/24"}),
                                 member("u1", "", {}), member("a2", "lab-a", {"10.1.1.6/24"}),
                                 member("b2", "lab-b", {"10.2.2.6/24"}), member("c1", "", {"10.3.3.5/24"})};
  std::sort(agents.begin(), agents.end(), [](const RoomMember& x, const RoomMember& y) { return x.name < y.name; });
  const RoomAssignment first = assignRooms(hnowd({"10.3.3.1/24"}), agents);
  while (std::next_permutation(agents.begin(), agents.end(),
                               [](const RoomMember& x, const RoomMember& y) { return x.name < y.name; })) {
    const RoomAssignment again = assignRooms(hnowd({"10.3.3.1/24"}), agents);
    REQUIRE(again.how == first.how);
    REQUIRE(again.roomOf == first.roomOf);
  }
  CHECK(first.roomOf == Rooms{{"hnowd", "hnowd"}, {"a1", "lab-a"}, {"a2", "lab-a"}, {"b1", "lab-b"},
                              {"b2", "lab-b"}, {"c1", "hnowd"}, {"u1", "hnowd"}});
}
