#include "server/manifest_service.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>

#include "base/hex.h"
#include "core/agent_selection.h"
#include "core/manifest_plan.h"
#include "transport/auth.h"
#include "transport/data/data_plane.h"
#include "transport/data/frame.h"
#include "server/agent_commands.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

namespace {


std::string jsonNumber(double x) {
  if (!std::isfinite(x)) return "null";
  char out[32];
  std::snprintf(out, sizeof out, "%.3f", x);
  return out;
}

// An agent's answer to serveFile or receive, held by pointer (GCC 12 warns
// falsely about strings inside kj's ExceptionOr).
struct Answer {
  std::string error;
  std::uint64_t size = 0;
  std::string text;  // serveFile: the digest; receive: the final path
};
using AnswerPtr = std::shared_ptr<Answer>;
using Fulfiller = std::shared_ptr<kj::Own<kj::PromiseFulfiller<AnswerPtr>>>;

}  // namespace

struct ManifestService::Item {
  ManifestItemRequest request;
  std::string token;
  ManifestItemNodes nodes;          // indices into Running::agents
  std::vector<std::string> names;   // source, then destinations
  std::vector<std::string> addresses;
  std::vector<std::string> paths;   // "" for the source
  std::string sha256;               // 32 bytes
  std::string sha256Hex;
  bool serving = false;             // the source agreed to serve
  std::unique_ptr<AgentCommands> commands;
  std::unique_ptr<SendOperation> operation;
  bool released = false;
};

struct ManifestService::Running {
  std::vector<AgentView> agents;  // every agent taking part, the plan's node order
  std::vector<Item> items;
  ManifestPlan plan;
  std::string algo;
  bool replan = true;
  OperationId record = 0;
  std::string summary;
  bool recorded = false;
  std::uint64_t id = 0;  // set once every item has started
};

ManifestService::ManifestService(Coordinator& coordinator, const Clock& clock)
    : coordinator_(coordinator), clock_(clock) {
  coordinator_.addTransferObserver(this);
}

ManifestService::~ManifestService() { coordinator_.removeTransferObserver(this); }

void ManifestService::collectFlows(Duration window, std::vector<Flow>& out) const {
  for (const auto& [id, running] : operations_)
    for (const Item& item : running->items)
      if (!item.released && item.operation) {
        auto flows = item.operation->flows(window);
        out.insert(out.end(), flows.begin(), flows.end());
      }
}

bool ManifestService::moving() const {
  for (const auto& [id, running] : operations_)
    for (const Item& item : running->items)
      if (!item.released) return true;
  return false;
}

