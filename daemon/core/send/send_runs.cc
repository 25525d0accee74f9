#include "core/send/send_runs.h"

#include <spdlog/spdlog.h>

#include <cstdio>

#include "api/send_picture_json.h"
#include "base/log_context.h"
#include "core/links/hosts.h"
#include "core/links/trunk_survey.h"
#include "core/operation_records.h"
#include "core/send/send_service_state.h"

namespace hnow::daemon {

SendRuns::SendRuns(Coordinator& coordinator, SourcePlane& plane, double configuredUplink)
    : coordinator_(coordinator), plane_(plane), configuredUplink_(configuredUplink) {
  coordinator_.addTransferObserver(this);
}

SendRuns::~SendRuns() { coordinator_.removeTransferObserver(this); }

std::pair<std::uint64_t, SendStatus> SendRuns::run(std::unique_ptr<RunningSend> send) {
  RunningSend& r = *send;
  r.id = nextId();
  // Paced from the moment it runs: hnowd's idle tick resets the pacing
  // whenever no operation is under way.
  plane_.pace(capped(coordinator_.pacing().paceSource(configuredUplink_).pace, r.maxRate),
              coordinator_.pacing().coordinatorCaps().down.bytesPerSecond);
  coordinator_.pacing().paceAgentUplinks(r.agents);
  r.operation->start();
  for (const std::string& t : r.transferTokens()) operationOfToken_[t] = r.id;
  operations_[r.id] = std::move(send);
  return {r.id, r.status()};
}

void SendRuns::forgetOldest() { finished_.forgetOldest(operations_); }

std::optional<SendStatus> SendRuns::status(std::uint64_t id) const {
  auto it = operations_.find(id);
  if (it == operations_.end()) return std::nullopt;
  SendStatus s = it->second->status();
  // A send whose last lost copy's wait ran out is over once the next tick
  // ends it and writes its record: not before, so that a client that sees
  // it finished finds the record finished too.
  if (!it->second->released) s.finished = false;
  return s;
}

void SendRuns::transferReport(const std::string& agent, const std::string& token,
                                 const TransferReport& report) {
  auto owner = operationOfToken_.find(token);
  if (owner == operationOfToken_.end()) return;  // still preparing
  RunningSend& running = *operations_.at(owner->second);
  // Its lines name the send by the id `hnow ops` shows, and carry it as a field.
  const OperationId id = running.record;
  LogScope scope(LogFields{id, agent, {}});
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
      if (coordinator_.relays().reachability().refusedBy(parent, agent, report.message))
        spdlog::warn("agent {}: {}", parent, coordinator_.relays().reachability().view(parent).note);
      spdlog::warn("send {}: {} cannot connect to {} ({}); {} feeds nobody in this send", id, agent, parent,
                   report.message, parent);
    }
    logReplan(running);
  }
  if (report.state == TransferReport::State::kParentCorrupt) {
    const std::vector<RelayFault> faults = running.operation->takeRelayFaults();
    // None: the source's own bytes (its file changed), or a parent already barred.
    if (faults.empty())
      spdlog::warn("send {}: {} got bytes that differ from the source's at byte {} ({})", id, agent, report.bytes,
                   report.message);
    for (const std::string& line : coordinator_.relayFaultsCaught("send", id, faults)) spdlog::warn("{}", line);
    logReplan(running);
  }
  endIfFinished(running);
}

void SendRuns::tick() {
  for (auto& [id, running] : operations_)
    if (!running->released && running->operation) endIfFinished(*running);
}

void SendRuns::agentGone(const std::string& agent) {
  for (auto& [id, running] : operations_) {
    if (running->released) continue;
    LogScope scope(LogFields{running->record, agent, {}});
    if (running->sourceAgent == agent) {
      // No other node holds the whole file to take its place.
      spdlog::warn("send {}: {}, which served the file, lost", running->record, agent);
      TransferReport failed;
      failed.state = TransferReport::State::kFailed;
      failed.message = "the agent serving the file, " + agent + ", was lost; send it again";
      for (const std::string& a : running->agents) running->operation->report(a, running->token, failed);
      endIfFinished(*running);
      continue;
    }
    if (!running->operation->involves(agent)) continue;
    spdlog::warn("send {}: agent {} lost; its children move", running->record, agent);
    running->operation->lost(agent);
    logReplan(*running);
    endIfFinished(*running);
  }
}

