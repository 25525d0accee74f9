#pragma once
// A copy's receive order given again to an agent that logged in afresh (a
// new process: it restarted, or its machine did) while its copy was lost
// and still awaited (SendRun::awaitsReturn): its new process holds no order
// of the copy, so it is told again on its new session, and takes over what
// its earlier process received (agent/receiver_leftover.cc) rather than
// waiting for the copy to fail. A single send's copy (SendRuns) and a
// manifest item's (ManifestService) go through here alike.
#include <functional>
#include <string>

#include "base/bandwidth_limits.h"
#include "core/coordinator.h"
#include "core/links/pacing.h"
#include "core/send/send_operation.h"

namespace hnow::daemon {

// `order` as `agent` takes it now: it relays at a pace a little under its
// uplink, as planned, and receives within its downlink's cap; both within
// --max-rate (`maxRate`, 0: none).
inline AgentLink::ReceiveOrder pacedFor(AgentLink::ReceiveOrder order, const Pacing& pacing, const std::string& agent,
                                        double maxRate) {
  order.uplinkPaceBytesPerSecond = capped(pacing.agentUplinkPace(agent), maxRate);
  order.downlinkPaceBytesPerSecond = capped(pacing.agentDownlinkPace(agent), maxRate);
  return order;
}

// `order` (paced for `agent` as now) given to `agent`'s session; `what`
// names the copy's operation in the log ("send 3"). At its answer,
// `stillRunning` gives the send its copy belongs to, or null once it ended
// (what the agent took is then released); the copy rejoins the send, or
// stays failed saying why it was refused; then `after` (re-plans logged,
// the end checked). An answer from a process that logged in again since is
// ignored: that later login got an order of its own.
void orderAgain(Coordinator& coordinator, const std::string& agent, const std::string& what,
                const AgentLink::ReceiveOrder& order, std::function<SendRun*()> stillRunning,
                std::function<void(SendRun&)> after);

}  // namespace hnow::daemon
