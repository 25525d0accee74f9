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
