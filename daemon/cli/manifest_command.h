#pragma once
// `hnow send --manifest M.toml`: several files, each from its own
// source agent, planned jointly by seed 004's multiple multicast heuristics
// and sent together; shows progress and the final report.
#include <string>

#include "api/manifest.h"

namespace hnow::cli {

struct ManifestOptions {
  std::string configPath;
  std::string manifestPath;
  // What hnowd is asked: --algo, --no-replan and --max-rate; the items
  // from the manifest once it is read.
  api::ManifestRequest request;
  bool json = false;
  std::string ganttPath;
  bool detach = false;  // print the record's id once started, and leave
};

// 0 when every copy verified, 1 when any failed or hnowd refused, 2 for a bad manifest or options.
int runManifestCommand(const ManifestOptions& options);

// {"algo", "predicted_s", "actual_s", "replans", "sequential_predicted_s",
// "lower_bound_s", "considered": [...], "items": [{"source", "file", "dest",
// "size", "copies": [...], "failed": [...]}]}, copies and failures as in sendJson.
std::string manifestJson(const api::ManifestStatus& status);
std::string manifestTable(const api::ManifestStatus& status);
// Planned and actual bars, two rows per item and node.
std::string manifestGanttSvg(const api::ManifestStatus& status);

}  // namespace hnow::cli
