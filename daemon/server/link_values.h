#pragma once
// Link measurements between the wire's plain values (transport/link_wire.h,
// the data plane's own types) and the core's (core/links/link_probe.h,
// core/links/node_loads.h, core/coordinator.h): the core may not see the data
// plane, so the two keep their own copies of these few fields.
#include "core/coordinator.h"
#include "core/links/link_probe.h"
#include "transport/data/data_plane.h"
#include "transport/link_report.h"

namespace hnow::daemon {

CounterSample countersOf(const transport::data::LinkCounters& counters);
transport::LinkRateReport linkReportOf(const LinkView& link);
transport::data::ProbeOrder probeOrderOf(const ProbeOrder& order);
ProbeReply probeReplyOf(const transport::data::ProbeResult& result);

}  // namespace hnow::daemon
