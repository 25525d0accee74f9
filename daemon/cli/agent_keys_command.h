#pragma once
// `hnow key new`, `hnow agent token | revoke | approve | ack | keys`
// (docs/security.md): making keys, and enrolling and cutting off agents.
#include <cstdio>
#include <string>
#include <vector>

namespace hnow::cli {

// Writes a fresh key pair to `path` (mode 0600) and prints its public key.
int runKeyNewCommand(const std::string& path);
// `hnow agent token`: one token on stdout, or `count` of them, each for
// any free name; with `dir`, each in a file of its own there (mode 0600,
// the directory made 0700), named NAME.token or token-K.token.
struct TokenBatch {
  int count = 1;
  std::string dir;
};
int runAgentTokenCommand(const std::string& configPath, const std::string& name, double ttlSeconds,
                         const TokenBatch& batch = {});
int runAgentRevokeCommand(const std::string& configPath, const std::string& name);
// `hnow agent approve NAME... | --all [--yes]` (cli/agent_approve_command.cc):
// shows each pending agent's key, then approves it; --all asks first at a
// terminal (read from `answers`), and needs --yes elsewhere.
struct ApproveChoice {
  std::vector<std::string> names;
  bool all = false;
  bool yes = false;
};
int runAgentApproveCommand(const std::string& configPath, const ApproveChoice& choice, std::FILE* answers = stdin);
// Clears the flag of an agent's key logging in from two hosts by turns.
int runAgentAckCommand(const std::string& configPath, const std::string& name);
int runAgentKeysCommand(const std::string& configPath);

}  // namespace hnow::cli
