// One agent's key logging in from two hosts by turns (core/trust/key_hosts.h).
#include <doctest/doctest.h>

#include "core/trust/key_hosts.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

TEST_CASE("logins from two hosts by turns are flagged, a machine that moved once is not") {
  ManualClock clock;
  KeyHosts hosts;
  CHECK_FALSE(hosts.loggedIn("a1", "10.0.0.5", clock.now()));
  clock.advance(2s);
  CHECK_FALSE(hosts.loggedIn("a1", "10.0.0.5", clock.now()));  // a reconnection
  CHECK_FALSE(hosts.loggedIn("a1", "10.0.0.9", clock.now()));  // moved: a new address
  CHECK_FALSE(hosts.loggedIn("a1", "10.0.0.9", clock.now()));
  CHECK_FALSE(hosts.shown("a1", clock.now()));
  clock.advance(3s);
  auto flag = hosts.loggedIn("a1", "10.0.0.5", clock.now());  // back: two machines take turns
  REQUIRE(flag);
  CHECK(flag->raised);
  CHECK(flag->host == "10.0.0.5");
  CHECK(flag->otherHost == "10.0.0.9");
  CHECK(flag->changes == 2);
  flag = hosts.loggedIn("a1", "10.0.0.9", clock.now());
  REQUIRE(flag);
  CHECK_FALSE(flag->raised);  // the same turns, one more change
  CHECK(flag->changes == 3);
  REQUIRE(hosts.shown("a1", clock.now()));
  CHECK(hosts.shown("a1", clock.now())->changes == 3);
  CHECK_FALSE(hosts.shown("a2", clock.now()));  // another agent is not touched
}

TEST_CASE("a flag is shown until acknowledged, forgotten with a revoked key, or an hour after its last change") {
  ManualClock clock;
  KeyHosts hosts;
  auto turns = [&](const std::string& agent, const std::string& a, const std::string& b) {
    hosts.loggedIn(agent, a, clock.now());
    hosts.loggedIn(agent, b, clock.now());
    return hosts.loggedIn(agent, a, clock.now());
  };
  REQUIRE(turns("a1", "10.0.0.5", "10.0.0.9"));
  CHECK(hosts.acknowledge("a1", clock.now()));
  CHECK_FALSE(hosts.shown("a1", clock.now()));
  CHECK_FALSE(hosts.loggedIn("a1", "10.0.0.9", clock.now()));  // the same two: known
  CHECK_FALSE(hosts.shown("a1", clock.now()));
  CHECK_FALSE(hosts.acknowledge("a1", clock.now()));  // nothing shown
  auto other = turns("a1", "10.0.0.5", "192.0.2.7");  // a third machine
  REQUIRE(other);
  CHECK(other->raised);
  CHECK(hosts.shown("a1", clock.now()));

  REQUIRE(turns("a2", "10.0.0.6", "10.0.0.8"));
  hosts.forget("a2");  // revoked
  CHECK_FALSE(hosts.shown("a2", clock.now()));
  CHECK_FALSE(hosts.loggedIn("a2", "10.0.0.6", clock.now()));  // its logins before are gone too

  REQUIRE(turns("a3", "10.0.0.7", "10.0.0.8"));
  clock.advance(59min);
  CHECK(hosts.shown("a3", clock.now()));
  clock.advance(2min);
  CHECK_FALSE(hosts.shown("a3", clock.now()));
}

TEST_CASE("logins further apart than the window are not turns") {
  ManualClock clock;
  KeyHosts hosts;
  hosts.loggedIn("a1", "10.0.0.5", clock.now());
  clock.advance(11min);
  hosts.loggedIn("a1", "10.0.0.9", clock.now());  // moved
  clock.advance(11min);
  CHECK_FALSE(hosts.loggedIn("a1", "10.0.0.5", clock.now()));  // moved back, a while later
}
