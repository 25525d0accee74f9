#pragma once
// Which key may log in under which agent name (docs/security.md, "An
// identity per agent"). A name is bound to one key: by hnowd's config
// ([[agents]]), by a single-use enrollment token an operator made, by an
// operator approving a pending agent, or, while hnowd still keeps the old
// shared secret, by an agent proving it on its first login with a key.
// Another machine cannot take a bound name; a revoked key is refused
// from then on, even where the config lists it.
//
// Pure bookkeeping over StateStore: keys are their text (ed25519:...), the
// cryptography stays in the gate (server/gate_server.cc). Every change is
// written through before it counts, so a refused write changes nothing.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "state/state_store.h"

namespace hnow::daemon {

// How many agents may wait for approval at once: a flood of unknown keys
// pushes out the oldest, never grows hnowd.
inline constexpr std::size_t kMaxPending = 64;
// A token holds for at most a week (`hnow agent token --ttl`).
inline constexpr double kMaxTokenSeconds = 7 * 24 * 3600.0;

struct AgentKeyView {
  std::string name, key;  // an unused token: the name it is for ("" any), and "token ID"
  std::string state;  // enrolled | pending | revoked | unused-token
  std::string how;    // token | approved | secret | config
  WallTime at{};
  std::string peer;   // pending: where it asked from
  WallTime expires{};  // an unused token: when it stops enrolling
};

class AgentKeys {
 public:
  explicit AgentKeys(StateStore& store) : store_(store) {}

  // hnowd's [[agents]] (name, key text), then what state.db keeps.
  Result<void> load(const std::vector<std::pair<std::string, std::string>>& configured);

  enum class Verdict { kBound, kUnknownName, kOtherKey, kRevoked };
  Verdict check(const std::string& name, const std::string& key) const;
  // What the refusal says for a verdict other than kBound.
  std::string why(Verdict verdict, const std::string& name) const;

  // A token's secret (hex) if `id` names one that is unused and not
  // expired, else the reason it is refused.
  Result<std::string> tokenSecret(const std::string& id, const std::string& name, WallTime now) const;
  // Binds `key` to `name` through `how` ("token", "secret"); for "token",
  // `tokenId` is used up with it. Refused when the name is bound to another
  // key or the key is revoked.
  Result<void> enroll(const std::string& name, const std::string& key, const std::string& how,
                      const std::string& tokenId, WallTime now);
  // Records an agent that asked with a key no name is bound to.
  void askPending(const std::string& name, const std::string& key, const std::string& peer, WallTime now);
  // Binds the key the pending agent asked with; returns the key.
  // `expectedKey` "": whatever key it asks with; else only that one.
  Result<std::string> approve(const std::string& name, WallTime now, const std::string& expectedKey = "");
  // Cuts the name's key off; returns the key.
  Result<std::string> revoke(const std::string& name, WallTime now);
  // A fresh token (id, secret in hex, made by the caller's random source).
  Result<void> addToken(const StoredToken& token);

  // Every identity, and every enrollment token not used yet that `now` has
  // not seen expire (a room's tokens still lying about, to revoke by
  // waiting them out or to hand out).
  std::vector<AgentKeyView> list(WallTime now) const;
  bool revoked(const std::string& key) const { return revoked_.count(key) != 0; }

 private:
  struct Bound {
    std::string key, how;
    WallTime at{};
  };
  void dropPending(const std::string& name);

  StateStore& store_;
  std::map<std::string, Bound> bound_;               // name -> key
  std::map<std::string, StoredRevocation> revoked_;  // key -> when
  std::map<std::string, StoredToken> tokens_;        // id -> token
  std::vector<AgentKeyView> pending_;                // oldest first
};

}  // namespace hnow::daemon
