#include <doctest/doctest.h>

#include "base/token_bucket.h"

using hnow::TokenBucket;
using hnow::ManualClock;
using hnow::seconds;
using namespace std::chrono_literals;

TEST_CASE("an empty bucket makes a transfer last bytes / rate") {
  ManualClock clock;
  TokenBucket bucket(1e6, 64ms, clock.now());  // 1 MB/s
  double waited = 0;
  for (int i = 0; i < 10; ++i) {
    auto wait = bucket.take(100e3, clock.now());
    clock.advance(wait);
    waited += seconds(wait);
  }
  CHECK(waited == doctest::Approx(1.0).epsilon(1e-6));  // 1 MB at 1 MB/s
}

TEST_CASE("idle time fills the bucket only up to its burst") {
  ManualClock clock;
  TokenBucket bucket(1e6, 50ms, clock.now());
  clock.advance(10s);
  CHECK(bucket.take(50e3, clock.now()) == 0ns);
  CHECK(seconds(bucket.take(50e3, clock.now())) == doctest::Approx(0.05));
}

TEST_CASE("a rate of 0 never waits, and a new rate applies from the next take") {
  ManualClock clock;
  TokenBucket bucket(0, 1ms, clock.now());
  CHECK(bucket.take(1e9, clock.now()) == 0ns);
  bucket.setRate(2e6, clock.now());
  CHECK(seconds(bucket.take(1e6, clock.now())) == doctest::Approx(0.5));
}

TEST_CASE("the burst is time at the rate: a faster rate banks more bytes") {
  ManualClock clock;
  TokenBucket bucket(1e6, 10ms, clock.now());  // 10 kB of credit at 1 MB/s
  clock.advance(1s);
  CHECK(seconds(bucket.take(20e3, clock.now())) == doctest::Approx(0.01));
  bucket.setRate(4e6, clock.now());  // now 40 kB of credit
  clock.advance(1s);
  CHECK(bucket.take(40e3, clock.now()) == 0ns);
  CHECK(seconds(bucket.take(4e3, clock.now())) == doctest::Approx(0.001));
}
