// The agent's transfer reports to hnowd: each data plane event of a send's
// receive (progress, done with what a tree's unpack published, failed, a
// lost parent, a parent whose bytes the source's digests refute), over the
// session; a job file's events go to the job runner instead.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <vector>

#include "agent/agent_runtime.h"
#include "agent/job_runner.h"
#include "agent/receiver.h"
#include "base/printable.h"
#include "transport/wire_bytes.h"

namespace hnow::agent {

namespace {

// What an unpack published, as hnowd's report carries it: the first
// problems listed (names made printable), the rest counted.
void treeToWire(const transport::data::UnpackedTree& t, wire::TreeOutcome::Builder out) {
  out.setFiles(t.files);
  out.setBytes(t.bytes);
  out.setReplaced(t.replaced);
  out.setHeld(t.held);
  out.setDeleted(t.deleted);
  out.setCopied(t.copied);
  out.setFailedCount(t.failed.size());
  auto failed = out.initFailed(static_cast<unsigned>(std::min<std::size_t>(t.failed.size(), wire::MAX_PATH_PROBLEMS)));
  for (unsigned i = 0; i < failed.size(); ++i) {
    failed[i].setPath(printable(t.failed[i].path));
    failed[i].setWhy(printable(t.failed[i].why));
  }
}

}  // namespace

void AgentRuntime::reportTransfer(const transport::data::TransferEvent& e, const transport::data::UnpackedTree* unpacked) {
  if (jobs_ && jobs_->onTransfer(e)) return;  // a job file's: answered by fetchJobFile
  // A parked receive's (one that landed as it was parked): told under the token of the send that adopts it.
  if (receiver_ && receiver_->parks(e.token)) return;
  LastReport& last = lastReports_[e.token];
  last.event = e;
  if (unpacked && e.kind == transport::data::TransferEvent::Kind::kDone) last.unpacked = *unpacked;
  // What a resumed receive cost is what the plane took since it was parked (logged then too).
  if (e.kind == transport::data::TransferEvent::Kind::kDone && receiver_ && receiver_->adopted(e.token))
    spdlog::info("{} is whole, resumed from the part received before; this agent's data plane has received {} bytes in all",
                 e.path, receiver_->bytesReceived());
  // Progress spaced as hnowd asked (the latest is kept, and goes with the next).
  const hnow::TimePoint now = clock_.now();
  if (e.kind == transport::data::TransferEvent::Kind::kProgress && now - last.sentAt < last.every) return;
  last.sentAt = now;
  // Without a session it waits: sent again once logged back in to the same hnowd.
  if (session_) sendReport(e.token);
}

void AgentRuntime::spaceProgress(const transport::orders::ReceiveOrder& order) {
  const hnow::Duration every = std::chrono::milliseconds(order.progressEveryMs);
  lastReports_[order.token].every = every;
  for (const transport::orders::StripeOrder& stripe : order.stripes) lastReports_[stripe.token].every = every;
}

void AgentRuntime::reportAgain() {
  std::vector<std::string> tokens;
  for (const auto& [token, last] : lastReports_) tokens.push_back(token);
  if (!tokens.empty()) spdlog::info("back at hnowd: reporting {} transfer(s) again", tokens.size());
  for (const std::string& token : tokens) sendReport(token);
}

void AgentRuntime::parkTransfers() {
  using Kind = transport::data::TransferEvent::Kind;
  std::set<std::string> unfinished;
  for (const auto& [token, last] : lastReports_)
    if (last.event.kind != Kind::kDone && last.event.kind != Kind::kFailed) unfinished.insert(token);
  lastReports_.clear();
  paces_.clear();
  downPaces_.clear();
  applyRates();
  if (!receiver_) return;
  receiver_->park(unfinished);
  holdPartials();
}

void AgentRuntime::holdPartials() {
  if (!receiver_ || receiver_->parked() == 0) return;
  spdlog::info("keeping {} partial receive(s) for hnowd's next send of the same files, for at most {:.0f} s; "
               "this agent's data plane has received {} bytes in all",
               receiver_->parked(), hnow::seconds(kHoldPartials), receiver_->bytesReceived());
  holdingPartials_ = timer_.afterDelay(kHoldPartials.count() * kj::NANOSECONDS).then([this]() {
    if (std::size_t n = receiver_ ? receiver_->dropParked() : 0)
      spdlog::warn("no send resumed {} partial receive(s) within {:.0f} s: dropped", n, hnow::seconds(kHoldPartials));
  }).eagerlyEvaluate(nullptr);
}

void AgentRuntime::sendReport(const std::string& token) {
  auto it = lastReports_.find(token);
  // An entry made by spaceProgress before any event: nothing to say yet.
  if (it == lastReports_.end() || !session_ || it->second.event.token.empty()) return;
  const transport::data::TransferEvent& e = it->second.event;
  auto request = session_->reportTransferRequest();
  auto out = request.initReport();
  out.setToken(transport::dataOf(e.token));
  using Kind = transport::data::TransferEvent::Kind;
  switch (e.kind) {
    case Kind::kProgress: out.setState(wire::TransferState::PROGRESS); break;
    case Kind::kDone: out.setState(wire::TransferState::DONE); break;
    case Kind::kFailed: out.setState(wire::TransferState::FAILED); break;
    case Kind::kParentLost: out.setState(wire::TransferState::PARENT_LOST); break;
    case Kind::kParentCorrupt: out.setState(wire::TransferState::PARENT_CORRUPT); break;
    case Kind::kParentUnreachable: out.setState(wire::TransferState::PARENT_UNREACHABLE); break;
  }
  out.setBytes(e.bytes);
  out.setCorruptChunks(e.corruptChunks);
  out.setMessage(e.message);
  out.setPath(e.path);
  out.setSha256(e.sha256Hex);
  out.setParentAddress(e.parent);
  if (it->second.unpacked && e.kind == Kind::kDone) treeToWire(*it->second.unpacked, out.initTree());
  // No operation of hnowd's holds it any more: it ended while this agent was away.
  request.send()
      .then([this, alive = alive_, token](auto answer) {
        if (!*alive || !answer.getForget() || !lastReports_.count(token)) return;
        spdlog::info("hnowd no longer runs a transfer held here: released");
        lastReports_.erase(token);
        if (receiver_) receiver_->release(token);
        paceReceive(token, 0.0, 0.0);
      })
      .detach([](kj::Exception&&) {});
}

}  // namespace hnow::agent
