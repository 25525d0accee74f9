#include <doctest/doctest.h>

#include "core/agent_selection.h"

using namespace hnow;
using namespace hnow::daemon;

namespace {

AgentView agent(const std::string& name, const std::string& site, bool up = true) {
  AgentView a;
  a.record.name = name;
  a.record.site = site;
  a.record.state = up ? AgentState::kAlive : AgentState::kLost;
  a.connected = up;
  a.registration.dataAddress = "127.0.0.1:9000";
  return a;
}

std::vector<std::string> names(const std::vector<AgentView>& agents) {
  std::vector<std::string> out;
  for (const AgentView& a : agents) out.push_back(a.record.name);
  return out;
}

const std::vector<AgentView> kLab{agent("a1", "room-a"), agent("a2", "room-a"), agent("b1", "room-b")};

}  // namespace

TEST_CASE("--to picks agents by name or site, and all or nothing is every one") {
  CHECK(names(selectAgents(kLab, {}).value()) == std::vector<std::string>{"a1", "a2", "b1"});
  CHECK(names(selectAgents(kLab, {"all"}).value()) == std::vector<std::string>{"a1", "a2", "b1"});
  CHECK(names(selectAgents(kLab, {"room-a"}).value()) == std::vector<std::string>{"a1", "a2"});
  CHECK(names(selectAgents(kLab, {"b1", "a2"}).value()) == std::vector<std::string>{"a2", "b1"});
  CHECK(names(selectAgents(kLab, {"room-b", "b1"}).value()) == std::vector<std::string>{"b1"});  // once
}

TEST_CASE("a --to name that matches no candidate is refused with the name and what candidates had to be") {
  auto refused = selectAgents(kLab, {"a1", "c9"}, " that runs jobs");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message == "no alive agent or site named 'c9' that runs jobs");
  CHECK(selectAgents({}, {"a1"}).error().message == "no alive agent or site named 'a1'");
  CHECK(selectAgents({}, {}).value().empty());
}

TEST_CASE("only a connected, alive agent with a data plane can take part") {
  CHECK(canTakePart(agent("a1", "")));
  CHECK_FALSE(canTakePart(agent("a1", "", false)));
  AgentView silent = agent("a2", "");
  silent.registration.dataAddress.clear();
  CHECK_FALSE(canTakePart(silent));
}

TEST_CASE("a destination that is empty or climbs out with '..' is refused before anything is opened") {
  CHECK(checkDestination("in/file.bin", "--dest").ok());
  CHECK(checkDestination("/data/x..y/file", "--dest").ok());
  CHECK(checkDestination("", "--dest").error().message == "--dest is empty");
  CHECK(checkDestination("a/../../etc/passwd", "dest").error().message ==
        "'..' is not allowed in dest (a/../../etc/passwd)");
  CHECK_FALSE(checkDestination("..", "--dest").ok());
}

TEST_CASE("a destination with a control character or past 4096 bytes is refused, escaped in the message") {
  CHECK(checkDestination("x\n<4>forged", "--dest").error().message ==
        "a control character (a newline, a tab, an escape) is not allowed in --dest (x\\x0a<4>forged)");
  CHECK_FALSE(checkDestination("a\tb", "dest").ok());
  CHECK_FALSE(checkDestination("a\x1b[31m", "dest").ok());
  CHECK_FALSE(checkDestination("del\x7f", "dest").ok());
  CHECK(checkDestination("caf\xc3\xa9/notes.txt", "--dest").ok());  // UTF-8 names are names
  CHECK(checkDestination(std::string(4096, 'a'), "--dest").ok());
  CHECK(checkDestination(std::string(4097, 'a'), "--dest").error().message ==
        "--dest is 4097 bytes long: at most 4096 are allowed");
}

TEST_CASE("progress reports are spaced for sends to many agents: about 250 a second together, at most one a second each") {
  CHECK(AgentLink::progressEvery(1) == 0);
  CHECK(AgentLink::progressEvery(25) == 0);
  CHECK(AgentLink::progressEvery(64) == 256);
  CHECK(AgentLink::progressEvery(128) == 512);
  CHECK(AgentLink::progressEvery(256) == 1000);
  CHECK(AgentLink::progressEvery(1000) == 1000);
}
