// An agent that restarts gives back what it computed (agent/job_runner.h
// restoreHeld): the same hnowd, seeing it again, revives the attempt it
// gave up when it lost the agent (JobRun::revive) and collects that
// result instead of waiting for the share's reissue. An agent that logs
// in again between two ticks (never seen gone) is taken the same way
// (job_service_returns.cc): what its earlier session ran is lost at once,
// a finished result it still holds is collected from it.
#include <doctest/doctest.h>

#include "daemon/core/job_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

namespace {

// `request` started one-shot and run to its running phase: its id.
std::uint64_t runningOneShot(Lab& lab, RunRequest request) {
  request.rounds = 1;
  auto started = lab.jobs.start(request);
  REQUIRE(started.ok());
  stepUntil(lab, [&] { return lab.jobs.status(*started)->phase == "running"; });
  return *started;
}

// a1 computing its share, whose answer never comes (the agent dies
// before it): that share's result token and lines.
std::pair<std::string, long> a1Computing(Lab& lab) {
  lab.agents["a1"]->hangs = true;
  stepUntil(lab, [&] { return !lab.agents["a1"]->running.empty() && lab.turns.empty(); });
  REQUIRE(lab.agents["a1"]->running.size() == 1);
  return *lab.agents["a1"]->running.begin();
}

// `agent` logged in again from a new process that holds the result `token`
// its last one finished (its .done sidecar): that new process.
CountingAgent& backHolding(Lab& lab, const std::string& agent, const std::string& token, const std::string& result) {
  lab.attachAgent(agent);
  CountingAgent& back = *lab.agents[agent];
  back.files[token] = result;
  back.results.insert(token);
  return back;
}

long outputTotal(Lab& lab, std::uint64_t job) {
  return totalOf(lab.files.outputs.files.at("run-" + std::to_string(job) + ".out"));
}

}  // namespace

TEST_CASE("an agent that restarts gives its finished result back to the same hnowd, which collects it") {
  Lab lab;
  const std::uint64_t started = runningOneShot(lab, lab.count());
  const auto [token, lines] = a1Computing(lab);
  // The others hang from now on: the lost share's reissue never ends, only the result given back can.
  for (const char* other : {"a2", "a3"}) lab.agents[other]->hangs = true;
  lab.detachAgent("a1");
  lab.jobs.tick();
  // Started again: the result its last process finished is on its disk.
  CountingAgent& back = backHolding(lab, "a1", token, std::to_string(lines) + "\n");
  stepUntil(lab, [&] { return lab.jobs.status(started)->finished; });
  CHECK(lab.jobs.status(started)->phase == "done");
  CHECK(back.awaited == 1);
  CHECK(back.runs == 0);  // nothing computed on it again
  CHECK(outputTotal(lab, started) == 3000);
}

TEST_CASE("an agent that restarts and logs in again between two ticks gives its finished result back, which is collected") {
  Lab lab;
  const std::uint64_t started = runningOneShot(lab, lab.count());
  const auto [token, lines] = a1Computing(lab);
  for (const char* other : {"a2", "a3"}) lab.agents[other]->hangs = true;
  // Never seen gone: up at this tick, its new process logs in before the
  // next, and the earlier session's call is never answered (its
  // connection not yet seen closed).
  lab.jobs.tick();
  CountingAgent& back = backHolding(lab, "a1", token, std::to_string(lines) + "\n");
  stepUntil(lab, [&] { return lab.jobs.status(started)->finished; });
  CHECK(lab.jobs.status(started)->phase == "done");
  CHECK(back.awaited == 1);
  CHECK(back.runs == 0);  // nothing computed on it again
  CHECK(outputTotal(lab, started) == 3000);
}

