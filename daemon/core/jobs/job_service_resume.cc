// A --concat job outlives hnowd: as it runs, state.db keeps its request,
// its input's size and time, and each share whose result hnowd accepted
// (the result stays in the job's directory). The next hnowd queues it
// again under its record; it computes only the units no kept result
// covers (core/jobs/unit_gaps.h) and writes the output from both, in input
// order: no accepted share is computed again. A --reduce job's results
// stay on its agents: it resumes from the shares and the partials they
// still hold (job_service_claims.cc, job_service_partials.cc), then
// reduces them.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "api/run_request_bytes.h"
#include "core/jobs/job_service.h"
#include "core/jobs/job_state.h"
#include "core/operation_log.h"
#include "core/operation_records.h"

namespace hnow::daemon {

Result<double> JobService::todoBytesPerUnit(const Job& job) const {
  const std::uint64_t left = job.todo.count() - std::min(job.nextUnit, job.todo.count());
  if (left == 0) return 1.0;
  std::uint64_t bytes = 0;
  for (const auto& [first, end] : job.todo.pieces(job.nextUnit, left)) {
    auto from = job.unitStart(first);
    auto to = from ? job.unitStart(end) : from;
    if (!to) return to.error();
    bytes += *to - *from;
  }
  return static_cast<double>(bytes) / static_cast<double>(left);
}

namespace {

// "agent secondsPerUnit fixedS resultRatio probeSecondsPerUnit" a line
// (agent names hold no space: conf/ checks them).
std::string calibrationsText(const std::map<std::string, JobCalibration>& calibrated) {
  std::string out;
  char numbers[128];
  for (const auto& [agent, c] : calibrated) {
    std::snprintf(numbers, sizeof numbers, " %.17g %.17g %.17g %.17g\n", c.secondsPerUnit, c.fixedS, c.resultRatio,
                  c.probeSecondsPerUnit);
    out += agent + numbers;
  }
  return out;
}

std::map<std::string, JobCalibration> calibrationsOf(const std::string& text) {
  std::map<std::string, JobCalibration> out;
  std::istringstream lines(text);
  std::string agent;
  JobCalibration c;
  while (lines >> agent >> c.secondsPerUnit >> c.fixedS >> c.resultRatio >> c.probeSecondsPerUnit) out[agent] = c;
  return out;
}

}  // namespace

void JobService::keepRunning(Job& job) {
  job.resumable = job.record != 0;
  if (!job.resumable) return;
  StoredRunningJob row{job.record, api::encodeRunRequest(job.request), job.input->size(), job.input->modifiedNs(),
                       job.dir, {}, calibrationsText(job.calibrated)};
  if (auto kept = coordinator_.operationLog().keepRunning(row); !kept) {
    job.resumable = false;
    spdlog::error("run {}: keeping it in state.db (a restart of hnowd will not resume it): {}", job.record,
                  kept.error().message);
  }
}

void JobService::keepAccepted(Job& job) {
  if (!job.resumable || !job.run) return;
  const auto& shares = job.run->shares();
  for (std::size_t k = 0; k < shares.size(); ++k) {
    const JobShare& share = shares[k];
    if (!share.done || !share.accepted || job.keptInState.count(k)) continue;
    const auto& data = job.attempts[*share.accepted];
    if (data.path.empty()) continue;
    StoredShare row{share.firstUnit, share.units, data.path, data.result.size};
    if (auto kept = coordinator_.operationLog().keepAccepted(job.record, row); !kept) {
      spdlog::error("run {}: keeping share {} in state.db: {}", job.record, k + 1, kept.error().message);
      continue;  // tried again at the next event
    }
    job.keptInState.insert(k);
  }
}

void JobService::forgetRunning(Job& job) {
  if (job.resumable)
    if (auto dropped = coordinator_.operationLog().dropRunning(job.record); !dropped)
      spdlog::error("run {}: removing it from state.db's jobs under way: {}", job.record, dropped.error().message);
  job.resumable = false;
  for (const auto& dir : job.oldDirs) files_.removeWorkDir(dir);
  job.oldDirs.clear();
}

void JobService::resumeRunning(Duration grace) {
  auto stored = coordinator_.operationLog().running();
  if (!stored) return spdlog::error("reading the jobs under way from state.db: {}", stored.error().message);
  for (const StoredRunningJob& row : *stored) {
    auto requeuedJob = requeued(row.id, row.request, grace, row.inputSize, row.inputModifiedNs);
    if (!requeuedJob) {
      spdlog::error("run {}, under way when hnowd stopped, cannot go on: {}", row.id, requeuedJob.error().message);
      coordinator_.operationLog().dropRunning(row.id);
      files_.removeWorkDir(row.dir);
      finishRecord(coordinator_, row.id, "interrupted",
                   "{\"error\":" + jsonString("hnowd stopped, and the run cannot go on: " + requeuedJob.error().message) + "}");
      continue;
    }
    std::shared_ptr<Job> job = std::move(requeuedJob).value();
    job->oldDirs.push_back(row.dir);
    job->held = row.attempts;
    job->partials = row.partials;
    // A kept result whose file is gone or cut short is computed again.
    for (const StoredShare& s : row.accepted) {
      auto size = files_.workFiles().fileSize(s.path);
      if (size && *size == s.size) job->kept.push_back({s.firstUnit, s.units, s.path});
      else spdlog::warn("run {}: the result of units {}..{} is gone from {}: computed again", job->record, s.firstUnit,
                        s.firstUnit + s.units, s.path);
      if (std::find(job->oldDirs.begin(), job->oldDirs.end(), s.path.substr(0, s.path.rfind('/'))) == job->oldDirs.end())
        job->oldDirs.push_back(s.path.substr(0, s.path.rfind('/')));
    }
    // Its agents' calibrations, as fresh: the job goes on without calibrating again.
    const std::string key = CalibrationCache::keyOf(job->request.command, job->request.split, job->reduce);
    for (auto [agent, c] : calibrationsOf(row.calibrations)) {
      c.at = clock_.now();
      calibrations_.store(agent, key, c);
    }
    spdlog::info("run {}: '{}' on {} resumed: {} share(s) accepted before hnowd stopped are kept", job->record,
                 job->request.command, job->request.input, job->kept.size());
    jobs_[job->id] = std::move(job);
  }
}

}  // namespace hnow::daemon