void SendRuns::ratesDrifted(const RateEvent& e, const planner::NodeRates& rates) {
  if (e.rate != "uplink" && e.rate != "downlink") return;  // compute does not move bytes
  char reason[160];
  if (auto room = trunkRoom({e.agent, LinkDirection::kUp})) {
    std::snprintf(reason, sizeof reason, "trunk %s room %s: %.1f -> %.1f Mbit/s",
                  e.rate == "downlink" ? "into" : "out of", room->c_str(), e.before * 8 / 1e6, e.after * 8 / 1e6);
    const planner::Trunk trunk = knownTrunk(coordinator_.links(), *room);
    for (auto& [id, running] : operations_) {
      if (running->released || !running->operation) continue;
      running->operation->trunkChanged(*room, trunk, reason);
      logReplan(*running);
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
    logReplan(*running);
  }
}

void SendRuns::collectFlows(Duration window, std::vector<Flow>& out) const {
  for (const auto& [id, running] : operations_)
    if (!running->released && running->operation) {
      auto flows = running->operation->flows(window);
      out.insert(out.end(), flows.begin(), flows.end());
    }
}

bool SendRuns::moving() const {
  for (const auto& [id, running] : operations_)
    if (!running->released) return true;
  return false;
}

void SendRuns::logReplan(const RunningSend& running) {
  const SendRun& operation = *running.operation;
  if (operation.replanNote().empty()) return;
  LogScope scope(operationField(running.record));
  spdlog::info("send {}: {} ({} replans, {} parent changes)", running.record, operation.replanNote(),
               operation.replans(), operation.parentChangeCount());
}

std::uint64_t SendRuns::runningWithRecord(OperationId record) const {
  for (const auto& [id, running] : operations_)
    if (!running->released && record != 0 && running->record == record) return id;
  return 0;
}

std::uint64_t SendRuns::withRecord(OperationId record) const {
  for (const auto& [id, running] : operations_)
    if (record != 0 && running->record == record) return id;
  return 0;
}

bool SendRuns::cancel(std::uint64_t id, const std::string& who) {
  auto it = operations_.find(id);
  if (it == operations_.end() || it->second->released) return false;
  RunningSend& running = *it->second;
  LogScope scope(operationField(running.record));
  spdlog::info("send {}: cancelled by {}", running.record, who);
  running.cancelledBy = who;
  running.request.untilAll = false;  // a cancelled send leaves nothing owed
  end(running);
  return true;
}

void SendRuns::endIfFinished(RunningSend& running) {
  if (running.released || !running.operation->finished()) return;
  end(running);
}

void SendRuns::end(RunningSend& running) {
  LogScope scope(operationField(running.record));
  running.released = true;
  if (running.operation) coordinator_.counts().replans += static_cast<std::uint64_t>(running.operation->replans());
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
  spdlog::info("send {} {} in {:.2f} s (predicted {:.2f} s): {} of {} copies{}", running.record,
               running.cancelledBy.empty() ? "finished" : "cancelled", s.elapsedS, s.predictedS, ok, s.copies.size(),
               skipped);
  for (const LinkReading& r : learnHostIntake(coordinator_, s))
    spdlog::info("send {}: the agents on machine {} took in {:.1f} Mbit/s together ({})", running.record,
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
  if (running.request.groups > 1) {  // the family's record, finished once every group has ended
    if (groupEnded_) groupEnded_(end);
    return;
  }
  if (running.request.untilAll) {
    changes += ",\"until_all\":true,\"owed\":" + jsonStrings(end.missed);
  }
  if (running.request.owedBy) changes += ",\"owed_by\":" + std::to_string(running.request.owedBy);
  const bool cancelled = !running.cancelledBy.empty();
  if (cancelled) changes += ",\"cancelled_by\":" + jsonString(running.cancelledBy);
  const char* outcome = cancelled ? "cancelled" : ok == s.copies.size() ? "done" : "failed";
  // Kept with the record, so `hnow ops show ID --svg` draws it after the fact.
  if (s.picture) changes += ",\"picture\":" + api::sendPictureJson(*s.picture);
  finishRecord(coordinator_, running.record, outcome, running.summary + numbers + changes + "}");
  if (ended_) ended_(end);
}

void SendRuns::sourceCapsChanged() {
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

}  // namespace hnow::daemon
