#include "cli/agent_keys_command.h"

#include <cstdio>
#include <filesystem>

#include "cli/coordinator_client.h"
#include "transport/identity.h"

namespace hnow::cli {

namespace fs = std::filesystem;

namespace {

// `dir`, made 0700 when missing (it holds secrets); an existing one is left as it is.
Result<void> secretDirectory(const std::string& dir) {
  std::error_code error;
  if (fs::is_directory(dir, error)) return {};
  if (!fs::create_directories(dir, error) && error) return Error{"cannot create " + dir + ": " + error.message()};
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, error);
  if (error) return Error{"cannot make " + dir + " private (0700): " + error.message()};
  return {};
}

}  // namespace

int runKeyNewCommand(const std::string& path) {
  // Its directory, made 0700 when missing (~/.config/hnow on a new machine).
  if (const std::string dir = fs::path(path).parent_path().string(); !dir.empty())
    if (auto made = secretDirectory(dir); !made) {
      std::fprintf(stderr, "hnow: %s\n", made.error().message.c_str());
      return 1;
    }
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

int runAgentTokenCommand(const std::string& configPath, const std::string& name, double ttlSeconds,
                         const TokenBatch& batch) {
  if (batch.count > 1 && !name.empty()) {
    std::fprintf(stderr, "hnow: agent token: --name binds a token to one agent, --count makes tokens for a room: "
                         "give one of them (each of a room's PCs enrolls under the name in its hnow-agent.toml)\n");
    return 2;
  }
  if (!batch.dir.empty())
    if (auto made = secretDirectory(batch.dir); !made) {
      std::fprintf(stderr, "hnow: agent token: %s\n", made.error().message.c_str());
      return 1;
    }
  return withClient(configPath, "agent token", [&](CoordinatorClient& client, auto fail) {
    double ttl = ttlSeconds;
    for (int k = 1; k <= batch.count; ++k) {
      auto token = client.agentToken(name, ttlSeconds);
      if (!token) return fail(token.error());
      ttl = token->second;
      if (batch.dir.empty()) {
        std::printf("%s\n", token->first.c_str());
        continue;
      }
      char file[32];
      std::snprintf(file, sizeof file, "token-%02d.token", k);
      const std::string path = (fs::path(batch.dir) / (name.empty() ? std::string(file) : name + ".token")).string();
      auto written = transport::writeNewSecretFile(path, token->first + "\n", "the token file",
                                                   "a token file is never replaced: choose another --out");
      if (!written) return fail(written.error());
      std::printf("%s\n", path.c_str());
    }
    std::fprintf(stderr,
                 "%s for %s, valid %.0f s and once each. On the new machine: hnow-agent enroll TOKEN_FILE "
                 "--coordinator HOST:PORT, then start hnow-agent (docs/packages.md). Keep %s as secret as a password until used; `hnow agent keys` lists "
                 "the tokens not used yet.\n",
                 batch.count == 1 ? "an enrollment token" : (std::to_string(batch.count) + " enrollment tokens").c_str(),
                 name.empty() ? "any free agent name" : ("the agent " + name).c_str(), ttl,
                 batch.count == 1 ? "it" : "them");
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
    std::printf("%-20s %-12s %-9s %-10s %s\n", "agent", "state", "how", "age", "key");
    for (const auto& k : *keys) {
      char age[32] = "config";
      if (k.ageSeconds >= 0) std::snprintf(age, sizeof age, "%.0f s", k.ageSeconds);
      // An unused token: the name it enrolls ("(any)"), and how long it still does.
      char left[48] = "";
      if (k.expiresInSeconds >= 0) std::snprintf(left, sizeof left, "  expires in %.0f s", k.expiresInSeconds);
      const std::string name = k.name.empty() && k.state == "unused-token" ? "(any)" : k.name;
      std::printf("%-20s %-12s %-9s %-10s %s%s%s%s\n", name.c_str(), k.state.c_str(), k.how.empty() ? "-" : k.how.c_str(),
                  age, k.key.c_str(), k.peer.empty() ? "" : "  from ", k.peer.c_str(), left);
    }
    return 0;
  });
}

}  // namespace hnow::cli
