#include "server/send_service.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "base/hex.h"
#include "core/agent_answers.h"
#include "server/operation_records.h"
#include "core/agent_selection.h"
#include "server/agent_commands.h"
#include "transport/auth.h"
#include "transport/data/frame.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

std::vector<std::string> boundsOf(const Coordinator& coordinator, const std::vector<AgentView>& agents) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& node, const char* direction, const LinkView& link) {
    if (!link.rate.bound()) return;
    char text[160];
    std::snprintf(text, sizeof text, "%s %s >= %.1f Mbit/s", node.c_str(), direction,
                  link.rate.bytesPerSecond * 8 / 1e6);
    out.push_back(text);
  };
  add(kCoordinatorNode, "uplink", coordinator.coordinatorLinks().up);
  for (const AgentView& a : agents) {
    add(a.record.name, "uplink", a.links.up);
    add(a.record.name, "downlink", a.links.down);
  }
  return out;
}

struct SendService::Running {
  std::uint64_t id = 0;
  std::string token;
  std::vector<std::string> agents;
  std::unique_ptr<AgentCommands> commands;
  std::unique_ptr<SendOperation> operation;
  bool released = false;
  OperationId record = 0;
  std::string summary;  // the record's JSON object, without its closing brace
};

SendService::SendService(Coordinator& coordinator, SourcePlane& plane, std::string sourceAddress,
                         const Clock& clock, double configuredUplinkBytesPerSecond,
                         std::function<std::string()> newToken)
    : coordinator_(coordinator), plane_(plane), sourceAddress_(std::move(sourceAddress)), clock_(clock),
      configuredUplink_(configuredUplinkBytesPerSecond), newToken_(std::move(newToken)) {
  if (!newToken_)
    newToken_ = [] {
      auto nonce = transport::freshNonce();
      return std::string(nonce.begin(), nonce.end());
    };
  coordinator_.addTransferObserver(this);
}

SendService::~SendService() { coordinator_.removeTransferObserver(this); }

static void logPlan(const SendRequest& request, std::uint64_t size, std::size_t agents, const SendTree& tree) {
  spdlog::info("send {} ({} bytes) to {} agents along {} (predicted {:.2f} s)", request.path, size, agents,
               tree.algo, tree.predictedSeconds);
  for (const PlanOption& o : tree.considered)
    spdlog::info("  considered {} {}: {:.2f} s", o.algo, o.mode, o.predictedSeconds);
}

// The operation record's summary, an open JSON object (its end is written
// when the send ends).
static std::string summaryOf(const SendRequest& request, const SendTree& tree, std::uint64_t size, std::size_t agents) {
  return "{\"file\":" + jsonString(request.path) + ",\"dest\":" + jsonString(request.dest) +
         ",\"algo\":" + jsonString(request.algo) + ",\"plan\":" + jsonString(tree.algo) +
         ",\"size\":" + std::to_string(size) + ",\"agents\":" + std::to_string(agents) +
         ",\"predicted_s\":" + jsonNumber(tree.predictedSeconds) + ",\"replan\":" + (request.replan ? "true" : "false");
}

std::vector<AgentView> SendService::receiversOf(const SendRequest& request) {
  if (!knownSendAlgo(request.algo)) transport::refuse("unknown --algo " + request.algo);
  if (auto dest = checkDestination(request.dest, "--dest"); !dest) {
    spdlog::warn("refused a send: {}", dest.error().message);
    transport::refuse(dest.error().message);
  }
  std::vector<AgentView> reachableAgents;
  for (AgentView& a : coordinator_.status())
    if (reachable(a)) reachableAgents.push_back(std::move(a));
  auto selected = selectAgents(std::move(reachableAgents), request.to);
  if (!selected) transport::refuse(selected.error().message);
  std::vector<AgentView> chosen = std::move(selected).value();
  if (chosen.empty()) transport::refuse("no alive agent can receive");
  for (const AgentView& a : chosen)
    for (const LinkView* link : {&a.links.up, &a.links.down})
      if (!link->rate.known())
        transport::refuse("the links of " + a.record.name +
                          " have not been measured yet: hnowd surveys them once agents have joined and no "
                          "operation runs (hnow status shows them; hnow measure asks for it now)");
  return chosen;
}

