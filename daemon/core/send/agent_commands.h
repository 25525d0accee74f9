#pragma once
// SendCommands for a real transfer (a send, a manifest item): the commands
// go to the agents by name through the coordinator, under the transfer's
// token; an agent not connected now is skipped (its loss is reported apart).
#include <string>

#include "core/coordinator.h"
#include "core/send/send_operation.h"

namespace hnow::daemon {

struct AgentCommands final : SendCommands {
  AgentCommands(Coordinator& c, std::string t) : coordinator(c), token(std::move(t)) {}
  void pull(const std::string& node, const std::string& parentAddress) override {
    if (AgentLink* link = coordinator.link(node)) link->pull(token, parentAddress);
  }
  Coordinator& coordinator;
  std::string token;
};

}  // namespace hnow::daemon
