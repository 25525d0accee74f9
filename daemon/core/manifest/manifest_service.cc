#include "core/manifest/manifest_service.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "base/log_context.h"
#include "core/agent_selection.h"
#include "core/manifest/manifest_plan.h"
#include "core/operation_records.h"
#include "core/links/hosts.h"
#include "core/links/rooms.h"
#include "core/manifest/manifest_running.h"

namespace hnow::daemon {

ManifestService::ManifestService(Coordinator& coordinator, const Clock& clock, std::uint32_t chunkBytes,
                                 std::function<std::string()> newToken)
    : coordinator_(coordinator), clock_(clock), chunkBytes_(chunkBytes), newToken_(std::move(newToken)) {
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

namespace {

// `dest` as the path it names on an agent with `roots`, lexically: a
// relative one under the data root (the first root), `.` and repeated
// slashes gone.
std::string destinationOf(const std::string& dest, const std::vector<std::string>& roots) {
  std::filesystem::path path(dest);
  if (path.is_relative() && !roots.empty()) path = std::filesystem::path(roots.front()) / path;
  return path.lexically_normal().string();
}

}  // namespace

// The items as the request names them, each with its source and
// destinations among the reachable agents; every refusal names its item.
Result<std::unique_ptr<ManifestService::Running>> ManifestService::itemsOf(ManifestRequest& request) {
  // Who can take part: alive agents with a data plane.
  std::vector<AgentView> alive;
  for (AgentView& a : coordinator_.status())
    if (canTakePart(a)) alive.push_back(std::move(a));
  auto running = std::make_unique<Running>();
  running->algo = request.algo;
  running->replan = request.replan;
  running->maxRate = request.maxRateBytesPerSecond;
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
      return Error{item + ": " + dest.error().message};
    }
    const AgentView* source = nullptr;
    for (const AgentView& a : alive)
      if (a.record.name == r.source) source = &a;
    if (!source) return Error{item + ": no alive agent named '" + r.source + "' to read " + r.file + " from"};
    Item it;
    it.skipped = absentWanted(coordinator_.status(), r.to, clock_.now());
    for (const SkippedAgent& k : it.skipped) spdlog::info("manifest {}: skipped {}: {}", item, k.node, k.why);
    it.nodes.source = nodeOf(*source);
    auto selected = selectAgents(alive, r.to);
    if (!selected) return Error{item + ": " + selected.error().message};
    for (const AgentView& a : selected.value())
      if (a.record.name != r.source) it.nodes.destinations.push_back(nodeOf(a));
    if (it.nodes.destinations.empty()) return Error{item + ": no alive agent but its source can receive it"};
    it.request = std::move(r);
    it.token = newToken_();
    it.commands = std::make_unique<AgentCommands>(coordinator_, it.token);
    running->items.push_back(std::move(it));
  }
  // Two items writing the same path on one agent would race for it: the
  // same path however it is spelled (m/./a, m//a, the absolute path under
  // the agent's data root), compared lexically ('..' is refused above).
  std::map<std::pair<int, std::string>, const Item*> writer;
  for (const Item& it : running->items)
    for (int d : it.nodes.destinations) {
      const AgentView& agent = running->agents[static_cast<std::size_t>(d)];
      const std::string path = destinationOf(it.request.dest, agent.registration.roots);
      auto [at, fresh] = writer.emplace(std::make_pair(d, path), &it);
      if (fresh) continue;
      const ManifestItemRequest& first = at->second->request;
      const std::string why =
          first.dest == it.request.dest
              ? "items at " + first.where + " and " + it.request.where + " both write " + it.request.dest + " on " +
                    agent.record.name
              : "items at " + first.where + " (as " + first.dest + ") and " + it.request.where + " (as " +
                    it.request.dest + ") both write " + path + " on " + agent.record.name;
      spdlog::warn("manifest refused: {}", why);
      return Error{why};
    }
  for (Item& it : running->items) {
    coordinator_.claimToken(it.token, this);
    const AgentView& source = running->agents[static_cast<std::size_t>(it.nodes.source)];
    it.names.push_back(source.record.name);
    it.addresses.push_back(source.registration.dataAddress);
    for (int d : it.nodes.destinations) {
      it.names.push_back(running->agents[static_cast<std::size_t>(d)].record.name);
      it.addresses.push_back(running->agents[static_cast<std::size_t>(d)].registration.dataAddress);
    }
  }

  return running;
}

// The joint plan of the items, logged and recorded.
// A node's rates within --max-rate: planned as every link the manifest uses is paced at most at it.
static planner::NodeRates within(planner::NodeRates rates, double maxRate) {
  rates.uplinkBytesPerSecond = capped(rates.uplinkBytesPerSecond, maxRate);
  rates.downlinkBytesPerSecond = capped(rates.downlinkBytesPerSecond, maxRate);
  return rates;
}

