// A --concat job resumed by the next hnowd (job_service_resume.cc), in
// memory (job_lab.h): the shares accepted before the stop are kept, only
// the other units are computed again, and the output is the whole one.
#include <doctest/doctest.h>

#include <memory>

#include "api/run_request_bytes.h"
#include "daemon/core/job_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

namespace {

std::unique_ptr<JobService> serviceOf(Lab& lab, char tag) {
  return std::make_unique<JobService>(lab.coordinator, lab.plane, lab.files, "hnowd:7000", lab.clock,
                                      [&lab](std::function<void()> f) { lab.turns.push_back(std::move(f)); },
                                      [&lab, tag] { return std::string(24, tag) + std::to_string(10000000 + lab.tokens++); },
                                      12.5e6);
}

std::uint64_t unitsDone(const RunStatus& s) {
  std::uint64_t done = 0;
  for (const auto& a : s.agents) done += a.units;
  return done;
}

// What hnowd leaves when it is killed mid-job: some shares accepted, then
// every command hung (its answer dies with the connection; the agent goes
// on with it). The first service is gone on return.
struct Killed {
  OperationId record = 0;
  long accepted = 0;   // units
  long inFlight = 0;   // units of the hung commands
  long runBefore = 0;  // units given to commands so far
  int computing = 0;   // agents with a hung command
};

long unitsRun(Lab& lab) {
  long run = 0;
  for (auto& [name, agent] : lab.agents) run += agent->unitsRun;
  return run;
}

Killed killMidJob(Lab& lab, const RunRequest& request) {
  auto before = serviceOf(lab, 'p');
  auto started = before->start(request);
  REQUIRE(started.ok());
  Killed k;
  k.record = static_cast<OperationId>(before->status(*started)->record);
  stepUntil(lab, *before, [&] { return unitsDone(*before->status(*started)) >= 1000; });
  for (auto& [name, agent] : lab.agents) agent->hangs = true;
  stepUntil(lab, *before, [&] { return lab.turns.empty(); });
  k.accepted = static_cast<long>(unitsDone(*before->status(*started)));
  k.runBefore = unitsRun(lab);
  for (auto& [name, agent] : lab.agents) {
    k.computing += !agent->running.empty();
    for (const auto& [token, lines] : agent->running) k.inFlight += lines;
    agent->hung.clear();
  }
  return k;
}

// The next hnowd resumes the job: its commands no longer hang. Its id there.
std::uint64_t resumeToEnd(Lab& lab, JobService& after, OperationId record) {
  for (auto& [name, agent] : lab.agents) agent->hangs = false;
  after.resumeRunning(std::chrono::seconds(0));
  const std::uint64_t id = after.operationOf(record);
  if (id != 0) stepUntil(lab, after, [&] { return after.status(id)->finished; });
  return id;
}


}  // namespace

TEST_CASE("a job resumed after hnowd stops computes only what was not accepted, and its output is the whole one") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 6;
  auto before = serviceOf(lab, 'p');
  auto started = before->start(request);
  REQUIRE(started.ok());
  const auto record = static_cast<OperationId>(before->status(*started)->record);
  // Some shares accepted, then every command hangs: hnowd stops mid-job.
  stepUntil(lab, *before, [&] { return unitsDone(*before->status(*started)) >= 1000; });
  for (auto& [name, agent] : lab.agents) agent->hangs = true;
  stepUntil(lab, *before, [&] { return lab.turns.empty(); });
  const std::uint64_t accepted = unitsDone(*before->status(*started));
  REQUIRE(accepted >= 1000);
  REQUIRE(accepted < 3000);
  auto kept = lab.store.loadRunningJobs().value();
  REQUIRE(kept.size() == 1);
  std::uint64_t keptUnits = 0;
  for (const auto& s : kept[0].accepted) keptUnits += s.units;
  CHECK(keptUnits == accepted);  // each accepted share was written as it was accepted
  before.reset();  // hnowd stops (its agents drop their files; the accepted results stay)
  CHECK(lab.store.interruptRunning(lab.clock.wallNow()).value() == 0);

  for (auto& [name, agent] : lab.agents) agent->hangs = false, agent->hung.clear();
  const std::size_t servedBefore = lab.plane.ranges.size();
  auto after = serviceOf(lab, 'q');
  after->resumeRunning(std::chrono::seconds(0));
  const std::uint64_t id = after->operationOf(record);
  REQUIRE(id != 0);
  stepUntil(lab, *after, [&] { return after->status(id)->finished; });
  // No calibration sample (the input's first bytes) served again: the
  // agents' calibrations came back with the job. The kept shares are the
  // input's first ones, so no share starts there either.
  for (std::size_t k = servedBefore; k < lab.plane.ranges.size(); ++k) CHECK(lab.plane.ranges[k].first > 0);
  auto done = after->status(id);
  CHECK(done->phase == "done");
  CHECK(done->unitsKept == accepted);
  CHECK(unitsDone(*done) == 3000 - accepted);  // nothing accepted was computed again
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(id) + ".out")) == 3000);
  CHECK(lab.coordinator.operationLog().find(record).value()->status == "done");
  CHECK(lab.store.loadRunningJobs().value().empty());
  CHECK(lab.files.work.files.empty());  // both directories removed at the end
}

