#include "core/send/send_service.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "base/hex.h"
#include "core/send/agent_answers.h"
#include "core/agent_selection.h"
#include "core/send/held_source.h"
#include "core/links/hosts.h"
#include "core/links/trunk_survey.h"
#include "core/operation_records.h"
#include "core/send/send_service_state.h"
#include "core/send/tree_held.h"

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

std::string recordedFile(const SendRequest& request) {
  return request.uploadedFrom.empty() ? jsonString(request.path)
                                      : jsonString(request.uploadedFrom) + ",\"uploaded\":true";
}

SendService::SendService(Coordinator& coordinator, SourcePlane& plane, std::string sourceAddress,
                         const Clock& clock, std::uint32_t chunkBytes, double configuredUplinkBytesPerSecond,
                         std::function<std::string()> newToken)
    : coordinator_(coordinator), plane_(plane), sourceAddress_(std::move(sourceAddress)), clock_(clock),
      chunkBytes_(chunkBytes), configuredUplink_(configuredUplinkBytesPerSecond), newToken_(std::move(newToken)) {
  coordinator_.addTransferObserver(this);
}

SendService::~SendService() { coordinator_.removeTransferObserver(this); }

std::vector<SkippedAgent> SendService::skippedOf(const SendRequest& request) const {
  return absentWanted(coordinator_.status(), request.to, clock_.now());
}

Result<std::vector<AgentView>> SendService::receiversOf(const SendRequest& request) {
  if (!knownSendAlgo(request.algo)) return Error{"unknown --algo " + request.algo};
  if (!knownCompressMode(request.compress))
    return Error{"unknown --compress " + request.compress + " (auto, zstd or none)"};
  if (auto dest = checkDestination(request.dest, "--dest"); !dest) {
    spdlog::warn("refused a send: {}", dest.error().message);
    return dest.error();
  }
  std::vector<AgentView> present;
  for (AgentView& a : coordinator_.status())
    if (canTakePart(a)) present.push_back(std::move(a));
  const std::vector<SkippedAgent> skipped = skippedOf(request);
  std::vector<std::string> to = request.to;
  // --until-all: an agent or site named whose agents cannot receive now is
  // owed the send, not a reason to refuse it.
  if (request.untilAll) {
    const std::vector<AgentView> known = coordinator_.status();
    std::erase_if(to, [&](const std::string& t) {
      bool off = false;
      for (const AgentView& a : known)
        if (wantedBy(a, {t})) {
          if (canTakePart(a)) return false;
          off = true;
        }
      return off;
    });
  }
  if (request.untilAll && to.empty() && !request.to.empty()) return Error{kNoneCanReceive};
  auto selected = selectAgents(std::move(present), to);
  if (!selected) {
    // An agent named that hnowd knows but cannot reach: say why.
    for (const SkippedAgent& k : skipped)
      for (const std::string& t : to)
        if (t == k.node)
          return Error{k.node + " cannot receive now (" + k.why +
                       "); leave it out of --to, or wait until it is back (or send with --until-all)"};
    return selected.error();
  }
  std::vector<AgentView> chosen = std::move(selected).value();
  if (chosen.empty()) return Error{request.untilAll && !skipped.empty() ? kNoneCanReceive : "no alive agent can receive"};
  for (const AgentView& a : chosen)
    for (const LinkView* link : {&a.links.up, &a.links.down})
      if (!link->rate.known())
        return Error{"the links of " + a.record.name +
                     " have not been measured yet: hnowd surveys them once agents have joined and no "
                     "operation runs (hnow status shows them; hnow measure asks for it now)"};
  return chosen;
}

void SendService::oweAll(const SendRequest& request, Started started) {
  const std::vector<SkippedAgent> skipped = skippedOf(request);
  std::string owed, why;
  for (const SkippedAgent& k : skipped) {
    owed += std::string(owed.empty() ? "" : ",") + jsonString(k.node);
    why += (why.empty() ? "" : ", ") + k.node + " (" + k.why + ")";
  }
  const std::string summary = "{\"file\":" + jsonString(request.path) + ",\"dest\":" + jsonString(request.dest) +
                              ",\"agents\":0,\"skipped\":" + std::to_string(skipped.size()) +
                              ",\"until_all\":true,\"owed\":[" + owed + "]}";
  const OperationId record = beginRecord(coordinator_, "send", summary);
  finishRecord(coordinator_, record, "owed", summary);
  SendEnd end{request, record, {}, {}};
  for (const SkippedAgent& k : skipped) end.missed.push_back(k.node);
  if (ended_) ended_(end);
  started(Error{"no agent this send is for can receive now: " + why + "; it is owed to them (--until-all, send record " +
                std::to_string(record) + "): each gets it when it is connected again (hnow status lists it)"});
}

