#include "core/jobs/job_run.h"

#include <algorithm>

namespace hnow::daemon {

namespace {

using State = JobAttempt::State;

Duration toDuration(double s) { return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s)); }

}  // namespace

JobRun::JobRun(const Clock& clock, JobActions& actions, std::vector<JobShare> shares, std::vector<int> returnOrder,
               std::vector<std::string> agents, JobRunOptions options)
    : clock_(clock), actions_(actions), shares_(std::move(shares)), returnOrder_(std::move(returnOrder)),
      agents_(std::move(agents)), options_(options), remaining_(shares_.size()) {}

void JobRun::start() {
  started_ = clock_.now();
  for (std::size_t k = 0; k < shares_.size(); ++k) {
    const JobShare& s = shares_[k];
    if (options_.selfScheduling) {
      unassigned_.push_back(static_cast<int>(k));
      continue;
    }
    serveQueue_.push_back(newAttempt(static_cast<int>(k), s.agent, toDuration(s.plannedComputeEnd - s.plannedServeStart)));
  }
  queueReplicas(0);
  pumpServes();
}

void JobRun::queueReplicas(std::size_t from) {
  if (options_.adaptive && !options_.selfScheduling)
    for (std::size_t k = from; k < shares_.size(); ++k) {
      JobShare& s = shares_[k];
      s.replicas = agents_.size() > 1 && options_.adaptive->needsCheck(s.agent) ? 2 : 1;
      checked_ += s.replicas > 1;
    }
  // Replicas go out after the plan's shares, each on the next agents of the
  // pool after the planned one (so a share's replicas are on distinct agents).
  const int most = options_.adaptive ? 2 : options_.replicas;
  for (int r = 1; r < most && agents_.size() > 1; ++r)
    for (std::size_t k = from; k < shares_.size() && !options_.selfScheduling; ++k) {
      const JobShare& s = shares_[k];
      if (r >= replicasOf(s)) continue;
      auto at = std::find(agents_.begin(), agents_.end(), s.agent) - agents_.begin();
      const std::string& agent = agents_[(static_cast<std::size_t>(at) + static_cast<std::size_t>(r)) % agents_.size()];
      serveQueue_.push_back(newAttempt(static_cast<int>(k), agent, toDuration(s.plannedComputeEnd - s.plannedServeStart)));
    }
}

void JobRun::addShares(std::vector<JobShare> shares, const std::vector<int>& returnOrder) {
  const int base = static_cast<int>(shares_.size());
  for (auto& s : shares) shares_.push_back(std::move(s));
  for (int k : returnOrder) returnOrder_.push_back(base + k);
  remaining_ += shares.size();
  for (std::size_t k = static_cast<std::size_t>(base); k < shares_.size(); ++k) {
    const JobShare& s = shares_[k];
    if (options_.selfScheduling) unassigned_.push_back(static_cast<int>(k));
    else serveQueue_.push_back(newAttempt(static_cast<int>(k), s.agent, toDuration(s.plannedComputeEnd - s.plannedServeStart)));
  }
  queueReplicas(static_cast<std::size_t>(base));  // a later round's shares are replicated as the first's
  pumpServes();
}

int JobRun::adopt(JobShare share) {
  share.lateOrLost = true;
  shares_.push_back(std::move(share));
  const int k = static_cast<int>(shares_.size()) - 1;
  returnOrder_.insert(returnOrder_.begin(), k);
  ++remaining_;
  return heldAttempt(k, shares_.back().agent);
}

int JobRun::keepDone(JobShare share) {
  share.done = true;
  share.lateOrLost = true;  // out of the return order, as an adopted share
  shares_.push_back(std::move(share));
  return static_cast<int>(shares_.size()) - 1;
}

std::vector<int> JobRun::adoptReplicas(JobShare share, const std::vector<std::string>& held,
                                       const std::vector<AgreedResult>& agreed) {
  share.agent = held.empty() ? share.agent : held.front();
  adopt(std::move(share));
  const int k = static_cast<int>(shares_.size()) - 1;
  const JobShare& s = shares_.back();
  const Duration predicted = toDuration(s.plannedComputeEnd - s.plannedServeStart);
  for (std::size_t h = 1; h < held.size(); ++h) heldAttempt(k, held[h]);
  std::vector<int> standing;
  for (const AgreedResult& r : agreed) {
    standing.push_back(newAttempt(k, r.agent, predicted));
    JobAttempt& a = attempts_[static_cast<std::size_t>(standing.back())];
    a.state = State::kHeld;
    a.digest = r.digest;
  }
  checked_ += options_.adaptive && replicasOf(s) > 1;
  // The replicas that neither ran nor agreed before go out now, each on an
  // agent that has no attempt of the share (replicas on distinct agents).
  for (auto have = static_cast<int>(std::max<std::size_t>(held.size(), 1) + agreed.size()); have < replicasOf(s); ++have) {
    const std::string agent = pickAgent(k);
    if (agent.empty()) break;  // too few agents: a disagreement's reissue says so
    serveQueue_.push_back(newAttempt(k, agent, predicted));
  }
  pumpServes();
  return standing;
}

