// `hnow send --until-all` on a local lab: an agent that is off when a send
// runs gets the file when it is back, once, even across a restart of
// hnowd; `hnow status` lists what is owed and `hnow ops` when it went.
#include <doctest/doctest.h>

#include "process/fault_lab.h"

using namespace hnow::testing;
using namespace std::chrono_literals;

namespace {

constexpr const char* kLabOptions = "--uplink-mbps 200 --source-uplink-mbps 200";

// The agents hnow status lists as owed, over every owed send.
std::vector<std::string> owedAgents(const FaultLab& lab) {
  std::vector<std::string> out;
  auto s = lab.status();
  if (s.contains("owed"))
    for (const auto& o : s["owed"])
      for (const auto& a : o["agents"]) out.push_back(a.get<std::string>());
  return out;
}

bool agentLost(const FaultLab& lab, const std::string& name) { return lab.stateOf(name) == "lost"; }

}  // namespace

TEST_CASE("an agent that is off during an --until-all send gets the file when it is back, once, across a restart of hnowd") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path file = lab.dir.path / "course.bin";
  const std::string bytes = writeRandomFile(file, 3 << 20);
  REQUIRE(lab.kill("agent-2"));
  REQUIRE(eventually([&] { return agentLost(lab, "agent-2"); }, 10s));

  auto sent = runCommand(lab.hnow() + " send " + file.string() + " --dest course.bin --until-all");
  REQUIRE_MESSAGE(sent.status == 0, sent.err);
  CHECK(sent.out.find("owed (--until-all): agent-2") != std::string::npos);
  CHECK(readWhole(lab.root(1) / "course.bin") == bytes);
  CHECK_FALSE(fs::exists(lab.root(2) / "course.bin"));
  CHECK(owedAgents(lab) == std::vector<std::string>{"agent-2"});
  auto text = runCommand(lab.hnow() + " status");
  CHECK(text.out.find("course.bin -> course.bin to agent-2 (when connected again)") != std::string::npos);

  // What is owed is kept in state.db: hnowd stopped and started again still owes it.
  REQUIRE(lab.kill("hnowd", SIGTERM));
  lab.restart("hnowd");
  REQUIRE(eventually([&] { return owedAgents(lab) == std::vector<std::string>{"agent-2"}; }, 10s));

  lab.restart("agent-2");
  CHECK_MESSAGE(eventually([&] { return readWhole(lab.root(2) / "course.bin") == bytes; }, 30s),
                readWhole(lab.dir.path / "logs" / "hnowd.log"));
  CHECK(eventually([&] { return owedAgents(lab).empty(); }, 10s));
  // The send made for it names the send it settles; its times say when it went.
  auto ops = lab.ops();
  bool settled = false;
  for (const auto& op : ops)
    if (op["kind"] == "send" && op["summary"].contains("owed_by")) {
      settled = op["status"] == "done" && op["summary"]["agents"] == 1;
      CHECK(op["finished_unix_s"].is_number());
    }
  CHECK_MESSAGE(settled, ops.dump());
  // Once: another tick or two sends nothing more.
  std::this_thread::sleep_for(2s);
  int owedSends = 0;
  for (const auto& op : lab.ops())
    owedSends += op["kind"] == "send" && op["summary"].contains("owed_by");
  CHECK(owedSends == 1);
}

TEST_CASE("--until-all with a manifest is refused with a clear message") {
  auto r = runCommand(std::string(HNOW_BINARY) + " send --manifest /nonexistent.toml --until-all");
  CHECK(r.status == 2);
  CHECK(r.err.find("--until-all is for one FILE or DIR") != std::string::npos);
}