void SendService::sourceCapsChanged() {
  bool running = false;
  double maxRate = 0.0;
  for (const auto& [id, r] : operations_) {
    if (r->released || !r->operation) continue;
    running = true;
    maxRate = capped(maxRate, r->maxRate);
  }
  if (!running) return;
  const double pace = capped(coordinator_.pacing().paceSource(configuredUplink_).pace, maxRate);
  spdlog::info("hnowd's caps changed: its uplink is paced at {:.1f} Mbit/s for the sends under way", pace * 8 / 1e6);
  plane_.pace(pace, coordinator_.pacing().coordinatorCaps().down.bytesPerSecond);
}

void SendService::seesTree(const std::string& path, const std::string& listingHex,
                           std::function<void(bool same)> done) {
  plane_.listTree(path, [listingHex, done](const Result<std::string>& listed) { done(listed && *listed == listingHex); });
}

void SendService::start(SendRequest request, Started started) {
  finished_.forgetOldest(operations_);
  forgetFamilies();
  if (request.untilAll && request.scratch) {
    plane_.dropScratch(request.path);
    return started(Error{"--until-all keeps a send owed to agents that are off, so its path must stay on "
                         "hnowd's machine; an upload or standard input is gone once its send ends (copy it "
                         "to hnowd's machine first, then send that path)"});
  }
  if (request.uploadIsTree) {
    // The client's directory, as the bundle it packed: unpacked here, then
    // sent as any directory (only what each agent lacks moves).
    request.uploadIsTree = false;
    const std::string bundle = request.path;
    // With a key, only what hnowd's kept copy lacked: unpacked over it, kept after the send.
    const bool kept = !request.uploadKey.empty();
    auto unpacked = [this, request, started, kept](const Result<std::string>& dir) mutable {
      if (!dir) return started(dir.error());
      request.path = *dir;
      request.scratch = true;
      request.scratchSource = std::shared_ptr<const void>(nullptr, [plane = &plane_, path = *dir, kept](const void*) {
        kept ? plane->releaseKept(path) : plane->dropScratch(path);
      });
      start(std::move(request), std::move(started));
    };
    if (kept) return plane_.unpackKept(request.uploadKey, bundle, unpacked);
    return plane_.unpackUpload(bundle, unpacked);
  }
  auto receivers = receiversOf(request);
  if (!receivers && receivers.error().message == kNoneCanReceive) return oweAll(request, std::move(started));
  if (!receivers) return started(receivers.error());
  if (!request.scratch && request.pin.readPath.empty() && pinner_) {
    auto pinned = pinner_(request.path);
    if (!pinned) return started(pinned.error());
    request.pin = std::move(pinned).value();
  }
  if (!plane_.isDirectory(readPathOf(request))) {
    for (const auto& [set, flag] : {std::pair{request.copy.atomic, "--atomic"}, std::pair{request.copy.deleteOthers, "--delete"}})
      if (set)
        return started(Error{std::string(flag) + " is for a directory's tree; " + request.path +
                             " is not a directory (a file is always renamed into place whole)"});
    std::unique_ptr<HeldBundle> upload;
    if (request.scratch) upload.reset(new HeldBundle{plane_, {request.path, 0, {}}, false});
    return askDestinations(std::move(request), std::move(receivers).value(), std::move(upload), std::move(started));
  }
  if (request.force)
    return started(Error{"--force is for a file; a directory's tree replaces the files it names (and --delete "
                         "removes the others)"});
  if (request.copy.atomic && request.copy.deleteOthers)
    return started(Error{"--atomic already replaces the whole tree; leave out --delete"});
  // A directory goes as one bundle of its tree, holding only the files some agent lacks.
  plane_.scanTree(readPathOf(request), [this, request, chosen = std::move(receivers).value(),
                                 started](const Result<TreeScan>& scanned) mutable {
    if (!scanned) return started(scanned.error());
    askAbout(std::move(request), std::move(chosen), std::make_shared<const TreeScan>(*scanned), std::move(started));
  });
}

