// `hnow agent approve`: one pending agent by name, several, or every one
// pending (--all), each shown with the key it asks with before it is
// approved. The key shown is the one approved: hnowd refuses a name whose
// pending key changed in between (approveAgent's expectedKey), so a key
// swapped after the operator compared it is never enrolled.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "cli/agent_keys_command.h"
#include "cli/coordinator_client.h"

namespace hnow::cli {

namespace {

// The pending keys `choice` names, or why not: a name that is not pending.
Result<std::vector<CoordinatorClient::AgentKey>> chosen(const std::vector<CoordinatorClient::AgentKey>& keys,
                                                         const ApproveChoice& choice) {
  std::vector<CoordinatorClient::AgentKey> pending, out;
  for (const auto& k : keys)
    if (k.state == "pending") pending.push_back(k);
  if (choice.all) return pending;
  // By name: hnowd lists them in the order they asked, which says nothing to the reader.
  std::vector<std::string> names;
  for (const auto& p : pending) names.push_back(p.name);
  std::sort(names.begin(), names.end());
  std::string waiting;
  for (const auto& n : names) waiting += (waiting.empty() ? "" : ", ") + n;
  for (const std::string& name : choice.names) {
    auto it = std::find_if(pending.begin(), pending.end(), [&](const auto& p) { return p.name == name; });
    if (it == pending.end())
      return Error{"no agent named " + name + " is waiting for approval (waiting: " +
                   (waiting.empty() ? std::string("none") : waiting) + "); nothing approved"};
    if (std::none_of(out.begin(), out.end(), [&](const auto& o) { return o.name == name; })) out.push_back(*it);
  }
  return out;
}

// y or yes, read from `answers`; anything else (an empty line, end of input) is no.
bool confirmed(std::FILE* answers) {
  char line[16] = "";
  if (!std::fgets(line, sizeof line, answers)) return false;
  const std::string a(line);
  return a == "y\n" || a == "Y\n" || a == "yes\n" || a == "y" || a == "yes";
}

}  // namespace

int runAgentApproveCommand(const std::string& configPath, const ApproveChoice& choice, std::FILE* answers) {
  if (choice.all == !choice.names.empty()) {
    std::fprintf(stderr, "hnow: agent approve: name the agents to approve, or give --all for every pending one\n");
    return 2;
  }
  const bool atTerminal = ::isatty(::fileno(answers)) == 1;
  if (choice.all && !choice.yes && !atTerminal) {
    std::fprintf(stderr, "hnow: agent approve --all: not at a terminal to ask; check the keys with `hnow agent keys` "
                         "and add --yes to approve every pending agent\n");
    return 2;
  }
  int exitCode = 0;
  auto client = connectOrReport(configPath, exitCode);
  if (!client) return exitCode;
  auto keys = client->agentKeys();
  if (!keys) {
    std::fprintf(stderr, "hnow: agent approve failed: %s\n", keys.error().message.c_str());
    return 1;
  }
  auto approving = chosen(*keys, choice);
  if (!approving) {
    std::fprintf(stderr, "hnow: agent approve: %s\n", approving.error().message.c_str());
    return 1;
  }
  if (approving->empty()) {
    std::printf("no agent is waiting for approval\n");
    return 0;
  }
  // What an owner compares with the "agent key ..." line hnow-agent logged on its machine.
  std::printf("%-20s %-10s %-22s %s\n", "agent", "asked", "from", "key");
  for (const auto& k : *approving) {
    char age[32] = "-";
    if (k.ageSeconds >= 0) std::snprintf(age, sizeof age, "%.0f s ago", k.ageSeconds);
    std::printf("%-20s %-10s %-22s %s\n", k.name.c_str(), age, k.peer.empty() ? "-" : k.peer.c_str(), k.key.c_str());
  }
  if (!choice.yes && atTerminal) {
    std::printf("approve %zu agent(s) with these keys? [y/N] ", approving->size());
    std::fflush(stdout);
    if (!confirmed(answers)) {
      std::printf("nothing approved\n");
      return 1;
    }
  }
  int failed = 0;
  for (const auto& k : *approving) {
    auto key = client->approveAgent(k.name, k.key);
    if (!key) {
      std::fprintf(stderr, "hnow: agent %s not approved: %s\n", k.name.c_str(), key.error().message.c_str());
      ++failed;
      continue;
    }
    std::printf("agent %s approved with key %s; it logs in at its next try\n", k.name.c_str(), key->c_str());
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace hnow::cli
