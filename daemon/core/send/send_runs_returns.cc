// A send's agent back afresh (Coordinator::attach): its new process holds
// no order of the send, so it is given the order again, paced as now, and
// its copy rejoins the send once it answers (core/send/order_again.h). It
// takes over what its earlier process received (agent/receiver_leftover.cc)
// rather than waiting for the next send of the file.
#include "core/send/order_again.h"
#include "core/send/send_runs.h"
#include "core/send/send_service_state.h"

namespace hnow::daemon {

void SendRuns::agentBackAfresh(const std::string& agent) {
  for (auto& entry : operations_) {
    const std::uint64_t id = entry.first;
    RunningSend& running = *entry.second;
    // An agent that served the file in hnowd's place failed the send when it was lost.
    if (running.released || !running.operation || running.sourceAgent == agent ||
        !running.operation->awaitsReturn(agent))
      continue;
    orderAgain(
        coordinator_, agent, "send " + std::to_string(running.record),
        pacedFor(running.order, coordinator_.pacing(), agent, running.maxRate),
        [this, id]() -> SendRun* {
          auto it = operations_.find(id);
          return it == operations_.end() || it->second->released ? nullptr : it->second->operation.get();
        },
        [this, id](SendRun&) {
          RunningSend& running = *operations_.at(id);
          logReplan(running);
          endIfFinished(running);
        });
  }
}

}  // namespace hnow::daemon
