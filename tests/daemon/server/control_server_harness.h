#pragma once
// A real ControlServer on 127.0.0.1 (port chosen by the OS) in the test's
// own event loop, with a timer the test advances by hand for deadlines.
#include <arpa/inet.h>
#include <kj/async-io.h>
#include <kj/timer.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/core/memory_state_store.h"
#include "daemon/server/test_trust.h"
#include "server/control_server.h"
#include "transport/gate_client.h"
#include "transport/rpc_connection.h"

namespace hnow::testing {

struct ControlServerHarness {
  kj::AsyncIoContext io = kj::setupAsyncIo();
  kj::WaitScope& ws = io.waitScope;
  kj::TimerImpl timer{kj::origin<kj::TimePoint>()};
  hnow::ManualClock clock;
  daemon::MemoryStateStore store;
  daemon::Coordinator coordinator{clock, daemon::RateTableOptions{}, store};
  TestTrust keys{clock};
  kj::Own<kj::ConnectionReceiver> receiver;
  kj::Own<daemon::ControlServer> server;
  kj::Promise<void> listening = nullptr;

  explicit ControlServerHarness(daemon::ConnectionLimits limits, kj::TlsContext* tls = nullptr) {
    receiver = io.provider->getNetwork().parseAddress("127.0.0.1:0").wait(ws)->listen();
    server = kj::heap<daemon::ControlServer>(coordinator, keys.trust, timer, limits, tls);
    listening = server->listen(*receiver).eagerlyEvaluate(nullptr);
  }
  ~ControlServerHarness() {
    listening = nullptr;  // stop accepting before the server goes
    server = nullptr;
  }

  kj::Own<kj::AsyncIoStream> connectRaw() {
    auto address = io.provider->getNetwork()
                       .parseAddress(kj::str("127.0.0.1:", receiver->getPort()))
                       .wait(ws);
    return address->connect().attach(kj::mv(address)).wait(ws);
  }

  // A connection from another loopback address (127.0.0.2 ...): another
  // peer to hnowd's per-address limits, on the same machine.
  kj::Own<kj::AsyncIoStream> connectFrom(const char* source) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    KJ_REQUIRE(fd >= 0);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &local.sin_addr);
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(static_cast<std::uint16_t>(receiver->getPort()));
    ::inet_pton(AF_INET, "127.0.0.1", &server.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
        ::connect(fd, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0) {
      ::close(fd);
      KJ_FAIL_REQUIRE("cannot connect from", source);
    }
    return io.lowLevelProvider->wrapSocketFd(fd, kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP);
  }
  // True when hnowd closed `stream` (end of stream), false while it stays open.
  bool closedByServer(kj::AsyncIoStream& stream) {
    char byte = 0;
    auto read = stream.tryRead(&byte, 1, 1).then([](std::size_t n) { return n == 0; },
                                                   [](kj::Exception&&) { return true; });
    return io.provider->getTimer().timeoutAfter(200 * kj::MILLISECONDS, kj::mv(read))
        .then([](bool closed) { return closed; }, [](kj::Exception&&) { return false; })
        .wait(ws);
  }

  struct Peer {
    kj::Own<transport::RpcConnection> connection;
    wire::Gate::Client gate;
  };
  Peer peerOver(kj::Own<kj::AsyncIoStream> stream) {
    auto connection = kj::heap<transport::RpcConnection>(kj::mv(stream));
    auto gate = connection->peerBootstrap<wire::Gate>();
    return Peer{kj::mv(connection), kj::mv(gate)};
  }
  Peer connect() { return peerOver(connectRaw()); }

  // Bounds a wait with the real clock so a broken check fails instead of hanging.
  template <class T>
  T within(kj::Promise<T> promise, kj::Duration limit = 3 * kj::SECONDS) {
    return io.provider->getTimer().timeoutAfter(limit, kj::mv(promise)).wait(ws);
  }
  // The failure's description, or "" when `promise` succeeds.
  template <class T>
  std::string failureOf(kj::Promise<T> promise) {
    std::string failure;
    KJ_IF_MAYBE(e, kj::runCatchingExceptions([&]() { within(kj::mv(promise)); })) {
      failure = e->getDescription().cStr();
      if (failure.empty()) failure = "(failed)";
    }
    return failure;
  }
};

}  // namespace hnow::testing