int JobRun::revive(int k, const std::string& agent) {
  const JobShare& share = shares_[static_cast<std::size_t>(k)];
  if (share.accepted || share.done || finished()) return -1;
  return heldAttempt(k, agent);
}

int JobRun::heldAttempt(int k, const std::string& agent) {
  const JobShare& share = shares_[static_cast<std::size_t>(k)];
  const int id = newAttempt(k, agent, toDuration(share.plannedComputeEnd - share.plannedServeStart));
  JobAttempt& a = attempts_[static_cast<std::size_t>(id)];
  a.state = State::kReceived;
  a.serveStart = a.serveEnd = clock_.now();
  a.deadline = clock_.now() + toDuration(options_.slack * a.predictedS) + options_.grace;
  startNextCompute(agent);
  return id;
}

void JobRun::startNextCompute(const std::string& agent) {
  for (const auto& a : attempts_)
    if (a.agent == agent && a.state == State::kComputing) return;
  for (std::size_t id = 0; id < attempts_.size(); ++id)
    if (attempts_[id].agent == agent && attempts_[id].state == State::kReceived) {
      attempts_[id].state = State::kComputing;
      attempts_[id].computeStart = clock_.now();  // rounds: the agent's ready time counts from here
      // Waiting behind the agent's previous share is not this share's lateness:
      // its deadline counts from now (the previous one has its own deadline).
      const TimePoint fromNow =
          clock_.now() + toDuration(options_.slack * attempts_[id].predictedS) + options_.grace;
      attempts_[id].deadline = std::max(attempts_[id].deadline, fromNow);
      actions_.compute(static_cast<int>(id));
      return;
    }
}

int JobRun::newAttempt(int share, const std::string& agent, Duration predicted) {
  JobAttempt a;
  a.share = share;
  a.agent = agent;
  a.predictedS = seconds(predicted);
  attempts_.push_back(std::move(a));
  return static_cast<int>(attempts_.size()) - 1;
}

void JobRun::pumpServes() {
  while (!serving_ && !finished()) {
    if (serveQueue_.empty() && !assignNextBlock()) return;
    const int id = serveQueue_.front();
    serveQueue_.erase(serveQueue_.begin());
    JobAttempt& a = attempts_[static_cast<std::size_t>(id)];
    if (a.state != State::kQueued) continue;  // dropped while waiting
    a.state = State::kServing;
    a.serveStart = clock_.now();
    // The plan's time from serve start to compute end, with slack for noise
    // on a shared machine, plus a floor for tiny shares (process start-up).
    a.deadline = *a.serveStart + toDuration(options_.slack * a.predictedS) + options_.grace;
    serving_ = true;
    actions_.serve(id);
  }
}

bool JobRun::assignNextBlock() {
  if (unassigned_.empty()) return false;
  for (const auto& agent : agents_) {
    if (agentBusy(agent) || unavailable(agent)) continue;
    const int k = unassigned_.front();
    unassigned_.erase(unassigned_.begin());
    const JobShare& s = shares_[static_cast<std::size_t>(k)];
    serveQueue_.push_back(newAttempt(k, agent, toDuration(s.plannedComputeEnd - s.plannedServeStart)));
    return true;
  }
  return false;
}

void JobRun::served(int id, const Result<void>& served) {
  JobAttempt& a = attempts_[static_cast<std::size_t>(id)];
  if (a.state != State::kServing) return;  // dropped meanwhile (agent lost)
  serving_ = false;
  if (!served) {
    a.state = State::kFailed;
    a.error = served.error().message;
    reissue(a.share, a.agent + ": " + a.error);
  } else {
    a.serveEnd = clock_.now();
    a.state = State::kReceived;
    if (unavailable(a.agent)) moveWaitingFrom(a.agent);  // it refused this run's command meanwhile
    startNextCompute(a.agent);
  }
  pumpServes();
}

