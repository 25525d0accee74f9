// Queued jobs in JobService, in memory (job_lab.h): a job waits, with its
// reason, until its agents are free, and then runs as if alone.
#include <doctest/doctest.h>

#include "api/run_request_bytes.h"
#include "daemon/core/job_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

namespace {

std::string recordStatus(Lab& lab, std::uint64_t job) {
  auto status = lab.jobs.status(job);
  REQUIRE(status);
  auto record = lab.coordinator.operationLog().find(static_cast<OperationId>(status->record)).value();
  REQUIRE(record);
  return record->status;
}


}  // namespace

TEST_CASE("a second job on the same agents is queued, says which run it waits for, and runs only once the first has ended") {
  Lab lab;
  auto first = lab.jobs.start(lab.count());
  auto second = lab.jobs.start(lab.count());
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(lab.jobs.status(*first)->phase == "calibrating");
  auto waiting = lab.jobs.status(*second);
  CHECK(waiting->phase == "queued");
  CHECK(waiting->waiting == "its agents run run " + std::to_string(*first));
  CHECK(recordStatus(lab, *first) == "running");
  CHECK(recordStatus(lab, *second) == "queued");

  // Until the first ends, the second stays queued: no agent runs a command of it.
  stepUntil(lab, [&] { return lab.jobs.status(*first)->finished || lab.jobs.status(*second)->phase != "queued"; });
  REQUIRE(lab.jobs.status(*first)->finished);
  CHECK(lab.jobs.status(*second)->phase == "queued");
  lab.settle();
  auto a = lab.jobs.status(*first), b = lab.jobs.status(*second);
  CHECK(a->phase == "done");
  CHECK(b->phase == "done");
  CHECK(b->waiting.empty());
  CHECK(b->agents.size() == 3);
  CHECK(recordStatus(lab, *second) == "done");
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(*first) + ".out")) == 3000);
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(*second) + ".out")) == 3000);
}

TEST_CASE("jobs on disjoint agents run at once, and a higher --priority starts before an earlier job") {
  Lab lab;
  RunRequest one = lab.count(), two = lab.count();
  one.to = {"a1"};
  two.to = {"a2", "a3"};
  auto a = lab.jobs.start(one), b = lab.jobs.start(two);
  REQUIRE((a.ok() && b.ok()));
  CHECK(lab.jobs.status(*a)->phase != "queued");
  CHECK(lab.jobs.status(*b)->phase != "queued");
  RunRequest later = lab.count(), urgent = lab.count();
  urgent.priority = 3;
  auto c = lab.jobs.start(later), d = lab.jobs.start(urgent);
  REQUIRE((c.ok() && d.ok()));
  CHECK(lab.jobs.status(*c)->phase == "queued");
  CHECK(lab.jobs.status(*d)->phase == "queued");
  CHECK(lab.jobs.status(*d)->priority == 3);
  // a and b end; the urgent one gets the agents, the earlier one waits behind it.
  stepUntil(lab, [&] { return lab.jobs.status(*d)->phase != "queued" || lab.jobs.status(*c)->phase != "queued"; });
  CHECK(lab.jobs.status(*a)->finished);
  CHECK(lab.jobs.status(*b)->finished);
  CHECK(lab.jobs.status(*d)->phase != "queued");
  CHECK(lab.jobs.status(*c)->phase == "queued");
  CHECK(lab.jobs.status(*c)->waiting == "its agents run run " + std::to_string(*d));
  lab.settle();
  for (auto id : {*a, *b, *c, *d}) CHECK(lab.jobs.status(id)->phase == "done");
}

TEST_CASE("a job waits while no agent that runs jobs is alive, and starts when one logs in") {
  Lab lab;
  for (const char* name : {"a1", "a2", "a3"}) lab.detachAgent(name);
  auto started = lab.jobs.start(lab.count());
  REQUIRE(started.ok());
  lab.settleFor(std::chrono::seconds(2));
  auto waiting = lab.jobs.status(*started);
  CHECK(waiting->phase == "queued");
  CHECK(waiting->waiting == "no alive agent among the agents that run jobs");
  CHECK_FALSE(waiting->finished);

  lab.attachAgent("a2");
  lab.settle();
  auto done = lab.jobs.status(*started);
  CHECK(done->phase == "done");
  REQUIRE(done->agents.size() == 1);
  CHECK(done->agents[0].name == "a2");
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(*started) + ".out")) == 3000);
}