kj::Promise<std::pair<std::uint64_t, ManifestStatus>> ManifestService::start(ManifestRequest request) {
  if (!knownManifestAlgo(request.algo)) transport::refuse("unknown --algo " + request.algo);
  if (request.items.empty()) transport::refuse("the manifest has no [[item]]");
  finished_.forgetOldest(operations_);

  // Who can take part: alive agents with a data plane.
  std::vector<AgentView> alive;
  for (AgentView& a : coordinator_.status())
    if (reachable(a)) alive.push_back(std::move(a));
  auto running = std::make_unique<Running>();
  running->algo = request.algo;
  running->replan = request.replan;
  std::map<std::string, int> indexOf;
  auto nodeOf = [&](const AgentView& a) {
    auto [it, fresh] = indexOf.emplace(a.record.name, static_cast<int>(running->agents.size()));
    if (fresh) running->agents.push_back(a);
    return it->second;
  };
  for (ManifestItemRequest& r : request.items) {
    const std::string item = "item at " + r.where;
    if (auto dest = checkDestination(r.dest, "dest"); !dest) {
      spdlog::warn("manifest refused: {}: {}", item, dest.error().message);
      transport::refuse(item + ": " + dest.error().message);
    }
    const AgentView* source = nullptr;
    for (const AgentView& a : alive)
      if (a.record.name == r.source) source = &a;
    if (!source) transport::refuse(item + ": no alive agent named '" + r.source + "' to read " + r.file + " from");
    Item it;
    it.nodes.source = nodeOf(*source);
    auto selected = selectAgents(alive, r.to);
    if (!selected) transport::refuse(item + ": " + selected.error().message);
    for (const AgentView& a : selected.value())
      if (a.record.name != r.source) it.nodes.destinations.push_back(nodeOf(a));
    if (it.nodes.destinations.empty()) transport::refuse(item + ": no alive agent but its source can receive it");
    it.request = std::move(r);
    auto nonce = transport::freshNonce();
    it.token.assign(nonce.begin(), nonce.end());
    it.commands = std::make_unique<AgentCommands>(coordinator_, it.token);
    coordinator_.claimToken(it.token, this);
    running->items.push_back(std::move(it));
  }
  // Two items writing the same path on one agent would race for it.
  std::map<std::pair<int, std::string>, std::string> writer;
  for (const Item& it : running->items)
    for (int d : it.nodes.destinations)
      if (auto [at, fresh] = writer.emplace(std::make_pair(d, it.request.dest), it.request.where); !fresh)
        transport::refuse("items at " + at->second + " and " + it.request.where + " both write " + it.request.dest +
                          " on " + running->agents[static_cast<std::size_t>(d)].record.name);
  for (Item& it : running->items) {
    const AgentView& source = running->agents[static_cast<std::size_t>(it.nodes.source)];
    it.names.push_back(source.record.name);
    it.addresses.push_back(source.registration.dataAddress);
    for (int d : it.nodes.destinations) {
      it.names.push_back(running->agents[static_cast<std::size_t>(d)].record.name);
      it.addresses.push_back(running->agents[static_cast<std::size_t>(d)].registration.dataAddress);
    }
  }

  auto* raw = running.get();
  return prepareSources(*raw)
      .then([this, raw]() {
        std::vector<TreeNode> nodes;
        for (const AgentView& a : raw->agents) nodes.push_back({a.record.name, a.record.site, a.record.rates});
        std::vector<ManifestItemNodes> items;
        for (const Item& it : raw->items) items.push_back(it.nodes);
        raw->plan = planManifest(raw->algo, nodes, items, transport::data::kChunkBytes);
        if (!raw->plan.error.empty()) refuse(*raw, "cannot plan the manifest: " + raw->plan.error);
        spdlog::info("manifest of {} items over {} agents along {} (predicted {:.2f} s, one after another {:.2f} s)",
                     raw->items.size(), raw->agents.size(), raw->plan.algo, raw->plan.predictedSeconds,
                     raw->plan.sequentialSeconds);
        raw->summary = "{\"items\":" + std::to_string(raw->items.size()) + ",\"algo\":" + jsonString(raw->algo) +
                       ",\"plan\":" + jsonString(raw->plan.algo) +
                       ",\"predicted_s\":" + jsonNumber(raw->plan.predictedSeconds) +
                       ",\"sequential_s\":" + jsonNumber(raw->plan.sequentialSeconds);
        try {
          raw->record = coordinator_.operationLog().begin("manifest", raw->summary + "}");
        } catch (const StateError& e) {
          spdlog::error("recording a manifest: {}", e.what());  // it goes ahead unrecorded
        }
        return prepareReceives(*raw);
      })
      .then([this, running = kj::mv(running), raw]() mutable {
        for (std::size_t k = 0; k < raw->items.size(); ++k) {
          Item& it = raw->items[k];
          it.operation = std::make_unique<SendOperation>(
              clock_, itemSendTree(raw->plan, it.nodes, k), it.names, it.addresses, it.paths, it.nodes.size,
              it.sha256Hex, *it.commands);
          // Each item re-plans alone, as a single send from its source agent
          // (the other items' shares of the links are not modelled there;
          // send_replan.h adopts a tree only when it saves 10%).
          ReplanSettings settings;
          settings.enabled = raw->replan;
          settings.algo = "auto";
          settings.chunkBytes = transport::data::kChunkBytes;
          auto node = [&](int a) {
            const AgentView& v = raw->agents[static_cast<std::size_t>(a)];
            return TreeNode{v.record.name, v.record.site, v.record.rates};
          };
          settings.nodes.push_back(node(it.nodes.source));
          for (int d : it.nodes.destinations) settings.nodes.push_back(node(d));
          it.operation->setReplanning(std::move(settings));
        }
        for (Item& it : raw->items) it.operation->start();
        const std::uint64_t id = nextOperation_++;
        raw->id = id;
        for (Item& it : raw->items)
          if (!it.released) itemOfToken_[it.token] = {id, &it};
        operations_[id] = kj::mv(running);
        return std::make_pair(id, *status(id));
      });
}

