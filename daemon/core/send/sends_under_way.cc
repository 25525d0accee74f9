#include "core/send/sends_under_way.h"

#include <algorithm>
#include <set>
#include <sstream>

#include <spdlog/spdlog.h>

#include "core/agent_selection.h"
#include "core/operation_records.h"
#include "core/send/stored_send.h"

namespace hnow::daemon {

SendsUnderWay::SendsUnderWay(Coordinator& coordinator, StateStore& store, const Clock& clock, StartSend start)
    : coordinator_(coordinator), store_(store), clock_(clock), start_(std::move(start)) {}

namespace {

// A client's stamp of its file as state.db keeps it: "size mtime ctime inode".
std::string stampText(const api::FileStamp& s) {
  return std::to_string(s.size) + " " + std::to_string(s.mtimeNs) + " " + std::to_string(s.ctimeNs) + " " +
         std::to_string(s.inode);
}

api::FileStamp stampOf(const std::string& text) {
  api::FileStamp s;
  std::istringstream in(text);
  in >> s.size >> s.mtimeNs >> s.ctimeNs >> s.inode;
  return s;
}

// The path as its record names it: a client's upload by the client's path.
std::string shownPath(const StoredSendUnderWay& s) { return s.uploadedFrom.empty() ? s.path : s.uploadedFrom; }

}  // namespace

bool SendsUnderWay::keeps(const SendRequest& request) {
  // A client's upload is kept when it is sent from hnowd's kept copy of it
  // (that copy outlives hnowd): a file's, or a directory's whose listing
  // the send took; a bare upload or an uploaded tree's scratch directory
  // is not.
  const bool keptFile = request.scratch && request.keptCopy && !request.uploadKey.empty();
  const bool keptTree = request.scratch && !request.keptTree.empty() && !request.uploadKey.empty();
  return request.record != 0 && (!request.scratch || keptFile || keptTree) && request.owedBy == 0 &&
         request.group <= 1;
}

std::string SendsUnderWay::notKeptWhy(const SendRequest& request) {
  if (request.record == 0 || !request.scratch || request.owedBy != 0 || request.group > 1 || keeps(request)) return "";
  const std::string head = "hnowd stopped mid-send and cannot run it again: ";
  // Within 10 minutes of hnowd's restart an agent resumes a receive it parked (docs/send.md).
  const std::string resumes = " (within 10 minutes of hnowd's restart each agent resumes from the part it holds)";
  if (request.uploadedFrom == "-")
    return head + "it keeps no copy of standard input, which cannot be read again; pipe it into `hnow send -` "
                  "again" + resumes;
  if (request.uploadedTree && request.uploadKey.empty())
    return head + "it sent the directory from a scratch copy, which went with it (its kept copy of the directory "
                  "was in use by another send); send the directory again" + resumes;
  if (request.uploadedTree)
    return head + "it could not list its copy of the directory to check it again; send the directory again" +
           resumes;
  if (!request.uploadKey.empty())
    return head + "it had no room to keep a copy of the uploaded file, and the upload went with it; send the file "
                  "again" + resumes;
  return head + "the file changed while it was uploaded, so hnowd kept no copy of it, and the upload went with it; "
                "send the file again" + resumes;
}

void SendsUnderWay::keep(const SendRequest& request, const std::vector<std::string>& agents) {
  const std::string why = notKeptWhy(request);
  if (!keeps(request) && why.empty()) return;
  StoredSendUnderWay send;
  static_cast<StoredOwedSend&>(send) = storedOf(request);
  send.id = request.record;
  send.untilAll = request.untilAll;
  if (request.keptCopy) send.uploadKey = request.uploadKey, send.uploadStamp = stampText(request.uploadStamp);
  if (!request.keptTree.empty()) send.uploadKey = request.uploadKey, send.keptTree = request.keptTree;
  send.uploadedFrom = request.uploadedFrom;
  send.notKeptWhy = why;
  send.agents = agents;
  send.since = clock_.wallNow();
  // Not kept, it ends "interrupted" should hnowd stop: the send itself goes ahead.
  if (auto saved = store_.saveSendUnderWay(send); !saved)
    spdlog::error("keeping send record {} for a restarted hnowd: {}", send.id, saved.error().message);
}

void SendsUnderWay::drop(OperationId record) {
  if (record == 0) return;
  if (auto removed = store_.removeSendUnderWay(record); !removed)
    spdlog::error("send record {} ended, but state.db still keeps it under way: {}", record, removed.error().message);
}

Result<void> SendsUnderWay::restore(Duration grace) {
  auto stored = store_.loadSendsUnderWay();
  if (!stored) return stored.error();
  for (const StoredSendUnderWay& s : *stored) {
    // An upload of which it kept no copy: its record says why, and what to do.
    if (!s.notKeptWhy.empty()) {
      end(s, "interrupted", s.notKeptWhy);
      continue;
    }
    spdlog::info("send record {} ({} to {} agent(s)) was under way when the last hnowd stopped: it runs again once "
                 "its agents are back",
                 s.id, shownPath(s), s.agents.size());
    const OperationId id = s.id;
    waiting_[id] = Waiting{s, clock_.now() + grace};
  }
  return {};
}

std::string SendsUnderWay::endedSummary(const StoredSendUnderWay& stored, const std::string& field,
                                        const std::string& value) {
  // The record's summary as the send described it (its plan), the end added.
  auto record = coordinator_.operationLog().find(stored.id);
  if (record && *record) {
    std::string summary = (*record)->summary;
    while (!summary.empty() && summary.back() != '}') summary.pop_back();
    if (summary.size() >= 2 && summary.front() == '{') {
      summary.pop_back();
      const bool empty = summary.find_first_not_of(" \n\t", 1) == std::string::npos;
      return summary + (empty ? "\"" : ",\"") + field + "\":" + jsonString(value) + "}";
    }
  }
  return "{\"file\":" + jsonString(shownPath(stored)) + ",\"dest\":" + jsonString(stored.dest) + ",\"" + field +
         "\":" + jsonString(value) + "}";
}

void SendsUnderWay::end(const StoredSendUnderWay& stored, const std::string& status, const std::string& why) {
  spdlog::warn("send record {} ends {}: {}", stored.id, status, why);
  finishRecord(coordinator_, stored.id, status, endedSummary(stored, "error", why));
  drop(stored.id);
}

bool SendsUnderWay::cancel(OperationId record, const std::string& who) {
  auto it = waiting_.find(record);
  if (it == waiting_.end()) return false;
  const StoredSendUnderWay stored = it->second.stored;
  waiting_.erase(it);
  spdlog::info("send record {}: cancelled by {} while it waited for its agents after a restart", record, who);
  finishRecord(coordinator_, record, "cancelled", endedSummary(stored, "cancelled_by", who));
  drop(record);
  return true;
}

std::set<std::string> SendsUnderWay::backAgents() const {
  std::set<std::string> back;
  for (const AgentView& a : coordinator_.status())
    if (canTakePart(a) && a.links.up.rate.known() && a.links.down.rate.known()) back.insert(a.record.name);
  return back;
}

std::vector<SendsUnderWay::WaitingSend> SendsUnderWay::waitingSends() const {
  std::vector<WaitingSend> out;
  if (waiting_.empty()) return out;
  const std::set<std::string> back = backAgents();
  const TimePoint now = clock_.now();
  for (const auto& [record, w] : waiting_) {
    WaitingSend send{record, shownPath(w.stored), w.stored.dest, w.stored.agents, {},
                     std::max(Duration{}, w.until - now)};
    for (const std::string& agent : w.stored.agents)
      if (!back.count(agent)) send.away.push_back(agent);
    out.push_back(std::move(send));
  }
  return out;
}

void SendsUnderWay::tick() {
  if (waiting_.empty()) return;
  const std::set<std::string> connected = backAgents();
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const StoredSendUnderWay& stored = it->second.stored;
    std::vector<std::string> back, away;
    for (const std::string& agent : stored.agents) (connected.count(agent) ? back : away).push_back(agent);
    if (!away.empty() && clock_.now() < it->second.until) {
      ++it;
      continue;
    }
    const StoredSendUnderWay send = stored;
    it = waiting_.erase(it);
    if (back.empty() && !send.untilAll) {
      end(send, "interrupted", "none of its agents was back within seconds of hnowd's restart");
      continue;
    }
    std::string missing;
    for (const std::string& a : away) missing += (missing.empty() ? "" : ", ") + a;
    if (!away.empty())
      spdlog::warn("send record {}: {} not back after hnowd's restart: {}", send.id, missing,
                   send.untilAll ? "owed it (--until-all)" : "left out");
    SendRequest request = requestOf(send, send.untilAll ? send.agents : back);
    request.untilAll = send.untilAll;
    if (!send.uploadKey.empty()) {  // sent again from hnowd's kept copy (SendService::startKeptFile, startKeptTree)
      request.uploadKey = send.uploadKey;
      request.uploadStamp = stampOf(send.uploadStamp);
      request.keptTree = send.keptTree;
      request.uploadedFrom = send.uploadedFrom;
    }
    if (!send.untilAll)
      for (const std::string& a : away) request.leftOut.push_back({a, "not back when hnowd ran the send again after its restart"});
    request.record = send.id;
    spdlog::info("send record {}: runs again for {} agent(s) (only what each lacks moves)", send.id,
                 request.to.size());
    start_(std::move(request), [this, send](const Result<std::uint64_t>& started) {
      if (started) return;
      // Its kept copy is not the one it sent: nothing else is sent in its place.
      const bool copyChanged = started.error().message.rfind(kKeptCopyChanged, 0) == 0;
      end(send, copyChanged ? "interrupted" : "failed", started.error().message);
    });
  }
}

}  // namespace hnow::daemon
