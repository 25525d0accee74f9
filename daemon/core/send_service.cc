#include "core/send_service.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "base/hex.h"
#include "core/agent_answers.h"
#include "core/agent_commands.h"
#include "core/agent_selection.h"
#include "core/operation_records.h"
#include "core/striped_send.h"
#include "core/tree_held.h"

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

// A file hnowd made to be sent (a tree's bundle, or a client's upload),
// removed once nothing sends it any more.
struct SendService::HeldBundle {
  SourcePlane& plane;
  TreeBundle bundle;
  bool tree = true;  // false: an upload, sent as the file it is
  ~HeldBundle() { plane.dropScratch(bundle.path); }
};

struct SendService::Running {
  std::uint64_t id = 0;
  std::string token;                      // the file's: agents release it at the end
  std::vector<StripeSource> stripes;      // a striped send's, each under its own token
  std::vector<std::string> agents;
  std::vector<std::unique_ptr<AgentCommands>> commands;  // one per transfer token
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
  SendStatus status() const {
    SendStatus s = operation->status();
    s.skipped = skipped;
    s.tree = packed;
    for (CopyStatus& c : s.copies)
      if (auto it = unpacked.find(c.node); it != unpacked.end()) c.tree = it->second;
    return s;
  }
};

SendService::SendService(Coordinator& coordinator, SourcePlane& plane, std::string sourceAddress,
                         const Clock& clock, std::uint32_t chunkBytes, double configuredUplinkBytesPerSecond,
                         std::function<std::string()> newToken)
    : coordinator_(coordinator), plane_(plane), sourceAddress_(std::move(sourceAddress)), clock_(clock),
      chunkBytes_(chunkBytes), configuredUplink_(configuredUplinkBytesPerSecond), newToken_(std::move(newToken)) {
  coordinator_.addTransferObserver(this);
}

SendService::~SendService() { coordinator_.removeTransferObserver(this); }

static void logPlan(const SendRequest& request, std::uint64_t size, std::size_t agents, const SendTree& tree) {
  spdlog::info("send {} ({} bytes) to {} agents along {} (predicted {:.2f} s)", request.path, size, agents,
               tree.algo, tree.predictedSeconds);
  for (const PlanOption& o : tree.considered)
    spdlog::info("  considered {} {}: {:.2f} s", o.algo, o.mode, o.predictedSeconds);
  if (!tree.why.empty()) spdlog::info("  chosen: {}", tree.why);
  if (tree.boundSeconds > 0) spdlog::info("  Kumar-Ross bound: {:.2f} s", tree.boundSeconds);
}

// The operation record's summary, an open JSON object (its end is written
// when the send ends).
static std::string summaryOf(const SendRequest& request, const SendTree& tree, std::uint64_t size, std::size_t agents,
                             const std::optional<TreeSummary>& packed) {
  const std::string treeFields =
      packed ? ",\"tree\":{\"entries\":" + std::to_string(packed->entries) +
                   ",\"files\":" + std::to_string(packed->files) + ",\"file_bytes\":" +
                   std::to_string(packed->fileBytes) + ",\"refused\":" + std::to_string(packed->refusedCount) +
                   ",\"atomic\":" + (packed->atomic ? "true" : "false") + "}"
             : std::string();
  return "{\"file\":" + jsonString(request.path) + ",\"dest\":" + jsonString(request.dest) + treeFields +
         ",\"algo\":" + jsonString(request.algo) + ",\"plan\":" + jsonString(tree.algo) +
         ",\"size\":" + std::to_string(size) + ",\"agents\":" + std::to_string(agents) +
         ",\"predicted_s\":" + jsonNumber(tree.predictedSeconds) + ",\"replan\":" + (request.replan ? "true" : "false") +
         (tree.striped() ? ",\"stripes\":" + std::to_string(tree.stripeParents.size()) : std::string());
}

