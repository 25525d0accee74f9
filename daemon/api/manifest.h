#pragma once
// What `hnow send --manifest` asks for and reports (transport/send.capnp
// ManifestRequest, ManifestReport), as plain values: the CLI fills the
// request from the manifest file, hnowd's ManifestService takes it and
// fills the status in; manifest_wire.h carries both.
#include <cstdint>
#include <string>
#include <vector>

#include "api/send_status.h"

namespace hnow::api {

struct ManifestItemRequest {
  std::string source;  // agent name
  std::string file;    // under the source agent's roots
  std::string dest;
  std::vector<std::string> to;  // empty or ["all"]: every other alive agent; else sites or agent names
  std::string where;            // "M.toml:3:1", to name the item in refusals
};

struct ManifestRequest {
  std::vector<ManifestItemRequest> items;
  std::string algo = "auto";
  bool replan = true;  // off: --no-replan (losses still re-parent)
  // --max-rate: every link the manifest uses at most this, bytes/s; 0: none.
  double maxRateBytesPerSecond = 0.0;
};

struct ManifestItemStatus {
  std::string source;
  std::string file;
  std::string dest;
  SendStatus send;  // its copies; the parent of a first copy is the source agent
};

struct ManifestStatus {
  bool finished = false;
  std::string algo;
  double predictedS = 0.0;
  double elapsedS = 0.0;
  // New trees adopted during the run, summed over the items (each item
  // re-plans on its own: core/send/send_replan.h).
  std::uint32_t replans = 0;
  double sequentialS = 0.0;  // predicted, the items one after another
  double lowerBoundS = 0.0;  // seed 004 §3.2
  std::vector<ManifestItemStatus> items;
  std::vector<PlanOption> considered;
  std::uint64_t record = 0;  // its operation record's id (`hnow ops`, `hnow cancel`); 0: none yet
  std::string cancelledBy;   // the operator who cancelled it; "" not cancelled
};

}  // namespace hnow::api