kj::Promise<void> ManifestService::prepareSources(Running& running) {
  auto answers = kj::heapArrayBuilder<kj::Promise<AnswerPtr>>(running.items.size());
  for (Item& it : running.items) {
    auto paf = kj::newPromiseAndFulfiller<AnswerPtr>();
    auto fulfiller = std::make_shared<kj::Own<kj::PromiseFulfiller<AnswerPtr>>>(kj::mv(paf.fulfiller));
    if (AgentLink* link = coordinator_.link(it.names[0])) {
      link->serveFile(it.token, it.request.file,
                      [fulfiller](const std::string& error, std::uint64_t size, const std::string& sha) {
                        (*fulfiller)->fulfill(std::make_shared<Answer>(Answer{error, size, sha}));
                      });
    } else {
      (*fulfiller)->fulfill(std::make_shared<Answer>(Answer{"not connected", 0, ""}));
    }
    answers.add(kj::mv(paf.promise));
  }
  return kj::joinPromises(answers.finish()).then([this, &running](kj::Array<AnswerPtr> results) {
    std::string refusals;
    for (std::size_t k = 0; k < results.size(); ++k) {
      Item& it = running.items[k];
      if (!results[k]->error.empty()) {
        refusals += (refusals.empty() ? "" : "; ") + std::string("item at ") + it.request.where + ": " +
                    it.names[0] + " cannot serve " + it.request.file + ": " + results[k]->error;
        continue;
      }
      it.serving = true;
      it.nodes.size = results[k]->size;
      it.sha256 = results[k]->text;
      it.sha256Hex = hnow::hexOf(reinterpret_cast<const unsigned char*>(it.sha256.data()),
                                            it.sha256.size());
    }
    if (!refusals.empty()) refuse(running, refusals);
  });
}

kj::Promise<void> ManifestService::prepareReceives(Running& running) {
  std::size_t count = 0;
  for (const Item& it : running.items) count += it.nodes.destinations.size();
  auto answers = kj::heapArrayBuilder<kj::Promise<AnswerPtr>>(count);
  for (Item& it : running.items) {
    for (std::size_t i = 1; i < it.names.size(); ++i) {
      auto paf = kj::newPromiseAndFulfiller<AnswerPtr>();
      auto fulfiller = std::make_shared<kj::Own<kj::PromiseFulfiller<AnswerPtr>>>(kj::mv(paf.fulfiller));
      if (AgentLink* link = coordinator_.link(it.names[i])) {
        link->receive({it.token, it.request.dest, it.nodes.size, it.sha256},
                      [fulfiller](const std::string& error, const std::string& path) {
                        (*fulfiller)->fulfill(std::make_shared<Answer>(Answer{error, 0, path}));
                      });
      } else {
        (*fulfiller)->fulfill(std::make_shared<Answer>(Answer{"not connected", 0, ""}));
      }
      answers.add(kj::mv(paf.promise));
    }
  }
  return kj::joinPromises(answers.finish()).then([this, &running](kj::Array<AnswerPtr> results) {
    std::string refusals;
    std::size_t at = 0;
    for (Item& it : running.items) {
      it.paths.assign(1, "");
      for (std::size_t i = 1; i < it.names.size(); ++i, ++at) {
        it.paths.push_back(results[at]->text);
        if (!results[at]->error.empty())
          refusals += (refusals.empty() ? "" : "; ") + std::string("item at ") + it.request.where + ": " +
                      it.names[i] + " refused " + it.request.dest + ": " + results[at]->error;
      }
    }
    if (!refusals.empty()) refuse(running, refusals);
  });
}

void ManifestService::refuse(Running& running, const std::string& why) {
  releaseAll(running);
  if (running.record != 0) {
    try {
      coordinator_.operationLog().finish(running.record, "failed",
                                         running.summary + ",\"error\":" + jsonString("refused: " + why) + "}");
    } catch (const StateError& e) {
      spdlog::error("recording manifest: {}", e.what());
    }
  }
  spdlog::warn("manifest refused: {}", why);
  transport::refuse("refused: " + why);
}

void ManifestService::releaseAll(Running& running) {
  for (Item& it : running.items) {
    if (it.released) continue;
    it.released = true;
    coordinator_.releaseToken(it.token);
    itemOfToken_.erase(it.token);
    for (const std::string& agent : it.names)
      if (AgentLink* link = coordinator_.link(agent)) link->release(it.token);
  }
}

