// A parent nobody can connect to (behind NAT) hands a file over on a
// connection it dials itself (DataPlane::offer, awaitOffer): the receiver
// pulls over it as over its own, and only the ticket it handed out opens
// the receive.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/socket.h>

#include <fstream>
#include <future>

#include "cli/run_process.h"
#include "process/raw_peer.h"
#include "transport/data/data_plane.h"
#include "transport/data/frame.h"
#include "transport/data_plane_nodes.h"

using namespace hnow::transport::data;
using namespace hnow::testing;
using namespace std::chrono_literals;

namespace {

// An agent's plane that listens nowhere, as one behind NAT: nobody can pull
// from it, so whatever it hands over goes over connections it opens.
struct Unreachable {
  hnow::SteadyClock clock;
  Events events;
  DataPlane plane;
  explicit Unreachable(DataOptions options = {}) : plane(clock, events.sink(), options) {}

  // Serves `bytes` under `token`, as a job's result.
  void serve(const TempDir& dir, const std::string& token, const std::string& bytes) {
    const auto path = dir.path / ("served-" + std::to_string(++served));
    std::ofstream(path, std::ios::binary) << bytes;
    plane.addSource(token, ::open(path.c_str(), O_RDONLY | O_CLOEXEC), bytes.size());
  }
  // offer()'s answer: "" when the receiver said HELLO, else why not.
  std::string offer(const std::string& token, const std::string& ticket, const std::string& address) {
    auto answered = std::make_shared<std::promise<std::string>>();
    auto result = answered->get_future();
    plane.offer(token, ticket, address, [answered](const hnow::Result<void>& started) {
      answered->set_value(started ? "" : started.error().message);
    });
    if (result.wait_for(10s) != std::future_status::ready) return "no answer within 10 s";
    return result.get();
  }
  int served = 0;
};

// The most bytes a progress report of `events` told.
std::uint64_t heldBytes(Events& events) {
  std::lock_guard lock(events.mutex);
  std::uint64_t most = 0;
  for (const TransferEvent& e : events.all)
    if (e.kind == TransferEvent::Kind::kProgress) most = std::max(most, e.bytes);
  return most;
}

const std::string kToken(kTokenBytes, 't');
const std::string kTicket(kTokenBytes, 'o');

// hnowd's side: a receive of `bytes` into dir/hnowd/result under kToken,
// waiting for an offer of kTicket.
void awaitResult(Node& hnowd, const TempDir& dir, const std::string& bytes) {
  hnowd.plane.receive(kToken, bytes.size(), shaOf(bytes), targetIn(dir.path / "hnowd", "result"));
  hnowd.plane.awaitOffer(kToken, kTicket);
}

}  // namespace

TEST_CASE("a parent nobody can connect to hands its file over on a connection it dials, checked by SHA-256") {
  TempDir dir;
  Node hnowd;
  Unreachable agent;
  const std::string bytes = randomBytes(3 << 20);
  agent.serve(dir, kToken, bytes);
  awaitResult(hnowd, dir, bytes);

  CHECK(agent.offer(kToken, kTicket, hnowd.address) == "");
  auto done = hnowd.events.waitFor(TransferEvent::Kind::kDone);
  REQUIRE(done);
  CHECK(done->bytes == bytes.size());
  CHECK(readWhole(dir.path / "hnowd" / "result") == bytes);
  CHECK(agent.plane.bytesSent() == bytes.size());  // served from byte 0, once
}

TEST_CASE("an offer opens only the receive whose ticket it presents: forged tickets and a file's token are refused") {
  TempDir dir;
  Node hnowd;
  Unreachable agent;
  const std::string bytes = randomBytes(1 << 20);
  agent.serve(dir, kToken, bytes);
  awaitResult(hnowd, dir, bytes);

  // A peer that knows the file's token but not the ticket, and one guessing.
  for (const std::string& wrong : {kToken, std::string(kTokenBytes, 'x')}) {
    RawPeer forger(hnowd.address);
    REQUIRE(forger.connected());
    REQUIRE(forger.send(encodeFrame(FrameType::kOffer, 0, wrong)));
    CHECK(forger.readUntilClosed(2s));
    CHECK(forger.received.empty());  // not even a HELLO: nothing is pulled from it
  }
  // The real agent presenting a wrong ticket is closed the same way.
  CHECK(agent.offer(kToken, std::string(kTokenBytes, 'x'), hnowd.address) != "");
  CHECK_FALSE(hnowd.events.first(TransferEvent::Kind::kDone));
  // A receive that pulls as usual takes no offer either.
  const std::string other(kTokenBytes, 'p');
  hnowd.plane.receive(other, bytes.size(), shaOf(bytes), targetIn(dir.path / "hnowd", "pulled"));
  RawPeer pullers(hnowd.address);
  REQUIRE(pullers.send(encodeFrame(FrameType::kOffer, 0, other)));
  CHECK(pullers.readUntilClosed(2s));
  CHECK(pullers.received.empty());

  CHECK(agent.offer(kToken, kTicket, hnowd.address) == "");
  REQUIRE(hnowd.events.waitFor(TransferEvent::Kind::kDone));
  CHECK(readWhole(dir.path / "hnowd" / "result") == bytes);
}

