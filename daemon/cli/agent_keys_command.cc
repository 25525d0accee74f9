#include "cli/agent_keys_command.h"

#include <cstdio>

#include "cli/coordinator_client.h"
#include "transport/identity.h"

namespace hnow::cli {

int runKeyNewCommand(const std::string& path) {
  auto key = transport::createKeyFile(path);
  if (!key) {
    std::fprintf(stderr, "hnow: %s\n", key.error().message.c_str());
    return 1;
  }
  std::printf("%s\n", transport::keyText(key->publicKey()).c_str());
  std::fprintf(stderr,
               "wrote the private key to %s (mode 0600). The line above is its public key: list it in hnowd's "
               "config under [[operators]] (name, key, rights = \"full\" or \"read\").\n",
               path.c_str());
  return 0;
}

namespace {

template <class Call>
int withClient(const std::string& configPath, const char* what, Call call) {
  int exitCode = 0;
  auto client = connectOrReport(configPath, exitCode);
  if (!client) return exitCode;
  return call(*client, [what](const Error& e) {
    std::fprintf(stderr, "hnow: %s failed: %s\n", what, e.message.c_str());
    return 1;
  });
}

}  // namespace

int runAgentTokenCommand(const std::string& configPath, const std::string& name, double ttlSeconds) {
  return withClient(configPath, "agent token", [&](CoordinatorClient& client, auto fail) {
    auto token = client.agentToken(name, ttlSeconds);
    if (!token) return fail(token.error());
    std::printf("%s\n", token->first.c_str());
    std::fprintf(stderr,
                 "an enrollment token for %s, valid %.0f s and once. On the new machine: hnow-agent --config "
                 "FILE --enroll-file TOKEN_FILE (or --enroll TOKEN). Keep it as secret as a password until used.\n",
                 name.empty() ? "an agent of any free name" : ("the agent " + name).c_str(), token->second);
    return 0;
  });
}

int runAgentRevokeCommand(const std::string& configPath, const std::string& name) {
  return withClient(configPath, "agent revoke", [&](CoordinatorClient& client, auto fail) {
    auto closed = client.revokeAgent(name);
    if (!closed) return fail(closed.error());
    std::printf("agent %s revoked: its key is refused from now on; %u session%s closed\n", name.c_str(), *closed,
                *closed == 1 ? "" : "s");
    return 0;
  });
}

int runAgentApproveCommand(const std::string& configPath, const std::string& name) {
  return withClient(configPath, "agent approve", [&](CoordinatorClient& client, auto fail) {
    auto key = client.approveAgent(name);
    if (!key) return fail(key.error());
    std::printf("agent %s approved with key %s; it logs in at its next try\n", name.c_str(), key->c_str());
    return 0;
  });
}

int runAgentAckCommand(const std::string& configPath, const std::string& name) {
  return withClient(configPath, "agent ack", [&](CoordinatorClient& client, auto fail) {
    auto hosts = client.acknowledgeAgent(name);
    if (!hosts) return fail(hosts.error());
    std::printf("agent %s: its logins from %s and from %s by turns are no longer flagged; a change between two other "
                "hosts flags it again\n",
                name.c_str(), hosts->first.c_str(), hosts->second.c_str());
    return 0;
  });
}

int runAgentKeysCommand(const std::string& configPath) {
  return withClient(configPath, "agent keys", [&](CoordinatorClient& client, auto fail) {
    auto keys = client.agentKeys();
    if (!keys) return fail(keys.error());
    std::printf("%-20s %-9s %-9s %-10s %s\n", "agent", "state", "how", "age", "key");
    for (const auto& k : *keys) {
      char age[32] = "config";
      if (k.ageSeconds >= 0) std::snprintf(age, sizeof age, "%.0f s", k.ageSeconds);
      std::printf("%-20s %-9s %-9s %-10s %s%s%s\n", k.name.c_str(), k.state.c_str(), k.how.empty() ? "-" : k.how.c_str(),
                  age, k.key.c_str(), k.peer.empty() ? "" : "  from ", k.peer.c_str());
    }
    return 0;
  });
}

}  // namespace hnow::cli
