#pragma once
// `hnow ops wait|show|output ID`: one operation, by the id of its record
// (`hnow ops` lists them), whoever started it and whether its client left
// (`--detach`) or not (docs/jobs.md, "Queue and detach").
#include <cstdint>
#include <string>

#include "cli/coordinator_client.h"
#include "cli/status_command.h"

namespace hnow::cli {

struct OpsRecordOptions {
  std::string configPath = kDefaultClientConfig;
  std::uint64_t record = 0;
  bool json = false;   // show: JSON
  std::string output;  // output: the file; "" stdout
  std::string svgPath; // show, a send: where to write its picture
};

// Follows it to its end with its progress line on a terminal, then prints
// its report; exits as it ended: 0 done, 1 failed (or interrupted by hnowd's
// stop), 3 cancelled. Ctrl-C leaves and cancels nothing.
int runOpsWait(const OpsRecordOptions& options);
// Its report now (a run: per-agent shares; a send: copies), or its record
// when hnowd holds it no more; a send's picture to `svgPath`, from its
// report or, once hnowd holds it no more, from its record.
int runOpsShow(const OpsRecordOptions& options);
// A finished run's result, kept at hnowd (run without --output).
int runOpsOutput(const OpsRecordOptions& options);

// The exit status of a record that ended: 0 done, 3 cancelled, 1 else.
int exitOfRecord(const std::string& status);

}  // namespace hnow::cli
