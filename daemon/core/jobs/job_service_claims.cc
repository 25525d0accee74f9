// Shares an earlier hnowd left running: agents go on computing them while
// hnowd is away and hold their results (agent/job_runner.h). Each attempt
// is written to state.db before its command starts; after a restart hnowd
// tells each agent once, when it first sees it, which job files it still
// counts on (keepJobFiles: the others go), and a resumed job adopts the
// held tasks into its run (JobRun::adopt): their results are collected,
// not computed again. Only an agent that died with its results makes any
// unit run twice.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/jobs/job_service.h"
#include "core/jobs/job_state.h"
#include "core/operation_log.h"

namespace hnow::daemon {

void JobService::keepAttempt(Job& job, int id) {
  if (!job.resumable) return;
  const JobAttempt& a = job.run->attempts()[static_cast<std::size_t>(id)];
  const JobShare& share = job.run->shares()[static_cast<std::size_t>(a.share)];
  StoredAttempt row{a.agent, share.firstUnit, share.units, job.attempts[id].resultToken,
                    job.shareTokens[static_cast<std::size_t>(a.share)]};
  if (auto kept = coordinator_.operationLog().keepAttempt(job.record, row); !kept)
    spdlog::error("run {}: keeping share {}'s attempt on {} in state.db (a restart computes it again): {}", job.id,
                  a.share + 1, a.agent, kept.error().message);
}

void JobService::claimHeld() {
  for (const AgentView& view : coordinator_.status()) {
    const std::string& agent = view.record.name;
    if (!view.connected || claims_.count(agent)) continue;
    AgentLink* link = coordinator_.link(agent);
    if (!link) continue;
    claims_[agent] = false;
    std::vector<std::string> tokens;
    for (const auto& [id, job] : jobs_)
      if (!job->finished)
        for (const StoredAttempt& h : job->held)
          if (h.agent == agent) tokens.insert(tokens.end(), {h.resultToken, h.shareToken});
    // Before any other job order to it: the agent handles calls in order.
    link->keepJobFiles(tokens, [this, agent](const Result<std::vector<AgentLink::HeldJobFile>>& held) {
      claims_[agent] = true;
      if (!held) return spdlog::warn("{}: asking which shares it still holds: {}", agent, held.error().message);
      for (const auto& h : *held)
        if (h.task) heldTasks_[agent].insert(h.token);
      if (!heldTasks_[agent].empty())
        spdlog::info("{} still holds {} share(s) the last hnowd started", agent, heldTasks_[agent].size());
    });
  }
}

bool JobService::claimsAnswered(const Job& job) const {
  for (const StoredAttempt& h : job.held) {
    auto it = claims_.find(h.agent);
    if (it == claims_.end() ? agentUp(h.agent) : !it->second) return false;
  }
  return true;
}

void JobService::adoptHeld(Job& job) {
  std::vector<UnitRange> covered;
  for (const auto& k : job.kept) covered.push_back({k.firstUnit, k.firstUnit + k.units});
  // A share checked by replicas needs every replica's digest: computed again.
  const bool single = job.request.replicas == 1 && !job.request.adaptiveReplicas;
  std::map<std::string, std::vector<std::string>> unused;
  for (const StoredAttempt& h : job.held) {
    const auto inside = [&](const UnitRange& r) { return r.first <= h.firstUnit && h.firstUnit + h.units <= r.second; };
    const bool adopt = single && h.units > 0 && heldTasks_[h.agent].count(h.resultToken) &&
                       std::any_of(job.todo.ranges().begin(), job.todo.ranges().end(), inside);
    if (!adopt) {
      unused[h.agent].insert(unused[h.agent].end(), {h.resultToken, h.shareToken});
      continue;
    }
    job.adopted.push_back(h);
    job.agentTokens[h.agent].insert(job.agentTokens[h.agent].end(), {h.resultToken, h.shareToken});
    covered.push_back({h.firstUnit, h.firstUnit + h.units});
    job.todo = UnitGaps::of(job.units.units(), covered);
  }
  for (const auto& [agent, tokens] : unused)
    if (AgentLink* link = coordinator_.link(agent)) link->dropJobFiles(tokens);
  job.held.clear();
  if (!job.adopted.empty())
    spdlog::info("run {}: {} share(s) its agents kept computing while hnowd was away are collected, not computed again",
                 job.id, job.adopted.size());
}

void JobService::adoptIntoRun(Job& job) {
  for (const StoredAttempt& h : job.adopted) {
    auto from = job.unitStart(h.firstUnit);
    auto to = from ? job.unitStart(h.firstUnit + h.units) : from;
    if (!to) return finish(job, Error{"cannot read --input " + job.request.input + ": " + to.error().message});
    const std::size_t k = job.shareTokens.size();
    serveShare(job, k, *from, *to - *from);  // should it be reissued elsewhere
    job.claimedResults[k] = {h.agent, h.resultToken};
    JobShare share;
    share.firstUnit = h.firstUnit;
    share.units = h.units;
    share.agent = h.agent;
    share.plannedServeStart = 0;
    share.plannedComputeEnd = secondsPerUnitNow(job, h.agent) * static_cast<double>(h.units);
    job.run->adopt(share);
  }
  job.adopted.clear();
}

}  // namespace hnow::daemon
