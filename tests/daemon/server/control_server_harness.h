#pragma once
// A real ControlServer on 127.0.0.1 (port chosen by the OS) in the test's
// own event loop, with a timer the test advances by hand for deadlines.
#include <kj/async-io.h>
#include <kj/timer.h>

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
