#include "core/jobs/job_calibration.h"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace hnow::daemon {

namespace {
constexpr std::uint64_t kSampleMinBytes = 16 * 1024, kSampleMaxBytes = 256 * 1024;
constexpr double kDeadlineFactor = 10.0, kDeadlineFloorS = 10.0;  // calibrationDeadlineS
}  // namespace

Result<std::uint64_t> calibrationSampleUnits(const conf::UnitIndex& index, const conf::ReadAt& read,
                                             std::size_t agents) {
  const std::uint64_t target = std::clamp<std::uint64_t>(index.size() / (8 * std::max<std::size_t>(agents, 1)),
                                                         kSampleMinBytes, kSampleMaxBytes);
  auto before = index.unitsBefore(target, read);
  if (!before) return before.error();
  return std::clamp<std::uint64_t>(*before, 1, std::max<std::uint64_t>(index.units(), 1));
}

JobCalibration calibrationFrom(double emptyS, const AgentLink::JobTaskAnswer& sample, std::uint64_t units,
                               std::uint64_t sampleBytes) {
  JobCalibration c;
  c.fixedS = emptyS;
  // seed 002's model is linear without fixed costs: the fixed part is kept apart.
  c.secondsPerUnit = std::max(sample.computeS - emptyS, 0.1 * sample.computeS) / static_cast<double>(units);
  c.resultRatio = static_cast<double>(sample.size) / static_cast<double>(std::max<std::uint64_t>(sampleBytes, 1));
  return c;
}

std::string CalibrationCache::keyOf(const std::string& command, const std::string& split, bool reduce) {
  return command + "\x1f" + split + (reduce ? "\x1fr" : "");
}

std::optional<JobCalibration> CalibrationCache::find(const std::string& agent, const std::string& key) const {
  auto it = byAgent_.find({agent, key});
  if (it == byAgent_.end() || clock_.now() - it->second.at >= lifetime_) return std::nullopt;
  return it->second;
}

void CalibrationCache::store(const std::string& agent, const std::string& key, const JobCalibration& calibration) {
  byAgent_[{agent, key}] = calibration;
}

std::string emptyRunName() { return "the run on empty input"; }

std::string sampleRunName(const CalibrationRuns& runs) {
  std::string name = "the run on a sample of " + std::to_string(runs.sample.size) + " bytes";
  if (runs.sampleUnits > 0)
    name += " (the input's first " + std::to_string(runs.sampleUnits) + (runs.sampleUnits == 1 ? " unit)" : " units)");
  return name;
}

double calibrationDeadlineS(const std::vector<double>& finishedS, double maxS) {
  if (finishedS.empty()) return maxS;
  const double longest = *std::max_element(finishedS.begin(), finishedS.end());
  return std::min(maxS, std::max(kDeadlineFloorS, kDeadlineFactor * longest));
}

std::string calibrationLateReason(const std::string& step, double deadlineS, const std::vector<double>& finishedS,
                                  double maxS) {
  char text[400];
  if (finishedS.empty() || deadlineS >= maxS)
    std::snprintf(text, sizeof text, "%s did not finish within %.3g s, the calibration deadline ([run] "
                  "calibration_max_s = %g in hnowd's config)", step.c_str(), deadlineS, maxS);
  else
    std::snprintf(text, sizeof text, "%s did not finish within %.3g s, the calibration deadline (%g x the longest "
                  "other agent's calibration, %.3g s, at least %g s, at most [run] calibration_max_s = %g)",
                  step.c_str(), deadlineS, kDeadlineFactor, *std::max_element(finishedS.begin(), finishedS.end()),
                  kDeadlineFloorS, maxS);
  return std::string(text) + ": left out of the run, its command killed";
}

std::string calibrationLateHint() {
  return "Check that the command ends on its own there (it must read stdin to its end and exit), or raise [run] "
         "calibration_max_s in hnowd's config for a slow agent";
}

void calibrateAgent(const std::function<AgentLink*()>& link, const CalibrationRuns& runs,
                    const std::function<bool()>& wanted, std::function<void(const CalibrationOutcome&)> done,
                    std::function<void(const std::string& step)> step) {
  auto stepping = [step](const std::string& name) {
    if (step) step(name);
  };
  auto finish = std::make_shared<std::function<void(const CalibrationOutcome&)>>(std::move(done));
  auto failed = [finish](const std::string& error, bool commandFailed, bool agentRefused = false) {
    (*finish)(CalibrationOutcome{Error{error}, commandFailed && !agentRefused, agentRefused});
  };
  // An answer means the agent ran the command: a failure then is the
  // command's, unless the agent's own [jobs] refused or limited it (a
  // refusal names no run: nothing ran, and every run would be refused).
  auto agentsAnswer = [failed](const std::string& run, const Result<AgentLink::JobTaskAnswer>& r) {
    if (!r) failed(run + ": " + r.error().message, false);
    else if (r->refused) failed(r->ended.error().message, false, true);
    else if (r->limited) failed(run + ": " + r->ended.error().message, false, true);
    return r && (r->succeeded() || (!r->refused && !r->limited));
  };
  const std::string sampleRun = sampleRunName(runs);
  AgentLink* first = link();
  if (!first) return failed("fetching the calibration sample: not connected", false);
  stepping("fetching the calibration sample of " + std::to_string(runs.sample.size) + " bytes");
  first->fetchJobFile(runs.sample, [=](const Result<void>& fetched) {
    if (!wanted()) return;
    if (!fetched) return failed("fetching the calibration sample of " + std::to_string(runs.sample.size) +
                                    " bytes: " + fetched.error().message, false);
    AgentLink* second = link();
    if (!second) return failed(emptyRunName() + ": not connected", false);
    stepping(emptyRunName());
    second->runJobTask({{}, runs.argv, runs.emptyResultToken, runs.shell, runs.run}, [=](const Result<AgentLink::JobTaskAnswer>& empty) {
      if (!wanted() || !agentsAnswer(emptyRunName(), empty)) return;
      // Failing on no input is noted and passed over: that run measures start-up only.
      AgentLink* third = link();
      if (!third) return failed(sampleRun + ": not connected", false);
      stepping(sampleRun);
      third->runJobTask({{runs.sample.token}, runs.argv, runs.sampleResultToken, runs.shell, runs.run},
                        [=](const Result<AgentLink::JobTaskAnswer>& sample) {
                          if (!wanted() || !agentsAnswer(sampleRun, sample)) return;
                          if (!sample->succeeded()) return failed(sampleRun + " failed: " + sample->ended.error().message, true);
                          (*finish)(CalibrationOutcome{CalibrationRan{empty->computeS, *sample, empty->ended}, false});
                        });
    });
  });
}

}  // namespace hnow::daemon
