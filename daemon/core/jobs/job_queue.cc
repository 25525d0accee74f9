#include "core/jobs/job_queue.h"

#include <algorithm>
#include <set>

namespace hnow::daemon {

namespace {

std::string runsOf(const std::set<std::uint64_t>& jobs) {
  std::string out = jobs.size() == 1 ? "run " : "runs ";
  bool first = true;
  for (std::uint64_t id : jobs) out += (first ? "" : ", ") + std::to_string(id), first = false;
  return out;
}

}  // namespace

Admission admitJobs(std::vector<QueuedJob> queued, const std::map<std::string, std::uint64_t>& held) {
  std::stable_sort(queued.begin(), queued.end(), [](const QueuedJob& a, const QueuedJob& b) {
    return a.priority != b.priority ? a.priority > b.priority : a.id < b.id;
  });
  Admission out;
  std::map<std::string, std::uint64_t> taken = held;  // running, or started in this pass
  std::map<std::string, std::uint64_t> wanted;       // by a job ranked ahead that waits
  for (const QueuedJob& job : queued) {
    if (job.alive.size() < job.needs) {
      // It could not use the agents anyway: it claims none of them.
      out.waiting[job.id] = job.alive.empty()
                                ? "no alive agent among " + job.from
                                : "--replicas needs " + std::to_string(job.needs) + " alive agents among " + job.from +
                                      "; " + std::to_string(job.alive.size()) + (job.alive.size() == 1 ? " is" : " are");
      continue;
    }
    std::set<std::uint64_t> busy, ahead;
    for (const auto& agent : job.alive) {
      if (auto t = taken.find(agent); t != taken.end()) busy.insert(t->second);
      else if (auto w = wanted.find(agent); w != wanted.end()) ahead.insert(w->second);
    }
    if (busy.empty() && ahead.empty()) {
      for (const auto& agent : job.alive) taken[agent] = job.id;
      out.start.push_back(job.id);
      continue;
    }
    for (const auto& agent : job.alive) wanted.emplace(agent, job.id);
    out.waiting[job.id] = !busy.empty() ? "its agents run " + runsOf(busy)
                                        : "behind " + runsOf(ahead) + ", queued ahead of it for the same agents";
  }
  return out;
}

}  // namespace hnow::daemon
