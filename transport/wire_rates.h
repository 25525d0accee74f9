#pragma once
// Rates cross the wire as wire::Rates and are plain NodeRates everywhere
// else: nothing deeper than the RPC glue sees capnp types
// (docs/architecture.md "Conventions the code follows").
#include <optional>

#include "planner/node_rates.h"
#include "transport/rates.capnp.h"

namespace hnow::transport {

// None when a field is negative, NaN or infinite: a peer's numbers are checked.
std::optional<planner::NodeRates> ratesFromWire(wire::Rates::Reader rates);
void ratesToWire(const planner::NodeRates& rates, wire::Rates::Builder out);

}  // namespace hnow::transport
