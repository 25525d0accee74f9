// A data port without a token holds nothing for long or in bulk (docs/architecture.md "Integrity and security
// defaults"): a connection that never says hello is closed at the hello deadline, and past maxAwaitingHello new ones
// are closed at once. Unit level because the real deadline (10 s) is too long for a process test.
#include <doctest/doctest.h>
#include <fcntl.h>

#include <fstream>
#include <memory>

#include "cli/run_process.h"
#include "process/raw_peer.h"
#include "transport/data/data_plane.h"
#include "transport/data/frame.h"
#include "transport/data_plane_nodes.h"

using namespace hnow::transport::data;
using namespace hnow::testing;
using namespace std::chrono_literals;

TEST_CASE("connections that never say hello are closed at the deadline, and past the limit at once") {
  hnow::SteadyClock clock;
  DataOptions options;
  options.helloTimeout = 300ms;
  options.maxAwaitingHello = 2;
  DataPlane plane(clock, [](TransferEvent) {}, options);
  auto port = plane.listen("127.0.0.1");
  REQUIRE(port.ok());
  const std::string address = "127.0.0.1:" + std::to_string(port.value());

  const auto start = std::chrono::steady_clock::now();
  RawPeer first(address), second(address);
  REQUIRE(first.connected());
  REQUIRE(second.connected());
  std::this_thread::sleep_for(50ms);  // both accepted before the third arrives
  RawPeer third(address);
  CHECK(third.readUntilClosed(200ms));  // over the limit: closed at once
  CHECK(std::chrono::steady_clock::now() - start < 300ms);
  // A half-sent frame does not count as a hello.
  REQUIRE(second.send(encodeFrame(FrameType::kHello, 0, std::string(kTokenBytes, 'x')).substr(0, 20)));
  CHECK(first.readUntilClosed(2000ms));
  CHECK(second.readUntilClosed(2000ms));
  const auto waited = std::chrono::steady_clock::now() - start;
  // libuv's timers run on the loop's clock, whole milliseconds cached at
  // the start of each turn: the deadline may fire a fraction of one early.
  CHECK(waited >= 299ms);
  CHECK(waited < 1500ms);
  // The slots are free again: a new connection is held until its own deadline.
  RawPeer fourth(address);
  CHECK_FALSE(fourth.readUntilClosed(150ms));
}

TEST_CASE("a flood of connections that never say hello, from one address or from several, never keeps a child out") {
  TempDir dir;
  DataOptions options;
  options.maxAwaitingHello = 6;
  options.maxAwaitingHelloPerHost = 2;
  Node source(options), child;
  // One address takes every free slot; once all are taken, it is refused at once.
  std::vector<std::unique_ptr<RawPeer>> flood;
  for (int i = 0; i < 20; ++i) flood.push_back(std::make_unique<RawPeer>(source.address, "127.0.0.2"));
  std::size_t closed = 0;
  for (auto& peer : flood) closed += peer->readUntilClosed(100ms);
  CHECK(closed == 14);
  // Other addresses take its slots, oldest first, up to their share of 2.
  for (const char* from : {"127.0.0.3", "127.0.0.4", "127.0.0.5"})
    for (int i = 0; i < 3; ++i) flood.push_back(std::make_unique<RawPeer>(source.address, from));
  std::this_thread::sleep_for(100ms);
  // A child from 127.0.0.1 still pulls at once, taking the oldest slot of an
  // address holding the most.
  const std::string bytes = randomBytes(4 << 20);
  std::ofstream(dir.path / "source", std::ios::binary) << bytes;
  const std::string token(kTokenBytes, 'k');
  source.plane.addSource(token, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), bytes.size());
  child.plane.receive(token, bytes.size(), shaOf(bytes), targetIn(dir.path / "child", "f"));
  const auto start = std::chrono::steady_clock::now();
  child.plane.pull(token, source.address);
  auto done = child.events.waitFor(TransferEvent::Kind::kDone, 5s);
  REQUIRE(done);
  CHECK(std::chrono::steady_clock::now() - start < 2s);
  CHECK(readWhole(dir.path / "child" / "f") == bytes);
  std::size_t open = 0;
  for (auto& peer : flood) open += peer->connected() && !peer->readUntilClosed(20ms);
  CHECK(open == 5);  // 6 slots, one given to the child (which has said hello since)
}
