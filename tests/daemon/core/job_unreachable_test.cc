// `hnow run` with an agent hnowd cannot connect to (behind NAT,
// docs/reachability.md): it takes shares like any other, and hands each
// result back over a connection it opens (job_service_results.cc).
#include <doctest/doctest.h>

#include <sstream>

#include "daemon/core/job_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

namespace {

const RunAgentStatus& agentIn(const RunStatus& status, const std::string& name) {
  for (const RunAgentStatus& a : status.agents)
    if (a.name == name) return a;
  FAIL("no agent " << name << " in the run's status");
  throw;
}

// a2 accepts no connection, as hnowd's own check at its registration found.
void behindNat(Lab& lab) {
  lab.agents["a2"]->unreachable = true;
  lab.coordinator.relays().reachability().refusedBy("a2", "hnowd", "no answer within 3 s");
  REQUIRE_FALSE(lab.coordinator.relays().reachability().reachable("a2"));
}

}  // namespace

TEST_CASE("an agent hnowd cannot connect to takes shares and hands each result back over a connection it opens") {
  Lab lab;
  behindNat(lab);
  const auto status = lab.runToEnd(lab.count());
  CHECK(status.error.empty());
  CHECK(status.reissued == 0);
  CHECK(agentIn(status, "a2").units > 0);  // it computed its part
  CHECK(totalOf(lab.files.outputs.files.at("run-1.out")) == 3000);
  // Its results came over connections it opened, to hnowd's data port; no pull went to it.
  CHECK_FALSE(lab.agents["a2"]->offeredTo.empty());
  for (const std::string& address : lab.agents["a2"]->offeredTo) CHECK(address == "hnowd:7000");
  CHECK(std::count(lab.plane.pulledFrom.begin(), lab.plane.pulledFrom.end(), "a2") == 0);
  CHECK(std::count(lab.plane.pulledFrom.begin(), lab.plane.pulledFrom.end(), "a1") > 0);  // the others as before
  CHECK(lab.agents["a1"]->offeredTo.empty());
  CHECK(lab.plane.awaited.empty());  // nothing is left waiting for an offer
}

TEST_CASE("a result whose reverse dial fails goes to another agent, saying hnowd's port must accept the agents") {
  Lab lab;
  behindNat(lab);
  lab.agents["a2"]->dialFails = true;
  const auto status = lab.runToEnd(lab.count());
  CHECK(status.error.empty());
  CHECK(status.reissued > 0);
  CHECK(totalOf(lab.files.outputs.files.at("run-1.out")) == 3000);
  const RunAgentStatus& a2 = agentIn(status, "a2");
  REQUIRE_FALSE(a2.failures.empty());
  CHECK(a2.failures.front().find("it could not hand its result back over a connection it opens (cannot hand the "
                                 "file over to hnowd:7000: no answer to the connection within 3 s); hnowd's data "
                                 "port must accept connections from the agents") != std::string::npos);
  CHECK(lab.plane.awaited.empty());
}

TEST_CASE("a connection the agent opened that ends mid-way is asked for again, and the result still comes back") {
  Lab lab;
  behindNat(lab);
  lab.agents["a2"]->dropsConnections = 2;
  const auto status = lab.runToEnd(lab.count());
  CHECK(status.error.empty());
  CHECK(status.reissued == 0);  // asked again, not given to another agent
  CHECK(agentIn(status, "a2").units > 0);
  CHECK(agentIn(status, "a2").failures.empty());
  CHECK(totalOf(lab.files.outputs.files.at("run-1.out")) == 3000);
  CHECK(lab.agents["a2"]->dropsConnections == 0);
}

TEST_CASE("a --reduce run leaves out an agent nobody can connect to: its partial could not move to another agent") {
  Lab lab;
  behindNat(lab);
  RunRequest reduce = lab.count();
  reduce.reduceArgv = {"count"};
  const auto status = lab.runToEnd(reduce);
  for (const RunAgentStatus& a : status.agents) CHECK(a.name != "a2");
  CHECK(lab.agents["a2"]->runs == 0);
}
