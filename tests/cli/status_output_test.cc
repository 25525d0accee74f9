// `hnow status` flags an agent caught relaying bytes that differ from the
// source's, in the table and in --json.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "cli/status_command.h"

using namespace hnow;

TEST_CASE("hnow status flags a relay caught altering bytes - in the table with a ! line and in --json as relay_faults") {
  api::CoordinatorStatus status;
  for (const char* name : {"agent-1", "agent-2", "agent-3"}) {
    api::AgentStatus a;
    a.name = name;
    a.alive = true;
    status.agents.push_back(a);
  }
  status.agents[0].relayFaults = 2;
  status.agents[1].relayFaults = 1;
  const std::string table = cli::statusTable(status);
  CHECK(table.find("! agent-1: relayed bytes that differ from the source's 2 times; planned as a leaf (relays "
                   "nothing)\n") != std::string::npos);
  CHECK(table.find("! agent-2: relayed bytes that differ from the source's once; planned as a leaf from 2 times "
                   "on\n") != std::string::npos);
  CHECK(table.find("! agent-3") == std::string::npos);
  const auto json = nlohmann::json::parse(cli::statusJson(status));
  CHECK(json["agents"][0]["relay_faults"] == 2);
  CHECK(json["agents"][0]["relay_suspect"] == true);
  CHECK(json["agents"][1]["relay_faults"] == 1);
  CHECK(json["agents"][1]["relay_suspect"] == false);
  CHECK(json["agents"][2]["relay_faults"] == 0);
}

TEST_CASE("hnow status shows each room and its trunk per direction with how it was measured - in the table and in --json") {
  api::CoordinatorStatus status;
  api::RoomStatus a{"A", 4, "site labels", {}, {}};
  api::RoomStatus b{"B", 4, "site labels", {}, {}};
  b.in.method = "probe";
  b.in.bytesPerSecond = 100e6 / 8;
  b.in.ageSeconds = 12;
  b.out.method = "bound";
  b.out.bytesPerSecond = 400e6 / 8;
  b.out.ageSeconds = 12;
  status.rooms = {a, b};
  const std::string table = cli::statusTable(status);
  CHECK(table.find("rooms (found by site labels)") != std::string::npos);
  CHECK(table.find("- (planned at its fastest port)") != std::string::npos);
  CHECK(table.find("100.0 probe 12s") != std::string::npos);
  CHECK(table.find(">= 400.0 bound 12s") != std::string::npos);
  const auto json = nlohmann::json::parse(cli::statusJson(status));
  REQUIRE(json["rooms"].size() == 2);
  CHECK(json["rooms"][1]["name"] == "B");
  CHECK(json["rooms"][1]["found_by"] == "site labels");
  CHECK(json["rooms"][1]["trunk"]["in"]["method"] == "probe");
  CHECK(json["rooms"][1]["trunk"]["out"]["method"] == "bound");
  CHECK(json["rooms"][0]["trunk"]["in"]["method"] == "unknown");
  // One room: no rooms section at all.
  CHECK(cli::statusTable(api::CoordinatorStatus{}).find("rooms (") == std::string::npos);
}

TEST_CASE("hnow status escapes odd names, sites and paths, so each row of its table stays one line") {
  api::CoordinatorStatus status;
  api::AgentStatus a;
  a.name = "agent-1";
  a.site = "lab\n<4>forged: agent-2 revoked";
  a.alive = true;
  status.agents.push_back(a);
  a.name = "agent-2";
  a.site = std::string(300, 'x');  // over-long: cut, the row still ends where it should
  status.agents.push_back(a);
  api::OwedSend owed;
  owed.path = "/data/in\r\x1b[2Jput";
  owed.dest = "out\xff.bin";
  owed.agents = {"agent-2"};
  status.owed.push_back(owed);
  const std::string table = cli::statusTable(status);
  std::istringstream lines(table);
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  for (const std::string& line : all) {
    CHECK(line.rfind("<4>forged", 0) != 0);
    CHECK(line.find('\r') == std::string::npos);
    CHECK(line.find('\x1b') == std::string::npos);
  }
  CHECK(all.at(2).rfind("agent-1          lab\\x0a<4>forged: agent-2 revoked alive", 0) == 0);
  CHECK(all.at(3).rfind("agent-2          " + std::string(64, 'x') + "... alive", 0) == 0);
  CHECK(table.find("/data/in\\x0d\\x1b[2Jput -> out\\xff.bin to agent-2") != std::string::npos);
  // --json escapes control bytes itself; bytes that are not UTF-8 do not fail it.
  const auto json = nlohmann::json::parse(cli::statusJson(status));
  CHECK(json["agents"][0]["site"] == "lab\n<4>forged: agent-2 revoked");
  CHECK(json["owed"][0]["dest"] == "out\xef\xbf\xbd.bin");
}

