// Shares an earlier hnowd left running: agents go on computing them while
// hnowd is away and hold their results (agent/job_runner.h). Each attempt
// is written to state.db before its command starts; after a restart hnowd
// tells each agent once, when it first sees it, which job files it still
// counts on (keepJobFiles: the others go), and a resumed job adopts the
// held tasks into its run (JobRun::adopt): their results are collected,
// not computed again. A share checked by replicas adopts every held
// replica, and the digests of those computed before (JobRun::adoptReplicas):
// its check goes on where it was. Only an agent that died with its results
// makes any unit run twice.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "core/jobs/job_service.h"
#include "core/jobs/job_state.h"
#include "core/operation_log.h"

namespace hnow::daemon {

void JobService::keepAttempt(Job& job, int id, const std::string& digest) {
  if (!job.resumable) return;
  const JobAttempt& a = job.run->attempts()[static_cast<std::size_t>(id)];
  const JobShare& share = job.run->shares()[static_cast<std::size_t>(a.share)];
  const auto& data = job.attempts[id];
  const std::string& shareToken =
      data.shareToken.empty() ? job.shareTokens[static_cast<std::size_t>(a.share)] : data.shareToken;
  StoredAttempt row{a.agent, share.firstUnit, share.units, data.resultToken, shareToken, job.run->replicas(a.share),
                    digest};
  if (auto kept = coordinator_.operationLog().keepAttempt(job.record, row); !kept)
    spdlog::error("run {}: keeping share {}'s attempt on {} in state.db (a restart computes it again): {}", job.record,
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
    for (const auto& [id, job] : jobs_) {
      if (job->finished) continue;
      for (const StoredAttempt& h : job->held)
        if (h.agent == agent) tokens.insert(tokens.end(), {h.resultToken, h.shareToken});
      for (const StoredPartial& p : job->partials)
        if (p.agent == agent) tokens.push_back(p.token);
      // A job this hnowd started before its first look at the agent sent it files already.
      if (auto sent = job->agentTokens.find(agent); sent != job->agentTokens.end())
        tokens.insert(tokens.end(), sent->second.begin(), sent->second.end());
    }
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
  auto answered = [this](const std::string& agent) {
    auto it = claims_.find(agent);
    return it == claims_.end() ? !agentUp(agent) : it->second;
  };
  return std::all_of(job.held.begin(), job.held.end(), [&](const StoredAttempt& h) { return answered(h.agent); }) &&
         std::all_of(job.partials.begin(), job.partials.end(), [&](const StoredPartial& p) { return answered(p.agent); });
}

namespace {

// The attempts of one share, in the order sent (a share's replicas and
// reissues cover the same units; different shares never overlap).
std::map<UnitRange, std::vector<StoredAttempt>> byShare(const std::vector<StoredAttempt>& held) {
  std::map<UnitRange, std::vector<StoredAttempt>> shares;
  for (const StoredAttempt& h : held)
    if (h.units > 0) shares[{h.firstUnit, h.firstUnit + h.units}].push_back(h);
  return shares;
}

// A digest at least `replicas` of `rows` agree on: the earlier run's check
// of the share ended (and judged its agents); "" if none.
std::string agreedDigest(const std::vector<StoredAttempt>& rows, int replicas) {
  std::map<std::string, int> votes;
  for (const StoredAttempt& r : rows)
    if (!r.digest.empty() && ++votes[r.digest] >= replicas) return r.digest;
  return "";
}

}  // namespace

void JobService::adoptHeld(Job& job) {
  std::vector<UnitRange> covered;
  for (const auto& k : job.kept) covered.push_back({k.firstUnit, k.firstUnit + k.units});
  restorePartials(job);  // --reduce: the shares in the partials its agents hold are covered
  for (const auto& [token, h] : job.restoredLeaves) covered.push_back({h.firstUnit, h.firstUnit + h.units});
  const bool single = job.request.replicas == 1 && !job.request.adaptiveReplicas;
  std::map<std::string, std::vector<std::string>> unused;
  const auto drop = [&unused](const StoredAttempt& h) {
    unused[h.agent].insert(unused[h.agent].end(), {h.resultToken, h.shareToken});
  };
  for (const auto& [units, rows] : byShare(job.held)) {
    const UnitRange range = units;  // a copy: a structured binding is not captured by every compiler
    const auto inside = [&range](const UnitRange& r) { return r.first <= range.first && range.second <= r.second; };
    // How many results must agree, as the earlier run decided (0: the rows
    // do not say, as an older state.db's: its share is computed again).
    int replicas = single ? 1 : 0;
    for (const StoredAttempt& h : rows) replicas = std::max(replicas, h.replicas);
    Job::AdoptedShare share{range.first, range.second - range.first, replicas, {}, {}};
    const std::string verified = replicas > 1 ? agreedDigest(rows, replicas) : "";
    for (const StoredAttempt& h : rows) {
      const bool holds = heldTasks_[h.agent].count(h.resultToken) > 0;
      if (!verified.empty()) {
        // Its replicas agreed before the stop: one agent holding that result is enough.
        if (holds && h.digest == verified && share.holding.empty()) share.holding.push_back(h);
        else drop(h);
      } else if (holds) {
        share.holding.push_back(h);
      } else {
        if (replicas > 1 && !h.digest.empty()) share.agreed.push_back(h);
        drop(h);
      }
    }
    if (!verified.empty()) share.replicas = 1;
    const bool adopt = replicas > 0 && !share.holding.empty() &&
                       std::any_of(job.todo.ranges().begin(), job.todo.ranges().end(), inside);
    if (!adopt) {
      for (const StoredAttempt& h : share.holding) drop(h);
      continue;
    }
    for (const StoredAttempt& h : share.holding)
      job.agentTokens[h.agent].insert(job.agentTokens[h.agent].end(), {h.resultToken, h.shareToken});
    job.adopted.push_back(std::move(share));
    covered.push_back(range);
    job.todo = UnitGaps::of(job.units.units(), covered);
  }
  for (const auto& [agent, tokens] : unused)
    if (AgentLink* link = coordinator_.link(agent)) link->dropJobFiles(tokens);
  job.held.clear();
  if (!job.adopted.empty())
    spdlog::info("run {}: {} share(s) its agents kept computing while hnowd was away are collected, not computed again",
                 job.record, job.adopted.size());
}

void JobService::adoptIntoRun(Job& job) {
  for (const Job::AdoptedShare& adopted : job.adopted) {
    auto from = job.unitStart(adopted.firstUnit);
    auto to = from ? job.unitStart(adopted.firstUnit + adopted.units) : from;
    if (!to) return finish(job, Error{"cannot read --input " + job.request.input + ": " + to.error().message});
    const std::size_t k = job.shareTokens.size();
    serveShare(job, k, *from, *to - *from);  // for its reissues and missing replicas
    std::vector<std::string> holders;
    for (const StoredAttempt& h : adopted.holding) {
      job.claimedResults[k][h.agent] = h;
      holders.push_back(h.agent);
    }
    std::vector<JobRun::AgreedResult> agreed;
    for (const StoredAttempt& h : adopted.agreed) agreed.push_back({h.agent, h.digest});
    JobShare share;
    share.firstUnit = adopted.firstUnit;
    share.units = adopted.units;
    share.agent = holders.front();
    share.replicas = adopted.replicas;
    share.plannedServeStart = 0;
    share.plannedComputeEnd = secondsPerUnitNow(job, share.agent) * static_cast<double>(adopted.units);
    const std::vector<int> standing = job.run->adoptReplicas(share, holders, agreed);
    // The results that agreed before: named as the agents held them (a drop names nothing held any more).
    for (std::size_t n = 0; n < standing.size(); ++n) {
      auto& data = job.attempts[standing[n]];
      data.resultToken = adopted.agreed[n].resultToken;
      data.shareToken = adopted.agreed[n].shareToken;
      data.result.sha256 = adopted.agreed[n].digest;
    }
  }
  job.adopted.clear();
}

}  // namespace hnow::daemon
