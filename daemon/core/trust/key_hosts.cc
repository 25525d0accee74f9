#include "core/trust/key_hosts.h"

#include <algorithm>

namespace hnow::daemon {

namespace {
// Logins kept per agent: enough to see turns within the window.
constexpr std::size_t kLoginsKept = 16;
}  // namespace

std::optional<KeyHostsFlag> KeyHosts::loggedIn(const std::string& agent, const std::string& host, TimePoint now) {
  std::deque<Login>& logins = logins_[agent];
  while (!logins.empty() && now - logins.front().at > options_.window) logins.pop_front();
  const std::string previous = logins.empty() ? host : logins.back().host;
  // Back on a host that logged in before the other one did: turns.
  const bool turns = previous != host && std::any_of(logins.begin(), logins.end(),
                                                     [&](const Login& l) { return l.host == host; });
  logins.push_back({host, now});
  if (logins.size() > kLoginsKept) logins.pop_front();
  if (!turns) return std::nullopt;

  const std::string first = std::min(host, previous), second = std::max(host, previous);
  auto it = flags_.find(agent);
  const bool lapsed = it == flags_.end() || it->second.shown.host != first || it->second.shown.otherHost != second ||
                      now - it->second.shown.last > options_.shownFor;
  if (lapsed) {
    // A, B, A: two changes of host so far.
    flags_[agent] = Flag{KeyHostsFlag{first, second, 2, now, true}, false};
    return flags_[agent].shown;
  }
  KeyHostsFlag& flag = it->second.shown;
  ++flag.changes;
  flag.last = now;
  if (it->second.acknowledged) return std::nullopt;  // an operator knows
  KeyHostsFlag out = flag;
  out.raised = false;
  return out;
}

std::optional<KeyHostsFlag> KeyHosts::shown(const std::string& agent, TimePoint now) const {
  auto it = flags_.find(agent);
  if (it == flags_.end() || it->second.acknowledged || now - it->second.shown.last > options_.shownFor)
    return std::nullopt;
  KeyHostsFlag out = it->second.shown;
  out.raised = false;
  return out;
}

bool KeyHosts::acknowledge(const std::string& agent, TimePoint now) {
  if (!shown(agent, now)) return false;
  flags_[agent].acknowledged = true;
  return true;
}

void KeyHosts::forget(const std::string& agent) {
  logins_.erase(agent);
  flags_.erase(agent);
}

}  // namespace hnow::daemon