TEST_CASE("a job whose --input changed while hnowd was stopped is not resumed: its record ends interrupted, saying why") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 6;
  auto before = serviceOf(lab, 'p');
  auto started = before->start(request);
  REQUIRE(started.ok());
  const auto record = static_cast<OperationId>(before->status(*started)->record);
  for (auto& [name, agent] : lab.agents) agent->hangs = true;
  stepUntil(lab, *before, [&] { return lab.turns.empty(); });
  before.reset();
  lab.files.inputs["/data/lines.txt"] += "one more line\n";
  auto after = serviceOf(lab, 'q');
  after->resumeRunning(std::chrono::seconds(0));
  CHECK(after->operationOf(record) == 0);
  auto r = lab.coordinator.operationLog().find(record).value();
  CHECK(r->status == "interrupted");
  CHECK(r->summary.find("changed since the run began") != std::string::npos);
  CHECK(lab.store.loadRunningJobs().value().empty());
}

TEST_CASE("a job resumed with gaps between its kept results computes each gap apart and puts every result at its place") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 4;
  // What a stopped hnowd left: units 1000..1500 and 2000..2500 accepted.
  const OperationId record = lab.coordinator.operationLog().begin("run", "{}").value();
  REQUIRE(lab.store.saveRunningJob({record, api::encodeRunRequest(request), lab.files.inputs.at("/data/lines.txt").size(), 0,
                                    "/jobs/old", {}}).ok());
  for (std::uint64_t first : {1000, 2000}) {
    const std::string path = "/jobs/old/result-" + std::to_string(first);
    lab.files.work.files[path] = "500\n";
    REQUIRE(lab.store.saveAcceptedShare(record, {first, 500, path, 4}).ok());
  }
  auto after = serviceOf(lab, 'q');
  after->resumeRunning(std::chrono::seconds(0));
  const std::uint64_t id = after->operationOf(record);
  REQUIRE(id != 0);
  stepUntil(lab, *after, [&] { return after->status(id)->finished; });
  auto status = after->status(id);
  CHECK(status->phase == "done");
  CHECK(status->unitsKept == 1000);
  CHECK(unitsDone(*status) == 2000);
  // Each count in the output, in order: the kept results sit after 1000
  // and after 2000 units' worth of new ones.
  std::istringstream output(lab.files.outputs.files.at("run-" + std::to_string(id) + ".out"));
  std::vector<long> counts;
  for (long n; output >> n;) counts.push_back(n);
  long before = 0;
  std::vector<long> keptAt;
  for (long n : counts) {
    if (n == 500 && (before == 1000 || before == 2000)) keptAt.push_back(before);
    before += n;
  }
  CHECK(before == 3000);
  CHECK(keptAt == std::vector<long>{1000, 2000});
  CHECK(lab.files.work.files.empty());  // the old directory removed with the new one
}

TEST_CASE("a job resumed after hnowd is killed collects the shares its agents went on computing: no unit is computed twice") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 6;
  const Killed killed = killMidJob(lab, request);
  REQUIRE(killed.inFlight > 0);
  REQUIRE(lab.store.loadRunningJobs().value().at(0).attempts.size() > 0);
  int stillComputing = 0;  // stopping dropped nothing on the agents
  for (auto& [name, agent] : lab.agents) stillComputing += !agent->running.empty();
  CHECK(stillComputing == killed.computing);

  auto after = serviceOf(lab, 'q');
  const std::uint64_t id = resumeToEnd(lab, *after, killed.record);
  REQUIRE(id != 0);
  CHECK(after->status(id)->phase == "done");
  int awaited = 0;
  for (auto& [name, agent] : lab.agents) awaited += agent->awaited;
  CHECK(awaited == killed.computing);  // each held share was asked for, none run again
  // The new hnowd ran the command on exactly the units neither accepted nor in flight.
  CHECK(unitsRun(lab) - killed.runBefore == 3000 - killed.accepted - killed.inFlight);
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(id) + ".out")) == 3000);
  for (auto& [name, agent] : lab.agents) CHECK(agent->running.empty());
}

TEST_CASE("a restarted hnowd tells each agent which job files it still counts on: those of no resumed job go") {
  Lab lab;
  for (auto& [name, agent] : lab.agents) agent->running["stale-task-of-a-job-not-resumed"] = 10;
  auto after = serviceOf(lab, 'q');
  after->resumeRunning(std::chrono::seconds(0));
  after->tick();
  while (!lab.turns.empty()) {
    auto f = std::move(lab.turns.front());
    lab.turns.pop_front();
    f();
  }
  for (auto& [name, agent] : lab.agents) CHECK(agent->running.empty());
}

TEST_CASE("a --reduce job resumed after hnowd is killed reduces the results its agents hold: no share is computed twice") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 6;
  request.reduceArgv = {"count"};
  const Killed killed = killMidJob(lab, request);
  CHECK(lab.store.loadRunningJobs().value().size() == 1);  // kept to resume, as a --concat job

  auto after = serviceOf(lab, 'q');
  const std::uint64_t id = resumeToEnd(lab, *after, killed.record);
  REQUIRE(id != 0);
  CHECK(after->status(id)->phase == "done");
  // Every unit computed once over both hnowd: the new one only what no agent held.
  CHECK(unitsRun(lab) - killed.runBefore == 3000 - killed.accepted - killed.inFlight);
  CHECK(lab.files.outputs.files.count("run-" + std::to_string(id) + ".out") == 1);
  CHECK(lab.store.loadRunningJobs().value().empty());
}