namespace {

std::string agoText(double seconds) {
  char text[48];
  if (seconds < 120) std::snprintf(text, sizeof text, "%.0f s ago", seconds);
  else if (seconds < 2 * 3600) std::snprintf(text, sizeof text, "%.0f min ago", seconds / 60);
  else if (seconds < 2 * 86400) std::snprintf(text, sizeof text, "%.0f h ago", seconds / 3600);
  else std::snprintf(text, sizeof text, "%.0f days ago", seconds / 86400);
  return text;
}

}  // namespace

std::vector<SkippedAgent> SendService::skippedOf(const SendRequest& request) const {
  std::vector<SkippedAgent> out;
  for (const AgentView& a : coordinator_.status()) {
    if (reachable(a) || !wantedBy(a, request.to)) continue;
    if (a.record.state == AgentState::kLost)
      out.push_back({a.record.name, "lost, last heard " + agoText(seconds(clock_.now() - a.record.lastHeard))});
    else if (!a.connected)
      out.push_back({a.record.name, "not connected"});
    else
      out.push_back({a.record.name, "no data address: it cannot receive files"});
  }
  return out;
}

Result<std::vector<AgentView>> SendService::receiversOf(const SendRequest& request) {
  if (!knownSendAlgo(request.algo)) return Error{"unknown --algo " + request.algo};
  if (auto dest = checkDestination(request.dest, "--dest"); !dest) {
    spdlog::warn("refused a send: {}", dest.error().message);
    return dest.error();
  }
  std::vector<AgentView> reachableAgents;
  for (AgentView& a : coordinator_.status())
    if (reachable(a)) reachableAgents.push_back(std::move(a));
  auto selected = selectAgents(std::move(reachableAgents), request.to);
  if (!selected) {
    // An agent named that hnowd knows but cannot reach: say why.
    for (const SkippedAgent& k : skippedOf(request))
      for (const std::string& t : request.to)
        if (t == k.node)
          return Error{k.node + " cannot receive now (" + k.why +
                       "); leave it out of --to, or wait until it is back"};
    return selected.error();
  }
  std::vector<AgentView> chosen = std::move(selected).value();
  if (chosen.empty()) return Error{"no alive agent can receive"};
  for (const AgentView& a : chosen)
    for (const LinkView* link : {&a.links.up, &a.links.down})
      if (!link->rate.known())
        return Error{"the links of " + a.record.name +
                     " have not been measured yet: hnowd surveys them once agents have joined and no "
                     "operation runs (hnow status shows them; hnow measure asks for it now)"};
  return chosen;
}

void SendService::start(SendRequest request, Started started) {
  finished_.forgetOldest(operations_);
  auto receivers = receiversOf(request);
  if (!receivers) return started(receivers.error());
  if (!plane_.isDirectory(request.path)) {
    for (const auto& [set, flag] : {std::pair{request.atomic, "--atomic"}, std::pair{request.deleteOthers, "--delete"}})
      if (set)
        return started(Error{std::string(flag) + " is for a directory's tree; " + request.path +
                             " is not a directory (a file is always renamed into place whole)"});
    std::unique_ptr<HeldBundle> upload;
    if (request.scratch) upload.reset(new HeldBundle{plane_, {request.path, 0, {}}, false});
    return startPlanned(std::move(request), std::move(receivers).value(), std::move(upload), std::move(started));
  }
  if (request.atomic && request.deleteOthers)
    return started(Error{"--atomic already replaces the whole tree; leave out --delete"});
  // A directory goes as one bundle of its tree, holding only the files some agent lacks.
  auto scanned = plane_.scanTree(request.path);
  if (!scanned) return started(scanned.error());
  auto scan = std::make_shared<const TreeScan>(std::move(scanned).value());
  std::vector<std::string> agents;
  for (const AgentView& a : *receivers) agents.push_back(a.record.name);
  askMissing(
      agents, [this](const std::string& name) { return coordinator_.link(name); }, request.dest, scan,
      [this, scan, request, chosen = std::move(receivers).value(), started](const Result<std::vector<bool>>& missing) {
        if (!missing) {
          plane_.dropScan(scan->id);
          spdlog::warn("a tree send was refused by its destinations: {}", missing.error().message);
          return started(missing.error());
        }
        auto packed = plane_.packScanned(scan->id, *missing);
        if (!packed) return started(packed.error());
        auto bundle = std::unique_ptr<HeldBundle>(new HeldBundle{plane_, std::move(packed).value()});
        TreeSummary& s = bundle->bundle.summary;
        s.atomic = request.atomic;
        s.deleteOthers = request.deleteOthers;
        spdlog::info("packed {}: {} of its {} files ({} of {} bytes) some agent lacks, {} entries, {} left out",
                     request.path, s.sentFiles, s.files, s.sentBytes, s.fileBytes, s.entries, s.refusedCount);
        startPlanned(request, chosen, std::move(bundle), started);
      });
}

