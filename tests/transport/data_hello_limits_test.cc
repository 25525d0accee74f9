// A data port without a token holds nothing for long or in bulk (DESIGN.md
// "Integrity and security defaults"): a connection that never says hello is closed at the hello
// deadline, and past maxAwaitingHello new ones are closed at once. Unit
// level because the real deadline (10 s) is too long for a process test.
#include <doctest/doctest.h>

#include "process/raw_peer.h"
#include "transport/data/data_plane.h"
#include "transport/data/frame.h"

using namespace hnow::transport::data;
using hnow::testing::RawPeer;
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
