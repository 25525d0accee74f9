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
      services_(services), tasks_(*this), connections_(*this) {}

kj::Promise<void> ControlServer::listen(kj::ConnectionReceiver& receiver) {
  return receiver.accept().then([this, &receiver](kj::Own<kj::AsyncIoStream> stream) {
    serve(kj::mv(stream));
    return listen(receiver);
  });
}

namespace {

// Counts a connection as unauthenticated for as long as it lives.
class Unauthenticated {
 public:
  explicit Unauthenticated(std::size_t& count) : count_(count) { ++count_; }
  ~Unauthenticated() { --count_; }
  KJ_DISALLOW_COPY(Unauthenticated);

 private:
  std::size_t& count_;
};

enum class LoginOutcome { kLoggedIn, kDeadline, kEnded };

}  // namespace

void ControlServer::serve(kj::Own<kj::AsyncIoStream> stream) {
  std::string peer = peerName(*stream);
  if (unauthenticated_ >= limits_.maxUnauthenticated) {
    // Dropping the stream closes it. A flood is logged, not every connection of it.
    if (refused_++ % 100 == 0)
      spdlog::warn("closed a connection from {}: {} connections are waiting to log in ({} refused so far)",
                   peer, unauthenticated_, refused_);
    return;
  }
  spdlog::debug("control connection from {}", peer);
  kj::Own<void> counted = kj::heap<Unauthenticated>(unauthenticated_);
  const kj::TimePoint deadline = timer_.now() + limits_.loginTimeout;
  // The handshake counts against the login deadline: a peer that stalls in
  // it holds a slot no longer than one that stalls before logging in.
  kj::Promise<kj::Own<kj::AsyncIoStream>> secured =
      tls_ ? timer_.timeoutAt(deadline, tls_->wrapServer(kj::mv(stream)))
           : kj::Promise<kj::Own<kj::AsyncIoStream>>(kj::mv(stream));
  connections_.add(secured.then(
      [this, peer, deadline, counted = kj::mv(counted)](kj::Own<kj::AsyncIoStream> s) mutable {
        return serveSecured(kj::mv(s), peer, deadline, kj::mv(counted));
      },
      [peer](kj::Exception&& e) -> kj::Promise<void> {
        spdlog::warn("refused {}: TLS handshake failed: {}", peer, e.getDescription().cStr());
        return kj::READY_NOW;
      }));
}

kj::Promise<void> ControlServer::serveSecured(kj::Own<kj::AsyncIoStream> stream, std::string peer,
                                              kj::TimePoint deadline, kj::Own<void> counted) {
  auto login = kj::newPromiseAndFulfiller<void>();
  auto cut = kj::newPromiseAndFulfiller<void>();  // `hnow agent revoke` closes the connection
  auto gate = kj::heap<GateServer>(coordinator_, trust_, tasks_, peer, kj::mv(login.fulfiller), services_,
                                   kj::mv(cut.fulfiller));
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
                   .exclusiveJoin(ended.addBranch().then([]() { return LoginOutcome::kEnded; }));
  return first
      .then([this, peer, ended = kj::mv(ended), counted = kj::mv(counted), cut = kj::mv(cut.promise)](
                LoginOutcome outcome) mutable -> kj::Promise<void> {
        counted = nullptr;  // no longer waiting to log in
        if (outcome == LoginOutcome::kDeadline) {
          spdlog::warn("closed the connection from {}: no login within {} s", peer,
                       limits_.loginTimeout / kj::MILLISECONDS / 1000.0);
          return kj::READY_NOW;  // dropping the connection closes it
        }
        if (outcome == LoginOutcome::kEnded) return kj::READY_NOW;
        return ended.addBranch().exclusiveJoin(cut.then([peer]() {
          spdlog::warn("closed the connection from {}: its agent was revoked", peer);
        }));
      })
      .attach(kj::mv(connection));
}

void ControlServer::taskFailed(kj::Exception&& exception) {
  // A peer that vanishes mid-call is routine; anything else is worth a warning.
  if (exception.getType() == kj::Exception::Type::DISCONNECTED)
    spdlog::debug("control connection ended: {}", exception.getDescription().cStr());
  else
    spdlog::warn("control connection: {}", exception.getDescription().cStr());
}

}  // namespace hnow::daemon
