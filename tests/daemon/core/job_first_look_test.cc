// An agent that logs in again before JobService first looked at it (its
// first tick comes after a job sent it orders): what went to its earlier
// session is noticed as gone at that look (Job::sessions, the login each
// order went to), not left to wait for a deadline; and the first look's
// claim (keepJobFiles) keeps the files such a job sent meanwhile.
#include <doctest/doctest.h>

#include "daemon/core/job_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

namespace {

// Runs queued turns, never a tick, until `until` holds or none is left.
template <class Until>
void turnsOnly(Lab& lab, Until until) {
  for (int i = 0; i < 100000 && !until() && !lab.turns.empty(); ++i) {
    auto f = std::move(lab.turns.front());
    lab.turns.pop_front();
    f();
  }
}

}  // namespace

TEST_CASE("an agent that restarts before JobService's first look loses the share sent to its earlier session at that look, not at a deadline") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 1;
  auto started = lab.jobs.start(request);
  REQUIRE(started.ok());
  turnsOnly(lab, [&] { return lab.jobs.status(*started)->phase == "running"; });
  REQUIRE(lab.jobs.status(*started)->phase == "running");  // calibrated; no share computing yet
  lab.agents["a1"]->hangs = true;  // its share's answer never comes: its process dies first
  turnsOnly(lab, [&] { return !lab.agents["a1"]->running.empty() && lab.turns.empty(); });
  REQUIRE(lab.agents["a1"]->running.size() == 1);
  const long lines = lab.agents["a1"]->running.begin()->second;
  long unitsBefore = 0;
  for (const char* other : {"a2", "a3"}) unitsBefore += lab.agents[other]->unitsRun;
  // A new process of a1 logs in (it gives back nothing: the command died with it).
  lab.attachAgent("a1");
  // The clock stands still: no deadline passes, only the first look can notice.
  stepUntil(lab, [&] { return lab.jobs.status(*started)->finished; });
  CHECK(lab.jobs.status(*started)->phase == "done");
  long unitsAfter = lab.agents["a1"]->unitsRun;
  for (const char* other : {"a2", "a3"}) unitsAfter += lab.agents[other]->unitsRun;
  CHECK(unitsAfter - unitsBefore == lines);  // its lost share, computed again once
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(*started) + ".out")) == 3000);
}

TEST_CASE("JobService's first look at an agent keeps the files a job sent it before that look") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 1;
  auto started = lab.jobs.start(request);
  REQUIRE(started.ok());
  turnsOnly(lab, [&] { return lab.jobs.status(*started)->phase == "running"; });
  REQUIRE(lab.jobs.status(*started)->phase == "running");
  for (auto& [name, agent] : lab.agents) agent->hangs = true;  // each computes its share
  turnsOnly(lab, [&] { return lab.turns.empty(); });
  int computing = 0;
  for (auto& [name, agent] : lab.agents) computing += !agent->running.empty();
  REQUIRE(computing == 3);
  lab.jobs.tick();  // the first look: which job files does hnowd count on
  turnsOnly(lab, [] { return false; });
  for (auto& [name, agent] : lab.agents) CHECK(agent->running.size() == 1);  // none dropped, none killed
}