TEST_CASE("hnow status flags an agent whose key logs in from two hosts by turns - in the table with a ! line and in --json as key_hosts") {
  api::CoordinatorStatus status;
  for (const char* name : {"agent-1", "agent-2"}) {
    api::AgentStatus a;
    a.name = name;
    a.alive = true;
    status.agents.push_back(a);
  }
  status.agents[0].keyHosts = {"10.0.0.5", "10.0.0.9"};
  status.agents[0].keyHostsChanges = 3;
  status.agents[0].keyHostsAgeSeconds = 12.4;
  const std::string table = cli::statusTable(status);
  CHECK(table.find("! agent-1: its key logs in from 10.0.0.5 and from 10.0.0.9 by turns (3 changes of host, the "
                   "latest 12 s ago): used on two machines? If one is not agent-1's, hnow agent revoke agent-1 (and "
                   "enroll it anew); if both are, hnow agent ack agent-1\n") != std::string::npos);
  CHECK(table.find("! agent-2") == std::string::npos);
  const auto json = nlohmann::json::parse(cli::statusJson(status));
  CHECK(json["agents"][0]["key_hosts"]["hosts"] == nlohmann::json::array({"10.0.0.5", "10.0.0.9"}));
  CHECK(json["agents"][0]["key_hosts"]["changes"] == 3);
  CHECK(json["agents"][1]["key_hosts"].is_null());
}

TEST_CASE("hnow status lists the sends a restart of hnowd left waiting for their agents - in the table and in --json") {
  api::CoordinatorStatus status;
  status.waiting.push_back({12, "/srv/image.iso", "in/image.iso", {"agent-1", "agent-2", "agent-3"}, {"agent-3"}, 6.2});
  status.waiting.push_back({13, "/srv/b.bin", "in/b.bin", {"agent-1"}, {}, 9.0});
  const std::string table = cli::statusTable(status);
  CHECK(table.find("runs again after hnowd's restart (send record 12): /srv/image.iso -> in/image.iso to 3 agent(s), "
                   "waiting for agent-3 at most 7 s more\n") != std::string::npos);
  CHECK(table.find("runs again after hnowd's restart (send record 13): /srv/b.bin -> in/b.bin to 1 agent(s), all "
                   "back\n") != std::string::npos);
  CHECK(cli::statusTable(api::CoordinatorStatus{}).find("runs again after") == std::string::npos);
  const auto json = nlohmann::json::parse(cli::statusJson(status));
  REQUIRE(json["waiting_sends"].size() == 2);
  CHECK(json["waiting_sends"][0]["record"] == 12);
  CHECK(json["waiting_sends"][0]["path"] == "/srv/image.iso");
  CHECK(json["waiting_sends"][0]["dest"] == "in/image.iso");
  CHECK(json["waiting_sends"][0]["agents"].size() == 3);
  CHECK(json["waiting_sends"][0]["waiting_for"] == nlohmann::json::array({"agent-3"}));
  CHECK(json["waiting_sends"][0]["seconds_left"] == 6.2);
  CHECK(json["waiting_sends"][1]["waiting_for"].empty());
  CHECK(nlohmann::json::parse(cli::statusJson(api::CoordinatorStatus{}))["waiting_sends"].empty());
}
