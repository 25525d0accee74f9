// `hnow run`'s calibration and planning, part of JobService:
// each agent runs the command on a sample, then the shares are planned by
// seed 002's worksharing model on the measured rates (one round), or in
// rounds on the agents' ready times (job_rounds.cc, core/jobs/job_rounds.h).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "base/bandwidth_limits.h"
#include "core/jobs/job_state.h"

namespace hnow::daemon {

namespace {
constexpr double kDefaultSlack = 2.0;
constexpr double kUnknownRate = 1e9;

// 'text' for sh, whatever it holds.
std::string singleQuoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// What to do when the command failed on the sample: it is the input's first
// `bytes`, and every share is such a part, so the run cannot go on; the
// same bytes through the same command show why.
std::string sampleFailureHint(const RunRequest& request, std::uint64_t bytes) {
  return ". Every share runs the command on a part of the input like this one, so the run stops: to see why, run "
         "it on those bytes: head -c " + std::to_string(bytes) + " " + singleQuoted(request.input) + " | sh -c " +
         singleQuoted(request.command);
}
}  // namespace

void JobService::calibrate(Job& job) {
  const std::string key = CalibrationCache::keyOf(job.request.command, job.request.split, job.reduce);
  auto sampleUnits = calibrationSampleUnits(job.units, job.reader(), job.agents.size());
  auto sampleEnd = sampleUnits ? job.unitStart(*sampleUnits) : Result<std::uint64_t>(sampleUnits.error());
  if (!sampleEnd) return finish(job, Error{"cannot read --input " + job.request.input + ": " + sampleEnd.error().message});
  const std::uint64_t k = *sampleUnits, sampleBytes = *sampleEnd;

  std::vector<std::string> needed;
  for (const auto& agent : job.agents) {
    if (job.excluded.count(agent)) continue;  // lost while the input was read
    if (auto known = calibrations_.find(agent, key)) {
      job.calibrated[agent] = *known;
    } else {
      needed.push_back(agent);
    }
  }
  if (needed.empty()) return plan(job);

  const std::string token = newToken_();
  job.planeTokens.push_back(token);
  job.calibrating = static_cast<int>(needed.size());
  job.calibrationStarted = clock_.now();
  spdlog::info("run {}: calibrating on {} agents with {} units ({} bytes)", job.record, needed.size(), k, sampleBytes);
  // The sample is the input's first bytes, served as a range of its file.
  plane_.serveRange(token, job.input, 0, sampleBytes,
                    [this, &job, needed, token, k, sampleBytes, key, keep = job.self()](const Result<SourceFile>& served) {
                      // Agents lost meanwhile may have left the rest planned already.
                      if (job.finished || job.run) return;
                      if (!served) return finish(job, Error{"cannot serve the calibration sample: " + served.error().message});
                      calibrateOn(job, needed, token, served->sha256, k, sampleBytes, key);
                    });
}

void JobService::calibrateOn(Job& job, const std::vector<std::string>& needed, const std::string& token,
                             const std::string& sha, std::uint64_t k, std::uint64_t sampleBytes,
                             const std::string& key) {
  for (const auto& agent : needed) {
    if (job.finished) return;
    if (job.excluded.count(agent)) continue;
    const CalibrationRuns runs{{token, sampleBytes, sha, sourceAddress_}, job.request.argv, newToken_(),
                               newToken_(), job.request.shell, static_cast<std::uint64_t>(job.record), k};
    job.agentTokens[agent].insert(job.agentTokens[agent].end(), {token, runs.emptyResultToken, runs.sampleResultToken});
    job.calibrationTokens[agent] = {token, runs.emptyResultToken, runs.sampleResultToken};
    sendingTo(job, agent);
    auto linkOf = [this, agent]() { return coordinator_.link(agent); };
    auto wanted = [&job, agent]() { return !job.finished && !job.excluded.count(agent); };
    auto step = [&job, agent, keep = job.self()](const std::string& name) { job.calibrationStep[agent] = name; };
    calibrateAgent(linkOf, runs, wanted, [=, this, &job, keep = job.self()](const CalibrationOutcome& outcome) {
      if (job.finished || job.excluded.count(agent)) return;
      job.calibrationStep.erase(agent);
      if (!outcome.ran && outcome.agentRefused)
        return excludeFromCalibration(job, agent, outcome.ran.error().message);
      if (!outcome.ran && !outcome.commandFailed) {
        spdlog::warn("run {}: calibrating on {}: {}", job.record, agent, outcome.ran.error().message);
        return excludeFromCalibration(job, agent);
      }
      if (!outcome.ran)
        return finish(job, Error{"calibrating on " + agent + ": " + outcome.ran.error().message +
                               sampleFailureHint(job.request, sampleBytes)});
      if (!outcome.ran->emptyRun)
        spdlog::info("run {}: calibrating on {}: {} failed ({}); it measures start-up only, so its time is kept as "
                     "that and the rate comes from the sample",
                     job.record, agent, emptyRunName(), outcome.ran->emptyRun.error().message);
      JobCalibration c = calibrationFrom(outcome.ran->emptyS, outcome.ran->sample, k, sampleBytes);
      c.at = clock_.now();
      for (const AgentView& a : coordinator_.status())
        if (a.record.name == agent) c.probeSecondsPerUnit = a.record.rates.computeSecondsPerUnit;
      calibrations_.store(agent, key, c);
      job.calibrated[agent] = c;
      job.calibrationTookS.push_back(seconds(clock_.now() - job.calibrationStarted));
      if (AgentLink* l = coordinator_.link(agent)) l->dropJobFiles({token, runs.emptyResultToken, runs.sampleResultToken});
      spdlog::info("run {}: {} takes {:.3g} s per unit plus {:.3g} s per run (result ratio {:.3f})", job.record, agent,
                   c.secondsPerUnit, c.fixedS, c.resultRatio);
      if (--job.calibrating == 0) plan(job);
    }, step);
  }
}

void JobService::checkCalibrationDeadlines(Job& job) {
  if (job.calibrating <= 0 || job.calibrationStep.empty()) return;
  const double deadlineS = calibrationDeadlineS(job.calibrationTookS, calibrationMaxS_);
  if (seconds(clock_.now() - job.calibrationStarted) < deadlineS) return;
  const auto late = job.calibrationStep;  // excluding one may plan and end the job
  for (const auto& [agent, step] : late) {
    if (job.finished) return;
    if (job.excluded.count(agent) || job.calibrated.count(agent)) continue;
    const std::string why = calibrationLateReason(step, deadlineS, job.calibrationTookS, calibrationMaxS_);
    job.calibrationLate[agent] = why;
    job.calibrationStep.erase(agent);
    // Dropping its files kills the command running on them (agent/job_runner.h).
    if (AgentLink* l = coordinator_.link(agent)) l->dropJobFiles(job.calibrationTokens[agent]);
    excludeFromCalibration(job, agent, why + ". " + calibrationLateHint());
  }
}

void JobService::excludeFromCalibration(Job& job, const std::string& agent, const std::string& why) {
  if (job.finished || !job.excluded.insert(agent).second) return;
  if (why.empty()) {
    spdlog::warn("run {}: {} left out: it did not finish its calibration", job.record, agent);
  } else {
    job.leftOutWhy[agent] = why;
    spdlog::warn("run {}: {} left out: {}", job.record, agent, why);
  }
  if (!job.calibrated.count(agent) && --job.calibrating == 0) plan(job);
}

// The first plan: in rounds (job_rounds.cc) or, for one round, seed 002's
// protocols as they are (core/jobs/job_plan.h) over the agents alive.
void JobService::plan(Job& job) {
  if (job.finished) return;
  std::vector<std::string> active;
  for (const auto& agent : job.agents)
    if (!job.excluded.count(agent) && !job.lost.count(agent)) active.push_back(agent);
  if (active.empty() && !job.leftOutWhy.empty()) {
    std::string why;
    if (job.calibrationLate.size() == job.leftOutWhy.size()) {  // the hint once, not for each agent
      for (const auto& [agent, reason] : job.calibrationLate) why += (why.empty() ? "" : "; ") + agent + ": " + reason;
      return finish(job, Error{"no agent finished its calibration in time: " + why + ". " + calibrationLateHint()});
    }
    for (const auto& [agent, reason] : job.leftOutWhy) why += (why.empty() ? "" : "; ") + agent + ": " + reason;
    return finish(job, Error{"no agent would run the command: " + why});
  }
  if (active.empty()) return finish(job, Error{"every agent was lost"});
  // --max-rate: hnowd's uplink (the shares) and downlink (the results) at
  // most it, paced so and planned so.
  const double maxRate = job.request.maxRateBytesPerSecond;
  const SourceUplink source = coordinator_.pacing().paceSource(sourceUplink_);
  const double sourceUplink = capped(source.plan, maxRate);
  plane_.pace(capped(source.pace, maxRate), capped(coordinator_.pacing().coordinatorCaps().down.bytesPerSecond, maxRate));
  if (!job.run && job.nextUnit >= job.todo.count()) {
    // Every unit is kept or held by an agent (job_service_claims.cc): the run only collects.
    job.rounds = std::max(job.rounds, 1);
    job.roundsLeft = 1;
    commitShares(job, active, {}, {}, "none: every unit was kept or is held by an agent", 0.0, false);
    return;
  }
  if (job.rounds == 0) {
    job.rounds = roundsFor(job, active, sourceUplink);
    job.roundsLeft = job.rounds;
    if (job.rounds > 1) spdlog::info("run {}: {} rounds", job.record, job.rounds);
  }
  if (job.rounds > 1) return planNextRound(job, active, sourceUplink);

  const std::uint64_t units = job.todo.count() - job.nextUnit;
  auto bytesPerUnit = todoBytesPerUnit(job);
  if (!bytesPerUnit) return finish(job, Error{"cannot read --input " + job.request.input + ": " + bytesPerUnit.error().message});
  JobPlanInput input;
  input.units = units;
  input.bytesPerUnit = *bytesPerUnit;
  input.order = job.request.strategy == "equal" ? "equal" : job.request.order;
  double ratio = 0, fixedS = 0;
  for (const auto& agent : active) {
    input.workers.push_back({agent, linkOf(agent, sourceUplink), secondsPerUnitNow(job, agent)});
    ratio += job.calibrated[agent].resultRatio / static_cast<double>(active.size());
    fixedS = std::max(fixedS, job.calibrated[agent].fixedS);
  }
  // --reduce returns nothing per share: the partials meet in the reduction.
  input.resultRatio = job.reduce ? 0.0 : ratio;
  auto planned = planJob(input);
  if (!planned) return finish(job, Error{"cannot plan the job: " + planned.error().message});
  JobPlan round = std::move(planned).value();
  // Shares run side by side, so the prediction pays the slowest fixed cost once.
  round.predictedSeconds += fixedS;

  if (job.request.strategy == "self") {
    // Blocks of about blockBytes each, in input order, for whoever is idle.
    double slowest = 0, slowestLink = kUnknownRate;
    for (const auto& w : input.workers) slowest = std::max(slowest, w.secondsPerUnit), slowestLink = std::min(slowestLink, w.linkBytesPerSecond);
    const auto perBlock = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(job.request.blockBytes) / input.bytesPerUnit));
    JobPlan blocks;
    blocks.algorithm = "self-scheduling";
    blocks.predictedSeconds = round.predictedSeconds;
    for (std::uint64_t first = 0; first < input.units; first += perBlock) {
      PlannedShare p;
      p.worker = -1;
      p.firstUnit = first;
      p.units = std::min(perBlock, input.units - first);
      p.computeEnd = static_cast<double>(p.units) * (input.bytesPerUnit / slowestLink + slowest);
      blocks.returnOrder.push_back(static_cast<int>(blocks.shares.size()));
      blocks.shares.push_back(p);
    }
    round = std::move(blocks);
  }
  commitShares(job, active, std::move(round.shares), round.returnOrder, round.algorithm, round.predictedSeconds, false);
}

