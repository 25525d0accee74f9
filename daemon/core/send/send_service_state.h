#pragma once
// The state of a send while SendService prepares it (send_service_start.cc
// plans, compresses and orders it) and while SendRuns runs it.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/bandwidth_limits.h"
#include "core/send/agent_commands.h"
#include "core/send/order_again.h"
#include "core/send/send_runs.h"
#include "core/send/send_service.h"
#include "core/send/striped_send.h"

namespace hnow::daemon {

// A file hnowd made to be sent (a tree's bundle, a client's upload, a
// compressed file), removed once nothing sends it any more.
struct HeldBundle {
  SourcePlane& plane;
  TreeBundle bundle;
  bool tree = true;  // false: an upload, sent as the file it is
  ~HeldBundle() { plane.dropScratch(bundle.path); }
};

struct RunningSend {
  std::uint64_t id = 0;
  SendRequest request;
  std::string token;                      // the file's: agents release it at the end
  std::vector<StripeSource> stripes;      // a striped send's, each under its own token
  std::vector<std::string> agents;
  std::vector<std::unique_ptr<AgentCommands>> commands;  // one per transfer token
  // What every agent was told to receive (its paces apart): told again to
  // one that logs in afresh while the send waits for its copy.
  AgentLink::ReceiveOrder order;
  std::unique_ptr<SendRun> operation;
  // The tokens reports come under: the file's, or each stripe's.
  std::vector<std::string> transferTokens() const {
    if (stripes.empty()) return {token};
    std::vector<std::string> out;
    for (const StripeSource& s : stripes) out.push_back(s.token);
    return out;
  }
  bool released = false;
  OperationId record = 0;
  std::string cancelledBy;  // the operator who cancelled it (SendRuns::cancel); "" not cancelled
  std::string summary;  // the record's JSON object, without its closing brace
  // What the operation starts with once every agent has prepared.
  SendTree tree;
  std::vector<std::string> names, addresses;  // hnowd, then the agents
  std::uint64_t size = 0;
  std::string shaHex;
  ReplanSettings settings;
  std::vector<SkippedAgent> skipped;  // reported with every status
  // A directory's send: the bundle while it is sent, what was packed, and
  // what each agent published.
  std::unique_ptr<HeldBundle> bundle;
  std::optional<TreeSummary> packed;
  std::map<std::string, TreeOutcome> unpacked;
  SendCompression compression;
  double maxRate = 0.0;  // --max-rate, bytes/s; 0: none
  // A file: the agents that held it at dest already (not in the plan), and
  // with --force those whose different file there it replaces.
  std::vector<std::string> heldAtDest, replaced;
  std::vector<HeldElsewhere> copiedHere;  // among heldAtDest: written from another path on the agent
  // An agent that held the file and serves it in hnowd's place; "" hnowd.
  std::string sourceAgent;
  SendStatus status() const {
    SendStatus s = operation->status();
    s.skipped = skipped;
    s.tree = packed;
    s.compression = compression;
    s.maxRateBytesPerSecond = maxRate;
    s.held = heldAtDest;
    s.replaced = replaced;
    s.copiedHere = copiedHere;
    s.source = sourceAgent;
    s.record = record;
    s.cancelledBy = cancelledBy;
    s.finished = s.finished || !cancelledBy.empty();
    for (CopyStatus& c : s.copies)
      if (auto it = unpacked.find(c.node); it != unpacked.end()) c.tree = it->second;
    return s;
  }
};

// What a send needs between its plan and its serving: the file as it will
// go (compressed or not) and what hnowd made to send it.
struct SendService::Prepared {
  SendRequest request;
  std::vector<AgentView> chosen;
  std::vector<TreeNode> nodes;           // hnowd, then the agents, as planned
  std::unique_ptr<HeldBundle> bundle;    // a tree's bundle, an upload or the compressed file
  bool tree = false;
  std::optional<TreeSummary> packed;
  std::string sourcePath;                // what is served
  std::uint64_t size = 0;                // its size
  SendCompression compression;
  std::string plainSha256;               // compressed: the file's own, 32 bytes
  HeldAtDest atDest;                     // a file: what each agent's destination held
  // A holder chosen to serve it (held_source.h): its name and data address,
  // and hnowd's own nodes and plan to fall back on.
  std::string sourceAgent, sourceAgentAddress;
  std::vector<TreeNode> hnowdNodes;
  std::optional<SendTree> hnowdPlan;
};

}  // namespace hnow::daemon