TEST_CASE("a connection the parent dialed that ends mid-way: its next offer resumes from the bytes held") {
  TempDir dir;
  DataOptions options;
  options.windowBytes = 256 << 10;  // little in flight, so a resume is told from a restart
  Node hnowd(options);
  Unreachable agent(options);
  agent.plane.setRates(4 << 20, 0);  // 8 MiB over 2 s: time to cut it
  const std::string bytes = randomBytes(8 << 20);
  agent.serve(dir, kToken, bytes);
  awaitResult(hnowd, dir, bytes);

  REQUIRE(agent.offer(kToken, kTicket, hnowd.address) == "");
  REQUIRE(eventually([&]() { return heldBytes(hnowd.events) >= (1 << 20); }, 5s));
  agent.plane.release(kToken);  // the agent's end goes: its connection with it
  auto lost = hnowd.events.waitFor(TransferEvent::Kind::kParentLost);
  REQUIRE(lost);
  CHECK(lost->bytes > 0);
  CHECK(lost->bytes < bytes.size());
  CHECK_FALSE(hnowd.events.first(TransferEvent::Kind::kFailed));

  agent.serve(dir, kToken, bytes);
  CHECK(agent.offer(kToken, kTicket, hnowd.address) == "");
  REQUIRE(hnowd.events.waitFor(TransferEvent::Kind::kDone));
  CHECK(readWhole(dir.path / "hnowd" / "result") == bytes);
  // Only what was in flight when the connection ended went twice.
  CHECK(agent.plane.bytesSent() < bytes.size() + lost->bytes);
}

TEST_CASE("an offer that cannot be made says why: a port that refuses, a file the agent does not hold, a bad ticket") {
  TempDir dir;
  Unreachable agent;
  agent.serve(dir, kToken, "result");
  // A port nobody listens on: bound, never listening, so connects are refused.
  const int bound = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof any;
  REQUIRE(::bind(bound, reinterpret_cast<sockaddr*>(&any), sizeof any) == 0);
  REQUIRE(::getsockname(bound, reinterpret_cast<sockaddr*>(&any), &length) == 0);
  const std::string refusing = "127.0.0.1:" + std::to_string(ntohs(any.sin_port));

  const std::string refused = agent.offer(kToken, kTicket, refusing);
  CHECK(refused.find("cannot hand the file over to " + refusing) != std::string::npos);
  CHECK(refused.find("cannot connect") != std::string::npos);
  CHECK(agent.offer(std::string(kTokenBytes, 'u'), kTicket, refusing).find("holds no whole file") !=
        std::string::npos);
  CHECK(agent.offer(kToken, "short", refusing).find("ticket must be 32 bytes") != std::string::npos);
  CHECK(agent.offer(kToken, kTicket, "nowhere").find("cannot resolve") != std::string::npos);
  ::close(bound);
}

TEST_CASE("an offer waits for a hello slot as a hello does: a flood from another address keeps no offer out") {
  TempDir dir;
  DataOptions options;
  options.maxAwaitingHello = 4;
  options.maxAwaitingHelloPerHost = 2;
  Node hnowd(options);
  Unreachable agent;
  std::vector<std::unique_ptr<RawPeer>> flood;
  for (int i = 0; i < 10; ++i) flood.push_back(std::make_unique<RawPeer>(hnowd.address, "127.0.0.2"));
  std::size_t closed = 0;
  for (auto& peer : flood) closed += peer->readUntilClosed(100ms);
  CHECK(closed == 6);  // every slot taken: the rest refused at once
  const std::string bytes = randomBytes(1 << 20);
  agent.serve(dir, kToken, bytes);
  awaitResult(hnowd, dir, bytes);
  // From 127.0.0.1, under its share: it takes the oldest slot of 127.0.0.2.
  const auto start = std::chrono::steady_clock::now();
  CHECK(agent.offer(kToken, kTicket, hnowd.address) == "");
  REQUIRE(hnowd.events.waitFor(TransferEvent::Kind::kDone, 5s));
  CHECK(std::chrono::steady_clock::now() - start < 2s);
  CHECK(readWhole(dir.path / "hnowd" / "result") == bytes);
}
