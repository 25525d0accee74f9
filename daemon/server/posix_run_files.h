#pragma once
// RunFiles (core/jobs/run_files.h) on hnowd's own file system: --input and
// --output confined to `[run] roots` (run_paths.h), work directories and
// default outputs under hnowd's jobs directory, temp files of --output
// named in it for the start-up sweep (output_temps.h).
#include <string>
#include <vector>

#include "core/jobs/run_files.h"
#include "server/live_roots.h"

namespace hnow::daemon {

class PosixRunFiles final : public RunFiles {
 public:
  PosixRunFiles(std::string jobsDir, LiveRoots roots);
  Result<std::shared_ptr<const RunInput>> openInput(const std::string& input) override;
  Result<OutputDir> outputDir(std::uint64_t job, const std::string& output) override;
  Result<std::string> makeWorkDir(std::uint64_t job) override;
  void removeWorkDir(const std::string& dir) override;
  Env& workFiles() override { return *workFiles_; }
  void forgetOutput(const std::string& path) override;

 private:
  std::string jobsDir_;
  LiveRoots roots_;
  std::unique_ptr<Env> workFiles_;
};

}  // namespace hnow::daemon
