// Agents that come back to the same hnowd during a job: seen gone at one
// tick and back at a later one, or logged in again between two ticks
// (AgentView::logins grew: its process restarted, as systemd's Restart=
// does within a tick, or it reconnected). Either way the agent dropped
// what it held for its earlier session, but for the results a restarted
// process kept: a reconnected one drops every job file and kills its
// commands, a restarted one loses its running commands and the files of
// its shares and keeps only the results it finished (agent/agent_runtime.cc
// login, agent/job_runner_held.cc restoreHeld). So the attempts under way
// on that session are lost (JobRun::sessionLost) at once; a finished
// result waits for the agent to say whether it still holds it
// (heldJobTasks): collected from it if so, lost if not. The results an
// agent seen gone gives back revive their attempts (JobRun::revive), and
// a --reduce reduction takes back the partials it still holds
// (JobReduction::agentBack). Either way such a result is collected, not
// computed again. Whether an agent logged in again is judged against the
// login each order of a job went to (Job::sessions), so a login before
// JobService's first look at the agent counts too.

#include <spdlog/spdlog.h>

#include "core/jobs/job_service.h"
#include "core/jobs/job_state.h"

namespace hnow::daemon {

std::set<std::string> JobService::loggedInAgain(std::map<std::string, bool>& up) {
  std::set<std::string> again;
  for (const AgentView& a : coordinator_.status()) {
    const std::string& agent = a.record.name;
    const bool isUp = a.connected && a.record.state == AgentState::kAlive;
    up[agent] = isUp;
    auto seen = loginsSeen_.find(agent);
    if (isUp && seen != loginsSeen_.end() && seen->second != a.logins) again.insert(agent);
    loginsSeen_[agent] = a.logins;
  }
  return again;
}

void JobService::sendingTo(Job& job, const std::string& agent) {
  job.sessions.try_emplace(agent, coordinator_.logins(agent));
}

bool JobService::sessionEnded(Job& job, const std::string& agent) {
  auto sent = job.sessions.find(agent);
  if (sent == job.sessions.end()) return false;
  const std::uint64_t now = coordinator_.logins(agent);
  if (sent->second == now) return false;
  sent->second = now;  // what goes to this login from now on is its own
  return true;
}

void JobService::sessionLost(Job& job, const std::string& agent) {
  if (job.phase != "calibrating" && job.phase != "running" && job.phase != "reducing") return;  // nothing on it
  spdlog::warn("run {}: {} logged in again in phase {} without being seen gone: what it held of the run is gone "
               "with its earlier session, but the results it says it still holds",
               job.record, agent, job.phase);
  if (job.phase == "calibrating") {
    // Its calibration's calls went to the earlier session; one that ended already measured what it had to.
    if (!job.calibrated.count(agent)) excludeFromCalibration(job, agent);
    return;
  }
  if (job.reduction) {
    // The reduction's partial results live on the agents: lost as when it is
    // seen gone, until it says which it still holds (backToReductions: a
    // restarted process keeps the results it finished).
    job.lost.insert(agent);
    if (job.phase == "running") job.run->agentLost(agent);
    job.reduction->agentLost(agent);
    return reductionChanged(job);
  }
  if (job.phase != "running" || !job.run) return;
  // What went to an earlier login and was under way: a share served to the
  // new one since is there, and a finished result waits for heldAfterLogin.
  const std::uint64_t now = coordinator_.logins(agent);
  std::vector<int> gone;
  for (const auto& [id, data] : job.attempts) {
    const JobAttempt& a = job.run->attempts()[static_cast<std::size_t>(id)];
    if (a.agent == agent && data.login != 0 && data.login < now && a.state != JobAttempt::State::kComputed)
      gone.push_back(id);
  }
  job.run->sessionLost(agent, gone);
}

void JobService::heldAfterLogin(const std::string& agent, std::uint64_t login, const std::set<std::string>& held) {
  for (auto& [id, owned] : jobs_) {
    Job& job = *owned;
    if (job.finished || !job.run || job.phase != "running" || job.reduction) continue;
    std::vector<int> gone;
    for (const auto& [attempt, data] : job.attempts) {
      const JobAttempt& a = job.run->attempts()[static_cast<std::size_t>(attempt)];
      if (a.agent != agent || !a.live() || data.login == 0 || data.login >= login) continue;
      if (!held.count(data.resultToken)) {
        gone.push_back(attempt);
        continue;
      }
      spdlog::info("run {}: {} logged in again and still holds the result of share {}: collected, not computed again",
                   job.record, agent, a.share + 1);
    }
    if (gone.empty()) continue;
    job.run->sessionLost(agent, gone);
    advance(job);
  }
}

void JobService::askReturning(const std::map<std::string, bool>& up, const std::set<std::string>& relogged) {
  for (const auto& state : up) {
    const std::string agent = state.first;  // a copy: a structured binding is not captured by every compiler
    const bool isUp = state.second;
    // Seen gone, then back: from its first sighting after its claim was
    // answered (an agent that logs in to this hnowd for the first time was
    // asked by claimHeld). Logged in again: asked in any case, for the
    // results of its earlier session.
    auto claim = claims_.find(agent);
    const bool claimed = claim != claims_.end() && claim->second;
    auto before = upBefore_.find(agent);
    const bool back = claimed && isUp && before != upBefore_.end() && !before->second;
    if (claimed) upBefore_[agent] = isUp;
    const std::uint64_t login = relogged.count(agent) ? coordinator_.logins(agent) : 0;
    if (!back && login == 0) continue;
    AgentLink* link = coordinator_.link(agent);
    if (!link) {
      if (login != 0) heldAfterLogin(agent, login, {});
      continue;
    }
    link->heldJobTasks([this, agent, login](const Result<std::vector<AgentLink::HeldJobFile>>& held) {
      std::set<std::string> tokens;
      if (held)
        for (const AgentLink::HeldJobFile& h : *held) tokens.insert(h.token);
      if (login != 0) heldAfterLogin(agent, login, tokens);
      const std::set<std::string> taken = held ? backToReductions(agent, tokens) : std::set<std::string>{};
      if (held && !held->empty()) reviveHeld(agent, *held, taken);
    });
  }
}

std::set<std::string> JobService::backToReductions(const std::string& agent, const std::set<std::string>& held) {
  std::set<std::string> taken;
  for (auto& [id, owned] : jobs_) {
    Job& job = *owned;
    if (job.finished || !job.reduction || !job.reduction->lost().count(agent)) continue;
    const std::set<std::string> back = job.reduction->agentBack(agent, held);
    taken.insert(back.begin(), back.end());
    job.lost.erase(agent);
    job.run->agentJoined(agent);  // it may compute again what others lost
    if (!back.empty())
      spdlog::info("run {}: {} is back and still holds {} partial result(s) of the reduction: used, not computed again",
                   job.record, agent, back.size());
    reductionChanged(job);
  }
  return taken;
}

void JobService::reviveHeld(const std::string& agent, const std::vector<AgentLink::HeldJobFile>& held,
                            const std::set<std::string>& taken) {
  std::vector<std::string> unused;
  for (const AgentLink::HeldJobFile& h : held) {
    bool used = false, awaited = false;
    for (auto& [id, owned] : jobs_) {
      Job& job = *owned;
      if (job.finished) continue;
      for (const StoredAttempt& row : job.held) awaited |= row.resultToken == h.token;  // not launched yet
      if (!job.run || job.phase != "running") continue;
      // A result of an attempt still under way is its own session's (computed since it logged in): kept.
      for (const auto& [attempt, data] : job.attempts) {
        const JobAttempt& a = job.run->attempts()[static_cast<std::size_t>(attempt)];
        used |= data.resultToken == h.token && a.agent == agent && a.live();
      }
      if (used) break;
      for (const auto& [attempt, data] : job.attempts) {
        const JobAttempt& a = job.run->attempts()[static_cast<std::size_t>(attempt)];
        if (data.resultToken != h.token || a.agent != agent) continue;
        const auto k = static_cast<std::size_t>(a.share);
        job.claimedResults[k][agent] = StoredAttempt{agent, 0, 0, h.token, job.shareTokens[k]};
        used = job.run->revive(a.share, agent) >= 0;
        if (!used) job.claimedResults.erase(k);
        else spdlog::info("run {}: {} restarted and gave back the result of share {}: collected, not computed again",
                          job.record, agent, k + 1);
        break;
      }
      if (used) {
        advance(job);
        break;
      }
    }
    if (!used && !awaited && !taken.count(h.token)) unused.push_back(h.token);
  }
  if (!unused.empty())
    if (AgentLink* link = coordinator_.link(agent)) link->dropJobFiles(unused);
}

}  // namespace hnow::daemon
