#pragma once
// Bandwidth caps cross the wire as wire::LinkCaps (an agent's caps in force)
// and are plain CapsInForce everywhere else (base/bandwidth_limits.h).
#include <optional>

#include "base/bandwidth_limits.h"
#include "transport/rates.capnp.h"

namespace hnow::transport {

// None when a rate is negative, NaN or infinite, or a percentage is over 100.
std::optional<CapsInForce> capsFromWire(wire::LinkCaps::Reader in);
void capsToWire(const CapsInForce& caps, wire::LinkCaps::Builder out);

}  // namespace hnow::transport
