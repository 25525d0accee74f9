#pragma once
// The files of `hnow run` on hnowd's host as JobService sees them: --input
// and --output confined to hnowd's [run] roots, each job's work directory,
// and the outputs kept for `hnow run` without --output. The server
// implements it over the real file system (server/posix_run_files.h).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/env.h"
#include "base/result.h"

namespace hnow::daemon {

// Where a job's output goes: its directory (opened once, confined), its
// name there and its temp file's, the path reported, and the marker of the
// temp file for hnowd's start-up sweep (empty when none is needed).
struct OutputDir {
  std::unique_ptr<Env> dir;
  std::string name, temp;
  std::string path;
  std::function<std::shared_ptr<void>()> markTemp;
};

// A job's --input, opened once where the roots allow: read by range and
// served from, never held whole (a 4 GiB input must not cost hnowd 4 GiB).
class RunInput {
 public:
  virtual ~RunInput() = default;
  virtual std::uint64_t size() const = 0;
  // Its modification time (ns since the epoch; 0 unknown): with its size,
  // how a resumed job tells its input is the one it began on.
  virtual std::int64_t modifiedNs() const { return 0; }
  // `length` bytes from `offset` (fewer only at its end), from any thread.
  virtual Result<std::string> read(std::uint64_t offset, std::size_t length) const = 0;
  // A descriptor of the file of its own, for the data plane to serve
  // ranges from (-1: there is none, as in memory).
  virtual int duplicate() const { return -1; }
};

class RunFiles {
 public:
  virtual ~RunFiles() = default;
  // The --input opened where the roots allow (a regular file); or why not.
  virtual Result<std::shared_ptr<const RunInput>> openInput(const std::string& input) = 0;
  // --output's directory (`output` empty: hnowd's own jobs directory, the
  // output named after job `job`); checked at the start and again before
  // the write, since the directory may have changed meanwhile.
  virtual Result<OutputDir> outputDir(std::uint64_t job, const std::string& output) = 0;
  // A new, empty work directory for job `job`: its path.
  virtual Result<std::string> makeWorkDir(std::uint64_t job) = 0;
  virtual void removeWorkDir(const std::string& dir) = 0;
  // Files inside work directories, by path.
  virtual Env& workFiles() = 0;
  // An output kept for `hnow run` without --output, forgotten.
  virtual void forgetOutput(const std::string& path) = 0;
};

}  // namespace hnow::daemon