TEST_CASE("a queued job cancelled ends without touching an agent, and the job behind it runs") {
  Lab lab;
  for (auto& [name, agent] : lab.agents) agent->hangs = true;
  auto running = lab.jobs.start(lab.count());
  auto queued = lab.jobs.start(lab.count());
  auto behind = lab.jobs.start(lab.count());
  REQUIRE((running.ok() && queued.ok() && behind.ok()));
  lab.settleFor(std::chrono::seconds(1));
  CHECK(lab.jobs.status(*queued)->phase == "queued");
  const auto record = static_cast<OperationId>(lab.jobs.status(*queued)->record);
  CHECK(lab.jobs.cancel(record, "alice"));
  CHECK(lab.jobs.status(*queued)->phase == "cancelled");
  CHECK(recordStatus(lab, *queued) == "cancelled");

  // The running one cancelled too: the agents are free for the one behind.
  for (auto& [name, agent] : lab.agents) agent->hangs = false;
  CHECK(lab.jobs.cancel(static_cast<OperationId>(lab.jobs.status(*running)->record), "alice"));
  lab.settle();
  CHECK(lab.jobs.status(*behind)->phase == "done");
}

TEST_CASE("--to a name no agent has ever had is refused at once rather than queued for ever") {
  Lab lab;
  RunRequest request = lab.count();
  request.to = {"a9"};
  auto refused = lab.jobs.start(request);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message == "--to: no agent or site named 'a9' is known to hnowd (`hnow status` lists them)");
  request.to = {"a1"};
  request.replicas = 2;
  auto replicas = lab.jobs.start(request);
  REQUIRE_FALSE(replicas.ok());
  CHECK(replicas.error().message == "--replicas 2 needs as many agents; 1 known to hnowd run jobs (--to a1)");
  CHECK(lab.coordinator.operations(10).value().empty());
}

TEST_CASE("a job queued when hnowd stops is queued again under its record by the next hnowd, waits for its agents to log in again, then runs") {
  Lab lab;
  auto service = [&lab] {
    return std::make_unique<JobService>(lab.coordinator, lab.plane, lab.files, "hnowd:7000", lab.clock,
                                        [&lab](std::function<void()> f) { lab.turns.push_back(std::move(f)); },
                                        [&lab] { return std::string(24, 'u') + std::to_string(10000000 + lab.tokens++); },
                                        12.5e6);
  };
  for (auto& [name, agent] : lab.agents) agent->hangs = true;
  auto before = service();
  auto running = before->start(lab.count());
  RunRequest waiting = lab.count();
  waiting.priority = 7;
  auto queued = before->start(waiting);
  REQUIRE((running.ok() && queued.ok()));
  const auto record = static_cast<OperationId>(before->status(*queued)->record);
  const auto runningRecord = static_cast<OperationId>(before->status(*running)->record);
  CHECK(lab.store.loadQueuedJobs().value().size() == 1);

  // hnowd stops: what was running stays running (kept to resume), what was queued stays queued.
  before.reset();
  CHECK(lab.store.interruptRunning(lab.clock.wallNow()).value() == 0);
  CHECK(lab.coordinator.operationLog().find(runningRecord).value()->status == "running");
  CHECK(lab.coordinator.operationLog().find(record).value()->status == "queued");

  for (auto& [name, agent] : lab.agents) agent->hangs = false;
  lab.detachAgent("a3");  // not back yet
  auto after = service();
  after->resumeRunning(std::chrono::seconds(10));
  after->restoreQueue(std::chrono::seconds(10));
  const std::uint64_t again = after->operationOf(record);
  REQUIRE(again != 0);
  after->tick();
  auto held = after->status(again);
  CHECK(held->phase == "queued");
  CHECK(held->priority == 7);
  CHECK(held->waiting == "hnowd restarted: waiting for its agents to log in again");
  // Every agent back before the grace is out: no need to wait it out.
  lab.attachAgent("a3");
  after->tick();
  CHECK(after->status(again)->phase != "queued");
  CHECK(after->status(again)->agents.size() == 3);
  for (int i = 0; i < 1000 && !after->status(again)->finished; ++i) {
    while (!lab.turns.empty()) {
      auto f = std::move(lab.turns.front());
      lab.turns.pop_front();
      f();
    }
    after->tick();
  }
  CHECK(after->status(again)->phase == "done");
  CHECK(lab.coordinator.operationLog().find(record).value()->status == "done");
  CHECK(lab.store.loadQueuedJobs().value().empty());
  // The one that was running resumed too, behind the queued job of higher priority.
  const std::uint64_t resumed = after->operationOf(runningRecord);
  REQUIRE(resumed != 0);
  for (int i = 0; i < 1000 && !after->status(resumed)->finished; ++i) {
    while (!lab.turns.empty()) {
      auto f = std::move(lab.turns.front());
      lab.turns.pop_front();
      f();
    }
    after->tick();
  }
  CHECK(after->status(resumed)->phase == "done");
  CHECK(lab.coordinator.operationLog().find(runningRecord).value()->status == "done");
  CHECK(lab.store.loadRunningJobs().value().empty());
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(again) + ".out")) == 3000);
}

