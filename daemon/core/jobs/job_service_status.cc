// What a job reports while it runs and after (`hnow run`'s progress: per
// agent units, compute and idle time; bars for the Gantt chart), and its output.
#include <algorithm>
#include <set>
#include <string>

#include "core/jobs/job_service.h"
#include "core/jobs/job_state.h"

namespace hnow::daemon {

namespace {
double since(TimePoint start, std::optional<TimePoint> t) { return t ? seconds(*t - start) : 0.0; }

// Agents at work on the run now: those with a share being served to them,
// computed, or returned. One whose result waits to be collected, or is
// held for a replica to agree, does nothing.
int agentsWorking(const JobRun& run) {
  std::set<std::string> working;
  for (const JobAttempt& t : run.attempts())
    if (t.state == JobAttempt::State::kServing || t.state == JobAttempt::State::kReceived ||
        t.state == JobAttempt::State::kComputing || t.state == JobAttempt::State::kCollecting)
      working.insert(t.agent);
  return static_cast<int>(working.size());
}
}  // namespace

std::optional<RunStatus> JobService::status(std::uint64_t id) const {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  const Job& job = *it->second;
  RunStatus s;
  s.finished = job.finished;
  s.error = job.error;
  s.phase = job.phase;
  s.reduction = job.reductionName;
  s.units = job.units.units();
  s.output = job.outputPath;
  s.outputSize = job.outputSize;
  if (job.plan) {
    s.algorithm = job.plan->algorithm;
    s.predictedS = job.plan->predictedSeconds + job.reductionPredictedS;
  }
  s.rounds = job.rounds;
  s.maxRateBytesPerSecond = job.request.maxRateBytesPerSecond;
  s.elapsedS = job.finished ? job.elapsedS : job.started == TimePoint{} ? 0.0 : seconds(clock_.now() - job.started);
  if (job.run) s.reissued = job.run->reissued();
  if (job.run) s.checked = job.run->checked();
  s.record = static_cast<std::uint64_t>(job.record);
  s.cancelledBy = job.cancelledBy;
  if (!job.finished) s.agentsWorking = job.run ? agentsWorking(*job.run) : std::max(0, job.calibrating);
  s.waiting = job.waiting;
  s.priority = job.request.priority;
  for (const auto& kept : job.kept) s.unitsKept += kept.units;
  for (const auto& agent : job.agents) {
    RunAgentStatus a;
    a.name = agent;
    if (auto c = job.calibrated.find(agent); c != job.calibrated.end()) a.secondsPerUnit = c->second.secondsPerUnit;
    if (auto why = job.leftOutWhy.find(agent); why != job.leftOutWhy.end()) a.failures.push_back("left out: " + why->second);
    double busy = 0;
    if (job.plan)
      for (const auto& p : job.plan->shares)
        if (p.worker >= 0 && job.agents[static_cast<std::size_t>(p.worker)] == agent) {
          a.plannedUnits += p.units;
          a.shareUnits.resize(std::max<std::size_t>({a.shareUnits.size(), static_cast<std::size_t>(job.rounds),
                                                     static_cast<std::size_t>(p.round) + 1}), 0);
          a.shareUnits[static_cast<std::size_t>(p.round)] += p.units;
        }
    if (job.run) {
      const auto& attempts = job.run->attempts();
      for (std::size_t id = 0; id < attempts.size(); ++id) {
        const JobAttempt& t = attempts[id];
        if (t.agent != agent) continue;
        if (t.state == JobAttempt::State::kFailed && !t.error.empty())
          a.failures.push_back("share " + std::to_string(t.share + 1) + ": " + t.error);
        a.computeS += t.computeS;
        if (t.serveStart) busy += since(*t.serveStart, t.serveEnd.value_or(clock_.now()));
        busy += t.computeS;
        if (t.collectStart) busy += since(*t.collectStart, t.collectEnd.value_or(clock_.now()));
        const JobShare& share = job.run->shares()[static_cast<std::size_t>(t.share)];
        if (share.accepted == static_cast<int>(id)) a.units += share.units;
      }
    }
    for (const auto& b : job.bars)
      if (b.row == agent) busy += b.end - b.start;
    a.idleS = std::max(0.0, s.elapsedS - busy);
    s.agents.push_back(a);
  }
  if (job.plan)
    for (const auto& p : job.plan->shares)
      if (p.worker >= 0)
        s.bars.push_back({job.agents[static_cast<std::size_t>(p.worker)], "planned", p.serveStart,
                        job.reduce ? p.computeEnd : p.returnEnd});
  if (job.run)
    for (const JobAttempt& t : job.run->attempts()) {
      if (t.serveStart && t.serveEnd) s.bars.push_back({t.agent, "serve", since(job.started, t.serveStart), since(job.started, t.serveEnd)});
      if (t.serveEnd && t.computeEnd) s.bars.push_back({t.agent, "compute", since(job.started, t.serveEnd), since(job.started, t.computeEnd)});
      if (t.collectStart && t.collectEnd) s.bars.push_back({t.agent, "return", since(job.started, t.collectStart), since(job.started, t.collectEnd)});
    }
  s.bars.insert(s.bars.end(), job.bars.begin(), job.bars.end());
  return s;
}

Result<std::string> JobService::outputPath(std::uint64_t id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return Error{"no such run"};
  Job& job = *it->second;
  if (!job.finished) return Error{"the run has not finished: `hnow ops wait` it first"};
  if (!job.error.empty()) return Error{"the run " + job.phase + " and wrote no output"};
  if (job.outputPath.empty())
    return Error{"its result is no longer kept: hnowd keeps the results of the newest " + std::to_string(kKeptUnfetched) +
                 " runs, and of the newest " + std::to_string(kKeptOutputs) + " once fetched; run it again"};
  job.outputFetched = true;
  return job.outputPath;
}

}  // namespace hnow::daemon