void SendService::askDestinations(SendRequest request, std::vector<AgentView> chosen,
                                  std::unique_ptr<HeldBundle> upload, Started started) {
  auto size = plane_.sizeOf(readPathOf(request));
  if (!size) return started(size.error());
  std::vector<std::string> agents;
  for (const AgentView& a : chosen) agents.push_back(a.record.name);
  // Held until the answers come (std::function needs what it holds copyable).
  auto kept = std::make_shared<std::unique_ptr<HeldBundle>>(std::move(upload));
  askHolding(
      agents, [this](const std::string& name) { return coordinator_.link(name); }, request.dest, *size,
      digestOf(request),
      [this, request, chosen, kept, size = *size, started](const Result<HeldAtDest>& held) mutable {
        if (!held) {
          spdlog::warn("a send was refused by its destinations: {}", held.error().message);
          return refuseRecorded(request, "refused: " + held.error().message, started);
        }
        if (!request.force && !held->other.empty()) {
          const std::string why = refusalToReplace(held->other, request.dest);
          spdlog::warn("refused a send of {}: {}", request.path, why);
          return refuseRecorded(request, why, started);
        }
        copyHeldElsewhere(request, size, *held, [this, request, chosen, kept, size, started](HeldAtDest held) mutable {
          planHeld(std::move(request), std::move(chosen), kept, size, std::move(held), std::move(started));
        });
      });
}

void SendService::copyHeldElsewhere(const SendRequest& request, std::uint64_t size, HeldAtDest held,
                                    std::function<void(HeldAtDest)> done) {
  if (held.elsewhere.empty()) return done(std::move(held));
  std::vector<std::string> agents;
  for (const HeldElsewhere& e : held.elsewhere) agents.push_back(e.agent);
  auto copies = std::make_shared<HeldAtDest>(std::move(held));
  askAgents<std::string>(
      agents, [this](const std::string& name) { return coordinator_.link(name); },
      [request, size, copies](AgentLink& link, std::size_t i, std::function<void(const Result<std::string>&)> answer) {
        link.copyHeld(request.dest, copies->elsewhere[i].path, size, copies->sha256, answer);
      },
      [request, copies, done](std::vector<Result<std::string>> answers) {
        for (std::size_t i = 0; i < answers.size(); ++i) {
          const HeldElsewhere& e = copies->elsewhere[i];
          if (!answers[i]) {  // it is sent the file as any agent that lacks it
            spdlog::warn("send {}: {} held it at {} but could not copy it: {}", request.path, e.agent, e.path,
                         answers[i].error().message);
            continue;
          }
          spdlog::info("send {}: {} wrote {} from {}, which held the same bytes: nothing to send", request.path,
                       e.agent, *answers[i], e.path);
          copies->copied.push_back(e);
          copies->same.push_back(e.agent);
        }
        done(std::move(*copies));
      });
}

void SendService::planHeld(SendRequest request, std::vector<AgentView> chosen,
                           std::shared_ptr<std::unique_ptr<HeldBundle>> kept, std::uint64_t size, HeldAtDest held,
                           Started started) {
  std::vector<AgentView> holders;
  std::erase_if(chosen, [&held, &holders](const AgentView& a) {
    const bool holds = std::find(held.same.begin(), held.same.end(), a.record.name) != held.same.end();
    if (holds) holders.push_back(a);
    return holds;
  });
  if (chosen.empty()) return finishHeld(request, size, held, started);
  std::vector<AgentView> others = otherServers(request, chosen);
  for (const AgentView& h : holders) std::erase_if(others, [&h](const AgentView& o) { return o.record.name == h.record.name; });
  if (others.empty())
    return startPlanned(std::move(request), std::move(chosen), std::move(*kept), started, held, std::move(holders));
  askOthers(std::move(request), std::move(chosen), kept, held, std::move(holders), std::move(others), started);
}

