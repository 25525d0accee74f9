// `hnow status` flags an agent caught relaying bytes that differ from the
// source's, in the table and in --json.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/status_command.h"

using namespace hnow;

TEST_CASE("hnow status flags a relay caught altering bytes - in the table with a ! line and in --json as relay_faults") {
  cli::RemoteStatus status;
  for (const char* name : {"agent-1", "agent-2", "agent-3"}) {
    cli::RemoteAgent a;
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
