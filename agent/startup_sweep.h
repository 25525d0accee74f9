#pragma once
// What an agent that crashed leaves behind: temp files of receives
// it never finished (`.NAME.hnow-XXXXXXXXXXXXXXXX.part`, agent/dest_path.cc;
// NAME cut for a long name, so only its ends mark it)
// and the shares and results of jobs under `<data root>/.hnow-jobs/`
// (agent/job_runner.h), and the staging directories of trees it never
// published (`.NAME.hnow-stage-XXXXXXXXXXXXXXXX`). At start no operation is known to this agent (hnowd
// forgets a lost agent's part, and the tokens died with the old process), so
// every such file is stale and is removed before the agent registers, but
// a share's result with its outcome beside it (`<result>.done`): the agent
// gives it back to the hnowd it was for (agent/job_runner.h restoreHeld);
// and a receive's temp file with its record under `.hnow-receives/`
// (agent/receive_records.h): the next send of that file resumes it.
// Roots belong to one agent: two agents running on a shared root would
// sweep each other's temp files.
#include <cstddef>
#include <string>
#include <vector>

namespace hnow::agent {

// True for a name dest_path.cc gives a temp file.
bool isReceiveTempName(const std::string& name);

struct SweepResult {
  std::size_t tempFiles = 0;  // receive temp files removed under the roots
  std::size_t jobFiles = 0;   // entries removed from .hnow-jobs/
  std::size_t resultsKept = 0;  // results and their outcomes kept there, for hnowd to collect
  std::size_t stagingDirs = 0;  // trees an unpack staged and never published (transport/data/tree_bundle.h)
  std::size_t receivesKept = 0;    // receives' temp files kept with their records (receive_records.h)
  std::size_t receiveRecords = 0;  // records (and lists) removed: their temp file was gone
  std::vector<std::string> errors;  // what could not be removed, and why
};

// Walks every root (symlinks not followed) and empties `.hnow-jobs/` of the
// data root (the first root).
SweepResult sweepLeftovers(const std::vector<std::string>& roots);

}  // namespace hnow::agent