TEST_CASE("an agent that reconnects between two ticks dropped its share - it is computed again at once, not at its deadline") {
  Lab lab;
  const std::uint64_t started = runningOneShot(lab, lab.count());
  const long lines = a1Computing(lab).second;
  long unitsBefore = 0;
  for (const char* other : {"a2", "a3"}) unitsBefore += lab.agents[other]->unitsRun;
  // The same process logs in again to the same hnowd: it kills its
  // commands and drops its job files (agent_runtime.cc), so it gives back
  // nothing. The clock stands still: no deadline passes.
  lab.jobs.tick();
  lab.attachAgent("a1");
  stepUntil(lab, [&] { return lab.jobs.status(started)->finished; });
  CHECK(lab.jobs.status(started)->phase == "done");
  long unitsAfter = lab.agents["a1"]->unitsRun;
  for (const char* other : {"a2", "a3"}) unitsAfter += lab.agents[other]->unitsRun;
  CHECK(unitsAfter - unitsBefore >= lines);  // its lost share, computed again
  CHECK(outputTotal(lab, started) == 3000);
}

TEST_CASE("an agent that logged in again between two ticks stays in the run - a share that fails elsewhere goes to it") {
  Lab lab;
  // One-shot: an agent seen gone takes no share of the run again.
  const std::uint64_t started = runningOneShot(lab, lab.count());
  for (const char* name : {"a1", "a3"}) lab.agents[name]->hangs = true;
  stepUntil(lab, [&] {
    return !lab.agents["a1"]->running.empty() && !lab.agents["a3"]->hung.empty() && lab.turns.empty();
  });
  REQUIRE(lab.agents["a3"]->hung.size() == 1);
  lab.jobs.tick();
  lab.attachAgent("a1");  // a new process: its share is gone, it gives back nothing
  CountingAgent& back = *lab.agents["a1"];
  lab.jobs.tick();  // a1's share goes to a2, the idle one
  stepUntil(lab, [&] { return lab.turns.empty(); });
  CHECK(back.runs == 0);
  // a3's command fails: its share goes to an idle agent that has not tried it, a1.
  auto failed = lab.agents["a3"]->hung.front();
  failed(Error{"'count' was killed by signal 9"});
  stepUntil(lab, [&] { return lab.jobs.status(started)->finished; });
  CHECK(lab.jobs.status(started)->phase == "done");
  CHECK(back.runs == 1);
  CHECK(outputTotal(lab, started) == 3000);
}

TEST_CASE("an agent that restarts between two ticks with a finished result not yet collected still holds it - collected from its new process, not computed again") {
  Lab lab;
  RunRequest request = lab.count();
  request.strategy = "equal";  // results return in agent order: a3's waits behind a1's
  const std::uint64_t started = runningOneShot(lab, request);
  lab.agents["a1"]->hangs = true;
  stepUntil(lab, [&] {
    return !lab.agents["a1"]->running.empty() && !lab.agents["a3"]->results.empty() && lab.turns.empty();
  });
  REQUIRE(lab.agents["a3"]->results.size() == 1);
  REQUIRE(std::count(lab.plane.pulledFrom.begin(), lab.plane.pulledFrom.end(), "a3") == 0);  // not yet collected
  // Its new process holds the finished result (its .done sidecar), not the share's input.
  const std::string token = *lab.agents["a3"]->results.begin();
  const std::string result = lab.agents["a3"]->files.at(token);
  lab.jobs.tick();
  CountingAgent& back = backHolding(lab, "a3", token, result);
  lab.jobs.tick();
  stepUntil(lab, [&] { return lab.turns.empty(); });
  CHECK(back.files.count(token) == 1);  // not dropped as unwanted
  // a1's command ends now: the results come back in order, a3's from its new process.
  CountingAgent& a1 = *lab.agents["a1"];
  REQUIRE(a1.hung.size() == 1);
  const auto [own, lines] = *a1.running.begin();
  a1.files[own] = std::to_string(lines) + "\n";
  a1.results.insert(own);
  AgentLink::JobTaskAnswer answer;
  answer.exitCode = 0;
  answer.size = a1.files[own].size();
  answer.sha256 = std::string(32, 's');
  answer.computeS = 0.01;
  auto ended = a1.hung.front();
  ended(answer);
  stepUntil(lab, [&] { return lab.jobs.status(started)->finished; });
  CHECK(lab.jobs.status(started)->phase == "done");
  CHECK(lab.jobs.status(started)->reissued == 0);
  CHECK(back.runs == 0);
  CHECK(back.awaited == 0);
  CHECK(std::count(lab.plane.pulledFrom.begin(), lab.plane.pulledFrom.end(), "a3") == 1);
  CHECK(outputTotal(lab, started) == 3000);
}
