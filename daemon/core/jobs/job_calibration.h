#pragma once
// Before a job is planned, each agent runs its command on a small sample of
// the input (seed 002 plans on measured rates, and a command's cost is known
// only by running it): once on no input (its fixed cost: start-up) and once
// on the sample; the difference over the sample's units is its seconds per
// unit. The command failing on the sample fails the job (it would fail on
// shares alike); failing on no input does not (a filter such as `grep -c 7`
// exits 1 there, and shares are never empty). The agent failing, or its
// owner refusing the command or limiting it ([jobs] on the agent), only
// leaves it out. A calibration is reused for a while.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "conf/unit_index.h"
#include "core/agent_link.h"

namespace hnow::daemon {

// One agent's measured cost of one command (its compute factor included).
struct JobCalibration {
  double secondsPerUnit = 0.0;
  double fixedS = 0.0;       // a run on no input: start-up
  double resultRatio = 0.0;  // result bytes per input byte
  // The agent's own compute probe (rate table) then: a compute drift event
  // scales secondsPerUnit by the probe's change.
  double probeSecondsPerUnit = 0.0;
  TimePoint at{};
};

// How many units the sample takes: the first units of the input up to about
// 1/8 of an agent's even share, within [16 KiB, 256 KiB] (enough that
// start-up is small against the work, few enough that calibrating is
// quick), and at least one. `read` reads the input `index` cut.
Result<std::uint64_t> calibrationSampleUnits(const conf::UnitIndex& index, const conf::ReadAt& read,
                                             std::size_t agents);

// The calibration from the two runs: `emptyS` on no input, `sample` on
// `units` units of `sampleBytes` bytes. A run on the sample no longer than
// the empty one still counts a tenth of it as work.
JobCalibration calibrationFrom(double emptyS, const AgentLink::JobTaskAnswer& sample, std::uint64_t units,
                               std::uint64_t sampleBytes);

// What the agents measured, per (agent, command), for `lifetime`.
class CalibrationCache {
 public:
  explicit CalibrationCache(const Clock& clock, Duration lifetime = std::chrono::minutes(5))
      : clock_(clock), lifetime_(lifetime) {}
  // The same command on the same split (and --reduce or not) costs the same.
  static std::string keyOf(const std::string& command, const std::string& split, bool reduce);
  std::optional<JobCalibration> find(const std::string& agent, const std::string& key) const;
  void store(const std::string& agent, const std::string& key, const JobCalibration& calibration);

 private:
  const Clock& clock_;
  Duration lifetime_;
  std::map<std::pair<std::string, std::string>, JobCalibration> byAgent_;
};

// One agent's two runs, over whatever link the agent has at each step.
struct CalibrationRuns {
  AgentLink::JobFileOrder sample;  // served by hnowd
  std::vector<std::string> argv;
  std::string emptyResultToken, sampleResultToken;
  bool shell = false;     // argv is /bin/sh -c COMMAND
  std::uint64_t run = 0;  // the run's record (its hnow ops id), for the agent's log
  std::uint64_t sampleUnits = 0;  // the sample's units, for messages
};
// The runs as messages name them: "the run on empty input", "the run on a
// sample of 16384 bytes (the input's first 300 units)".
std::string emptyRunName();
std::string sampleRunName(const CalibrationRuns& runs);
struct CalibrationRan {
  double emptyS = 0.0;              // the run on no input
  AgentLink::JobTaskAnswer sample;  // the run on the sample
  // The run on no input failed (a filter such as `grep` exits 1 when it
  // finds nothing): how. It measures start-up only, and its time is that
  // still, so the calibration goes on; only the sample must succeed.
  Result<void> emptyRun{};
};
struct CalibrationOutcome {
  // Not ran: the error says at which step (fetching the sample, which run)
  // and how it failed.
  Result<CalibrationRan> ran;
  bool commandFailed = false;  // not ran: the command's fault, not the agent's
  bool agentRefused = false;   // not ran: the agent's [jobs] refused the command or a limit ended it
};
// Fetches the sample, runs the command on nothing, then on the sample;
// `done` once, unless `wanted` says the answer no longer matters. `link`
// gives the agent's link at each step (null: it is gone). The command
// failing on no input is noted in CalibrationRan::emptyRun, not a failure.
// `step` (if set) hears each step as it starts, named for messages.
void calibrateAgent(const std::function<AgentLink*()>& link, const CalibrationRuns& runs,
                    const std::function<bool()>& wanted, std::function<void(const CalibrationOutcome&)> done,
                    std::function<void(const std::string& step)> step = {});

// How long, from its start, an agent's calibration may take before the
// agent is left out of the run (a command that hangs on one agent must not
// hold the run for good): `maxS` ([run] calibration_max_s) until another
// agent has calibrated, then 10 x the longest of `finishedS` (their times:
// agents differ in speed, by the compute factors seen in labs up to about
// 8x), at least 10 s (process start-up and the sample's fetch on a loaded
// or slow machine), at most `maxS`.
double calibrationDeadlineS(const std::vector<double>& finishedS, double maxS);
// Why an agent was left out at it, for the log and the run's report, and
// what to do about it.
std::string calibrationLateReason(const std::string& step, double deadlineS, const std::vector<double>& finishedS,
                                  double maxS);
std::string calibrationLateHint();

}  // namespace hnow::daemon
