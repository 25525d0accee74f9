#pragma once
// hnowd writes a run's --output as a temp file beside it
// (.NAME.hnow-JOB.part), then renames it into place. A crash in between
// left the temp file for good: hnowd's start-up sweep empties its own jobs/
// directory but cannot know which directories under [run] roots held a
// write. So while the temp file exists, a marker in jobs/ names it; the
// next hnowd start removes what the markers name, then the markers go with
// jobs/.
#include <cstdint>
#include <string>
#include <vector>

namespace hnow::daemon {

// Names `dirPath/tempName` in `jobsDir/output-JOB.temp` for its lifetime.
class OutputTempMarker {
 public:
  OutputTempMarker(const std::string& jobsDir, std::uint64_t job, const std::string& dirPath,
                   const std::string& tempName);
  ~OutputTempMarker();
  OutputTempMarker(const OutputTempMarker&) = delete;
  OutputTempMarker& operator=(const OutputTempMarker&) = delete;

 private:
  std::string path_;
};

// The temp file hnowd writes job `job`'s output `name` to, beside it:
// .NAME.hnow-JOB.part.
std::string outputTempName(const std::string& name, std::uint64_t job);
// Is `name` one of hnowd's output temp files (.NAME.hnow-DIGITS.part)?
bool isOutputTempName(const std::string& name);

struct OutputTempSweep {
  std::vector<std::string> removed;  // the temp files removed
  std::vector<std::string> skipped;  // markers not acted on, and why
};

// Removes the temp files the markers in `jobsDir` name, each only if it is
// still a regular file of that name pattern inside `roots` (reached as
// --output is: run_paths.h); the markers themselves are left to the caller.
OutputTempSweep sweepOutputTemps(const std::string& jobsDir, const std::vector<std::string>& roots);

}  // namespace hnow::daemon