std::vector<AgentView> SendService::otherServers(const SendRequest& request, const std::vector<AgentView>& chosen) const {
  if (request.compress == "zstd" || request.algo == "striped") return {};  // hnowd serves those
  const double hnowd = capped(coordinator_.pacing().sourceUplink(configuredUplink_).plan, request.maxRateBytesPerSecond);
  std::vector<AgentView> out;
  for (AgentView& a : coordinator_.status()) {
    const double up = capped(a.record.rates.uplinkBytesPerSecond, request.maxRateBytesPerSecond);
    const bool inSend = std::any_of(chosen.begin(), chosen.end(),
                                    [&a](const AgentView& c) { return c.record.name == a.record.name; });
    // A relay suspect, or an agent others cannot connect to, serves nobody
    // (relay_suspects.h, reachability.h): not asked.
    if (!inSend && canTakePart(a) && up > (1.0 + kHeldSourceGain) * hnowd && coordinator_.mayRelay(a.record.name))
      out.push_back(std::move(a));
  }
  std::sort(out.begin(), out.end(), [](const AgentView& a, const AgentView& b) {
    return a.record.rates.uplinkBytesPerSecond > b.record.rates.uplinkBytesPerSecond;
  });
  if (out.size() > kMaxOtherServers) out.resize(kMaxOtherServers);
  return out;
}

void SendService::askOthers(SendRequest request, std::vector<AgentView> chosen,
                            std::shared_ptr<std::unique_ptr<HeldBundle>> upload, HeldAtDest held,
                            std::vector<AgentView> holders, std::vector<AgentView> others, Started started) {
  auto size = plane_.sizeOf(readPathOf(request));
  if (!size) return started(size.error());
  // Each agent is asked on its own, so one that refuses the question (its
  // roots do not hold --dest) silences only itself; hnowd hashes the file
  // at most once for all of them (none when the send's own agents needed
  // its digest already).
  struct Asking {
    std::size_t waiting = 0;
    std::vector<bool> holds;
    std::string sha256;
  };
  auto asking = std::make_shared<Asking>();
  asking->waiting = others.size();
  asking->holds.assign(others.size(), false);
  FileDigest digest = digestOf(request);
  if (!held.sha256.empty())
    digest = [known = held.sha256](std::function<void(const Result<std::string>&)> done) { done(known); };
  auto answered = [this, asking, request, chosen, upload, held, holders, others, started]() mutable {
    if (--asking->waiting > 0) return;
    for (std::size_t k = 0; k < others.size(); ++k)
      if (asking->holds[k]) holders.push_back(others[k]);
    if (held.sha256.empty()) held.sha256 = asking->sha256;
    startPlanned(std::move(request), std::move(chosen), std::move(*upload), started, held, std::move(holders));
  };
  for (std::size_t k = 0; k < others.size(); ++k) {
    const std::string name = others[k].record.name;
    askHolding(
        {name}, [this](const std::string& n) { return coordinator_.link(n); }, request.dest, *size, digest,
        [asking, k, name, answered, path = request.path](const Result<HeldAtDest>& answer) mutable {
          if (!answer) {
            spdlog::info("send {}: {} was not asked to serve it: {}", path, name, answer.error().message);
          } else {
            asking->holds[k] = !answer->same.empty();
            if (!answer->sha256.empty()) asking->sha256 = answer->sha256;
          }
          answered();
        });
  }
}

FileDigest SendService::digestOf(const SendRequest& request) {
  // Every caller shares one hash: the first asks the plane, the others wait for it.
  struct Shared {
    std::optional<Result<std::string>> digest;
    bool hashing = false;
    std::vector<std::function<void(const Result<std::string>&)>> waiting;
  };
  auto shared = std::make_shared<Shared>();
  // The pin held until the hash is taken.
  return [this, shared, path = readPathOf(request), pin = request.pin](std::function<void(const Result<std::string>&)> done) {
    if (shared->digest) return done(*shared->digest);
    shared->waiting.push_back(std::move(done));
    if (std::exchange(shared->hashing, true)) return;
    plane_.hashFile(path, [shared](const Result<SourceFile>& file) {
      shared->digest = file ? Result<std::string>(file->sha256) : Result<std::string>(file.error());
      for (auto& want : std::exchange(shared->waiting, {})) want(*shared->digest);
    });
  };
}

