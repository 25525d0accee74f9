#pragma once
// `hnow key new`, `hnow agent token | revoke | approve | ack | keys`
// (docs/security.md): making keys, and enrolling and cutting off agents.
#include <string>

namespace hnow::cli {

// Writes a fresh key pair to `path` (mode 0600) and prints its public key.
int runKeyNewCommand(const std::string& path);
int runAgentTokenCommand(const std::string& configPath, const std::string& name, double ttlSeconds);
int runAgentRevokeCommand(const std::string& configPath, const std::string& name);
int runAgentApproveCommand(const std::string& configPath, const std::string& name);
// Clears the flag of an agent's key logging in from two hosts by turns.
int runAgentAckCommand(const std::string& configPath, const std::string& name);
int runAgentKeysCommand(const std::string& configPath);

}  // namespace hnow::cli