TEST_CASE("a queued job whose request or --input cannot be read after a restart ends failed, saying why, and leaves the queue") {
  Lab lab;
  const OperationId bad = lab.coordinator.operationLog().queue("run", "{}").value();
  REQUIRE(lab.coordinator.operationLog().keepQueued(bad, "not a request").ok());
  RunRequest gone = lab.count();
  gone.input = "/data/removed.txt";
  const OperationId missing = lab.coordinator.operationLog().queue("run", "{}").value();
  REQUIRE(lab.coordinator.operationLog().keepQueued(missing, api::encodeRunRequest(gone)).ok());

  lab.jobs.restoreQueue(std::chrono::seconds(0));
  auto badRecord = lab.coordinator.operationLog().find(bad).value();
  CHECK(badRecord->status == "failed");
  CHECK(badRecord->summary.find("cannot be read") != std::string::npos);
  auto missingRecord = lab.coordinator.operationLog().find(missing).value();
  CHECK(missingRecord->status == "failed");
  CHECK(missingRecord->summary.find("/data/removed.txt") != std::string::npos);
  CHECK(lab.store.loadQueuedJobs().value().empty());
  CHECK(lab.jobs.operationOf(bad) == 0);
}

TEST_CASE("a job left queued by the last hnowd starts once its grace is out even when an agent hnowd knew never comes back") {
  Lab lab;
  for (auto& [name, agent] : lab.agents) agent->hangs = true;
  auto busy = lab.jobs.start(lab.count());
  REQUIRE(busy.ok());
  const OperationId record = lab.coordinator.operationLog().queue("run", "{}").value();
  REQUIRE(lab.coordinator.operationLog().keepQueued(record, api::encodeRunRequest(lab.count())).ok());
  JobService after(lab.coordinator, lab.plane, lab.files, "hnowd:7000", lab.clock,
                   [&lab](std::function<void()> f) { lab.turns.push_back(std::move(f)); },
                   [&lab] { return std::string(24, 'w') + std::to_string(10000000 + lab.tokens++); }, 12.5e6);
  lab.jobs.cancel(static_cast<OperationId>(lab.jobs.status(*busy)->record), "test");  // the agents are free
  for (auto& [name, agent] : lab.agents) agent->hangs = false;
  lab.detachAgent("a3");  // gone for good
  after.restoreQueue(std::chrono::seconds(10));
  const std::uint64_t id = after.operationOf(record);
  REQUIRE(id != 0);
  after.tick();
  CHECK(after.status(id)->phase == "queued");
  lab.clock.advance(std::chrono::seconds(10));
  after.tick();
  CHECK(after.status(id)->phase != "queued");
  CHECK(after.status(id)->agents.size() == 2);
}