void SendService::refuseRecorded(const SendRequest& request, const std::string& why, Started started) {
  const std::string summary = "{\"file\":" + recordedFile(request) + ",\"dest\":" + jsonString(request.dest) +
                              ",\"error\":" + jsonString(why) + "}";
  finishRecord(coordinator_, beginRecord(coordinator_, "send", summary), "failed", summary);
  started(Error{why});
}

void SendService::finishHeld(const SendRequest& request, std::uint64_t size, const HeldAtDest& held, Started started) {
  SendStatus s;
  s.finished = true;
  s.algo = "none";
  s.size = size;
  s.held = held.same;
  s.copiedHere = held.copied;
  s.skipped = skippedOf(request);
  s.maxRateBytesPerSecond = request.maxRateBytesPerSecond;
  SendEnd end{request, 0, held.same, {}};
  for (const SkippedAgent& k : s.skipped) end.missed.push_back(k.node);
  const std::string summary = "{\"file\":" + recordedFile(request) + ",\"dest\":" + jsonString(request.dest) +
                              ",\"size\":" + std::to_string(size) + ",\"agents\":0,\"held\":" +
                              jsonStrings(held.same) + copiedHereField(held.copied) + ",\"actual_s\":0,\"ok\":0,\"failed\":0,\"skipped\":" +
                              std::to_string(s.skipped.size()) +
                              (request.untilAll ? ",\"until_all\":true,\"owed\":" + jsonStrings(end.missed)
                                                : std::string()) +
                              (request.owedBy ? ",\"owed_by\":" + std::to_string(request.owedBy) : std::string()) + "}";
  end.record = beginRecord(coordinator_, "send", summary);
  finishRecord(coordinator_, end.record, "done", summary);
  spdlog::info("send {}: every agent it is for holds it at {} already: nothing moved", request.path, request.dest);
  if (ended_) ended_(end);
  started(std::make_pair(nextOperation_++, s));
}

void SendService::askAbout(SendRequest request, std::vector<AgentView> chosen, std::shared_ptr<const TreeScan> scan,
                           Started started) {
  std::vector<std::string> agents;
  for (const AgentView& a : chosen) agents.push_back(a.record.name);
  askMissing(
      agents, [this](const std::string& name) { return coordinator_.link(name); }, request.dest, scan,
      [this, id = scan->id](const std::vector<std::size_t>& files) { return plane_.digestQueries(id, files); },
      [this, scan, request, chosen, started](const Result<HeldTree>& held) {
        if (!held) {
          plane_.dropScan(scan->id);
          spdlog::warn("a tree send was refused by its destinations: {}", held.error().message);
          return started(held.error());
        }
        packFor(request, chosen, scan, *held, started);
      });
}

std::optional<SendStatus> SendService::status(std::uint64_t operation) const {
  if (auto family = families_.find(operation); family != families_.end()) return familyStatus(*family->second);
  auto it = operations_.find(operation);
  if (it == operations_.end()) return std::nullopt;
  SendStatus s = it->second->status();
  // A send whose last lost copy's wait ran out is over once the next tick
  // ends it and writes its record: not before, so that a client that sees
  // it finished finds the record finished too.
  if (!it->second->released) s.finished = false;
  return s;
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
  if (report.state == TransferReport::State::kParentUnreachable) {
    for (const std::string& parent : running.operation->takeUnreachable()) {
      if (coordinator_.reachability().refusedBy(parent, agent, report.message))
        spdlog::warn("agent {}: {}", parent, coordinator_.reachability().view(parent).note);
      spdlog::warn("send {}: {} cannot connect to {} ({}); {} feeds nobody in this send", id, agent, parent,
                   report.message, parent);
    }
    logReplan(id, *running.operation);
  }
  if (report.state == TransferReport::State::kParentCorrupt) {
    const std::vector<RelayFault> faults = running.operation->takeRelayFaults();
    // None: the source's own bytes (its file changed), or a parent already barred.
    if (faults.empty())
      spdlog::warn("send {}: {} got bytes that differ from the source's at byte {} ({})", id, agent, report.bytes,
                   report.message);
    for (const std::string& line : coordinator_.relaySuspects().caught("send", id, faults)) spdlog::warn("{}", line);
    logReplan(id, *running.operation);
  }
  endIfFinished(running);
}

