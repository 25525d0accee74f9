#pragma once
// The one codec of link measurements (rates.capnp LinkCounters,
// LinkRate; agent_control.capnp LinkProbeOrder, LinkProbeResult): the agent, hnowd and the CLI
// all use these pairs, so a field cannot be added on one side only. The
// plain values are the data plane's own (transport/data/) and, for a
// link's rate as reported, LinkRateReport.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "transport/agent_control.capnp.h"
#include "transport/data/data_plane.h"
#include "transport/data/link_counters.h"
#include "transport/link_report.h"
#include "transport/rates.capnp.h"

namespace hnow::transport {

void toWire(const data::LinkCounters& counters, wire::LinkCounters::Builder out);
// None when its time is not finite: a peer's numbers are checked.
std::optional<data::LinkCounters> countersFromWire(wire::LinkCounters::Reader in);

void toWire(const data::ProbeOrder& order, wire::LinkProbeOrder::Builder out);
// Refused when the token is not 32 bytes.
Result<data::ProbeOrder> probeOrderFromWire(wire::LinkProbeOrder::Reader in);

// A measured result (its `error` is not on the wire: a refusal is the call's failure).
void toWire(const data::ProbeResult& result, wire::LinkProbeResult::Builder out);
// Refused when it does not fit an order of `flows` pulls (a window or
// counters that are no numbers).
Result<data::ProbeResult> probeResultFromWire(wire::LinkProbeResult::Reader in, std::size_t flows);

void toWire(const LinkRateReport& link, wire::LinkRate::Builder out);
LinkRateReport linkRateFromWire(wire::LinkRate::Reader in);

}  // namespace hnow::transport
