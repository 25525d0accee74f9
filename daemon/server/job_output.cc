// A job's output: where it goes (--output under [run] roots, or hnowd's own
// jobs directory), written beside it and renamed into place, and the
// default outputs of old jobs forgotten.
#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/env.h"
#include "core/job_output.h"
#include "server/job_service.h"
#include "server/job_state.h"
#include "server/output_temps.h"
#include "server/run_paths.h"

namespace hnow::daemon {

namespace fs = std::filesystem;

// Results kept for `hnow run` without --output live until eight newer jobs have run.
void JobService::forgetOldOutputs(std::uint64_t newest) {
  for (auto& [id, job] : jobs_) {
    if (id + kKeptOutputs > newest || job->outputPath.empty() || job->request.output == job->outputPath) continue;
    std::error_code error;
    fs::remove(job->outputPath, error);
    job->outputPath.clear();
  }
}

Result<ConfinedParent> JobService::outputTarget(const Job& job) const {
  if (!job.request.output.empty()) return openRunOutputDir(runRoots_, job.request.output);
  int dir = ::open(workDir_.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (dir < 0) return Error{"cannot open " + workDir_ + ": " + std::strerror(errno)};
  return ConfinedParent{dir, workDir_, "run-" + std::to_string(job.id) + ".out"};
}

Result<std::uint64_t> JobService::placeOutput(Job& job, const std::function<Result<std::uint64_t>(OutputPlace&)>& write) {
  auto target = outputTarget(job);
  if (!target) return target.error();
  const auto& [dir, dirPath, name] = target.value();
  auto outputDir = posixEnvAt(dir, dirPath);
  // A temp beside --output is named in jobs/ while it exists, for the
  // start-up sweep (output_temps.h); the default output is inside jobs/ already.
  OutputPlace place{*outputDir, name, outputTempName(name, job.id), nullptr};
  if (!job.request.output.empty())
    place.markTemp = [this, &job, dirPath = dirPath, temp = place.temp]() -> std::shared_ptr<void> {
      return std::make_shared<OutputTempMarker>(workDir_, job.id, dirPath, temp);
    };
  auto written = write(place);
  // --output as the user named it: forgetOldOutputs() leaves exactly that alone.
  if (written) job.outputPath = job.request.output.empty() ? outputDir->pathOf(name) : job.request.output;
  return written;
}

void JobService::writeConcat(Job& job) {
  job.phase = "writing";
  std::vector<std::string> results;
  for (const JobShare& share : job.run->shares())  // input order: shares tile it in serve order
    results.push_back(job.attempts[*share.accepted].path);
  auto written = placeOutput(job, [&](OutputPlace& place) { return writeConcatenation(*posixEnv(), results, place); });
  if (!written) return finish(job, written.error().message);
  job.outputSize = *written;
  finish(job, "");
}

void JobService::writeFinal(Job& job, const std::string& path) {
  auto written = placeOutput(job, [&](OutputPlace& place) { return placeFinal(*posixEnv(), path, place); });
  if (!written) return finish(job, written.error().message);
  job.outputSize = *written;
  finish(job, "");
}

}  // namespace hnow::daemon
