#pragma once
// hnowd's RPC glue over an in-memory pipe: the real Gate, sessions and
// Coordinator, a manual clock, no sockets (as capnp's rpc-twoparty-test).
#include <kj/async-io.h>
#include <kj/debug.h>

#include <functional>

#include "daemon/core/memory_state_store.h"
#include "daemon/server/test_trust.h"
#include "server/gate_server.h"
#include "transport/gate_client.h"
#include "transport/rpc_connection.h"
#include "transport/rpc_errors.h"

namespace hnow::testing {

using transport::Bytes;
using transport::Role;


struct Failures final : kj::TaskSet::ErrorHandler {
  void taskFailed(kj::Exception&&) override {}
};

// What an agent's AgentControl received.
struct Received {
  std::vector<double> uplinks;
};

class RecordingControl final : public wire::AgentControl::Server {
 public:
  explicit RecordingControl(Received& r) : received_(r) {}

 protected:
  kj::Promise<void> setEmulatedRates(SetEmulatedRatesContext context) override {
    received_.uplinks.push_back(context.getParams().getRates().getUplinkMbps());
    return kj::READY_NOW;
  }
  kj::Promise<void> probeNow(ProbeNowContext) override { return kj::READY_NOW; }

 private:
  Received& received_;
};

struct Harness {
  kj::EventLoop loop;
  kj::WaitScope ws{loop};
  hnow::ManualClock clock;
  daemon::MemoryStateStore store;
  daemon::Coordinator coordinator{clock, daemon::RateTableOptions{}, store};
  testing::TestTrust keys{clock};
  Failures failures;
  kj::TaskSet tasks{failures};

  // One connection: the server end inside, the peer's end returned;
  // `from` is the address hnowd sees it from.
  struct Link {
    kj::Own<transport::RpcConnection> server;
    kj::Own<transport::RpcConnection> peer;
    wire::Gate::Client gate;
  };
  Link connect(const std::string& from = "in-memory") {
    auto pipe = kj::newTwoWayPipe();
    auto server = kj::heap<transport::RpcConnection>(
        kj::mv(pipe.ends[0]), kj::heap<daemon::GateServer>(coordinator, keys.trust, tasks, from));
    auto peer = kj::heap<transport::RpcConnection>(kj::mv(pipe.ends[1]));
    auto gate = peer->peerBootstrap<wire::Gate>();
    return Link{kj::mv(server), kj::mv(peer), kj::mv(gate)};
  }

  // Logs in as `name` with `key` (by default the key hnowd's config binds to it);
  // `registering` may add to the registration (site "room-a").
  wire::AgentSession::Client loginAgent(Link& link, const std::string& name, Received& received,
                                        const transport::KeyPair* key = nullptr,
                                        const std::function<void(wire::Registration::Builder)>& registering = {}) {
    if (!key) key = &keys.agentKey(name);
    auto opening = transport::openGate(link.gate, keys.hnowdKey.publicKey()).wait(ws);
    auto request = link.gate.loginAgentKeyRequest();
    keys.signAgent(request, name, *key, opening.nonce);
    request.getRegistration().setSite("room-a");
    if (registering) registering(request.getRegistration());
    request.setControl(kj::heap<RecordingControl>(received));
    return request.send().wait(ws).getSession();
  }

  std::string failureOf(kj::Function<void()> call) {
    KJ_IF_MAYBE(e, kj::runCatchingExceptions([&]() { call(); })) { return transport::describe(*e); }
    return "";
  }
};


}  // namespace hnow::testing