double JobService::linkOf(const std::string& agent, double sourceUplink) const {
  double down = kUnknownRate;
  for (const AgentView& a : coordinator_.status())
    if (a.record.name == agent && a.record.rates.downlinkBytesPerSecond > 0) down = a.record.rates.downlinkBytesPerSecond;
  return std::min(sourceUplink > 0 ? sourceUplink : kUnknownRate, down);
}

bool JobService::commitShares(Job& job, const std::vector<std::string>& active, std::vector<PlannedShare> planned,
                              const std::vector<int>& plannedOrder, const std::string& algorithm, double predictedEnd,
                              bool keepPrediction) {
  if (job.started == TimePoint{}) job.started = clock_.now();
  const double offset = seconds(clock_.now() - job.started);
  std::vector<JobShare> shares;
  std::uint64_t units = 0;
  const int round = std::max(0, job.rounds - job.roundsLeft);
  // A planned share covers to-do units; it goes out as one share per
  // range of the input it covers (one, unless a restart left gaps), each
  // in the planned share's place in the return order.
  std::vector<std::vector<int>> served(planned.size());
  for (std::size_t k = 0; k < planned.size(); ++k) {
    PlannedShare& p = planned[k];
    p.round = round;
    const std::vector<UnitRange> pieces = job.todo.pieces(job.nextUnit + p.firstUnit, p.units);
    p.firstUnit = pieces.empty() ? 0 : pieces.front().first;
    units += p.units;
    const std::string agent = p.worker < 0 ? "" : active[static_cast<std::size_t>(p.worker)];
    p.worker = p.worker < 0 ? -1 : static_cast<int>(std::find(job.agents.begin(), job.agents.end(), agent) - job.agents.begin());
    for (double* t : {&p.serveStart, &p.serveEnd, &p.computeEnd, &p.returnStart, &p.returnEnd}) *t += offset;
    for (const auto& [first, end] : pieces) {
      auto from = job.unitStart(first);
      auto to = from ? job.unitStart(end) : from;
      if (!to) {
        finish(job, Error{"cannot read --input " + job.request.input + ": " + to.error().message});
        return false;
      }
      serveShare(job, job.shareTokens.size(), *from, *to - *from);
      JobShare share;
      share.firstUnit = first;
      share.units = end - first;
      share.agent = agent;
      share.plannedServeStart = p.serveStart;
      share.plannedComputeEnd = p.computeEnd;
      served[k].push_back(static_cast<int>(shares.size()));
      shares.push_back(share);
    }
  }
  std::vector<int> order;
  for (int k : plannedOrder) order.insert(order.end(), served[static_cast<std::size_t>(k)].begin(), served[static_cast<std::size_t>(k)].end());
  const std::vector<int>& returnOrder = order;
  job.nextUnit += units;
  job.roundsLeft = std::max(0, job.roundsLeft - 1);
  spdlog::info("run {}: {} units in {} shares by {}, predicted to end at {:.2f} s", job.record, units, planned.size(),
               algorithm, offset + predictedEnd);
  if (!job.run) {
    if (job.resumable) keepRunning(job);  // again, with the calibrations: a resumed job does without
    std::vector<std::string> pool = active;  // reissues go to the fastest idle agent first
    std::sort(pool.begin(), pool.end(), [&](const auto& a, const auto& b) {
      return job.calibrated[a].secondsPerUnit < job.calibrated[b].secondsPerUnit;
    });
    JobRunOptions options;
    options.slack = job.request.slack > 0 ? job.request.slack : kDefaultSlack;
    options.collectResults = !job.reduce;
    options.selfScheduling = job.request.strategy == "self";
    options.replicas = job.request.strategy == "self" ? 1 : job.request.replicas;
    if (job.request.adaptiveReplicas && job.request.strategy != "self") {
      options.adaptive = &hostTrust_;
      options.replicas = 2;  // at most: a share of a trusted agent runs once
    }
    options.maxAttempts = options.replicas + 2;
    startRun(job, std::move(shares), returnOrder, std::move(pool), options);
    job.run->setMoreComing(job.roundsLeft > 0);
    job.plan = JobPlan{};
    job.plan->algorithm = algorithm;
    job.plan->shares = planned;
    job.plan->returnOrder = plannedOrder;
    job.plan->predictedSeconds = offset + predictedEnd;
    job.phase = "running";
    job.run->start();
    adoptIntoRun(job);
    if (!job.finished) restoreIntoRun(job);
  } else {
    const int base = static_cast<int>(job.plan->shares.size());
    for (int k : plannedOrder) job.plan->returnOrder.push_back(base + k);
    job.plan->shares.insert(job.plan->shares.end(), planned.begin(), planned.end());
    // Rounds keep the whole job's first prediction: that is what the run is judged by.
    if (!keepPrediction) job.plan->predictedSeconds = offset + predictedEnd;
    job.run->setMoreComing(job.roundsLeft > 0);
    job.run->addShares(std::move(shares), returnOrder);
  }
  advance(job);
  return true;
}

}  // namespace hnow::daemon