void SendService::startPlanned(SendRequest request, std::vector<AgentView> chosen, std::unique_ptr<HeldBundle> bundle,
                               Started started) {
  const bool tree = bundle && bundle->tree;
  const std::string sourcePath = bundle ? bundle->bundle.path : request.path;
  auto size = tree ? Result<std::uint64_t>(bundle->bundle.size) : plane_.sizeOf(sourcePath);
  if (!size) return started(size.error());
  const SourceUplink source = coordinator_.sourceUplink(configuredUplink_);
  std::vector<TreeNode> nodes{{kCoordinatorNode, "", {}}};
  for (const AgentView& a : chosen) nodes.push_back({a.record.name, a.record.site, a.record.rates});
  nodes[0].rates.uplinkBytesPerSecond = source.plan;
  nodes[0].rates.downlinkBytesPerSecond = source.plan;
  auto planned = planSendTree(request.algo, nodes, *size, chunkBytes_, true);
  if (!planned) return started(Error{"cannot plan the send: " + planned.error().message});
  const std::string token = newToken_();
  std::vector<StripeSource> stripes;
  std::vector<StripeCut> cuts;
  for (std::size_t k = 0; planned->striped() && k + 1 < planned->stripeOffsets.size(); ++k) {
    const std::uint64_t offset = planned->stripeOffsets[k], length = planned->stripeOffsets[k + 1] - offset;
    stripes.push_back({newToken_(), offset, length, ""});
    cuts.push_back({stripes.back().token, offset, length});
  }
  auto served = planned->striped() ? plane_.serveStripes(token, sourcePath, *size, cuts, planned->stripeChunkBytes)
                                   : plane_.serveFile(token, sourcePath);
  if (!served) return started(served.error());
  const SourceFile file = std::move(served).value();
  if (file.size != *size) {
    plane_.release(token);
    return started(Error{request.path + " changed while the send was planned; run the send again"});
  }
  auto running = std::make_unique<Running>();
  running->token = token;
  running->tree = std::move(planned).value();
  running->tree.rateBounds = boundsOf(coordinator_, chosen);
  running->names = {"hnowd"};
  running->addresses = {sourceAddress_};
  for (const AgentView& a : chosen) {
    running->names.push_back(a.record.name);
    running->addresses.push_back(a.registration.dataAddress);
    running->agents.push_back(a.record.name);
  }
  logPlan(request, file.size, chosen.size(), running->tree);
  running->skipped = skippedOf(request);
  for (const SkippedAgent& k : running->skipped) spdlog::info("  skipped {}: {}", k.node, k.why);
  running->stripes = std::move(stripes);
  for (std::size_t k = 0; k < running->stripes.size(); ++k) running->stripes[k].sha256Hex = file.stripeSha256Hex[k];
  if (tree) running->packed = bundle->bundle.summary;
  running->bundle = std::move(bundle);
  running->summary = summaryOf(request, running->tree, file.size, chosen.size(), running->packed);
  running->record = beginRecord(coordinator_, "send", running->summary + "}");
  running->size = file.size;
  running->shaHex = file.sha256Hex;
  running->settings.enabled = request.replan;
  running->settings.algo = request.algo;
  running->settings.nodes = std::move(nodes);
  running->settings.chunkBytes = chunkBytes_;

  AgentLink::ReceiveOrder order{token,
                                request.dest,
                                file.size,
                                file.sha256,
                                {},
                                running->tree.stripeChunkBytes,
                                0.0,
                                tree,
                                request.atomic,
                                request.deleteOthers};
  for (std::size_t k = 0; k < running->stripes.size(); ++k) {
    const StripeSource& s = running->stripes[k];
    order.stripes.push_back({s.token, s.offset, s.length, file.stripeSha256[k]});
  }
  for (const std::string& t : running->transferTokens()) {
    coordinator_.claimToken(t, this);
    running->commands.push_back(std::make_unique<AgentCommands>(coordinator_, t));
  }
  const std::vector<std::string> agents = running->agents;
  // Each agent relays at a pace a little under its uplink, as planned.
  std::vector<double> paces;
  for (const std::string& name : agents) paces.push_back(coordinator_.agentUplinkPace(name));
  // Held by the answers' callback until every agent has answered (gone with
  // it if a link drops its callbacks unanswered).
  auto held = std::make_shared<std::unique_ptr<Running>>(std::move(running));
  askAgents<std::string>(
      agents, [this](const std::string& name) { return coordinator_.link(name); },
      [&order, &paces](AgentLink& link, std::size_t i, std::function<void(const Result<std::string>&)> answer) {
        AgentLink::ReceiveOrder paced = order;
        paced.uplinkPaceBytesPerSecond = paces[i];
        link.receive(paced, answer);
      },
      [this, held, started = std::move(started)](std::vector<Result<std::string>> answers) {
        prepared(std::move(*held), std::move(answers), started);
      });
}

