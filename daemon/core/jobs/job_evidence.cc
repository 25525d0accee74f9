#include "core/jobs/job_evidence.h"

#include <algorithm>

namespace hnow::daemon {

double secondsPerUnitNow(const JobCalibration& calibration, const JobRun* run, const std::string& agent,
                         const std::optional<ComputeDrift>& drift) {
  double perUnit = calibration.secondsPerUnit;
  TimePoint at = calibration.at;
  if (run)
    for (const JobAttempt& t : run->attempts()) {
      if (t.agent != agent || !t.computeStart || !t.computeEnd || !t.error.empty() || t.computeS <= 0) continue;
      if (*t.computeStart < at) continue;
      const double units = static_cast<double>(run->shares()[static_cast<std::size_t>(t.share)].units);
      perUnit = std::max(t.computeS - calibration.fixedS, 0.1 * t.computeS) / units;
      at = *t.computeStart;
    }
  if (drift && drift->at > at && calibration.probeSecondsPerUnit > 0)
    perUnit = calibration.secondsPerUnit * drift->probeSecondsPerUnit / calibration.probeSecondsPerUnit;
  return perUnit;
}

bool holdsWork(JobAttempt::State s) {
  using State = JobAttempt::State;
  return s == State::kQueued || s == State::kServing || s == State::kReceived || s == State::kComputing;
}

std::vector<HeldShare> heldShares(const JobRun& run, const std::string& agent, TimePoint now,
                                  double linkBytesPerSecond, const std::vector<std::uint64_t>& shareBytes) {
  std::vector<HeldShare> held;
  for (const JobAttempt& t : run.attempts()) {
    if (t.agent != agent || !holdsWork(t.state)) continue;
    HeldShare h;
    h.units = run.shares()[static_cast<std::size_t>(t.share)].units;
    h.computing = t.state == JobAttempt::State::kComputing;
    if (h.computing && t.computeStart) h.startedAgo = seconds(now - *t.computeStart);
    if (t.state == JobAttempt::State::kQueued || t.state == JobAttempt::State::kServing)
      h.arrivesIn = static_cast<double>(shareBytes[static_cast<std::size_t>(t.share)]) / linkBytesPerSecond;
    held.push_back(h);
  }
  return held;
}

}  // namespace hnow::daemon
