#include <doctest/doctest.h>

#include <deque>

#include "base/token_bucket.h"
#include "transport/data/send_window.h"

using namespace hnow::transport::data;
using hnow::TokenBucket;
using hnow::ManualClock;
using namespace std::chrono_literals;

TEST_CASE("the window stops the sender at windowBytes unacknowledged and reopens on an ack") {
  SendWindow w(1000, 300, 100, 0);
  int sent = 0;
  while (w.next(1000)) ++sent;
  CHECK(sent == 3);
  CHECK(w.inFlight() == 300);
  CHECK(w.ack(100));
  auto c = w.next(1000);
  REQUIRE(c);
  CHECK(c->offset == 300);
  CHECK_FALSE(w.next(1000));
  CHECK_FALSE(w.ack(500));  // never sent
  CHECK(w.ack(50));         // old: ignored
  CHECK(w.acked() == 100);
}

TEST_CASE("a relay's sender only sends what it already holds, and the last chunk is short") {
  SendWindow w(250, 1000, 100, 0);
  CHECK(w.next(150)->length == 100);
  CHECK(w.next(150)->length == 50);
  CHECK_FALSE(w.next(150));
  auto last = w.next(250);
  REQUIRE(last);
  CHECK(last->offset == 150);
  CHECK(last->length == 100);
  CHECK(w.ack(250));
  CHECK(w.complete());
}

TEST_CASE("a resend rewinds to the corrupt chunk, a resumed child starts at its offset") {
  SendWindow w(1000, 1000, 100, 0);
  for (int i = 0; i < 5; ++i) w.next(1000);
  CHECK(w.ack(200));
  CHECK(w.rewind(200));
  CHECK(w.next(1000)->offset == 200);
  CHECK_FALSE(w.rewind(100));  // already acknowledged

  SendWindow resumed(1000, 1000, 100, 700);
  CHECK(resumed.acked() == 700);
  CHECK(resumed.next(1000)->offset == 700);
}

// The sender's loop as ServeConnection runs it, with a ManualClock: chunks
// from the window, each paced by the uplink bucket; acks come back one
// "round trip" after a chunk went out.
TEST_CASE("pacing: 4 MiB at 1 MB/s takes 4.2 s of clock time and never exceeds the window") {
  ManualClock clock;
  const std::uint64_t size = 4 << 20, window = 512 << 10;
  SendWindow w(size, window, 128 << 10, 0);
  TokenBucket uplink(1e6, 250ms, clock.now());
  std::deque<std::pair<hnow::TimePoint, std::uint64_t>> acks;  // (arrives, offset)
  const auto rtt = 20ms;
  std::uint64_t maxInFlight = 0;
  while (!w.complete()) {
    while (!acks.empty() && acks.front().first <= clock.now()) {
      CHECK(w.ack(acks.front().second));
      acks.pop_front();
    }
    if (auto chunk = w.next(size)) {
      clock.advance(uplink.take(chunk->length, clock.now()));  // wait until it may go
      acks.emplace_back(clock.now() + rtt, chunk->offset + chunk->length);
      maxInFlight = std::max(maxInFlight, w.inFlight());
    } else {
      clock.advance(1ms);
    }
  }
  const double elapsed = hnow::seconds(clock.now().time_since_epoch());
  CHECK(elapsed == doctest::Approx(size / 1e6).epsilon(0.03));
  CHECK(maxInFlight <= window);
}
