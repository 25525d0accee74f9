#include "core/send/order_again.h"

#include <spdlog/spdlog.h>

namespace hnow::daemon {

void orderAgain(Coordinator& coordinator, const std::string& agent, const std::string& what,
                const AgentLink::ReceiveOrder& order, std::function<SendRun*()> stillRunning,
                std::function<void(SendRun&)> after) {
  AgentLink* link = coordinator.link(agent);
  if (!link) return;
  const std::uint64_t login = coordinator.logins(agent);
  spdlog::warn("{}: {} logged in afresh while the send waits for its copy: ordered again, to resume from the bytes it kept",
               what, agent);
  link->receive(order, [&coordinator, agent, what, login, token = order.token, stillRunning = std::move(stillRunning),
                        after = std::move(after)](const Result<std::string>& path) {
    if (coordinator.logins(agent) != login) return;
    SendRun* run = stillRunning();
    if (!run) {  // it ended while the agent answered: the agent lets go of what it took
      if (path)
        if (AgentLink* link = coordinator.link(agent)) link->release(token);
      return;
    }
    if (!path) {
      spdlog::warn("{}: {}, back afresh, did not take its copy again: {}", what, agent, path.error().message);
      run->refusedAgain(agent, path.error().message);
    } else {
      const AgentRegistration* registration = coordinator.registration(agent);
      if (run->rejoin(agent, registration ? registration->dataAddress : std::string()))
        spdlog::warn("{}: {} took it again into {}: its copy resumes", what, agent, *path);
      else if (AgentLink* link = coordinator.link(agent))
        link->release(token);  // its wait ran out meanwhile
    }
    after(*run);
  });
}

}  // namespace hnow::daemon
