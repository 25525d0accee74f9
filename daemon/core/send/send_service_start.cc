// SendService's start of a send (send_service.h): the plan, --compress
// (send_compression.h), hnowd serving the file, the agents' receive orders
// and their answers.
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>

#include "base/hex.h"
#include "core/send/agent_answers.h"
#include "core/send/held_source.h"
#include "core/operation_records.h"
#include "core/send/send_service_state.h"
#include "core/links/hosts.h"
#include "core/links/rooms.h"

namespace hnow::daemon {

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
static std::string summaryOf(const SendRequest& request, const SendTree& tree, std::size_t agents,
                             const std::optional<TreeSummary>& packed, const SendCompression& compression) {
  // "size" is the file's own (a tree: its bundle's); "sent_size" what moved when it went compressed.
  const std::uint64_t size = compression.plainBytes;
  const std::string compressFields =
      ",\"compress\":" + jsonString(compression.algo) +
      (compression.algo == "zstd" ? ",\"sent_size\":" + std::to_string(compression.sentBytes) : std::string());
  const std::string treeFields =
      packed ? ",\"tree\":{\"entries\":" + std::to_string(packed->entries) +
                   ",\"files\":" + std::to_string(packed->files) + ",\"file_bytes\":" +
                   std::to_string(packed->fileBytes) + ",\"refused\":" + std::to_string(packed->refusedCount) +
                   ",\"atomic\":" + (packed->atomic ? "true" : "false") + "}"
             : std::string();
  return "{\"file\":" + recordedFile(request) +
         (request.maxRateBytesPerSecond > 0 ? ",\"max_rate_bps\":" + jsonNumber(request.maxRateBytesPerSecond * 8)
                                            : std::string()) + ",\"dest\":" + jsonString(request.dest) + treeFields +
         ",\"algo\":" + jsonString(request.algo) + ",\"plan\":" + jsonString(tree.algo) +
         ",\"size\":" + std::to_string(size) + compressFields + ",\"agents\":" + std::to_string(agents) +
         ",\"predicted_s\":" + jsonNumber(tree.predictedSeconds) + ",\"replan\":" + (request.replan ? "true" : "false") +
         (tree.striped() ? ",\"stripes\":" + std::to_string(tree.stripeParents.size()) : std::string()) +
         (request.groups > 1 ? ",\"group\":" + std::to_string(request.group) + ",\"groups\":" +
                                   std::to_string(request.groups)
                             : std::string());
}

// `,"key":[names]` for a record, or nothing when there are none.
static std::string namesField(const char* key, const std::vector<std::string>& names) {
  return names.empty() ? "" : std::string(",\"") + key + "\":" + jsonStrings(names);
}

std::vector<TreeNode> SendService::planNodes(const SendRequest& request, const std::vector<AgentView>& chosen) const {
  const SourceUplink source = coordinator_.pacing().sourceUplink(configuredUplink_);
  std::vector<TreeNode> nodes{{kCoordinatorNode, "", {}}};
  for (const AgentView& a : chosen) nodes.push_back({a.record.name, a.record.site, a.record.rates});
  placeInRooms(nodes, 1, coordinator_);
  placeOnHosts(nodes, 1, coordinator_);
  nodes[0].rates.uplinkBytesPerSecond = source.plan * request.sourceShare;
  nodes[0].rates.downlinkBytesPerSecond = source.plan;
  // --max-rate: planned as every link the send uses is paced, at most it.
  for (TreeNode& node : nodes) {
    node.rates.uplinkBytesPerSecond = capped(node.rates.uplinkBytesPerSecond, request.maxRateBytesPerSecond);
    node.rates.downlinkBytesPerSecond = capped(node.rates.downlinkBytesPerSecond, request.maxRateBytesPerSecond);
  }
  // A relay suspect, or an agent others cannot connect to, receives its
  // copy but feeds nobody (relay_suspects.h, docs/security.md,
  // reachability.h): in this plan, its replans and its stripes.
  coordinator_.relays().planLeaves(nodes);
  return nodes;
}

void SendService::startPlanned(SendRequest request, std::vector<AgentView> chosen, std::unique_ptr<HeldBundle> bundle,
                               Started started, HeldAtDest atDest, std::vector<AgentView> holders) {
  if (request.cancelled()) return endCancelled(request, started);
  // A relay suspect serves nobody, its own held copy neither; nor does an agent others cannot connect to.
  std::erase_if(holders, [this](const AgentView& a) { return !coordinator_.relays().mayRelay(a.record.name); });
  auto p = std::make_shared<Prepared>();
  p->atDest = std::move(atDest);
  p->tree = bundle && bundle->tree;
  p->sourcePath = bundle ? bundle->bundle.path : readPathOf(request);
  if (p->tree) p->packed = bundle->bundle.summary;
  auto size = p->tree ? Result<std::uint64_t>(bundle->bundle.size) : plane_.sizeOf(p->sourcePath);
  if (!size) return started(size.error());
  p->size = *size;
  p->nodes = planNodes(request, chosen);
  p->request = std::move(request);
  p->chosen = std::move(chosen);
  p->bundle = std::move(bundle);
  auto planFor = [this, p](std::uint64_t bytes) {
    return planSendTree(p->request.algo, p->nodes, bytes, chunkBytes_, true);
  };
  const TimePoint planning = clock_.now();
  auto planned = planFor(p->size);
  coordinator_.counts().planned(seconds(clock_.now() - planning));
  if (!planned) return started(Error{"cannot plan the send: " + planned.error().message});
  // An agent holding the file may serve it plain faster than hnowd can.
  std::optional<HeldSource> fromHolder;
  std::vector<TreeNode> holderNodes;
  if (!p->tree && !holders.empty() && p->atDest.sha256.size() == 32) {
    for (const AgentView& a : holders) {
      holderNodes.push_back({a.record.name, a.record.site, a.record.rates});
      holderNodes.back().rates.uplinkBytesPerSecond =
          capped(holderNodes.back().rates.uplinkBytesPerSecond, p->request.maxRateBytesPerSecond);
    }
    const std::vector<TreeNode> receivers(p->nodes.begin() + 1, p->nodes.end());
    fromHolder = chooseHeldSource(p->request.algo, holderNodes, receivers, p->size, chunkBytes_,
                                  planned->predictedSeconds);
    if (fromHolder) {
      p->sourceAgent = holders[fromHolder->holder].record.name;
      p->sourceAgentAddress = holders[fromHolder->holder].registration.dataAddress;
    }
  }
  // --compress: sampled (milliseconds) unless none; compressed only when it pays or is asked for.
  // Compressed, it goes from hnowd; plain, from a holder if one was chosen.
  std::optional<Result<CompressionSample>> sample;
  if (p->request.compress != "none") sample = plane_.sampleCompression(p->sourcePath, p->size);
  const CompressionChoice choice = chooseCompression(
      p->request.compress, p->size, fromHolder ? fromHolder->tree.predictedSeconds : planned->predictedSeconds,
      sample ? &*sample : nullptr, [&planFor](std::uint64_t bytes) {
        auto t = planFor(bytes);
        return t ? t->predictedSeconds : INFINITY;
      });
  p->compression = {choice.compress ? "zstd" : "none", p->size, p->size, choice.why, 0.0};
  spdlog::info("send {}: {}", p->request.path, choice.why);
  if (!choice.compress && fromHolder) {
    p->hnowdNodes = p->nodes;
    p->hnowdPlan = std::move(planned).value();
    p->nodes[0] = holderNodes[fromHolder->holder];
    return serveFromHolder(p, std::move(fromHolder->tree), std::move(started));
  }
  p->sourceAgent.clear();
  if (!choice.compress) return serve(p, std::move(planned).value(), std::move(started));
  plane_.compressFile(p->sourcePath, p->size, [this, p, planFor, started](const Result<CompressedSource>& compressed) {
    if (compressed && p->request.cancelled()) plane_.dropScratch(compressed->path);
    if (p->request.cancelled()) return endCancelled(p->request, started);
    if (!compressed) {
      spdlog::warn("send {}: cannot compress: {}", p->request.path, compressed.error().message);
      return started(Error{"cannot compress " + p->request.path + ": " + compressed.error().message});
    }
    // The compressed file is sent from here; what it came from (a bundle, an upload) is dropped now.
    p->bundle.reset(new HeldBundle{plane_, {compressed->path, compressed->size, p->packed.value_or(TreeSummary{})},
                                   p->tree});
    p->sourcePath = compressed->path;
    p->size = compressed->size;
    p->plainSha256 = compressed->plainSha256;
    p->compression.sentBytes = compressed->size;
    p->compression.compressS = compressed->seconds;
    spdlog::info("send {}: compressed {} bytes to {} in {:.2f} s", p->request.path, p->compression.plainBytes,
                 compressed->size, compressed->seconds);
    auto replanned = planFor(p->size);
    if (!replanned) return started(Error{"cannot plan the send: " + replanned.error().message});
    serve(p, std::move(replanned).value(), started);
  });
}

void SendService::serve(std::shared_ptr<Prepared> p, SendTree plan, Started started) {
  const std::string token = newToken_();
  std::vector<StripeSource> stripes;
  std::vector<StripeCut> cuts;
  for (std::size_t k = 0; plan.striped() && k + 1 < plan.stripeOffsets.size(); ++k) {
    const std::uint64_t offset = plan.stripeOffsets[k], length = plan.stripeOffsets[k + 1] - offset;
    stripes.push_back({newToken_(), offset, length, ""});
    cuts.push_back({stripes.back().token, offset, length});
  }
  const bool striped = plan.striped();
  const std::uint32_t stripeChunkBytes = plan.stripeChunkBytes;
  auto answered = [this, p, plan = std::move(plan), stripes = std::move(stripes), token,
                   started](const Result<SourceFile>& served) mutable {
    if (p->request.cancelled()) {
      plane_.release(token);
      return endCancelled(p->request, started);
    }
    if (!served) return started(served.error());
    if (served->size != p->size) {
      plane_.release(token);
      return started(Error{p->request.path + " changed while the send was planned; run the send again"});
    }
    orderAgents(p, std::move(plan), std::move(stripes), token, *served, std::move(started));
  };
  if (striped)
    plane_.serveStripes(token, p->sourcePath, p->size, cuts, stripeChunkBytes, std::move(answered));
  else
    plane_.serveFile(token, p->sourcePath, std::move(answered));
}

void SendService::serveFromHolder(std::shared_ptr<Prepared> p, SendTree plan, Started started) {
  const std::string token = newToken_();
  AgentLink* link = coordinator_.link(p->sourceAgent);
  auto fallBack = [this, p, started](const std::string& why) {
    spdlog::warn("send {}: {} does not serve it ({}); hnowd does", p->request.path, p->sourceAgent, why);
    p->sourceAgent.clear();
    p->nodes = std::move(p->hnowdNodes);
    SendTree plan = std::move(*p->hnowdPlan);
    p->hnowdPlan.reset();
    serve(p, std::move(plan), started);
  };
  if (!link) return fallBack("it is gone");
  spdlog::info("send {}: {}", p->request.path, plan.why);
  // It relays as a send's agents do: a little under its uplink, within --max-rate.
  link->serveFile(
      token, p->request.dest, capped(coordinator_.pacing().agentUplinkPace(p->sourceAgent), p->request.maxRateBytesPerSecond),
      [this, p, token, plan = std::move(plan), started, fallBack](const Result<AgentLink::ServedFile>& served) mutable {
        if (p->request.cancelled()) {
          if (AgentLink* again = coordinator_.link(p->sourceAgent)) again->release(token);
          return endCancelled(p->request, started);
        }
        if (!served) return fallBack(served.error().message);
        if (served->size != p->size || served->sha256 != p->atDest.sha256) {
          if (AgentLink* again = coordinator_.link(p->sourceAgent)) again->release(token);
          return fallBack("its copy changed since it was asked");
        }
        SourceFile file;
        file.size = served->size;
        file.sha256 = served->sha256;
        file.sha256Hex = hnow::hexOf(reinterpret_cast<const unsigned char*>(file.sha256.data()), file.sha256.size());
        file.digestChunkBytes = served->digestChunkBytes;
        file.pieceDigests = served->pieceDigests;
        orderAgents(p, std::move(plan), {}, token, file, started);
      });
}

void SendService::orderAgents(std::shared_ptr<Prepared> p, SendTree plan, std::vector<StripeSource> stripes,
                        const std::string& token, const SourceFile& file, Started started) {
  const SendRequest& request = p->request;
  const std::vector<AgentView>& chosen = p->chosen;
  auto running = std::make_unique<RunningSend>();
  running->request = request;
  running->token = token;
  running->tree = std::move(plan);
  running->tree.rateBounds = boundsOf(coordinator_, chosen);
  running->sourceAgent = p->sourceAgent;
  running->names = {p->sourceAgent.empty() ? std::string("hnowd") : p->sourceAgent};
  running->addresses = {p->sourceAgent.empty() ? sourceAddress_ : p->sourceAgentAddress};
  for (const AgentView& a : chosen) {
    running->names.push_back(a.record.name);
    running->addresses.push_back(a.registration.dataAddress);
    running->agents.push_back(a.record.name);
  }
  logPlan(request, file.size, chosen.size(), running->tree);
  if (request.group <= 1) running->skipped = skippedOf(request);
  for (const SkippedAgent& k : running->skipped) spdlog::info("  skipped {}: {}", k.node, k.why);
  running->stripes = std::move(stripes);
  for (std::size_t k = 0; k < running->stripes.size(); ++k) running->stripes[k].sha256Hex = file.stripeSha256Hex[k];
  running->packed = p->packed;
  running->bundle = std::move(p->bundle);
  running->compression = p->compression;
  running->maxRate = request.maxRateBytesPerSecond;
  running->heldAtDest = p->atDest.same;
  running->copiedHere = p->atDest.copied;
  if (request.force) running->replaced = p->atDest.other;
  for (const std::string& a : running->heldAtDest) spdlog::info("  {} holds it at {} already: nothing to send", a, request.dest);
  for (const std::string& a : running->replaced) spdlog::info("  {} holds a different file at {}: replaced (--force)", a, request.dest);
  running->summary = summaryOf(request, running->tree, chosen.size(), running->packed, running->compression) +
                     namesField("held", running->heldAtDest) + namesField("replaced", running->replaced) +
                     copiedHereField(running->copiedHere) +
                     (p->sourceAgent.empty() ? "" : ",\"source\":" + jsonString(p->sourceAgent));
  // Begun as it started preparing (a group's: its family's, which keeps
  // its own entry here), or now; a cancel while the agents answer finds it
  // here and records this summary.
  running->record = request.record ? request.record : beginRecord(coordinator_, "send", running->summary + "}");
  if (!request.familyRecord()) {
    if (request.record) describeRecord(coordinator_, request.record, running->summary + "}");
    if (running->record != 0 && request.cancel) preparing_[running->record] = {request.cancel, running->summary + "}"};
  }
  running->size = file.size;
  running->shaHex = file.sha256Hex;
  running->settings.enabled = request.replan;
  running->settings.algo = request.algo;
  running->settings.nodes = p->nodes;
  running->settings.chunkBytes = chunkBytes_;

  AgentLink::ReceiveOrder order{token,
                                request.dest,
                                file.size,
                                file.sha256,
                                {},
                                running->tree.stripeChunkBytes,
                                0.0,
                                p->tree,
                                request.copy};
  if (p->compression.algo == "zstd") {
    order.compressed = true;
    order.plainSize = p->compression.plainBytes;
    order.plainSha256 = p->plainSha256;
  }
  order.digestChunkBytes = file.digestChunkBytes;
  order.operation = "send record " + std::to_string(running->record) +
                    (request.familyRecord() ? ", group " + std::to_string(request.group) : std::string());
  order.progressEveryMs = AgentLink::progressEvery(running->agents.size());
  if (running->stripes.empty()) order.pieceDigests = file.pieceDigests;
  for (std::size_t k = 0; k < running->stripes.size(); ++k) {
    const StripeSource& s = running->stripes[k];
    order.stripes.push_back({s.token, s.offset, s.length, file.stripeSha256[k],
                             k < file.stripePieceDigests.size() ? file.stripePieceDigests[k] : std::string()});
  }
  running->order = order;
  for (const std::string& t : running->transferTokens()) {
    coordinator_.claimToken(t, &runs_);
    running->commands.push_back(std::make_unique<AgentCommands>(coordinator_, t));
  }
  const std::vector<std::string> agents = running->agents;
  // Held by the answers' callback until every agent has answered (gone with
  // it if a link drops its callbacks unanswered).
  auto held = std::make_shared<std::unique_ptr<RunningSend>>(std::move(running));
  askAgents<std::string>(
      agents, [this](const std::string& name) { return coordinator_.link(name); },
      [this, &order, &agents, maxRate = request.maxRateBytesPerSecond](
          AgentLink& link, std::size_t i, std::function<void(const Result<std::string>&)> answer) {
        link.receive(pacedFor(order, coordinator_.pacing(), agents[i], maxRate), answer);
      },
      [this, held, started = std::move(started)](std::vector<Result<std::string>> answers) {
        prepared(std::move(*held), std::move(answers), started);
      });
}

void SendService::prepared(std::unique_ptr<RunningSend> running, std::vector<Result<std::string>> answers,
                           Started started) {
  if (!running->request.familyRecord()) preparing_.erase(running->record);
  const bool cancelled = running->request.cancelled();
  std::string refusals;
  std::vector<std::string> paths{""};
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const Result<std::string>& path = answers[i];
    if (!path) refusals += (refusals.empty() ? "" : "; ") + running->agents[i] + ": " + path.error().message;
    paths.push_back(path ? *path : "");
  }
  if (!refusals.empty() || cancelled) {
    if (!refusals.empty()) spdlog::warn("a send was refused by its destinations: {}", refusals);
    for (const auto& agent : running->agents)
      if (AgentLink* link = coordinator_.link(agent)) link->release(running->token);
    if (AgentLink* link = running->sourceAgent.empty() ? nullptr : coordinator_.link(running->sourceAgent))
      link->release(running->token);
    plane_.release(running->token);
    running->bundle.reset();
    for (const std::string& t : running->transferTokens()) coordinator_.releaseToken(t);
    // Cancelled while its agents answered: its record says so already, and none of them pulls.
    if (cancelled) return endCancelled(running->request, started);
    if (!running->request.familyRecord())  // a group's refusal: its family's record says it
      finishRecord(coordinator_, running->record, "failed",
                   running->summary + ",\"error\":" + jsonString("refused: " + refusals) + "}");
    return started(Error{"refused: " + refusals});
  }
  RunningSend& r = *running;
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
  started(runs_.run(std::move(running)));
}

}  // namespace hnow::daemon
