#include "server/control_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include "server/gate_server.h"
#include "transport/message_limit_stream.h"
#include "transport/rpc_connection.h"

namespace hnow::daemon {

namespace {

std::string peerName(kj::AsyncIoStream& stream) {
  sockaddr_storage address{};
  kj::uint length = sizeof address;
  stream.getpeername(reinterpret_cast<sockaddr*>(&address), &length);
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (address.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&address);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    port = ntohs(in->sin_port);
  } else if (address.ss_family == AF_INET6) {
    auto* in = reinterpret_cast<sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
    port = ntohs(in->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace

ControlServer::ControlServer(Coordinator& coordinator, const Trust& trust, kj::Timer& timer,
                             ConnectionLimits limits, kj::TlsContext* tls, Services services)
    : coordinator_(coordinator), trust_(trust), timer_(timer), limits_(limits), tls_(tls),
      slots_({limits.maxUnauthenticated, limits.maxUnauthenticatedPerHost}),
      challenges_(limits.challengesPerSecondPerHost, 2 * limits.challengesPerSecondPerHost), services_(services),
      tasks_(*this), connections_(*this) {
  // Client sessions pace the progress they push on hnowd's loop.
  if (!services_.timer) services_.timer = &timer_;
  if (!services_.following) services_.following = std::make_shared<FollowGauge>();
}

kj::Promise<void> ControlServer::listen(kj::ConnectionReceiver& receiver) {
  return receiver.accept().then([this, &receiver](kj::Own<kj::AsyncIoStream> stream) {
    serve(kj::mv(stream));
    return listen(receiver);
  });
}

namespace {

// Holds a connection's pre-login slot for as long as it lives.
class Unauthenticated {
 public:
  Unauthenticated(PeerSlots& slots, std::map<PeerSlots::Ticket, kj::Own<kj::PromiseFulfiller<void>>>& evictors,
                  PeerSlots::Ticket ticket)
      : slots_(slots), evictors_(evictors), ticket_(ticket) {}
  ~Unauthenticated() {
    slots_.release(ticket_);
    evictors_.erase(ticket_);
  }
  KJ_DISALLOW_COPY(Unauthenticated);

 private:
  PeerSlots& slots_;
  std::map<PeerSlots::Ticket, kj::Own<kj::PromiseFulfiller<void>>>& evictors_;
  PeerSlots::Ticket ticket_;
};

enum class LoginOutcome { kLoggedIn, kDeadline, kEnded, kEvicted };

// A flood is logged, not every connection of it: the first, then every 100th.
bool worthLogging(std::size_t& count) { return count++ % 100 == 0; }

}  // namespace

std::optional<PeerSlots::Ticket> ControlServer::takeSlot(const std::string& peer,
                                                         kj::Own<kj::PromiseFulfiller<void>> evict) {
  const std::string host = addressOf(peer);
  PeerSlots::Admission admission = slots_.admit(host);
  if (admission.verdict != PeerSlots::Verdict::kAdmitted) {
    if (worthLogging(refused_)) {
      if (admission.verdict == PeerSlots::Verdict::kPeerFull)
        spdlog::warn("closed a connection from {}: every slot is taken and {} connections from {} are waiting to "
                     "log in, its share (max_unauthenticated_per_host; {} refused so far)",
                     peer, slots_.heldBy(host), host, refused_);
      else
        spdlog::warn("closed a connection from {}: {} connections are waiting to log in ({} refused so far)", peer,
                     slots_.held(), refused_);
    }
    return std::nullopt;
  }
  if (admission.evicted) {
    auto it = evictors_.find(*admission.evicted);
    if (it != evictors_.end()) {
      it->second->fulfill();
      evictors_.erase(it);
    }
    if (worthLogging(evictions_))
      spdlog::warn("closed the oldest connection from {} waiting to log in, to make room for {}: every slot is "
                   "taken and {} holds the most ({} evicted so far)",
                   admission.evictedPeer, peer, admission.evictedPeer, evictions_);
  }
  evictors_[admission.ticket] = kj::mv(evict);
  return admission.ticket;
}

void ControlServer::serve(kj::Own<kj::AsyncIoStream> stream) {
  std::string peer = peerName(*stream);
  auto evict = kj::newPromiseAndFulfiller<void>();
  std::optional<PeerSlots::Ticket> ticket = takeSlot(peer, kj::mv(evict.fulfiller));
  if (!ticket) return;  // dropping the stream closes it
  kj::Own<void> counted = kj::heap<Unauthenticated>(slots_, evictors_, *ticket);
  spdlog::debug("control connection from {}", peer);
  auto evicted = evict.promise.fork();
  const kj::TimePoint deadline = timer_.now() + limits_.loginTimeout;
  // The handshake counts against the login deadline: a peer that stalls in
  // it holds a slot no longer than one that stalls before logging in.
  kj::Promise<kj::Own<kj::AsyncIoStream>> secured =
      tls_ ? timer_.timeoutAt(deadline, tls_->wrapServer(kj::mv(stream)))
                 .exclusiveJoin(evicted.addBranch().then([]() -> kj::Own<kj::AsyncIoStream> {
                   kj::throwFatalException(KJ_EXCEPTION(DISCONNECTED, "closed to make room for another peer"));
                 }))
           : kj::Promise<kj::Own<kj::AsyncIoStream>>(kj::mv(stream));
  connections_.add(secured.then(
      [this, peer, deadline, counted = kj::mv(counted), evicted = kj::mv(evicted)](
          kj::Own<kj::AsyncIoStream> s) mutable {
        return serveSecured(kj::mv(s), peer, deadline, kj::mv(counted), evicted.addBranch());
      },
      [peer](kj::Exception&& e) -> kj::Promise<void> {
        if (e.getType() != kj::Exception::Type::DISCONNECTED)
          spdlog::warn("refused {}: TLS handshake failed: {}", peer, e.getDescription().cStr());
        return kj::READY_NOW;
      }));
}

kj::Promise<void> ControlServer::serveSecured(kj::Own<kj::AsyncIoStream> stream, std::string peer,
                                              kj::TimePoint deadline, kj::Own<void> counted,
                                              kj::Promise<void> evicted) {
  auto login = kj::newPromiseAndFulfiller<void>();
  auto cut = kj::newPromiseAndFulfiller<void>();  // `hnow agent revoke`, or a reload withdrawing an operator
  const std::string host = addressOf(peer);
  ChallengeBudget budget = [this, host]() { return mayChallenge(host); };
  auto gate = kj::heap<GateServer>(coordinator_, trust_, tasks_, peer, kj::mv(login.fulfiller), services_,
                                   kj::mv(cut.fulfiller), kj::mv(budget));
  // Messages over the reader's limit are refused, and logged, from the segment table.
  auto limited = kj::heap<transport::MessageLimitStream>(
      kj::mv(stream), peer, transport::peerReaderOptions().traversalLimitInWords * sizeof(capnp::word));
  auto connection = kj::heap<transport::RpcConnection>(kj::mv(limited), kj::mv(gate));
  auto ended = connection->onDisconnect().fork();
  // Until the peer logs in, the deadline passes or the connection ends.
  auto first = login.promise
                   .then([]() { return LoginOutcome::kLoggedIn; },
                         [](kj::Exception&&) { return LoginOutcome::kEnded; })
                   .exclusiveJoin(timer_.atTime(deadline).then([]() { return LoginOutcome::kDeadline; }))
                   .exclusiveJoin(ended.addBranch().then([]() { return LoginOutcome::kEnded; }))
                   .exclusiveJoin(evicted.then([]() { return LoginOutcome::kEvicted; },
                                               [](kj::Exception&&) { return LoginOutcome::kEnded; }));
  return first
      .then([this, peer, ended = kj::mv(ended), counted = kj::mv(counted), cut = kj::mv(cut.promise)](
                LoginOutcome outcome) mutable -> kj::Promise<void> {
        counted = nullptr;  // no longer waiting to log in
        if (outcome == LoginOutcome::kDeadline) {
          spdlog::warn("closed the connection from {}: no login within {} s", peer,
                       limits_.loginTimeout / kj::MILLISECONDS / 1000.0);
          return kj::READY_NOW;  // dropping the connection closes it
        }
        if (outcome == LoginOutcome::kEnded || outcome == LoginOutcome::kEvicted) return kj::READY_NOW;
        return ended.addBranch().exclusiveJoin(cut.then([peer]() {
          spdlog::warn("closed the connection from {}: what it logged in as was withdrawn (an agent revoked, or an "
                       "operator removed or changed by a reload of hnowd's config)",
                       peer);
        }));
      })
      .attach(kj::mv(connection));
}

bool ControlServer::mayChallenge(const std::string& host) {
  const hnow::TimePoint now{std::chrono::nanoseconds((timer_.now() - kj::origin<kj::TimePoint>()) / kj::NANOSECONDS)};
  if (challenges_.allow(host, now)) return true;
  if (worthLogging(refusedChallenges_))
    spdlog::warn("refused a login challenge from {}: more than {} a second from that address, each one hnowd "
                 "signs (max {} a second per address; {} refused so far)",
                 host, challenges_.perSecond(), challenges_.perSecond(), refusedChallenges_);
  return false;
}

void ControlServer::taskFailed(kj::Exception&& exception) {
  // A peer that vanishes mid-call is routine; anything else is worth a warning.
  if (exception.getType() == kj::Exception::Type::DISCONNECTED)
    spdlog::debug("control connection ended: {}", exception.getDescription().cStr());
  else
    spdlog::warn("control connection: {}", exception.getDescription().cStr());
}

}  // namespace hnow::daemon
