#pragma once
// One agent's key used from two machines (docs/security.md, "An agent key
// used from two hosts"): a copied key makes the thief's machine and the
// agent's take turns logging in under its name, each replacing the other's
// session, and nothing else would show it. A single change of host is a
// machine that moved (a new address, DHCP); a login from a host that had
// logged in under the name shortly before another host did (A, B, A) is
// two machines taking turns. Flagged in `hnow status` until an operator
// acknowledges it (`hnow agent ack`), revokes the key, or an hour passes
// without another change. In memory: a restart forgets it. Pure: the
// caller passes the time.
#include <deque>
#include <map>
#include <optional>
#include <string>

#include "base/clock.h"

namespace hnow::daemon {

struct KeyHostsOptions {
  // Logins older than this do not count towards turns: a machine that moved
  // back after a while is not two machines.
  Duration window = std::chrono::minutes(10);
  // A flag is shown this long after its last change of host.
  Duration shownFor = std::chrono::hours(1);
};

struct KeyHostsFlag {
  std::string host, otherHost;  // the two addresses, in order
  int changes = 0;              // logins that changed host between them
  TimePoint last;               // the latest of those
  bool raised = false;          // loggedIn(): this login raised it (new, another pair, or after it lapsed)
};

class KeyHosts {
 public:
  explicit KeyHosts(KeyHostsOptions options = {}) : options_(options) {}

  // `agent` logged in from `host` (an address, without port); the flag
  // when this login takes turns with another host, else none (also when
  // an operator acknowledged those two hosts' turns).
  std::optional<KeyHostsFlag> loggedIn(const std::string& agent, const std::string& host, TimePoint now);
  // The flag `hnow status` shows now: not acknowledged, not lapsed.
  std::optional<KeyHostsFlag> shown(const std::string& agent, TimePoint now) const;
  // An operator knows of it (both machines are the agent's, say): false
  // when none is shown. A change of host between two other hosts raises
  // it again.
  bool acknowledge(const std::string& agent, TimePoint now);
  // The key was revoked: its logins and flag are forgotten.
  void forget(const std::string& agent);

 private:
  struct Login {
    std::string host;
    TimePoint at;
  };
  struct Flag {
    KeyHostsFlag shown;
    bool acknowledged = false;
  };
  KeyHostsOptions options_;
  std::map<std::string, std::deque<Login>> logins_;
  std::map<std::string, Flag> flags_;
};

}  // namespace hnow::daemon
