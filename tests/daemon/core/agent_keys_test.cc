#include <doctest/doctest.h>

#include "core/trust/agent_keys.h"
#include "daemon/core/memory_state_store.h"

using namespace hnow;
using namespace hnow::daemon;

namespace {

const std::string kKeyA = "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const std::string kKeyB = "ed25519:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
const std::string kKeyC = "ed25519:CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC";

WallTime at(int s) { return WallTime(std::chrono::seconds(1700000000 + s)); }

StoredToken token(const std::string& id, const std::string& name, int expires) {
  return StoredToken{id, std::string(64, 'f'), name, "op", at(0), at(expires)};
}

}  // namespace

TEST_CASE("a name is bound to one key: by the config, a token or approval, and kept across restarts") {
  MemoryStateStore store;
  AgentKeys keys(store);
  REQUIRE(keys.load({{"a1", kKeyA}}).ok());
  CHECK(keys.check("a1", kKeyA) == AgentKeys::Verdict::kBound);
  CHECK(keys.check("a1", kKeyB) == AgentKeys::Verdict::kOtherKey);
  CHECK(keys.check("a2", kKeyB) == AgentKeys::Verdict::kUnknownName);
  REQUIRE(keys.addToken(token("t1", "a2", 100)).ok());
  CHECK(keys.tokenSecret("t1", "a2", at(50)).ok());
  CHECK(keys.tokenSecret("t1", "a3", at(50)).error().message.find("for the agent a2") != std::string::npos);
  CHECK(keys.tokenSecret("t1", "a2", at(100)).error().message.find("expired") != std::string::npos);
  REQUIRE(keys.enroll("a2", kKeyB, "token", "t1", at(50)).ok());
  CHECK(keys.tokenSecret("t1", "a2", at(50)).error().message.find("used already") != std::string::npos);
  // A name taken is not given to another key, even by a fresh token's holder.
  CHECK(keys.enroll("a2", kKeyC, "token", "", at(60)).error().message.find("another key") != std::string::npos);

  keys.askPending("a3", kKeyC, "10.0.0.3:5000", at(70));
  REQUIRE(keys.approve("a3", at(80)).ok());
  CHECK(keys.check("a3", kKeyC) == AgentKeys::Verdict::kBound);
  CHECK_FALSE(keys.approve("a3", at(81)).ok());  // no longer pending

  AgentKeys restarted(store);
  REQUIRE(restarted.load({{"a1", kKeyA}}).ok());
  CHECK(restarted.check("a2", kKeyB) == AgentKeys::Verdict::kBound);
  CHECK(restarted.check("a3", kKeyC) == AgentKeys::Verdict::kBound);
  CHECK_FALSE(restarted.tokenSecret("t1", "a2", at(50)).ok());
}

TEST_CASE("a revoked key is refused for good, even where hnowd's config still lists it") {
  MemoryStateStore store;
  AgentKeys keys(store);
  REQUIRE(keys.load({{"a1", kKeyA}}).ok());
  auto revoked = keys.revoke("a1", at(10));
  REQUIRE(revoked.ok());
  CHECK(revoked.value() == kKeyA);
  CHECK(keys.check("a1", kKeyA) == AgentKeys::Verdict::kRevoked);
  CHECK(keys.enroll("a9", kKeyA, "token", "", at(11)).error().message.find("revoked") != std::string::npos);
  CHECK_FALSE(keys.revoke("a1", at(12)).ok());
  AgentKeys restarted(store);
  REQUIRE(restarted.load({{"a1", kKeyA}}).ok());
  CHECK(restarted.check("a1", kKeyA) == AgentKeys::Verdict::kRevoked);
  // The machine that replaced it enrolls its new key under the name.
  REQUIRE(restarted.enroll("a1", kKeyB, "token", "", at(20)).ok());
  CHECK(restarted.check("a1", kKeyB) == AgentKeys::Verdict::kBound);
}

TEST_CASE("a flood of unknown keys keeps at most 64 pending, the newest") {
  MemoryStateStore store;
  AgentKeys keys(store);
  REQUIRE(keys.load({}).ok());
  for (int i = 0; i < 200; ++i) keys.askPending("pc-" + std::to_string(i), kKeyA, "10.0.0.1:1", at(i));
  std::size_t pending = 0;
  for (const auto& v : keys.list(at(300))) pending += v.state == "pending";
  CHECK(pending == kMaxPending);
  CHECK(keys.approve("pc-199", at(300)).ok());
  CHECK_FALSE(keys.approve("pc-0", at(300)).ok());
}

TEST_CASE("a write that fails changes nothing: the token stays and the name stays free") {
  MemoryStateStore store;
  AgentKeys keys(store);
  REQUIRE(keys.load({}).ok());
  REQUIRE(keys.addToken(token("t1", "", 100)).ok());
  store.failing = true;
  CHECK_FALSE(keys.enroll("a1", kKeyA, "token", "t1", at(1)).ok());
  CHECK(keys.check("a1", kKeyA) == AgentKeys::Verdict::kUnknownName);
  CHECK(keys.tokenSecret("t1", "a1", at(1)).ok());
}

TEST_CASE("the enrollment tokens not used yet are listed, with the name each is for and when it expires, until used or expired") {
  MemoryStateStore store;
  AgentKeys keys(store);
  REQUIRE(keys.load({}).ok());
  REQUIRE(keys.addToken(token("t1", "pc-07", 100)).ok());
  REQUIRE(keys.addToken(token("t2", "", 200)).ok());
  auto tokens = [&](WallTime now) {
    std::vector<AgentKeyView> out;
    for (const AgentKeyView& v : keys.list(now))
      if (v.state == "unused-token") out.push_back(v);
    return out;
  };
  auto listed = tokens(at(10));
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].name == "pc-07");
  CHECK(listed[0].key == "token t1");
  CHECK(listed[0].expires == at(100));
  CHECK(listed[1].name == "");  // any free name
  // t1 enrolls pc-07: no longer listed as unused; t2 expires.
  REQUIRE(keys.enroll("pc-07", kKeyA, "token", "t1", at(20)).ok());
  listed = tokens(at(20));
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].key == "token t2");
  CHECK(tokens(at(200)).empty());
}