void SendService::prepared(std::unique_ptr<Running> running, std::vector<Result<std::string>> answers,
                           Started started) {
  std::string refusals;
  std::vector<std::string> paths{""};
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const Result<std::string>& path = answers[i];
    if (!path) refusals += (refusals.empty() ? "" : "; ") + running->agents[i] + ": " + path.error().message;
    paths.push_back(path ? *path : "");
  }
  if (!refusals.empty()) {
    spdlog::warn("a send was refused by its destinations: {}", refusals);
    for (const auto& agent : running->agents)
      if (AgentLink* link = coordinator_.link(agent)) link->release(running->token);
    plane_.release(running->token);
    running->bundle.reset();
    for (const std::string& t : running->transferTokens()) coordinator_.releaseToken(t);
    finishRecord(coordinator_, running->record, "failed",
                 running->summary + ",\"error\":" + jsonString("refused: " + refusals) + "}");
    return started(Error{"refused: " + refusals});
  }
  Running& r = *running;
  if (r.tree.striped()) {
    std::vector<SendCommands*> commands;
    for (auto& c : r.commands) commands.push_back(c.get());
    r.operation = std::make_unique<StripedSend>(clock_, r.tree, r.names, r.addresses, paths, r.size, r.shaHex,
                                                r.stripes, commands, std::move(r.settings));
  } else {
    auto operation = std::make_unique<SendOperation>(clock_, std::move(r.tree), std::move(r.names),
                                                     std::move(r.addresses), std::move(paths), r.size, r.shaHex,
                                                     *r.commands.front());
    operation->setReplanning(std::move(r.settings));
    r.operation = std::move(operation);
  }
  const std::uint64_t id = nextOperation_++;
  r.id = id;
  // Paced from the moment it runs: hnowd's idle tick resets the pacing
  // whenever no operation is under way.
  plane_.paceUplink(coordinator_.paceSource(configuredUplink_).pace);
  coordinator_.paceAgentUplinks(r.agents);
  r.operation->start();
  for (const std::string& t : r.transferTokens()) operationOfToken_[t] = id;
  operations_[id] = std::move(running);
  started(std::make_pair(id, r.status()));
}

