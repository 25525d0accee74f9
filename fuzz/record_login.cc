// Writes the seed of gate_stream_fuzz: the bytes a real client sends to
// hnowd while it logs in and asks for the status (Bootstrap, challenge,
// loginOperator, status), recorded between the real peer and the real Gate.
// Usage: record_login client|agent OUT_FILE (an agent registers as "a1"
// and reports its rates). The first byte is gate_stream_fuzz's "close the
// connection at the end" flag.
#include <kj/async-io.h>
#include <kj/debug.h>

#include <fstream>
#include <string>

#include "daemon/core/memory_state_store.h"
#include "daemon/server/test_trust.h"
#include "server/gate_server.h"
#include "transport/gate_client.h"
#include "transport/rpc_connection.h"

namespace {

using namespace hnow;

struct Ignore final : kj::TaskSet::ErrorHandler {
  void taskFailed(kj::Exception&&) override {}
};

// Copies `from` to `to`, keeping a copy of every byte in `record` when given.
kj::Promise<void> pump(kj::AsyncIoStream& from, kj::AsyncIoStream& to, std::string* record, kj::byte* buffer) {
  return from.tryRead(buffer, 1, 4096).then([&from, &to, record, buffer](std::size_t n) -> kj::Promise<void> {
    if (n == 0) return kj::READY_NOW;
    if (record) record->append(reinterpret_cast<const char*>(buffer), n);
    return to.write(buffer, n).then([&from, &to, record, buffer]() { return pump(from, to, record, buffer); });
  });
}

}  // namespace

int main(int argc, char** argv) {
  KJ_REQUIRE(argc == 3, "usage: record_login client|agent OUT_FILE");
  const bool agent = std::string(argv[1]) == "agent";
  kj::EventLoop loop;
  kj::WaitScope ws(loop);
  hnow::ManualClock clock;
  daemon::MemoryStateStore store;
  daemon::Coordinator coordinator{clock, daemon::RateTableOptions{}, store};
  testing::TestTrust keys{clock};
  Ignore ignore;
  kj::TaskSet tasks(ignore);

  auto toServer = kj::newTwoWayPipe();
  auto toClient = kj::newTwoWayPipe();
  transport::RpcConnection server(kj::mv(toServer.ends[0]),
                                  kj::heap<daemon::GateServer>(coordinator, keys.trust, tasks, "recorder"));
  transport::RpcConnection client(kj::mv(toClient.ends[0]));
  std::string sent;
  kj::byte up[4096], down[4096];
  auto upward = pump(*toClient.ends[1], *toServer.ends[1], &sent, up).eagerlyEvaluate(nullptr);
  auto downward = pump(*toServer.ends[1], *toClient.ends[1], nullptr, down).eagerlyEvaluate(nullptr);

  auto gate = client.peerBootstrap<wire::Gate>();
  if (agent) {
    auto opening = transport::openGate(gate, keys.hnowdKey.publicKey()).wait(ws);
    auto login = gate.loginAgentKeyRequest();
    keys.signAgent(login, "a1", keys.agentKey("a1"), opening.nonce);
    auto registration = login.getRegistration();
    registration.setSite("room-a");
    registration.setDataAddress("127.0.0.1:9000");
    registration.initRoots(1).set(0, "/srv/hnow");
    auto session = login.send().wait(ws).getSession();
    auto report = session.reportRatesRequest();
    report.initRates().setUplinkBytesPerS(12.5e6);
    report.send().wait(ws);
  } else {
    auto session = keys.loginOperator(gate).wait(ws);
    session.statusRequest().send().wait(ws);
  }
  std::ofstream(argv[2], std::ios::binary) << '\0' << sent;
  return 0;
}