void SendService::tick() {
  for (auto& [id, running] : operations_)
    if (!running->released && running->operation) endIfFinished(*running);
}

void SendService::agentGone(const std::string& agent) {
  for (auto& [id, running] : operations_) {
    if (running->released) continue;
    if (running->sourceAgent == agent) {
      // No other node holds the whole file to take its place.
      spdlog::warn("send {}: {}, which served the file, lost", id, agent);
      TransferReport failed;
      failed.state = TransferReport::State::kFailed;
      failed.message = "the agent serving the file, " + agent + ", was lost; send it again";
      for (const std::string& a : running->agents) running->operation->report(a, running->token, failed);
      endIfFinished(*running);
      continue;
    }
    if (!running->operation->involves(agent)) continue;
    spdlog::warn("send {}: agent {} lost; its children move", id, agent);
    running->operation->lost(agent);
    logReplan(id, *running->operation);
    endIfFinished(*running);
  }
}

void SendService::ratesDrifted(const RateEvent& e, const planner::NodeRates& rates) {
  if (e.rate != "uplink" && e.rate != "downlink") return;  // compute does not move bytes
  char reason[160];
  if (auto room = trunkRoom({e.agent, LinkDirection::kUp})) {
    std::snprintf(reason, sizeof reason, "trunk %s room %s: %.1f -> %.1f Mbit/s",
                  e.rate == "downlink" ? "into" : "out of", room->c_str(), e.before * 8 / 1e6, e.after * 8 / 1e6);
    const planner::Trunk trunk = knownTrunk(coordinator_.links(), *room);
    for (auto& [id, running] : operations_) {
      if (running->released || !running->operation) continue;
      running->operation->trunkChanged(*room, trunk, reason);
      logReplan(id, *running->operation);
    }
    return;
  }
  std::snprintf(reason, sizeof reason, "drift: %s %s %.1f -> %.1f Mbit/s", e.agent.c_str(), e.rate.c_str(),
                e.before * 8 / 1e6, e.after * 8 / 1e6);
  for (auto& [id, running] : operations_) {
    if (running->released || !running->operation->involves(e.agent)) continue;
    planner::NodeRates within = rates;  // --max-rate holds for the new plan too
    within.uplinkBytesPerSecond = capped(within.uplinkBytesPerSecond, running->maxRate);
    within.downlinkBytesPerSecond = capped(within.downlinkBytesPerSecond, running->maxRate);
    running->operation->ratesChanged(e.agent, within, reason);
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
  if (AgentLink* link = running.sourceAgent.empty() ? nullptr : coordinator_.link(running.sourceAgent))
    link->release(running.token);
  plane_.release(running.token);
  running.bundle.reset();
  // A client's tree unpacked for this send goes once no send of it (a
  // group's bundle, send_groups.cc) still holds it.
  running.request.scratchSource.reset();
  running.request.pin = {};  // the descriptor the check opened: the plane holds its own while it serves
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
  for (const LinkReading& r : learnHostIntake(coordinator_, s))
    spdlog::info("send {}: the agents on machine {} took in {:.1f} Mbit/s together ({})", running.id,
                 r.link.node, r.bytesPerSecond * 8 / 1e6,
                 r.saturated ? "slower than planned: the machine held them, its intake"
                             : "as planned: the machine takes in at least that");
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
  SendEnd end{running.request, running.record, running.heldAtDest, {}};
  for (const auto& c : s.copies) (c.state == CopyStatus::State::kDone ? end.delivered : end.missed).push_back(c.node);
  for (const SkippedAgent& k : s.skipped) end.missed.push_back(k.node);
  if (running.request.untilAll) {
    changes += ",\"until_all\":true,\"owed\":" + jsonStrings(end.missed);
  }
  if (running.request.owedBy) changes += ",\"owed_by\":" + std::to_string(running.request.owedBy);
  finishRecord(coordinator_, running.record, ok == s.copies.size() ? "done" : "failed", running.summary + numbers + changes + "}");
  if (ended_) ended_(end);
}

}  // namespace hnow::daemon