void JobRun::computed(int id, double computeS, const Result<std::string>& computed, bool agentRefuses) {
  JobAttempt& a = attempts_[static_cast<std::size_t>(id)];
  if (a.state != State::kComputing || finished()) return;
  JobShare& share = shares_[static_cast<std::size_t>(a.share)];
  a.computeEnd = clock_.now();
  a.state = State::kComputed;  // provisional: the agent is free for its next share
  if (!computed && agentRefuses && std::find(refusing_.begin(), refusing_.end(), a.agent) == refusing_.end()) {
    refusing_.push_back(a.agent);
    moveWaitingFrom(a.agent);  // before it would start the next one, to refuse it too
  }
  startNextCompute(a.agent);
  a.computeS = computeS;
  if (!computed) {
    a.state = State::kFailed;
    a.error = computed.error().message;
    bool another = false;
    for (const auto& b : attempts_) another |= b.share == a.share && b.live();
    if (!share.accepted && !another) reissue(a.share, a.agent + ": " + a.error);
    return;
  }
  a.digest = *computed;
  const std::string& digest = a.digest;
  if (share.accepted) {  // a duplicate: the first result counts
    a.state = State::kDropped;
    actions_.drop(id);
    return;
  }
  if (replicasOf(share) > 1) {
    int agreeing = 1;
    for (const auto& b : attempts_) agreeing += b.share == a.share && b.state == State::kHeld && b.digest == digest;
    if (agreeing < replicasOf(share)) {
      a.state = State::kHeld;
      bool another = false;
      for (const auto& b : attempts_) another |= b.share == a.share && b.live();
      if (!another) reissue(a.share, "the replicas' results differ");
      return;
    }
  }
  share.accepted = id;
  a.state = State::kComputed;
  if (options_.adaptive && replicasOf(share) > 1) judgeReplicas(a.share, digest);
  // Others still working on this share are no longer needed. A dropped
  // attempt frees what it held: the serve port (its served() is ignored
  // once dropped), or its agent, whose next received share must start —
  // else that share holds the return order forever (seen: a reissued share
  // accepted from another agent while the slowed one still computed it).
  std::vector<std::string> freed;
  for (std::size_t b = 0; b < attempts_.size(); ++b)
    if (static_cast<int>(b) != id && attempts_[b].share == a.share &&
        (attempts_[b].live() || attempts_[b].state == State::kHeld)) {
      if (attempts_[b].state == State::kServing) serving_ = false;
      if (attempts_[b].state == State::kComputing) freed.push_back(attempts_[b].agent);
      attempts_[b].state = State::kDropped;
      actions_.drop(static_cast<int>(b));
    }
  for (const auto& agent : freed) startNextCompute(agent);
  if (!options_.collectResults) finishShare(a.share);
  else pumpReturns();
  pumpServes();  // self-scheduling: this agent is idle now
}

void JobRun::judgeReplicas(int share, const std::string& digest) {
  for (const JobAttempt& b : attempts_) {
    if (b.share != share || b.digest.empty()) continue;
    const bool counted = b.state == State::kHeld || b.state == State::kComputed;
    if (!counted) continue;
    if (b.digest == digest) options_.adaptive->agreed(b.agent);
    else options_.adaptive->overruled(b.agent);
  }
}

void JobRun::pumpReturns() {
  if (collecting_ || finished() || !options_.collectResults) return;
  // Strict return order (the plan's), except that a share already reissued
  // no longer holds the port for the shares after it.
  for (int k : returnOrder_) {
    JobShare& share = shares_[static_cast<std::size_t>(k)];
    if (share.done) continue;
    if (options_.selfScheduling && !share.accepted) continue;  // whatever is ready comes back
    if (share.accepted && attempts_[static_cast<std::size_t>(*share.accepted)].state == State::kComputed) {
      JobAttempt& a = attempts_[static_cast<std::size_t>(*share.accepted)];
      a.state = State::kCollecting;
      a.collectStart = clock_.now();
      collecting_ = true;
      actions_.collect(*share.accepted);
      return;
    }
    if (!share.lateOrLost) return;
  }
}

void JobRun::collected(int id, const Result<void>& collected) {
  JobAttempt& a = attempts_[static_cast<std::size_t>(id)];
  if (a.state != State::kCollecting) return;
  collecting_ = false;
  JobShare& share = shares_[static_cast<std::size_t>(a.share)];
  if (!collected) {
    a.state = State::kFailed;
    a.error = collected.error().message;
    share.accepted.reset();
    reissue(a.share, a.agent + ": " + a.error);
  } else {
    a.state = State::kDone;
    a.collectEnd = clock_.now();
    finishShare(a.share);
  }
  pumpReturns();
}

void JobRun::finishShare(int k) {
  JobShare& share = shares_[static_cast<std::size_t>(k)];
  if (share.done) return;
  share.done = true;
  --remaining_;
}

void JobRun::queueReissue(int k, const std::string& agent) {
  JobShare& share = shares_[static_cast<std::size_t>(k)];
  share.lateOrLost = true;  // out of the plan's return order
  ++reissued_;
  serveQueue_.push_back(newAttempt(k, agent, toDuration(share.plannedComputeEnd - share.plannedServeStart)));
}

}  // namespace hnow::daemon
