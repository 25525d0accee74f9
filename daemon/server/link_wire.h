#pragma once
// Link rates, counters and probe rounds on the wire (control.capnp) and as
// the core sees them (core/link_probe.h, core/coordinator.h).
#include <optional>

#include "core/coordinator.h"
#include "core/link_probe.h"
#include "transport/control.capnp.h"

namespace hnow::daemon {

// None when a time is not finite: a peer's numbers are checked.
std::optional<CounterSample> countersFromWire(wire::LinkCounters::Reader in);
void linkToWire(const LinkView& link, wire::LinkRate::Builder out);
void probeOrderToWire(const ProbeOrder& order, wire::LinkProbeOrder::Builder out);
// An agent's answer; a malformed one (flows not matching the order, a
// window that is no number) is an error reply.
ProbeReply probeReplyFromWire(wire::LinkProbeResult::Reader in, std::size_t flows);

}  // namespace hnow::daemon
