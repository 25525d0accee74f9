// The accounting behind hnowd's pre-login slots and a data port's hello
// slots (base/peer_slots.h), and the per-address rate of hnowd's challenge
// signatures (base/peer_rate.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "base/peer_rate.h"
#include "base/peer_slots.h"

using namespace hnow;
using Verdict = PeerSlots::Verdict;

TEST_CASE("free slots go to whoever comes, and a slot released is free again") {
  PeerSlots slots({.total = 64, .perPeer = 8});
  std::vector<PeerSlots::Ticket> burst;
  for (int i = 0; i < 40; ++i) {  // 40 honest connections from one address at once
    auto a = slots.admit("10.0.0.9");
    REQUIRE(a.verdict == Verdict::kAdmitted);
    CHECK_FALSE(a.evicted);
    burst.push_back(a.ticket);
  }
  CHECK(slots.heldBy("10.0.0.9") == 40);
  slots.release(burst[3]);
  slots.release(burst[3]);  // twice: no harm
  slots.release(12345);     // unknown: no harm
  CHECK(slots.heldBy("10.0.0.9") == 39);
  CHECK(slots.held() == 39);
}

TEST_CASE("a full pool refuses an address holding its share, and makes room for one below it by closing the oldest slot of the address holding the most") {
  PeerSlots slots({.total = 10, .perPeer = 3});
  std::map<PeerSlots::Ticket, std::string> owner;
  for (int i = 0; i < 8; ++i) owner[slots.admit("127.0.0.2").ticket] = "127.0.0.2";
  for (int i = 0; i < 2; ++i) owner[slots.admit("127.0.0.3").ticket] = "127.0.0.3";
  REQUIRE(slots.held() == 10);
  for (int i = 0; i < 500; ++i) CHECK(slots.admit("127.0.0.2").verdict == Verdict::kPeerFull);

  auto first = slots.admit("127.0.0.1");
  REQUIRE(first.verdict == Verdict::kAdmitted);
  REQUIRE(first.evicted);
  CHECK(first.evictedPeer == "127.0.0.2");  // the most held, and its oldest
  CHECK(*first.evicted == owner.begin()->first);
  CHECK(slots.held() == 10);
  CHECK(slots.heldBy("127.0.0.2") == 7);
  slots.release(*first.evicted);  // its connection closes later: released again, ignored
  CHECK(slots.held() == 10);

  // 127.0.0.3 holds 2 of its 3: it takes one more from 127.0.0.2, then is at its share.
  auto more = slots.admit("127.0.0.3");
  REQUIRE(more.evicted);
  CHECK(more.evictedPeer == "127.0.0.2");
  CHECK(slots.admit("127.0.0.3").verdict == Verdict::kPeerFull);
  // Newcomers take slots until no address holds more than they do.
  for (int i = 0; i < 2; ++i) REQUIRE(slots.admit("127.0.0.1").verdict == Verdict::kAdmitted);
  CHECK(slots.heldBy("127.0.0.1") == 3);
  CHECK(slots.heldBy("127.0.0.2") == 4);
  CHECK(slots.admit("127.0.0.4").evictedPeer == "127.0.0.2");
  CHECK(slots.admit("127.0.0.4").evictedPeer == "127.0.0.2");
  CHECK(slots.heldBy("127.0.0.2") == 2);
  CHECK(slots.heldBy("127.0.0.4") == 2);
  CHECK(slots.admit("127.0.0.4").evictedPeer != "127.0.0.2");  // from one holding 3, not 2
  CHECK(slots.admit("127.0.0.4").verdict == Verdict::kPeerFull);
  CHECK(slots.held() == 10);

  // Taking from an address that holds no more than the newcomer would only
  // move the flood around.
  PeerSlots even({.total = 4, .perPeer = 3});
  for (const char* peer : {"127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"}) even.admit(peer);
  CHECK(even.admit("127.0.0.2").verdict == Verdict::kPoolFull);
  CHECK(even.admit("127.0.0.5").verdict == Verdict::kAdmitted);
}

TEST_CASE("500 connections from one address and 500 from twenty never keep a newcomer out") {
  PeerSlots slots({.total = 64, .perPeer = 8});
  for (int i = 0; i < 500; ++i) slots.admit("127.0.0.2");
  CHECK(slots.heldBy("127.0.0.2") == 64);  // nobody else wanted them
  for (int i = 0; i < 500; ++i) slots.admit("127.0.0." + std::to_string(3 + i % 20));
  CHECK(slots.held() == 64);
  CHECK(slots.heldBy("127.0.0.2") <= 8);
  // A newcomer gets in, and up to its share.
  CHECK(slots.admit("127.0.0.1").verdict == Verdict::kAdmitted);
  for (int i = 0; i < 10; ++i) slots.admit("127.0.0.1");
  std::size_t most = slots.heldBy("127.0.0.2");
  for (int i = 0; i < 20; ++i) most = std::max(most, slots.heldBy("127.0.0." + std::to_string(3 + i)));
  CHECK(slots.heldBy("127.0.0.1") >= 3);
  CHECK(slots.heldBy("127.0.0.1") <= 8);
  CHECK(most <= 4);  // 64 slots over 21 addresses, evened out
  CHECK(slots.held() == 64);
}

TEST_CASE("addresses of host:port, IPv4 and IPv6 as the daemons name peers") {
  CHECK(addressOf("10.0.0.3:41234") == "10.0.0.3");
  CHECK(addressOf("::1:41234") == "::1");
  CHECK(addressOf("fe80::1:7411") == "fe80::1");
  CHECK(addressOf("?") == "?");
}

TEST_CASE("challenge signatures per address: a burst, then the rate, each address on its own") {
  ManualClock clock;
  PeerRate rate(10.0, 20.0);
  int allowed = 0;
  for (int i = 0; i < 1000; ++i) allowed += rate.allow("127.0.0.2", clock.now());
  CHECK(allowed == 20);  // the burst
  CHECK(rate.allow("127.0.0.1", clock.now()));  // another address is not held back
  clock.advance(std::chrono::milliseconds(500));
  allowed = 0;
  for (int i = 0; i < 1000; ++i) allowed += rate.allow("127.0.0.2", clock.now());
  CHECK(allowed == 5);  // refusals took nothing: half a second is 5 more
  clock.advance(std::chrono::seconds(10));
  allowed = 0;
  for (int i = 0; i < 1000; ++i) allowed += rate.allow("127.0.0.2", clock.now());
  CHECK(allowed == 20);  // never more than the burst
}

TEST_CASE("per-address buckets full again are forgotten once many addresses were seen") {
  ManualClock clock;
  PeerRate rate(10.0, 20.0);
  for (int i = 0; i < 2000; ++i) rate.allow("10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250), clock.now());
  CHECK(rate.tracked() == 2000);
  clock.advance(std::chrono::seconds(3));  // every bucket is full again
  rate.allow("10.9.9.9", clock.now());
  CHECK(rate.tracked() == 1);
}