std::optional<ManifestStatus> ManifestService::status(std::uint64_t operation) const {
  auto found = operations_.find(operation);
  if (found == operations_.end()) return std::nullopt;
  const Running& r = *found->second;
  ManifestStatus s;
  s.finished = true;
  s.algo = r.plan.algo;
  s.predictedS = r.plan.predictedSeconds;
  s.sequentialS = r.plan.sequentialSeconds;
  s.lowerBoundS = r.plan.lowerBoundSeconds;
  s.considered = r.plan.considered;
  for (const Item& it : r.items) {
    ManifestItemStatus item{it.request.source, it.request.file, it.request.dest, it.operation->status()};
    s.finished = s.finished && item.send.finished;
    s.replans += static_cast<std::uint32_t>(item.send.replans);
    // The items start together: the manifest lasts as long as its longest item.
    s.elapsedS = std::max(s.elapsedS, item.send.elapsedS);
    s.items.push_back(std::move(item));
  }
  return s;
}

void ManifestService::transferReport(const std::string& agent, const std::string& token,
                                     const TransferReport& report) {
  auto owner = itemOfToken_.find(token);
  if (owner == itemOfToken_.end()) return;  // still preparing
  const auto [id, item] = owner->second;
  if (report.state == TransferReport::State::kFailed)
    spdlog::warn("manifest {}: {} failed {}: {}", id, agent, item->request.file, report.message);
  item->operation->report(agent, report);
  endIfFinished(*operations_.at(id));
}

void ManifestService::agentGone(const std::string& agent) {
  for (auto& [id, running] : operations_) {
    bool touched = false;
    for (Item& it : running->items) {
      if (it.released) continue;
      if (it.names[0] == agent) {
        // SendOperation keeps its source standing; a lost source agent fails what it had not delivered.
        spdlog::warn("manifest {}: source agent {} of {} lost", id, agent, it.request.file);
        TransferReport failed;
        failed.state = TransferReport::State::kFailed;
        failed.message = "the source agent " + agent + " was lost";
        for (std::size_t i = 1; i < it.names.size(); ++i) it.operation->report(it.names[i], failed);
        touched = true;
      } else if (it.operation->involves(agent)) {
        it.operation->lost(agent);
        touched = true;
      }
    }
    if (touched) endIfFinished(*running);
  }
}

void ManifestService::ratesDrifted(const RateEvent& e, const planner::NodeRates& rates) {
  if (e.rate != "uplink" && e.rate != "downlink") return;  // compute does not move bytes
  char reason[160];
  std::snprintf(reason, sizeof reason, "drift: %s %s %.1f -> %.1f Mbit/s", e.agent.c_str(), e.rate.c_str(),
                e.before * 8 / 1e6, e.after * 8 / 1e6);
  for (auto& [id, running] : operations_)
    for (Item& it : running->items) {
      if (it.released || (it.names[0] != e.agent && !it.operation->involves(e.agent))) continue;
      if (it.operation->ratesChanged(e.agent, rates, reason))
        spdlog::info("manifest {}: {} re-planned: {}", id, it.request.file, it.operation->replanNote());
    }
}

void ManifestService::endIfFinished(Running& running) {
  for (Item& it : running.items) {
    if (it.released || !it.operation->finished()) continue;
    it.released = true;
    coordinator_.releaseToken(it.token);
    itemOfToken_.erase(it.token);
    for (const std::string& agent : it.names)
      if (AgentLink* link = coordinator_.link(agent)) link->release(it.token);
  }
  for (const Item& it : running.items)
    if (!it.released) return;
  if (running.recorded) return;
  running.recorded = true;
  if (running.id != 0) finished_.add(running.id);
  std::size_t ok = 0, copies = 0;
  double elapsed = 0.0;
  int replans = 0;
  for (const Item& it : running.items) {
    SendStatus s = it.operation->status();
    elapsed = std::max(elapsed, s.elapsedS);
    replans += s.replans;
    for (const auto& c : s.copies) {
      ok += c.state == CopyStatus::State::kDone;
      ++copies;
    }
  }
  spdlog::info("manifest finished in {:.2f} s (predicted {:.2f} s): {} of {} copies", elapsed,
               running.plan.predictedSeconds, ok, copies);
  if (running.record == 0) return;
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, ",\"actual_s\":%.3f,\"ok\":%zu,\"failed\":%zu,\"replans\":%d}", elapsed, ok,
                copies - ok, replans);
  try {
    coordinator_.operationLog().finish(running.record, ok == copies ? "done" : "failed", running.summary + numbers);
  } catch (const StateError& e) {
    spdlog::error("recording manifest: {}", e.what());
  }
}

}  // namespace hnow::daemon