std::optional<SendStatus> SendService::status(std::uint64_t operation) const {
  auto it = operations_.find(operation);
  if (it == operations_.end()) return std::nullopt;
  return it->second->status();
}

void SendService::transferReport(const std::string& agent, const std::string& token,
                                 const TransferReport& report) {
  auto owner = operationOfToken_.find(token);
  if (owner == operationOfToken_.end()) return;  // still preparing
  const std::uint64_t id = owner->second;
  Running& running = *operations_.at(id);
  if (report.state == TransferReport::State::kFailed)
    spdlog::warn("send {}: {} failed: {}", id, agent, report.message);
  if (report.state == TransferReport::State::kDone && report.tree && running.packed)
    running.unpacked[agent] = *report.tree;
  if (report.state == TransferReport::State::kParentLost)
    spdlog::info("send {}: {} lost its parent at byte {}", id, agent, report.bytes);
  if (running.operation->report(agent, token, report))
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

void SendService::logReplan(std::uint64_t id, const SendRun& operation) {
  if (operation.replanNote().empty()) return;
  spdlog::info("send {}: {} ({} replans, {} parent changes)", id, operation.replanNote(), operation.replans(),
               operation.parentChangeCount());
}

void SendService::endIfFinished(Running& running) {
  if (running.released || !running.operation->finished()) return;
  running.released = true;
  finished_.add(running.id);
  for (const auto& agent : running.agents)
    if (AgentLink* link = coordinator_.link(agent)) link->release(running.token);
  plane_.release(running.token);
  running.bundle.reset();
  for (const std::string& t : running.transferTokens()) {
    coordinator_.releaseToken(t);
    operationOfToken_.erase(t);
  }
  SendStatus s = running.status();
  std::size_t ok = 0;
  for (const auto& c : s.copies) ok += c.state == CopyStatus::State::kDone;
  const std::string skipped = s.skipped.empty() ? "" : ", " + std::to_string(s.skipped.size()) + " agents skipped";
  spdlog::info("send finished in {:.2f} s (predicted {:.2f} s): {} of {} copies{}", s.elapsedS, s.predictedS, ok,
               s.copies.size(), skipped);
  char numbers[200];
  std::snprintf(numbers, sizeof numbers,
                ",\"actual_s\":%.3f,\"ok\":%zu,\"failed\":%zu,\"skipped\":%zu,\"replans\":%d", s.elapsedS, ok,
                s.copies.size() - ok, s.skipped.size(), s.replans);
  std::string changes = ",\"parent_changes\":[";
  for (std::size_t i = 0; i < s.parentChanges.size(); ++i) {
    const ParentChange& c = s.parentChanges[i];
    changes += std::string(i ? "," : "") + "{\"node\":" + jsonString(c.node) + ",\"old_parent\":" +
               jsonString(c.oldParent) + ",\"new_parent\":" + jsonString(c.newParent) +
               ",\"at_s\":" + jsonNumber(c.atS) + ",\"reason\":" + jsonString(c.reason) + "}";
  }
  changes += "]";
  if (s.replannedPredictedS > 0) changes += ",\"replanned_predicted_s\":" + jsonNumber(s.replannedPredictedS);
  if (running.packed) {
    std::uint64_t published = 0, failedEntries = 0;
    for (const auto& [agent, outcome] : running.unpacked) published += outcome.files, failedEntries += outcome.failedCount;
    changes += ",\"tree_files_published\":" + std::to_string(published) +
               ",\"tree_entries_failed\":" + std::to_string(failedEntries);
  }
  finishRecord(coordinator_, running.record, ok == s.copies.size() ? "done" : "failed", running.summary + numbers + changes + "}");
}

}  // namespace hnow::daemon
