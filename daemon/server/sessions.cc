#include "server/sessions.h"

#include <kj/debug.h>
#include <sys/stat.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "api/send_request_wire.h"
#include "api/send_status_wire.h"
#include "api/tree_status_wire.h"
#include "base/hex.h"
#include "base/log_context.h"
#include "server/link_values.h"
#include "server/send_paths.h"
#include "transport/held_lists_wire.h"
#include "transport/agent_wire.h"
#include "transport/link_wire.h"
#include "transport/pending_answer.h"
#include "core/send/owed_sends.h"
#include "core/links/hosts.h"
#include "core/links/rooms.h"
#include "core/send/send_service.h"
#include "core/links/survey_runner.h"
#include "transport/rpc_connection.h"
#include "transport/wire_caps.h"
#include "transport/wire_rates.h"
#include "transport/rpc_errors.h"
#include "transport/wire_bytes.h"

namespace hnow::daemon {

AgentSessionServer::AgentSessionServer(Coordinator& coordinator, SessionId session,
                                       std::string name, std::string peer)
    : coordinator_(coordinator), session_(session), name_(std::move(name)), peer_(std::move(peer)) {}

capnp::Capability::Server::DispatchCallResult AgentSessionServer::dispatchCall(
    uint64_t interfaceId, uint16_t methodId, capnp::CallContext<capnp::AnyPointer, capnp::AnyPointer> context) {
  LogScope scope(LogFields{0, name_, peer_});
  return wire::AgentSession::Server::dispatchCall(interfaceId, methodId, context);
}

capnp::Capability::Server::DispatchCallResult ClientSessionServer::dispatchCall(
    uint64_t interfaceId, uint16_t methodId, capnp::CallContext<capnp::AnyPointer, capnp::AnyPointer> context) {
  LogScope scope(LogFields{0, {}, peer_});
  return wire::ClientSession::Server::dispatchCall(interfaceId, methodId, context);
}

AgentSessionServer::~AgentSessionServer() {
  spdlog::info("agent {} disconnected", name_);
  coordinator_.detach(session_);
}

kj::Promise<void> AgentSessionServer::heartbeat(HeartbeatContext context) {
  auto params = context.getParams();
  std::optional<CounterSample> counters;
  if (params.hasCounters())
    if (auto sample = transport::countersFromWire(params.getCounters())) counters = countersOf(*sample);
  if (!coordinator_.heartbeat(session_, counters)) transport::refuse("this session was replaced by a newer one");
  return kj::READY_NOW;
}

kj::Promise<void> AgentSessionServer::reportRates(ReportRatesContext context) {
  auto params = context.getParams();
  auto rates = transport::ratesFromWire(params.getRates());
  KJ_REQUIRE(rates.has_value(), "rates must be finite and not negative");
  EmulatedLinks emulated;
  if (params.hasEmulated()) {
    emulated.uplinkBytesPerSecond = params.getEmulated().getUplinkBytesPerS();
    emulated.downlinkBytesPerSecond = params.getEmulated().getDownlinkBytesPerS();
    for (double v : {emulated.uplinkBytesPerSecond, emulated.downlinkBytesPerSecond})
      KJ_REQUIRE(std::isfinite(v) && v >= 0, "emulated rates must be finite and not negative");
  }
  if (!coordinator_.reportRates(session_, *rates, emulated))
    transport::refuse("this session was replaced by a newer one");
  spdlog::debug("agent {} reports uplink {:.0f} B/s, downlink {:.0f} B/s, compute {:.6f} s/unit",
                name_, rates->uplinkBytesPerSecond, rates->downlinkBytesPerSecond,
                rates->computeSecondsPerUnit);
  return kj::READY_NOW;
}

kj::Promise<void> AgentSessionServer::ping(PingContext) { return kj::READY_NOW; }

kj::Promise<void> AgentSessionServer::reportCaps(ReportCapsContext context) {
  auto caps = transport::capsFromWire(context.getParams().getCaps());
  KJ_REQUIRE(caps.has_value(), "caps must be finite and not negative, percentages at most 100");
  if (!coordinator_.reportCaps(session_, *caps)) transport::refuse("this session was replaced by a newer one");
  spdlog::info("agent {} caps in force: uplink {:.1f} Mbit/s, downlink {:.1f} Mbit/s (0: none; percentages aside)",
               name_, caps->up.bytesPerSecond(0) * 8 / 1e6, caps->down.bytesPerSecond(0) * 8 / 1e6);
  return kj::READY_NOW;
}

kj::Promise<void> AgentSessionServer::reportTransfer(ReportTransferContext context) {
  auto in = context.getParams().getReport();
  TransferReport report;
  switch (in.getState()) {
    case wire::TransferState::PROGRESS: report.state = TransferReport::State::kProgress; break;
    case wire::TransferState::DONE: report.state = TransferReport::State::kDone; break;
    case wire::TransferState::FAILED: report.state = TransferReport::State::kFailed; break;
    case wire::TransferState::PARENT_LOST: report.state = TransferReport::State::kParentLost; break;
    case wire::TransferState::PARENT_CORRUPT: report.state = TransferReport::State::kParentCorrupt; break;
    case wire::TransferState::PARENT_UNREACHABLE: report.state = TransferReport::State::kParentUnreachable; break;
  }
  report.bytes = in.getBytes();
  report.corruptChunks = in.getCorruptChunks();
  report.message = in.getMessage();
  report.path = in.getPath();
  report.sha256 = in.getSha256();
  report.parentAddress = in.getParentAddress();
  if (in.hasTree()) report.tree = api::treeOutcomeFromWire(in.getTree());
  auto token = in.getToken();
  const std::string key = transport::stringOf(token);
  if (!coordinator_.reportTransfer(session_, key, report)) transport::refuse("this session was replaced by a newer one");
  context.getResults().setForget(!coordinator_.tokenOwned(key));
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::send(SendContext context) {
  requireFull("start a send");
  if (!sends_) transport::refuse("this hnowd cannot send files");
  auto in = context.getParams().getRequest();
  SendRequest request{api::sendRequestFromWire(in)};
  if (request.upload != 0) {
    auto path = uploads_->take(request.upload);
    if (!path) transport::refuse("no upload " + std::to_string(request.upload) + " of this session is waiting to be sent");
    request.uploadedFrom = request.path;
    request.path = *path;
    request.scratch = true;
    request.uploadKey = keptKey(request.uploadKey);
  } else if (request.uploadIsTree) {
    transport::refuse("uploadIsTree names an upload; this send has none");
  } else if (!request.uploadKey.empty()) {  // hnowd's kept copy of the client's file: sees answered kept
    request.uploadedFrom = request.path;
    request.uploadKey = keptKey(request.uploadKey);
  } else if (auto pinned = pinSendSource(sendRoots_.get(), request.path); !pinned) {
    spdlog::warn("refused a send from {}: {}", peer_, pinned.error().message);
    transport::refuse(pinned.error().message);
  } else {
    request.pin = std::move(pinned).value();  // read as checked, whatever the path holds later
  }
  using Started = std::pair<std::uint64_t, SendStatus>;
  auto pending = transport::pendingAnswer<Started>();
  sends_->start(std::move(request), pending.answer);
  return pending.promise.then([context](kj::Own<Started> started) mutable {
    auto results = context.getResults();
    results.setOperation(started->first);
    api::toWire(started->second, results.initReport());
  });
}

namespace {

// A path hnowd does not have (the client's machine is another) needs no
// reason; one it will not read does.
std::string refusalOnly(const std::string& why) { return why.rfind("cannot ", 0) == 0 ? "" : why; }

}  // namespace

kj::Promise<void> ClientSessionServer::sees(SeesContext context) {
  requireFull("ask what hnowd's host holds");
  auto params = context.getParams();
  struct stat info {};
  const std::string path = params.getPath();
  // Outside [send] roots hnowd does not look: the client uploads the file.
  auto pinned = pinSendSource(sendRoots_.get(), path);
  if (!pinned) {
    context.getResults().setSame(false);
    context.getResults().setWhy(refusalOnly(pinned.error().message));
    context.getResults().setKept(keptFileHeld(params));
    return kj::READY_NOW;
  }
  const bool same = ::stat(pinned->readPath.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
                    static_cast<std::uint64_t>(info.st_size) == params.getSize() &&
                    static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec ==
                        params.getMtimeNs();
  context.getResults().setSame(same);
  if (!same) context.getResults().setKept(keptFileHeld(params));
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::seesTree(SeesTreeContext context) {
  requireFull("ask what hnowd's host holds");
  if (!sends_) transport::refuse("this hnowd cannot send files");
  auto params = context.getParams();
  const auto listing = params.getListing();
  if (listing.size() != 32) transport::refuse("a tree's listing digest is 32 bytes");
  const std::string hex = hexOf(listing.begin(), listing.size());
  auto pinned = pinSendSource(sendRoots_.get(), params.getPath());
  if (!pinned) {  // the client uploads the tree
    context.getResults().setSame(false);
    context.getResults().setWhy(refusalOnly(pinned.error().message));
    return kj::READY_NOW;
  }
  auto pending = transport::pendingAnswer<bool>();
  // Listed through the pin, held until the listing is taken.
  sends_->seesTree(pinned->readPath, hex, [answer = pending.answer, pin = *pinned](bool same) { answer(same); });
  return pending.promise.then([context](kj::Own<bool> same) mutable { context.getResults().setSame(*same); });
}

kj::Promise<void> ClientSessionServer::keptHeld(KeptHeldContext context) {
  requireFull("ask what hnowd keeps");
  if (!sends_) transport::refuse("this hnowd cannot send files");
  auto params = context.getParams();
  if (params.getKey().size() == 0) transport::refuse("a kept tree's key is empty");
  const std::string key = keptKey(params.getKey());
  const auto index = params.getIndex();
  using Answer = Result<SourcePlane::KeptAnswer>;
  auto pending = transport::pendingAnswer<Answer>();
  sends_->keptHeld(key, transport::stringOf(index),
                   [answer = pending.answer](const Answer& held) { answer(held); });
  return pending.promise.then([context](kj::Own<Answer> held) mutable {
    if (!*held) transport::refuse(held->error().message);
    transport::setHeldLists(context.getResults(), transport::data::HeldFiles{(*held)->missing, (*held)->sameSize});
  });
}

namespace {

class RpcAgentLink final : public AgentLink {
 public:
  RpcAgentLink(wire::AgentControl::Client control, kj::TaskSet& tasks, std::string name)
      : control_(kj::mv(control)), tasks_(tasks), name_(std::move(name)) {}
  // kj's capability handles may throw from their destructors; AgentLink's may not.
  ~RpcAgentLink() noexcept override {}

  void setEmulatedRates(const EmulatedRates& rates, Done done) override {
    auto request = control_.setEmulatedRatesRequest();
    auto out = request.initRates();
    out.setUplinkMbps(rates.uplinkMbps);
    out.setDownlinkMbps(rates.downlinkMbps);
    out.setComputeFactor(rates.computeFactor);
    auto answered = request.send().ignoreResult();
    tasks_.add(answered.then([done]() { done({}); },
                             [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  void probeNow() override { tasks_.add(control_.probeNowRequest().send().ignoreResult()); }

  void receive(const ReceiveOrder& order, ReceiveDone done) override {
    auto request = control_.receiveRequest();
    transport::toWire(order, request.initOrder());
    tasks_.add(request.send().then(
        [done](auto response) { done(std::string(response.getPath())); },
        [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  void treeHeld(const std::string& dest, const std::string& index, HeldDone done) override {
    auto request = control_.treeHeldRequest();
    request.setDest(dest);
    request.setIndex(transport::dataOf(index));
    tasks_.add(request.send().then(
        [done](auto response) {
          auto held = transport::heldListsOf(response);
          done(HeldAnswer{std::move(held.missing), std::move(held.sameSize)});
        },
        [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  void fileHeld(const std::string& dest, std::uint64_t size, const std::string& sha256, HoldingDone done) override {
    auto request = control_.fileHeldRequest();
    request.setDest(dest);
    request.setSize(size);
    request.setSha256(transport::dataOf(sha256));
    tasks_.add(request.send().then(
        [done](auto response) {
          FileHolding out{DestHolding::kOther, response.getHeldAt()};
          switch (response.getHolding()) {
            case wire::DestHolding::ABSENT: out.holding = DestHolding::kAbsent; break;
            case wire::DestHolding::SAME_SIZE: out.holding = DestHolding::kSameSize; break;
            case wire::DestHolding::SAME: out.holding = DestHolding::kSame; break;
            default: break;
          }
          done(out);
        },
        [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  void copyHeld(const std::string& dest, const std::string& from, std::uint64_t size, const std::string& sha256,
                CopiedDone done) override {
    auto request = control_.copyHeldRequest();
    request.setDest(dest);
    request.setFrom(from);
    request.setSize(size);
    request.setSha256(transport::dataOf(sha256));
    tasks_.add(request.send().then([done](auto response) { done(std::string(response.getPath())); },
                                   [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  void pull(const std::string& token, const std::string& parentAddress) override {
    auto request = control_.pullRequest();
    request.setToken(transport::dataOf(token));
    request.setParentAddress(parentAddress);
    tasks_.add(request.send().ignoreResult());
  }
  void release(const std::string& token) override {
    auto request = control_.releaseRequest();
    request.setToken(transport::dataOf(token));
    tasks_.add(request.send().ignoreResult());
  }
  void serveFile(const std::string& token, const std::string& file, double uplinkPaceBytesPerSecond,
                 ServeDone done) override {
    auto request = control_.serveFileRequest();
    request.setToken(transport::dataOf(token));
    request.setFile(file);
    request.setUplinkPaceBytesPerS(uplinkPaceBytesPerSecond);
    tasks_.add(request.send().then(
        [done](auto response) {
          auto sha = response.getSha256();
          auto pieces = response.getPieceDigests();
          done(ServedFile{response.getSize(), transport::stringOf(sha),
                          response.getDigestChunkBytes(),
                          transport::stringOf(pieces)});
        },
        [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  // `hnow run`.
  void fetchJobFile(const JobFileOrder& file, Done done) override {
    auto request = control_.fetchJobFileRequest();
    transport::toWire(file, request.initInput());
    tasks_.add(request.send().then([done](auto) { done({}); },
                                   [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  void runJobTask(const JobTaskOrder& task, TaskDone done) override {
    auto request = control_.runJobTaskRequest();
    transport::toWire(task, request.initTask());
    tasks_.add(request.send().then(
        [done](auto response) { done(transport::jobTaskAnswerFromWire(response.getResult())); },
        [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  static std::vector<HeldJobFile> heldOf(capnp::List<wire::HeldJobFile>::Reader list) {
    std::vector<HeldJobFile> held;
    for (auto h : list)
      held.push_back({std::string(reinterpret_cast<const char*>(h.getToken().begin()), h.getToken().size()),
                      h.getTask(), h.getEnded()});
    return held;
  }
  void awaitJobTask(const std::string& resultToken, TaskDone done) override {
    auto request = control_.awaitJobTaskRequest();
    request.setResultToken(transport::dataOf(resultToken));
    tasks_.add(request.send().then(
        [done](auto response) { done(transport::jobTaskAnswerFromWire(response.getResult())); },
        [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  void keepJobFiles(const std::vector<std::string>& tokens, HeldJobsDone done) override {
    auto request = control_.keepJobFilesRequest();
    auto list = request.initTokens(static_cast<unsigned>(tokens.size()));
    for (unsigned i = 0; i < list.size(); ++i) list.set(i, transport::dataOf(tokens[i]));
    tasks_.add(request.send().then(
        [done](auto response) { done(heldOf(response.getHeld())); },
        [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  void heldJobTasks(HeldJobsDone done) override {
    tasks_.add(control_.heldJobTasksRequest().send().then(
        [done](auto response) { done(heldOf(response.getHeld())); },
        [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  void offerFile(const std::string& token, const std::string& ticket, const std::string& address,
                 Done done) override {
    auto request = control_.offerFileRequest();
    request.setToken(transport::dataOf(token));
    request.setTicket(transport::dataOf(ticket));
    request.setAddress(address);
    tasks_.add(request.send().then([done](auto) { done({}); },
                                   [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }
  void dropJobFiles(const std::vector<std::string>& tokens) override {
    auto request = control_.dropJobFilesRequest();
    auto list = request.initTokens(static_cast<unsigned>(tokens.size()));
    for (unsigned i = 0; i < list.size(); ++i) list.set(i, transport::dataOf(tokens[i]));
    tasks_.add(request.send().ignoreResult().catch_([](kj::Exception&&) {}));
  }
  void probeLinks(const ProbeOrder& order, ProbeDone done) override {
    auto request = control_.probeLinksRequest();
    transport::toWire(probeOrderOf(order), request.initOrder());
    const std::size_t flows = order.pullFrom.size();
    tasks_.add(request.send().then(
        [done, flows](auto response) {
          auto result = transport::probeResultFromWire(response.getResult(), flows);
          if (result) return done(probeReplyOf(*result));
          done(result.error());
        },
        [done](kj::Exception&& e) { done(Error{transport::describe(e)}); }));
  }

 private:
  wire::AgentControl::Client control_;
  kj::TaskSet& tasks_;
  std::string name_;
};

}  // namespace

std::unique_ptr<AgentLink> makeRpcAgentLink(wire::AgentControl::Client control, kj::TaskSet& tasks,
                                            std::string name) {
  return std::make_unique<RpcAgentLink>(kj::mv(control), tasks, std::move(name));
}

}  // namespace hnow::daemon
