// Agents that come during a job (volunteer computing: machines come and
// go): an agent of the job that was lost and is back, or one that logged
// in (or left another job) since the job started, takes part from the
// job's next round. A new one is calibrated first, on the same sample as
// the others were; until it is, it is the job's (no other job takes it).
// Only a job in rounds has a next round: a one-shot plan keeps its agents.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/jobs/job_queue.h"
#include "core/jobs/job_service.h"
#include "core/jobs/job_state.h"

namespace hnow::daemon {

std::set<std::string> JobService::heldByOthers(const Job& job) const {
  std::set<std::string> held;
  for (const auto& [id, other] : jobs_) {
    if (other.get() == &job || other->finished) continue;
    if (other->phase == "queued") {
      for (const auto& agent : mayUse(*other)) held.insert(agent);  // the queue goes first
      continue;
    }
    for (const auto& agent : holding(*other)) held.insert(agent);
  }
  return held;
}

void JobService::joinAgents(Job& job) {
  if (job.finished || job.phase != "running" || !job.run || job.roundsLeft <= 0 || job.request.strategy == "self")
    return;
  const std::set<std::string> taken = heldByOthers(job);
  for (const std::string& agent : mayUse(job)) {
    if (taken.count(agent) || job.excluded.count(agent) || job.joining.count(agent)) continue;
    const bool known = std::find(job.agents.begin(), job.agents.end(), agent) != job.agents.end();
    if (known && !job.lost.count(agent)) continue;  // in the job already
    if (known) {
      // Back after it was lost: its calibration still holds.
      job.lost.erase(agent);
      job.run->agentJoined(agent);
      spdlog::info("run {}: {} is back: it takes part from the next round", job.record, agent);
      continue;
    }
    joinNew(job, agent);
  }
}

void JobService::joinNew(Job& job, const std::string& agent) {
  const std::string key = CalibrationCache::keyOf(job.request.command, job.request.split, job.reduce);
  auto welcome = [&job, agent](const JobCalibration& c) {
    job.calibrated[agent] = c;
    job.agents.push_back(agent);
    job.run->agentJoined(agent);
    spdlog::info("run {}: {} joined: it takes part from the next round", job.record, agent);
  };
  if (auto known = calibrations_.find(agent, key)) return welcome(*known);
  auto sampleUnits = calibrationSampleUnits(job.units, job.reader(), job.agents.size() + 1);
  auto sampleEnd = sampleUnits ? job.unitStart(*sampleUnits) : Result<std::uint64_t>(sampleUnits.error());
  if (!sampleEnd) return;  // the job itself will say the input cannot be read
  const std::uint64_t k = *sampleUnits, sampleBytes = *sampleEnd;
  const std::string token = newToken_();
  job.planeTokens.push_back(token);
  job.joining.insert(agent);
  spdlog::info("run {}: {} logged in: calibrating it to join the next round", job.record, agent);
  plane_.serveRange(token, job.input, 0, sampleBytes, [=, this, &job, keep = job.self()](const Result<SourceFile>& served) {
    if (job.finished) return;
    if (!served) {
      job.joining.erase(agent);
      return;
    }
    const CalibrationRuns runs{{token, sampleBytes, served->sha256, sourceAddress_}, job.request.argv, newToken_(),
                               newToken_(), job.request.shell, static_cast<std::uint64_t>(job.record), k};
    job.agentTokens[agent].insert(job.agentTokens[agent].end(), {token, runs.emptyResultToken, runs.sampleResultToken});
    sendingTo(job, agent);
    auto linkOf = [this, agent]() { return coordinator_.link(agent); };
    auto wanted = [&job, keep]() { return !job.finished; };
    calibrateAgent(linkOf, runs, wanted, [=, this, &job, keep = job.self()](const CalibrationOutcome& outcome) {
      if (job.finished) return;
      job.joining.erase(agent);
      if (AgentLink* l = coordinator_.link(agent)) l->dropJobFiles({token, runs.emptyResultToken, runs.sampleResultToken});
      if (!outcome.ran) {
        // Refused, failed or lost: it does not join this job (a refusal is its owner's word).
        if (outcome.agentRefused) job.excluded.insert(agent), job.leftOutWhy[agent] = outcome.ran.error().message;
        spdlog::warn("run {}: {} does not join: {}", job.record, agent, outcome.ran.error().message);
        return;
      }
      JobCalibration c = calibrationFrom(outcome.ran->emptyS, outcome.ran->sample, k, sampleBytes);
      c.at = clock_.now();
      calibrations_.store(agent, key, c);
      welcome(c);
    }, [](const std::string&) {});
  });
}

}  // namespace hnow::daemon
