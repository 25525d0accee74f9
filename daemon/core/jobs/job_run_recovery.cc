// What a JobRun does when an attempt goes wrong (volunteer computing: an
// agent lost, late, refusing the command, or moved off by drift): the share
// goes to another agent until it has had maxAttempts tries, then the run fails.
#include "core/jobs/job_run.h"

#include <algorithm>

namespace hnow::daemon {

namespace {

using State = JobAttempt::State;

}  // namespace

void JobRun::agentLost(const std::string& agent) {
  if (std::find(lost_.begin(), lost_.end(), agent) != lost_.end()) return;
  lost_.push_back(agent);
  std::vector<int> all;
  for (std::size_t id = 0; id < attempts_.size(); ++id)
    if (attempts_[id].agent == agent) all.push_back(static_cast<int>(id));
  loseAttempts(all, "agent " + agent + " lost");
}

void JobRun::sessionLost(const std::string& agent, const std::vector<int>& attempts) {
  std::vector<int> its;
  for (int id : attempts)
    if (attempts_[static_cast<std::size_t>(id)].agent == agent) its.push_back(id);
  loseAttempts(its, "agent " + agent + " logged in again: its earlier session's work is gone");
}

void JobRun::loseAttempts(const std::vector<int>& ids, const std::string& why) {
  std::vector<int> affected;
  for (int id : ids) {
    JobAttempt& a = attempts_[static_cast<std::size_t>(id)];
    if (!a.live()) continue;
    if (a.state == State::kServing) serving_ = false;
    if (a.state == State::kCollecting) collecting_ = false;
    a.state = State::kFailed;
    a.error = why;
    JobShare& share = shares_[static_cast<std::size_t>(a.share)];
    if (share.accepted == id) {
      share.accepted.reset();
      if (share.done) share.done = false, ++remaining_;  // its result lived on the agent
    }
    affected.push_back(a.share);
  }
  for (int k : affected) {
    if (finished()) break;
    bool another = false;
    for (const auto& b : attempts_) another |= b.share == k && b.live();
    if (!another && !shares_[static_cast<std::size_t>(k)].accepted) reissue(k, why);
  }
  // A session lost: a share its new session was served meanwhile starts (a lost agent has none left).
  for (int id : ids)
    if (!finished()) startNextCompute(attempts_[static_cast<std::size_t>(id)].agent);
  pumpServes();
  pumpReturns();
}

void JobRun::agentJoined(const std::string& agent) {
  lost_.erase(std::remove(lost_.begin(), lost_.end(), agent), lost_.end());
  if (std::find(agents_.begin(), agents_.end(), agent) == agents_.end()) agents_.push_back(agent);
}

bool JobRun::moveTo(int id, const std::string& agent) {
  JobAttempt& a = attempts_[static_cast<std::size_t>(id)];
  if ((a.state != State::kQueued && a.state != State::kReceived) || finished()) return false;
  if (unavailable(agent)) return false;
  for (const auto& b : attempts_)
    if (b.share == a.share && b.agent == agent) return false;
  const int k = a.share;
  a.state = State::kDropped;
  a.error = "moved to " + agent;
  actions_.drop(id);
  queueReissue(k, agent);
  pumpServes();
  pumpReturns();
  return true;
}

void JobRun::tick() {
  if (finished()) return;
  const TimePoint now = clock_.now();
  for (std::size_t id = 0; id < attempts_.size(); ++id) {
    JobAttempt& a = attempts_[id];
    if (a.overdue || now < a.deadline || (a.state != State::kServing && a.state != State::kComputing)) continue;
    a.overdue = true;
    if (a.state == State::kServing) {
      // A serve still running at the share's deadline holds hnowd's one
      // serve port, and with it every share behind it, the reissue
      // included (an agent alive but not reading would hold it for good):
      // it is given up and the agent drops what it has of the share.
      a.state = State::kDropped;
      a.error = "its share was still being served at the deadline";
      serving_ = false;
      actions_.drop(static_cast<int>(id));
      if (!shares_[static_cast<std::size_t>(a.share)].accepted)
        reissue(a.share, a.agent + " was still being served its share at the deadline");
      pumpServes();
      continue;
    }
    // A computing attempt keeps running: whichever result comes first counts.
    if (!shares_[static_cast<std::size_t>(a.share)].accepted) reissue(a.share, a.agent + " missed its deadline");
  }
}

void JobRun::handOver() {
  for (std::size_t id = 0; id < attempts_.size(); ++id) {
    JobAttempt& a = attempts_[id];
    if (a.state == State::kComputed && shares_[static_cast<std::size_t>(a.share)].accepted == static_cast<int>(id))
      a.state = State::kDone;
  }
}

void JobRun::redo(const std::vector<int>& shares, const std::vector<std::string>& lost) {
  for (const auto& agent : lost)
    if (std::find(lost_.begin(), lost_.end(), agent) == lost_.end()) lost_.push_back(agent);
  for (int k : shares) {
    JobShare& share = shares_[static_cast<std::size_t>(k)];
    share.accepted.reset();
    if (share.done) share.done = false, ++remaining_;
  }
  for (int k : shares) reissue(k, "its result was lost with its agent during the reduction");
}

bool JobRun::agentBusy(const std::string& agent) const {
  for (const auto& a : attempts_)
    if (a.agent == agent && (a.state == State::kQueued || a.state == State::kServing ||
                             a.state == State::kReceived || a.state == State::kComputing))
      return true;
  return false;
}

std::string JobRun::pickAgent(int k) const {
  std::string fallback;
  for (const auto& agent : agents_) {
    if (unavailable(agent)) continue;
    bool tried = false;
    for (const auto& a : attempts_) tried |= a.share == k && a.agent == agent;
    if (tried) continue;
    if (!agentBusy(agent)) return agent;  // an idle agent first: it starts at once
    if (fallback.empty()) fallback = agent;
  }
  return fallback;
}

void JobRun::reissue(int k, const std::string& why) {
  if (finished()) return;
  int tries = 0;
  for (const auto& a : attempts_) tries += a.share == k;
  const std::string agent = pickAgent(k);
  if (tries >= options_.maxAttempts || agent.empty()) {
    const std::string others = failuresOf(k);
    fail("share " + std::to_string(k + 1) + " of " + std::to_string(shares_.size()) + " failed: " + why +
         (others.empty() || others == why ? "" : " (every attempt: " + others + ")"));
    return;
  }
  queueReissue(k, agent);
  pumpServes();
  pumpReturns();
}

bool JobRun::unavailable(const std::string& agent) const {
  return std::find(lost_.begin(), lost_.end(), agent) != lost_.end() ||
         std::find(refusing_.begin(), refusing_.end(), agent) != refusing_.end();
}

void JobRun::moveWaitingFrom(const std::string& agent) {
  for (std::size_t id = 0; id < attempts_.size() && !finished(); ++id) {
    JobAttempt& a = attempts_[id];
    if (a.agent != agent || (a.state != State::kQueued && a.state != State::kReceived)) continue;
    const int k = a.share;
    a.state = State::kDropped;
    a.error = agent + " refuses this run's command";
    actions_.drop(static_cast<int>(id));
    bool another = false;
    for (const auto& b : attempts_) another |= b.share == k && b.live();
    if (another || shares_[static_cast<std::size_t>(k)].accepted) continue;
    // Not an attempt that failed: it never ran, so it does not count against maxAttempts.
    const std::string to = pickAgent(k);
    if (to.empty()) {
      fail("share " + std::to_string(k + 1) + " of " + std::to_string(shares_.size()) +
           " has no agent left to run it: " + failuresOf(k));
      return;
    }
    queueReissue(k, to);
  }
  pumpServes();
  pumpReturns();
}

std::string JobRun::failuresOf(int k) const {
  std::string out;
  for (const auto& a : attempts_)
    if (a.share == k && a.state == State::kFailed && !a.error.empty())
      out += (out.empty() ? "" : "; ") + a.agent + ": " + a.error;
  return out;
}

void JobRun::fail(std::string reason) {
  if (!failure_) failure_ = Error{std::move(reason)};
}

}  // namespace hnow::daemon
