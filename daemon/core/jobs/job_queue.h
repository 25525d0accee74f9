#pragma once
// Which queued jobs start now, and why the others wait: the sharing rule
// between concurrent `hnow run` jobs.
//
// An agent runs one job at a time, and a job starts on every alive agent
// it may use (its --to, agents that run jobs) once none of them runs
// another job. Among jobs that want a same agent, the higher --priority
// goes first, then the one submitted first (FIFO); a job never starts
// ahead of an earlier-ranked one that wants any of its agents, so none
// waits for ever behind later ones. Jobs on disjoint agents run at once.
//
// Why not share an agent between jobs, or split the pool fairly: a
// worksharing plan (Beaumont and Rosenberg, "Link-heterogeneity vs.
// node-heterogeneity in clusters", 2010, sections II-III) sizes each share
// on the agent's whole compute rate; two jobs on one agent would each get
// an unknown fraction of it and both plans would miss. And with a fixed
// amount of work, splitting the pool delays the first jobs without ending
// the last one any sooner, so running jobs one after another on the whole
// pool gives a shorter mean completion time than sharing it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hnow::daemon {

struct QueuedJob {
  std::uint64_t id = 0;  // in submission order
  int priority = 0;      // --priority: higher first
  // The alive agents it may use now, and how many it needs (--replicas).
  std::vector<std::string> alive;
  std::size_t needs = 1;
  // What `alive` was drawn from, for the waiting reason: "agents that run
  // jobs", or the --to names.
  std::string from;
};

struct Admission {
  std::vector<std::uint64_t> start;                 // in rank order
  std::map<std::uint64_t, std::string> waiting;     // the others, each with why
};

// `held`: each agent that runs a job now, and that job's id.
Admission admitJobs(std::vector<QueuedJob> queued, const std::map<std::string, std::uint64_t>& held);

}  // namespace hnow::daemon