kj::Promise<SendService::Answers> SendService::prepareReceives(const std::vector<AgentView>& chosen,
                                                              const AgentLink::ReceiveOrder& order) {
  auto paf = kj::newPromiseAndFulfiller<Answers>();
  auto fulfiller = std::make_shared<kj::Own<kj::PromiseFulfiller<Answers>>>(kj::mv(paf.fulfiller));
  std::vector<std::string> names;
  for (const AgentView& a : chosen) names.push_back(a.record.name);
  askAgents<std::string>(
      names, [this](const std::string& name) { return coordinator_.link(name); },
      [&order](AgentLink& link, std::size_t, std::function<void(const Result<std::string>&)> answer) {
        link.receive(order, answer);
      },
      [fulfiller](std::vector<Result<std::string>> answers) {
        (*fulfiller)->fulfill(std::make_shared<std::vector<Result<std::string>>>(std::move(answers)));
      });
  return kj::mv(paf.promise);
}

kj::Promise<std::pair<std::uint64_t, SendStatus>> SendService::start(SendRequest request) {
  finished_.forgetOldest(operations_);
  std::vector<AgentView> chosen = receiversOf(request);
  const std::string token = newToken_();
  auto served = plane_.serveFile(token, request.path);
  if (!served) transport::refuse(served.error().message);
  const SourceFile file = std::move(served).value();
  const SourceUplink source = coordinator_.sourceUplink(configuredUplink_);
  std::vector<TreeNode> nodes{{kCoordinatorNode, "", {}}};
  for (const AgentView& a : chosen) nodes.push_back({a.record.name, a.record.site, a.record.rates});
  nodes[0].rates.uplinkBytesPerSecond = source.plan;
  nodes[0].rates.downlinkBytesPerSecond = source.plan;
  auto planned = planSendTree(request.algo, nodes, file.size, transport::data::kChunkBytes);
  if (!planned) {
    plane_.release(token);
    transport::refuse("cannot plan the send: " + planned.error().message);
  }
  SendTree tree = std::move(planned).value();
  tree.rateBounds = boundsOf(coordinator_, chosen);

  coordinator_.claimToken(token, this);

  auto running = std::make_unique<Running>();
  running->token = token;
  running->commands = std::make_unique<AgentCommands>(coordinator_, token);
  std::vector<std::string> names{"hnowd"}, addresses{sourceAddress_};
  for (const AgentView& a : chosen) {
    names.push_back(a.record.name);
    addresses.push_back(a.registration.dataAddress);
    running->agents.push_back(a.record.name);
  }
  logPlan(request, file.size, chosen.size(), tree);
  running->summary = summaryOf(request, tree, file.size, chosen.size());
  running->record = beginRecord(coordinator_, "send", running->summary + "}");

  ReplanSettings settings;
  settings.enabled = request.replan;
  settings.algo = request.algo;
  settings.nodes = kj::mv(nodes);
  settings.chunkBytes = transport::data::kChunkBytes;
  auto* raw = running.get();
  return prepareReceives(chosen, {token, request.dest, file.size, file.sha256})
      .then([this, running = kj::mv(running), raw, tree = kj::mv(tree), names = kj::mv(names),
             addresses = kj::mv(addresses), size = file.size, shaHex = file.sha256Hex,
             settings = kj::mv(settings)](Answers results) mutable {
        std::string refusals;
        std::vector<std::string> paths{""};
        for (std::size_t i = 0; i < results->size(); ++i) {
          const Result<std::string>& path = (*results)[i];
          if (!path) refusals += (refusals.empty() ? "" : "; ") + raw->agents[i] + ": " + path.error().message;
          paths.push_back(path ? *path : "");
        }
        if (!refusals.empty()) {
          spdlog::warn("a send was refused by its destinations: {}", refusals);
          for (const auto& agent : raw->agents)
            if (AgentLink* link = coordinator_.link(agent)) link->release(raw->token);
          plane_.release(raw->token);
          coordinator_.releaseToken(raw->token);
          finishRecord(coordinator_, raw->record, "failed", raw->summary + ",\"error\":" + jsonString("refused: " + refusals) + "}");
          transport::refuse("refused: " + refusals);
        }
        raw->operation = std::make_unique<SendOperation>(clock_, kj::mv(tree), kj::mv(names), kj::mv(addresses),
                                                         kj::mv(paths), size, shaHex, *raw->commands);
        raw->operation->setReplanning(kj::mv(settings));
        const std::uint64_t id = nextOperation_++;
        raw->id = id;
        // Paced from the moment it runs: hnowd's idle tick resets the pacing
        // whenever no operation is under way.
        plane_.paceUplink(coordinator_.paceSource(configuredUplink_).pace);
        raw->operation->start();
        operationOfToken_[raw->token] = id;
        operations_[id] = kj::mv(running);
        return std::make_pair(id, raw->operation->status());
      });
}

