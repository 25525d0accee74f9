#include "core/trust/agent_keys.h"

#include <algorithm>

namespace hnow::daemon {

Result<void> AgentKeys::load(const std::vector<std::pair<std::string, std::string>>& configured) {
  auto stored = store_.loadTrust();
  if (!stored) return stored.error();
  for (const StoredRevocation& r : stored->revocations) revoked_[r.key] = r;
  // A revoked key binds no name, even where the config still lists it: the
  // name is free for the machine that replaces it.
  for (const auto& [name, key] : configured)
    if (!revoked_.count(key)) bound_[name] = Bound{key, "config", WallTime{}};
  // What was enrolled at run time overrides nothing the config says about
  // the same name: the config is the owner's word.
  for (const StoredIdentity& i : stored->identities)
    if (!bound_.count(i.name)) bound_[i.name] = Bound{i.key, i.how, i.at};
  for (const StoredToken& t : stored->tokens) tokens_[t.id] = t;
  return {};
}

AgentKeys::Verdict AgentKeys::check(const std::string& name, const std::string& key) const {
  if (revoked_.count(key)) return Verdict::kRevoked;
  auto it = bound_.find(name);
  if (it == bound_.end()) return Verdict::kUnknownName;
  return it->second.key == key ? Verdict::kBound : Verdict::kOtherKey;
}

std::string AgentKeys::why(Verdict verdict, const std::string& name) const {
  switch (verdict) {
    case Verdict::kBound: return "";
    case Verdict::kUnknownName:
      return "no key is enrolled under the name " + name +
             ": enroll it with a token (`hnow agent token --name " + name + "`, then `hnow-agent enroll TOKEN_FILE`)"
             " or approve it (`hnow agent approve " + name + "`)";
    case Verdict::kOtherKey:
      return "the name " + name + " is enrolled with another key (if this machine replaced it, "
             "`hnow agent revoke " + name + "` and enroll it again)";
    // Said to the agent too, whose owner must act: hnowd never takes that key again.
    case Verdict::kRevoked:
      return "its key was revoked, and hnowd refuses it for good: to let this machine in again, stop hnow-agent, "
             "delete its key file (key_file in hnow-agent.toml; it makes a new key at start) and enroll it again "
             "(`hnow agent token --name " + name + "`, then `hnow-agent enroll TOKEN_FILE` and start it)";
  }
  return "refused";
}

Result<std::string> AgentKeys::tokenSecret(const std::string& id, const std::string& name, WallTime now) const {
  auto it = tokens_.find(id);
  if (it == tokens_.end()) return Error{"the enrollment token is unknown or was used already (a token enrolls once)"};
  if (now >= it->second.expires) return Error{"the enrollment token has expired: make a new one with `hnow agent token`"};
  if (!it->second.name.empty() && it->second.name != name)
    return Error{"the enrollment token is for the agent " + it->second.name + ", not " + name};
  return it->second.secret;
}

Result<void> AgentKeys::enroll(const std::string& name, const std::string& key, const std::string& how,
                               const std::string& tokenId, WallTime now) {
  if (revoked_.count(key)) return Error{why(Verdict::kRevoked, name)};
  auto it = bound_.find(name);
  if (it != bound_.end() && it->second.key != key) return Error{why(Verdict::kOtherKey, name)};
  StoredIdentity identity{name, key, how, now};
  if (!tokenId.empty()) {
    auto used = store_.useToken(tokenId, identity);
    if (!used) return used.error();
    tokens_.erase(tokenId);
  } else {
    auto saved = store_.saveIdentity(identity);
    if (!saved) return saved.error();
  }
  bound_[name] = Bound{key, how, now};
  dropPending(name);
  return {};
}

void AgentKeys::dropPending(const std::string& name) {
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [&](const AgentKeyView& p) { return p.name == name; }),
                 pending_.end());
}

void AgentKeys::askPending(const std::string& name, const std::string& key, const std::string& peer, WallTime now) {
  dropPending(name);
  if (pending_.size() >= kMaxPending) pending_.erase(pending_.begin());
  pending_.push_back({name, key, "pending", "", now, peer});
}

Result<std::string> AgentKeys::approve(const std::string& name, WallTime now, const std::string& expectedKey) {
  auto it = std::find_if(pending_.begin(), pending_.end(), [&](const AgentKeyView& p) { return p.name == name; });
  if (it == pending_.end())
    return Error{"no agent named " + name + " is waiting for approval (`hnow agent keys` lists those that are)"};
  std::string key = it->key;
  if (!expectedKey.empty() && key != expectedKey)
    return Error{"agent " + name + " asks with another key than the one shown (" + key +
                 " now): nothing approved; look again with `hnow agent keys`"};
  auto enrolled = enroll(name, key, "approved", "", now);
  if (!enrolled) return enrolled.error();
  return key;
}

Result<std::string> AgentKeys::revoke(const std::string& name, WallTime now) {
  auto it = bound_.find(name);
  if (it == bound_.end()) return Error{"no key is enrolled under the name " + name + " (`hnow agent keys` lists them)"};
  StoredRevocation revocation{it->second.key, name, now};
  auto saved = store_.saveRevocation(revocation);
  if (!saved) return saved.error();
  std::string key = it->second.key;
  revoked_[key] = revocation;
  bound_.erase(it);
  return key;
}

Result<void> AgentKeys::addToken(const StoredToken& token) {
  auto saved = store_.saveToken(token);
  if (!saved) return saved.error();
  tokens_[token.id] = token;
  return {};
}

std::vector<AgentKeyView> AgentKeys::list(WallTime now) const {
  std::vector<AgentKeyView> out;
  for (const auto& [name, b] : bound_) out.push_back({name, b.key, "enrolled", b.how, b.at, "", {}});
  out.insert(out.end(), pending_.begin(), pending_.end());
  for (const auto& [key, r] : revoked_) out.push_back({r.name, key, "revoked", "", r.at, "", {}});
  for (const auto& [id, t] : tokens_)
    if (now < t.expires) out.push_back({t.name, "token " + id, "unused-token", "", t.made, "", t.expires});
  return out;
}

}  // namespace hnow::daemon
