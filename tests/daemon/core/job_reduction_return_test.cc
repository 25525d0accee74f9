// A --reduce job whose agent restarts during the reduction (in memory,
// job_lab.h): the new process holds the share result its last one
// finished, and the reduction takes it back (JobService::backToReductions,
// JobReduction::agentBack) instead of computing that share again, whether
// hnowd saw the agent gone or only saw it log in again.
#include <doctest/doctest.h>

#include "daemon/core/job_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

namespace {

// Lines given to share commands (not combines) by the agents' processes
// now there; `but`'s left out (its process is replaced).
long unitsRun(Lab& lab, const std::string& but = "") {
  long run = 0;
  for (auto& [name, agent] : lab.agents)
    if (name != but) run += agent->unitsRun;
  return run;
}

// A one-shot --reduce job of `count` at the start of its reduction: its id.
std::uint64_t reducing(Lab& lab) {
  RunRequest request = lab.count();
  request.rounds = 1;
  request.reduceArgv = {"count"};
  auto started = lab.jobs.start(request);
  REQUIRE(started.ok());
  stepUntil(lab, [&] { return lab.jobs.status(*started)->phase == "reducing"; });
  REQUIRE(lab.jobs.status(*started)->phase == "reducing");
  return *started;
}

// The results `agent` finished (its .done sidecars): what a new process of it holds.
std::map<std::string, std::string> finished(Lab& lab, const std::string& agent) {
  std::map<std::string, std::string> out;
  for (const auto& token : lab.agents[agent]->results)
    if (lab.agents[agent]->files.count(token)) out[token] = lab.agents[agent]->files.at(token);
  return out;
}

CountingAgent& startedAgain(Lab& lab, const std::string& agent, const std::map<std::string, std::string>& held) {
  lab.attachAgent(agent);
  CountingAgent& back = *lab.agents[agent];
  for (const auto& [token, bytes] : held) {
    back.files[token] = bytes;
    back.results.insert(token);
  }
  return back;
}

}  // namespace

TEST_CASE("--reduce: an agent that restarts during the reduction gives back its share result - it is reduced, not computed again") {
  for (const bool seenGone : {true, false}) {
    CAPTURE(seenGone);
    Lab lab;
    const std::uint64_t id = reducing(lab);
    // a1 has the fastest uplink (the first of equals): the sink. a3 sends its share's result up.
    const auto held = finished(lab, "a3");
    REQUIRE(held.size() == 1);
    const long before = unitsRun(lab, "a3");
    if (seenGone) {
      lab.detachAgent("a3");
      lab.jobs.tick();  // seen gone: its partials are lost for now
    } else {
      lab.jobs.tick();  // up at this look; its new process logs in before the next
    }
    // The clock stands still: only a3's return can end the job.
    startedAgain(lab, "a3", held);
    stepUntil(lab, [&] { return lab.jobs.status(id)->finished; });
    const auto status = lab.jobs.status(id);
    CHECK(status->phase == "done");
    CHECK(status->reissued == 0);
    CHECK(unitsRun(lab) == before);  // no share computed again (a3's new process ran none)
    CHECK(lab.files.outputs.files.count("run-" + std::to_string(id) + ".out") == 1);
  }
}

TEST_CASE("--reduce: an agent that restarts during the reduction without its share result - that share alone is computed again") {
  Lab lab;
  const std::uint64_t id = reducing(lab);
  long a3Units = 0;
  for (const auto& [token, bytes] : finished(lab, "a3")) a3Units += std::stol(bytes);
  const long before = unitsRun(lab, "a3");
  lab.detachAgent("a3");
  lab.jobs.tick();
  startedAgain(lab, "a3", {});  // its disk lost the result
  stepUntil(lab, [&] { return lab.jobs.status(id)->finished; });
  CHECK(lab.jobs.status(id)->phase == "done");
  CHECK(unitsRun(lab) - before == a3Units);
}
