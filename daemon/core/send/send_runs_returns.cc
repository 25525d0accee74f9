// A send's agent back afresh (Coordinator::attach): its new process holds
// no order of the send, so it is given the order again, paced as now, and
// its copy rejoins the send once it answers. It takes over what its
// earlier process received (agent/receiver_leftover.cc) rather than
// waiting for the next send of the file.
#include <spdlog/spdlog.h>

#include "base/log_context.h"
#include "core/send/send_runs.h"
#include "core/send/send_service_state.h"

namespace hnow::daemon {

void SendRuns::agentBackAfresh(const std::string& agent) {
  AgentLink* link = coordinator_.link(agent);
  if (!link) return;
  const std::uint64_t login = coordinator_.logins(agent);
  for (auto& entry : operations_) {
    const std::uint64_t id = entry.first;
    RunningSend& running = *entry.second;
    // An agent that served the file in hnowd's place failed the send when it was lost.
    if (running.released || !running.operation || running.sourceAgent == agent ||
        !running.operation->awaitsReturn(agent))
      continue;
    const AgentLink::ReceiveOrder order = pacedFor(running.order, coordinator_.pacing(), agent, running.maxRate);
    LogScope scope(LogFields{running.record, agent, {}});
    spdlog::warn("send {}: {} logged in afresh while the send waits for its copy: ordered again, to resume from "
                 "the bytes it kept",
                 running.record, agent);
    link->receive(order, [this, id, agent, login, token = running.token](const Result<std::string>& path) {
      reordered(id, agent, login, token, path);
    });
  }
}

void SendRuns::reordered(std::uint64_t id, const std::string& agent, std::uint64_t login, const std::string& token,
                         const Result<std::string>& path) {
  // A later login of it got an order of its own: this answer is a gone process's.
  if (coordinator_.logins(agent) != login) return;
  auto it = operations_.find(id);
  RunningSend* running = it == operations_.end() ? nullptr : it->second.get();
  if (!running || running->released) {
    // The send ended while it answered: it lets go of what it took.
    if (path)
      if (AgentLink* link = coordinator_.link(agent)) link->release(token);
    return;
  }
  LogScope scope(LogFields{running->record, agent, {}});
  if (!path) {
    spdlog::warn("send {}: {}, back afresh, did not take the send again: {}", running->record, agent,
                 path.error().message);
    running->operation->refusedAgain(agent, path.error().message);
  } else {
    const AgentRegistration* registration = coordinator_.registration(agent);
    if (running->operation->rejoin(agent, registration ? registration->dataAddress : std::string()))
      spdlog::warn("send {}: {} took it again into {}: its copy resumes", running->record, agent, *path);
    else if (AgentLink* link = coordinator_.link(agent))
      link->release(token);  // its wait ran out meanwhile
  }
  logReplan(*running);
  endIfFinished(*running);
}

}  // namespace hnow::daemon
