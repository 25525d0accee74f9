// hnowd's limits on connections that have not logged in: how many at once,
// and for how long (ControlServer over real loopback sockets, manual timer).
#include <doctest/doctest.h>

#include "daemon/server/control_server_harness.h"

using namespace hnow;
using testing::ControlServerHarness;

TEST_CASE("connections beyond max_unauthenticated are closed at once, a login frees a slot") {
  ControlServerHarness h(daemon::ConnectionLimits{2, 10 * kj::SECONDS});
  auto a = h.connect();
  auto b = h.connect();
  h.within(transport::openGate(a.gate, h.keys.hnowdKey.publicKey()));  // both served, neither logged in
  h.within(transport::openGate(b.gate, h.keys.hnowdKey.publicKey()));
  CHECK(h.server->unauthenticatedCount() == 2);

  auto refused = h.connectRaw();
  char byte = 0;
  CHECK(h.within(refused->tryRead(&byte, 1, 1)) == 0);  // end of stream: closed by hnowd

  auto session = h.within(h.keys.loginOperator(a.gate));
  CHECK(h.server->unauthenticatedCount() == 1);
  auto d = h.connect();
  CHECK(h.failureOf(h.keys.loginOperator(d.gate)) == "");
  CHECK(h.failureOf(h.keys.loginOperator(b.gate)) == "");  // b was never closed
  CHECK(h.server->unauthenticatedCount() == 0);
}

TEST_CASE("a connection that has not logged in by the login deadline is closed, a logged-in one stays") {
  ControlServerHarness h(daemon::ConnectionLimits{64, 10 * kj::SECONDS});
  auto idle = h.connect();
  auto early = h.connect();
  h.within(transport::openGate(idle.gate, h.keys.hnowdKey.publicKey()));
  auto session = h.within(h.keys.loginOperator(early.gate));

  h.timer.advanceTo(h.timer.now() + 9 * kj::SECONDS);
  CHECK(h.failureOf(transport::openGate(idle.gate, h.keys.hnowdKey.publicKey())) == "");  // still open
  h.timer.advanceTo(h.timer.now() + 2 * kj::SECONDS);
  CHECK(h.failureOf(idle.connection->onDisconnect()) == "");  // closed by hnowd
  CHECK_FALSE(h.failureOf(transport::openGate(idle.gate, h.keys.hnowdKey.publicKey())).empty());
  CHECK(h.server->unauthenticatedCount() == 0);
  CHECK(h.failureOf(session.statusRequest().send()) == "");
}

TEST_CASE("a flood of idle connections from other addresses never keeps a login from 127.0.0.1 out") {
  daemon::ConnectionLimits limits{8, 10 * kj::SECONDS, 3};
  ControlServerHarness h(limits);
  // One address takes every free slot; once they are all taken, it is
  // refused at once.
  std::vector<kj::Own<kj::AsyncIoStream>> flood;
  for (int i = 0; i < 20; ++i) flood.push_back(h.connectFrom("127.0.0.2"));
  std::size_t closed = 0;
  for (auto& s : flood) closed += h.closedByServer(*s);
  CHECK(closed == 12);
  CHECK(h.server->unauthenticatedCount() == 8);
  // Other addresses take its slots up to their share of 3, oldest first,
  // until every address holds 2.
  for (const char* source : {"127.0.0.3", "127.0.0.4", "127.0.0.5"})
    for (int i = 0; i < 5; ++i) flood.push_back(h.connectFrom(source));
  h.io.provider->getTimer().afterDelay(200 * kj::MILLISECONDS).wait(h.ws);  // every one accepted
  CHECK(h.server->unauthenticatedCount() == 8);
  // A newcomer still logs in, taking the oldest slot of an address holding
  // the most; it frees its own once logged in, and the next ones find it.
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto peer = h.connect();
    auto session = h.within(h.keys.loginOperator(peer.gate));
    CHECK(h.failureOf(session.statusRequest().send()) == "");
  }
  CHECK(h.server->unauthenticatedCount() == 7);
  std::size_t open = 0;
  for (auto& s : flood) open += !h.closedByServer(*s);
  CHECK(open == 7);
}

TEST_CASE("hnowd signs a burst of challenges for one address, then refuses, and other addresses are served") {
  daemon::ConnectionLimits limits{64, 10 * kj::SECONDS, 8, 5.0};  // a burst of 10, then 5 a second
  ControlServerHarness h(limits);
  auto flood = h.peerOver(h.connectFrom("127.0.0.2"));
  int signed_ = 0;
  std::string refusal;
  for (int i = 0; i < 50; ++i) {
    std::string failure = h.failureOf(transport::openGate(flood.gate, h.keys.hnowdKey.publicKey()));
    if (failure.empty()) ++signed_;
    else refusal = failure;
  }
  CHECK(signed_ == 10);
  CHECK(refusal.find("too many login challenges from your address") != std::string::npos);
  // The manual timer stands still: a second later there are 5 more.
  h.timer.advanceTo(h.timer.now() + 1 * kj::SECONDS);
  for (int i = 0; i < 50; ++i)
    signed_ += h.failureOf(transport::openGate(flood.gate, h.keys.hnowdKey.publicKey())).empty();
  CHECK(signed_ == 15);
  auto other = h.connect();  // 127.0.0.1
  auto session = h.within(h.keys.loginOperator(other.gate));
  CHECK(h.failureOf(session.statusRequest().send()) == "");
}
