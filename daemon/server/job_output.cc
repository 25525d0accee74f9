// A job's output: where it goes (--output under [run] roots, or hnowd's own
// jobs directory), written beside it and renamed into place, and the
// default outputs of old jobs forgotten.
#include <fcntl.h>
#include <kj/io.h>
#include <openssl/sha.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

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

void JobService::writeConcat(Job& job) {
  job.phase = "writing";
  auto target = outputTarget(job);
  if (!target) return finish(job, target.error().message);
  const auto& [dir, dirPath, name] = target.value();
  const kj::AutoCloseFd closer(dir);
  const std::string final = job.request.output.empty() ? dirPath + "/" + name : job.request.output;
  const std::string temp = outputTempName(name, job.id);
  // Named in jobs/ while it exists, for the start-up sweep (output_temps.h);
  // the default output is inside jobs/ already.
  std::optional<OutputTempMarker> marker;
  if (!job.request.output.empty()) marker.emplace(workDir_, job.id, dirPath, temp);
  int out = ::openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (out < 0) return finish(job, "cannot write " + dirPath + "/" + temp + ": " + std::strerror(errno));
  std::uint64_t total = 0;
  for (const JobShare& share : job.run->shares()) {  // input order: shares tile it in serve order
    if (!appendFileTo(out, job.attempts[*share.accepted].path, total)) {
      ::close(out);
      ::unlinkat(dir, temp.c_str(), 0);
      return finish(job, "cannot write " + dirPath + "/" + temp + ": " + std::strerror(errno));
    }
  }
  if (::fsync(out) != 0 || ::close(out) != 0 || ::renameat(dir, temp.c_str(), dir, name.c_str()) != 0) {
    ::unlinkat(dir, temp.c_str(), 0);
    return finish(job, "cannot write " + final + ": " + std::strerror(errno));
  }
  job.outputPath = final;
  job.outputSize = total;
  finish(job, "");
}

}  // namespace hnow::daemon
