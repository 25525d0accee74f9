#pragma once
// What ManifestService keeps of a manifest under way, shared by the files
// that start it (manifest_service.cc) and prepare its agents
// (manifest_prepare.cc).
#include <memory>
#include <string>
#include <vector>

#include "core/send/agent_commands.h"
#include "core/manifest/manifest_plan.h"
#include "core/manifest/manifest_service.h"

namespace hnow::daemon {

struct ManifestService::Item {
  ManifestItemRequest request;
  std::string token;
  ManifestItemNodes nodes;          // indices into Running::agents
  std::vector<std::string> names;   // source, then destinations
  std::vector<std::string> addresses;
  std::vector<std::string> paths;   // "" for the source
  std::string sha256;               // 32 bytes
  std::string sha256Hex;
  std::uint32_t digestChunkBytes = 0;  // the source's chunk digests (SourceFile), 0 none
  std::string pieceDigests;
  bool serving = false;             // the source agreed to serve
  std::unique_ptr<AgentCommands> commands;
  std::unique_ptr<SendOperation> operation;
  bool released = false;
  std::vector<SkippedAgent> skipped;  // agents its `to` covers that could not receive, and why
};

struct ManifestService::Running {
  std::vector<AgentView> agents;  // every agent taking part, the plan's node order
  std::vector<Item> items;
  ManifestPlan plan;
  std::string algo;
  bool replan = true;
  double maxRate = 0.0;  // --max-rate, bytes/s; 0: none
  OperationId record = 0;
  std::string summary;  // its record's JSON object, without its closing brace
  std::string cancelledBy;  // the operator who cancelled it (ManifestService::cancel); "" not cancelled
  bool recorded = false;
  std::uint64_t id = 0;  // set once every item has started
};

}  // namespace hnow::daemon