Result<void> ManifestService::planItems(Running& running) {
  std::vector<TreeNode> nodes;
  for (const AgentView& a : running.agents) {
    nodes.push_back({a.record.name, a.record.site, within(a.record.rates, running.maxRate)});
    // A relay suspect relays nothing (relay_suspects.h); it still serves an item it is the source of.
    nodes.back().relays = coordinator_.relays().mayRelay(a.record.name);
  }
  placeInRooms(nodes, 0, coordinator_);
  placeOnHosts(nodes, 0, coordinator_);
  std::vector<ManifestItemNodes> items;
  for (const Item& it : running.items) items.push_back(it.nodes);
  auto planned = planManifest(running.algo, nodes, items, chunkBytes_);
  if (!planned) return refused(running, "cannot plan the manifest: " + planned.error().message);
  running.plan = std::move(planned).value();
  spdlog::info("manifest of {} items over {} agents along {} (predicted {:.2f} s, one after another {:.2f} s)",
               running.items.size(), running.agents.size(), running.plan.algo, running.plan.predictedSeconds,
               running.plan.sequentialSeconds);
  running.summary = "{\"items\":" + std::to_string(running.items.size()) + ",\"algo\":" + jsonString(running.algo) +
                    ",\"plan\":" + jsonString(running.plan.algo) +
                    ",\"predicted_s\":" + jsonNumber(running.plan.predictedSeconds) +
                    ",\"sequential_s\":" + jsonNumber(running.plan.sequentialSeconds) +
                    (running.maxRate > 0 ? ",\"max_rate_bps\":" + jsonNumber(running.maxRate * 8) : std::string());
  describeRecord(coordinator_, running.record, running.summary + "}");
  return {};
}

