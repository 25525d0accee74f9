// A job checked by replicas (--replicas N, --replicas adaptive) resumed by
// the next hnowd (job_service_claims.cc), in memory (job_lab.h): the
// replicas its agents went on computing are adopted as replicas of their
// share and compared as if hnowd had never stopped; a replica computed
// before whose result is gone still counts by its digest (state.db); only
// the missing replicas run; a share whose replicas agreed before the stop
// is collected without a check or a judgement again.
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

long unitsRun(Lab& lab) {
  long run = 0;
  for (auto& [name, agent] : lab.agents) run += agent->unitsRun;
  return run;
}

std::uint64_t unitsDone(const RunStatus& s) {
  std::uint64_t done = 0;
  for (const auto& a : s.agents) done += a.units;
  return done;
}

const std::string kDigest(32, 's');  // every CountingAgent result's
const char* kCalibrations = "a1 0.001 0.01 0.5 0.0002\na2 0.001 0.01 0.5 0.0002\na3 0.001 0.01 0.5 0.0002\n";

// What a stopped hnowd left of `request`: its row in state.db, calibrated; its record.
OperationId leftRunning(Lab& lab, const RunRequest& request) {
  const OperationId record = lab.coordinator.operationLog().begin("run", "{}").value();
  REQUIRE(lab.store.saveRunningJob({record, api::encodeRunRequest(request), lab.files.inputs.at("/data/lines.txt").size(),
                                    0, "/jobs/old", {}, kCalibrations}).ok());
  return record;
}

// `agent` holds the result `token` of units [first, first + units), finished while hnowd was away.
void holdsResult(Lab& lab, const std::string& agent, const std::string& token, long units) {
  lab.agents[agent]->files[token] = std::to_string(units) + "\n";
  lab.agents[agent]->results.insert(token);
}

std::uint64_t resumeToEnd(Lab& lab, JobService& after, OperationId record) {
  after.resumeRunning(std::chrono::seconds(0));
  const std::uint64_t id = after.operationOf(record);
  REQUIRE(id != 0);
  stepUntil(lab, after, [&] { return after.status(id)->finished; });
  return id;
}

}  // namespace

TEST_CASE("--replicas 2: a job resumed after hnowd is killed collects the replicas its agents went on computing - every unit is computed twice in all, no more") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 6;
  request.replicas = 2;
  auto before = serviceOf(lab, 'p');
  auto started = before->start(request);
  REQUIRE(started.ok());
  const auto record = static_cast<OperationId>(before->status(*started)->record);
  stepUntil(lab, *before, [&] { return before->status(*started)->phase == "running"; });
  const long calibration = unitsRun(lab);  // the samples; no share has started yet
  stepUntil(lab, *before, [&] { return unitsDone(*before->status(*started)) >= 1000; });
  // hnowd is killed: the commands run on (hang), replicas computed so far wait for their peers.
  for (auto& [name, agent] : lab.agents) agent->hangs = true;
  stepUntil(lab, *before, [&] { return lab.turns.empty(); });
  REQUIRE(unitsDone(*before->status(*started)) < 3000);
  int computing = 0, digests = 0;
  for (auto& [name, agent] : lab.agents) {
    computing += !agent->running.empty();
    agent->hung.clear();
  }
  for (const StoredAttempt& a : lab.store.loadRunningJobs().value().at(0).attempts) {
    CHECK(a.replicas == 2);
    digests += !a.digest.empty();
  }
  REQUIRE(computing > 0);
  before.reset();

  for (auto& [name, agent] : lab.agents) agent->hangs = false;
  auto after = serviceOf(lab, 'q');
  const std::uint64_t id = resumeToEnd(lab, *after, record);
  CHECK(after->status(id)->phase == "done");
  int awaited = 0;
  for (auto& [name, agent] : lab.agents) awaited += agent->awaited;
  CHECK(awaited >= computing);  // each replica still computing was asked for, not run again
  CHECK(unitsRun(lab) - calibration == 2 * 3000);
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(id) + ".out")) == 3000);
  MESSAGE(digests << " replica digest(s) were in state.db at the kill");
}

TEST_CASE("--replicas 3: a replica held, one computed before whose result is gone - only the missing one runs, the gone one agrees by its digest") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 1;
  request.replicas = 3;
  const OperationId record = leftRunning(lab, request);
  // Units 0..1000: a1 went on computing its replica; a2's was computed
  // (its digest kept) and is held no more.
  const std::string running(32, 'r'), gone(32, 'g');
  lab.agents["a1"]->running[running] = 1000;
  REQUIRE(lab.store.saveJobAttempt(record, {"a1", 0, 1000, running, std::string(32, 'i'), 3}).ok());
  REQUIRE(lab.store.saveJobAttempt(record, {"a2", 0, 1000, gone, std::string(32, 'j'), 3, kDigest}).ok());
  auto after = serviceOf(lab, 'q');
  const std::uint64_t id = resumeToEnd(lab, *after, record);
  CHECK(after->status(id)->phase == "done");
  CHECK(lab.agents["a1"]->awaited == 1);
  CHECK(lab.agents["a1"]->running.empty());
  // a3's replica of units 0..1000, and the other 2000 units three times.
  CHECK(unitsRun(lab) == 1000 + 3 * 2000);
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(id) + ".out")) == 3000);
}

TEST_CASE("--replicas adaptive: shares whose replicas agreed before hnowd stopped are collected, not checked again, and the ledger is as it left it") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 1;
  request.adaptiveReplicas = true;
  const OperationId record = leftRunning(lab, request);
  // Each third of the input: its replicas agreed (the ledger judged them and
  // was written), one result is held, its peer's was dropped at the agreement.
  const char* holders[] = {"a1", "a2", "a3"};
  const char* peers[] = {"a2", "a3", "a1"};
  for (int k = 0; k < 3; ++k) {
    const std::string kept(32, static_cast<char>('A' + k)), dropped(32, static_cast<char>('a' + k));
    holdsResult(lab, holders[k], kept, 1000);
    REQUIRE(lab.store.saveJobAttempt(record, {holders[k], 1000u * k, 1000, kept, std::string(32, 'i'), 2, kDigest}).ok());
    REQUIRE(lab.store.saveJobAttempt(record, {peers[k], 1000u * k, 1000, dropped, std::string(32, 'j'), 2, kDigest}).ok());
  }
  const std::vector<StoredLedgerEntry> ledger{{"a1", 2, 0}, {"a2", 2, 0}, {"a3", 2, 0}};
  REQUIRE(lab.store.saveLedger(kHostTrustLedger, ledger).ok());
  auto after = serviceOf(lab, 'q');
  const std::uint64_t id = resumeToEnd(lab, *after, record);
  const auto status = after->status(id);
  CHECK(status->phase == "done");
  CHECK(status->checked == 0);
  CHECK(unitsRun(lab) == 0);  // nothing computed again, no second agent asked
  for (const char* agent : holders) CHECK(lab.agents[agent]->awaited == 1);
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(id) + ".out")) == 3000);
  const auto kept = lab.store.loadLedger(kHostTrustLedger).value();
  REQUIRE(kept.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(kept[i].first == 2);  // no agreement counted twice
}
