// A job's output: where it goes (--output under [run] roots, or hnowd's own
// jobs directory: RunFiles), written beside it and renamed into place
// (core/jobs/job_output.h), and the default outputs of old jobs forgotten.
#include <algorithm>

#include "core/jobs/job_output.h"
#include "core/jobs/job_service.h"
#include "core/jobs/job_state.h"

namespace hnow::daemon {

// Results kept for `hnow run` without --output live until newer jobs have run (kKeptOutputs, kKeptUnfetched).
void JobService::forgetOldOutputs(std::uint64_t newest) {
  for (auto& [id, job] : jobs_) {
    const bool old = id + (job->outputFetched ? kKeptOutputs : kKeptUnfetched) <= newest;
    if (!old || job->outputPath.empty() || job->request.output == job->outputPath) continue;
    files_.forgetOutput(job->outputPath);
    job->outputPath.clear();
  }
}

Result<std::uint64_t> JobService::placeOutput(Job& job, const std::function<Result<std::uint64_t>(OutputPlace&)>& write) {
  auto target = files_.outputDir(job.id, job.request.output);
  if (!target) return target.error();
  OutputDir& out = target.value();
  OutputPlace place{*out.dir, out.name, out.temp, out.markTemp};
  auto written = write(place);
  // --output as the user named it: forgetOldOutputs() leaves exactly that alone.
  if (written) job.outputPath = out.path;
  return written;
}

void JobService::writeConcat(Job& job) {
  job.phase = "writing";
  // Input order: the shares tile the units still to compute, and the
  // results kept from before a restart fill the rest.
  std::vector<std::pair<std::uint64_t, std::string>> parts;
  for (const auto& kept : job.kept) parts.push_back({kept.firstUnit, kept.path});
  if (job.run)
    for (const JobShare& share : job.run->shares()) parts.push_back({share.firstUnit, job.attempts[*share.accepted].path});
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> results;
  for (auto& [first, path] : parts) results.push_back(std::move(path));
  auto written = placeOutput(job, [&](OutputPlace& place) { return writeConcatenation(files_.workFiles(), results, place); });
  if (!written) return finish(job, written.error());
  job.outputSize = *written;
  finish(job, {});
}

void JobService::writeFinal(Job& job, const std::string& path) {
  auto written = placeOutput(job, [&](OutputPlace& place) { return placeFinal(files_.workFiles(), path, place); });
  if (!written) return finish(job, written.error());
  job.outputSize = *written;
  finish(job, {});
}

}  // namespace hnow::daemon