std::pair<std::uint64_t, ManifestStatus> ManifestService::begin(std::unique_ptr<Running> running) {
  Running* raw = running.get();
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
    settings.chunkBytes = chunkBytes_;
    auto node = [&](int a) {
      const AgentView& v = raw->agents[static_cast<std::size_t>(a)];
      return TreeNode{v.record.name, v.record.site, within(v.record.rates, raw->maxRate),
                      coordinator_.relays().mayRelay(v.record.name)};
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
  operations_[id] = std::move(running);
  return std::make_pair(id, *status(id));
}

void ManifestService::start(ManifestRequest request, Started started) {
  if (!knownManifestAlgo(request.algo)) return started(Error{"unknown --algo " + request.algo});
  if (request.items.empty()) return started(Error{"the manifest has no [[item]]"});
  finished_.forgetOldest(operations_);
  auto items = itemsOf(request);
  if (!items) return started(items.error());
  // Held by the agents' answers until every one has come (gone with them if
  // a link drops its callbacks unanswered).
  auto held = std::make_shared<std::unique_ptr<Running>>(std::move(items).value());
  // Begun before its sources hash their files, so that `hnow cancel` can
  // name it while it is prepared; planItems adds the plan to its summary.
  Running& r = **held;
  r.summary = "{\"items\":" + std::to_string(r.items.size()) + ",\"algo\":" + jsonString(r.algo);
  r.record = beginRecord(coordinator_, "manifest", r.summary + "}");
  if (r.record != 0) preparing_[r.record] = held;
  prepareSources(**held, [this, held, started](const Result<void>& sources) {
    Running& running = **held;
    if (!running.cancelledBy.empty()) return started(std::make_pair(nextOperation_++, cancelledWhilePrepared(running)));
    if (!sources) return preparing_.erase(running.record), started(sources.error());
    if (auto planned = planItems(running); !planned) return preparing_.erase(running.record), started(planned.error());
    prepareReceives(running, [this, held, started](const Result<void>& receives) {
      Running& running = **held;
      if (!running.cancelledBy.empty()) return started(std::make_pair(nextOperation_++, cancelledWhilePrepared(running)));
      preparing_.erase(running.record);
      if (!receives) return started(receives.error());
      started(begin(std::move(*held)));
    });
  });
}

Error ManifestService::refused(Running& running, const std::string& why) {
  releaseAll(running);
  finishRecord(coordinator_, running.record, "failed",
               running.summary + ",\"error\":" + jsonString("refused: " + why) + "}");
  spdlog::warn("manifest refused: {}", why);
  return Error{"refused: " + why};
}

std::uint64_t ManifestService::operationOf(OperationId record) const {
  for (const auto& [id, running] : operations_)
    if (record != 0 && running->record == record) return id;
  return 0;
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
  s.record = r.record;
  s.cancelledBy = r.cancelledBy;
  for (const Item& it : r.items) {
    ManifestItemStatus item{it.request.source, it.request.file, it.request.dest, it.operation->status()};
    item.send.skipped = it.skipped;
    // Over once ended (endIfFinished, at a report or a tick): its record is written then.
    s.finished = s.finished && (item.send.finished || !r.cancelledBy.empty()) && it.released;
    item.send.cancelledBy = r.cancelledBy;
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
  // Its lines name the manifest by the id `hnow ops` shows, and carry it as a field.
  const OperationId record = operations_.at(id)->record;
  LogScope scope(LogFields{record, agent, {}});
  if (report.state == TransferReport::State::kFailed)
    spdlog::warn("manifest {}: {} failed {}: {}", record, agent, item->request.file, report.message);
  item->operation->report(agent, report);
  if (report.state == TransferReport::State::kParentCorrupt) barInOtherItems(id, *item);
  if (report.state == TransferReport::State::kParentUnreachable) unreachableInOtherItems(id, agent, *item, report);
  endIfFinished(*operations_.at(id));
}

// Its children in the other items would wait out the same connect timeout.
void ManifestService::unreachableInOtherItems(std::uint64_t id, const std::string& reporter, Item& foundIn,
                                              const TransferReport& report) {
  for (const std::string& parent : foundIn.operation->takeUnreachable()) {
    if (coordinator_.relays().reachability().refusedBy(parent, reporter, report.message))
      spdlog::warn("agent {}: {}", parent, coordinator_.relays().reachability().view(parent).note);
    spdlog::warn("manifest {}: {} cannot connect to {} ({}); {} feeds nobody in this manifest", operations_.at(id)->record, reporter, parent,
                 report.message, parent);
    for (Item& other : operations_.at(id)->items)
      if (&other != &foundIn && !other.released && other.operation->involves(parent))
        other.operation->barRelay(parent, "unreachable: " + reporter + " cannot connect to " + parent);
  }
}

// A relay caught altering one item's bytes is hostile: it relays no other
// item of the manifest either (an item it is the source of, it still serves:
// its receivers check its bytes against the digests taken of them).
void ManifestService::barInOtherItems(std::uint64_t id, Item& caughtIn) {
  const std::vector<RelayFault> faults = caughtIn.operation->takeRelayFaults();
  for (const std::string& line : coordinator_.relayFaultsCaught("manifest", operations_.at(id)->record, faults))
    spdlog::warn("{}", line);
  for (const RelayFault& fault : faults)
    for (Item& other : operations_.at(id)->items)
      if (&other != &caughtIn && !other.released && other.operation->involves(fault.relay))
        other.operation->barRelay(fault.relay, "corrupt: " + fault.relay +
                                                   " relayed bytes that differ from the source's in " +
                                                   caughtIn.request.file);
}

void ManifestService::agentGone(const std::string& agent) {
  for (auto& [id, running] : operations_) {
    bool touched = false;
    for (Item& it : running->items) {
      if (it.released) continue;
      if (it.names[0] == agent) {
        // SendOperation keeps its source standing; a lost source agent fails what it had not delivered.
        spdlog::warn("manifest {}: source agent {} of {} lost", running->record, agent, it.request.file);
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
      if (it.operation->ratesChanged(e.agent, within(rates, running->maxRate), reason))
        spdlog::info("manifest {}: {} re-planned: {}", running->record, it.request.file, it.operation->replanNote());
    }
}

void ManifestService::tick() {
  for (auto& [id, running] : operations_) {
    if (running->recorded) continue;
    const bool started = std::all_of(running->items.begin(), running->items.end(),
                                     [](const Item& it) { return it.operation != nullptr; });
    if (started) endIfFinished(*running);
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
  const bool cancelled = !running.cancelledBy.empty();
  spdlog::info("manifest {} {} in {:.2f} s (predicted {:.2f} s): {} of {} copies", running.record,
               cancelled ? "cancelled" : "finished",
               elapsed, running.plan.predictedSeconds, ok, copies);
  if (running.record == 0) return;
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, ",\"actual_s\":%.3f,\"ok\":%zu,\"failed\":%zu,\"replans\":%d", elapsed, ok,
                copies - ok, replans);
  const std::string by = cancelled ? ",\"cancelled_by\":" + jsonString(running.cancelledBy) : "";
  finishRecord(coordinator_, running.record, cancelled ? "cancelled" : ok == copies ? "done" : "failed",
               running.summary + numbers + by + "}");
}

}  // namespace hnow::daemon
