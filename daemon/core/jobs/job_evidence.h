#pragma once
// What a running job has shown of its agents, for the next round's plan
// (core/jobs/job_rounds.h): each agent's seconds per unit now, and the work it
// still holds. Pure: the job's run, calibrations and drift events in.
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "core/jobs/job_calibration.h"
#include "core/jobs/job_rounds.h"
#include "core/jobs/job_run.h"

namespace hnow::daemon {

// A compute drift event of an agent (the coordinator's probe): when, and
// its compute probe afterwards (seconds per probe unit).
struct ComputeDrift {
  TimePoint at{};
  double probeSecondsPerUnit = 0.0;
};

// The latest evidence of `agent`'s seconds per unit: its calibration, then
// the last share it computed since, unless a compute drift event came after
// that share began: then the calibration scaled by the agent's compute
// probe (absolute, so a share that already showed the slow-down is not
// counted twice). `run` may be null (nothing computed yet).
double secondsPerUnitNow(const JobCalibration& calibration, const JobRun* run, const std::string& agent,
                         const std::optional<ComputeDrift>& drift);

// Whether an attempt in this state still has work for its agent (queued,
// being served, received or computing).
bool holdsWork(JobAttempt::State state);

// What `agent` still has to compute, in the order it will: shares not yet
// served arrive after their bytes cross `linkBytesPerSecond`.
std::vector<HeldShare> heldShares(const JobRun& run, const std::string& agent, TimePoint now,
                                  double linkBytesPerSecond, const std::vector<std::uint64_t>& shareBytes);

}  // namespace hnow::daemon
