// A job cancelled while its commands run (JobService::cancel), in memory
// (job_lab.h): the agents drop its files, which kills the commands.
#include <doctest/doctest.h>

#include "daemon/core/job_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

TEST_CASE("a cancelled job drops every agent's files while their commands run, writes no output, and its record says cancelled and by whom") {
  Lab lab;
  for (auto& [name, agent] : lab.agents) agent->hangs = true;  // every command runs on
  auto started = lab.jobs.start(lab.count());
  REQUIRE(started.ok());
  lab.settleFor(std::chrono::seconds(2));
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  REQUIRE(ops[0].status == "running");
  for (const auto& [name, agent] : lab.agents) REQUIRE_FALSE(agent->hung.empty());

  CHECK(lab.jobs.cancel(ops[0].id, "alice"));
  auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  CHECK(status->phase == "cancelled");
  CHECK(status->cancelledBy == "alice");
  CHECK(status->record == static_cast<std::uint64_t>(ops[0].id));
  for (const auto& [name, agent] : lab.agents) {
    CHECK(agent->files.empty());
    CHECK_FALSE(agent->dropped.empty());  // what kills the command running on them
  }
  CHECK(lab.files.outputs.files.empty());
  CHECK(lab.files.work.files.empty());
  CHECK(lab.plane.served.empty());
  const OperationRecord record = lab.coordinator.operations(1).value().at(0);
  CHECK(record.status == "cancelled");
  CHECK(record.summary.find("\"cancelled_by\":\"alice\"") != std::string::npos);

  // The commands' late answers change nothing; a second cancel finds nothing under way.
  for (auto& [name, agent] : lab.agents)
    for (auto& done : agent->hung) done(hnow::Error{"the task was dropped"});
  lab.settle();
  CHECK(lab.jobs.status(*started)->cancelledBy == "alice");
  CHECK(lab.coordinator.operations(1).value().at(0).status == "cancelled");
  CHECK_FALSE(lab.jobs.cancel(ops[0].id, "bob"));
  CHECK_FALSE(lab.jobs.cancel(ops[0].id + 1, "bob"));
}