std::optional<SendStatus> SendService::status(std::uint64_t operation) const {
  auto it = operations_.find(operation);
  if (it == operations_.end()) return std::nullopt;
  return it->second->operation->status();
}

void SendService::transferReport(const std::string& agent, const std::string& token,
                                 const TransferReport& report) {
  auto owner = operationOfToken_.find(token);
  if (owner == operationOfToken_.end()) return;  // still preparing
  const std::uint64_t id = owner->second;
  Running& running = *operations_.at(id);
  if (report.state == TransferReport::State::kFailed)
    spdlog::warn("send {}: {} failed: {}", id, agent, report.message);
  if (report.state == TransferReport::State::kParentLost)
    spdlog::info("send {}: {} lost its parent at byte {}", id, agent, report.bytes);
  if (running.operation->report(agent, report))
    spdlog::warn("send {}: {}, lost earlier, reports again: its copy resumes", id, agent);
  endIfFinished(running);
}

void SendService::agentGone(const std::string& agent) {
  for (auto& [id, running] : operations_) {
    if (running->released || !running->operation->involves(agent)) continue;
    spdlog::warn("send {}: agent {} lost; its children move", id, agent);
    running->operation->lost(agent);
    logReplan(id, *running->operation);
    endIfFinished(*running);
  }
}

void SendService::ratesDrifted(const RateEvent& e, const planner::NodeRates& rates) {
  if (e.rate != "uplink" && e.rate != "downlink") return;  // compute does not move bytes
  char reason[160];
  std::snprintf(reason, sizeof reason, "drift: %s %s %.1f -> %.1f Mbit/s", e.agent.c_str(), e.rate.c_str(),
                e.before * 8 / 1e6, e.after * 8 / 1e6);
  for (auto& [id, running] : operations_) {
    if (running->released || !running->operation->involves(e.agent)) continue;
    running->operation->ratesChanged(e.agent, rates, reason);
    logReplan(id, *running->operation);
  }
}

void SendService::collectFlows(Duration window, std::vector<Flow>& out) const {
  for (const auto& [id, running] : operations_)
    if (!running->released && running->operation) {
      auto flows = running->operation->flows(window);
      out.insert(out.end(), flows.begin(), flows.end());
    }
}

bool SendService::moving() const {
  for (const auto& [id, running] : operations_)
    if (!running->released) return true;
  return false;
}

void SendService::logReplan(std::uint64_t id, const SendOperation& operation) {
  if (operation.replanNote().empty()) return;
  const SendStatus s = operation.status();
  spdlog::info("send {}: {} ({} replans, {} parent changes)", id, operation.replanNote(), s.replans,
               s.parentChanges.size());
}

void SendService::endIfFinished(Running& running) {
  if (running.released || !running.operation->finished()) return;
  running.released = true;
  finished_.add(running.id);
  for (const auto& agent : running.agents)
    if (AgentLink* link = coordinator_.link(agent)) link->release(running.token);
  plane_.release(running.token);
  coordinator_.releaseToken(running.token);
  operationOfToken_.erase(running.token);
  SendStatus s = running.operation->status();
  std::size_t ok = 0;
  for (const auto& c : s.copies) ok += c.state == CopyStatus::State::kDone;
  spdlog::info("send finished in {:.2f} s (predicted {:.2f} s): {} of {} copies", s.elapsedS, s.predictedS,
               ok, s.copies.size());
  char numbers[200];
  std::snprintf(numbers, sizeof numbers, ",\"actual_s\":%.3f,\"ok\":%zu,\"failed\":%zu,\"replans\":%d", s.elapsedS,
                ok, s.copies.size() - ok, s.replans);
  std::string changes = ",\"parent_changes\":[";
  for (std::size_t i = 0; i < s.parentChanges.size(); ++i) {
    const ParentChange& c = s.parentChanges[i];
    changes += std::string(i ? "," : "") + "{\"node\":" + jsonString(c.node) + ",\"old_parent\":" +
               jsonString(c.oldParent) + ",\"new_parent\":" + jsonString(c.newParent) +
               ",\"at_s\":" + jsonNumber(c.atS) + ",\"reason\":" + jsonString(c.reason) + "}";
  }
  changes += "]";
  if (s.replannedPredictedS > 0) changes += ",\"replanned_predicted_s\":" + jsonNumber(s.replannedPredictedS);
  finishRecord(coordinator_, running.record, ok == s.copies.size() ? "done" : "failed", running.summary + numbers + changes + "}");
}

}  // namespace hnow::daemon
