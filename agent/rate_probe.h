#pragma once
// The agent's probes (DESIGN.md "From measured rates to each model"):
// small-message ping-pong for the fixed overheads, a timed bulk transfer to
// and from hnowd for uplink and downlink, paced by token buckets at the
// emulated rates, and a short compute calibration.
#include <kj/async.h>
#include <kj/timer.h>

#include <cstdint>
#include <functional>

#include "daemon/core/clock.h"
#include "planner/node_rates.h"

namespace hnow::agent {

// The far end of the probes; the RPC glue implements it over AgentSession.
class ProbePeer {
 public:
  virtual ~ProbePeer() = default;
  virtual kj::Promise<void> ping() = 0;
  virtual kj::Promise<void> upload(std::uint32_t bytes) = 0;
  virtual kj::Promise<void> download(std::uint32_t bytes) = 0;
};

struct ProbeSettings {
  double uplinkBytesPerSecond = 0.0;  // emulated; 0: not limited
  double downlinkBytesPerSecond = 0.0;
  double computeFactor = 1.0;
  // How long each bulk transfer should last at the emulated rate; when not
  // limited (a real link), how long chunks are issued for.
  daemon::Duration transferTime = std::chrono::milliseconds(400);
  // At most this many bytes in one bulk transfer when the rate is not limited.
  std::uint64_t unlimitedBytes = 32u << 20;
  int pings = 16;
  // Bytes this agent's data plane has sent / received so far (DataPlane::
  // bytesSent). An unpaced probe shares the real link with any transfer
  // under way, so it adds what the transfer moved meanwhile: the link's
  // capacity, not what the transfer left over. Paced probes have their own
  // token bucket and need no correction. Empty: no data plane yet.
  std::function<std::uint64_t()> dataSent;
  std::function<std::uint64_t()> dataReceived;
};

// `peer`, `timer` and `clock` must outlive the promise.
kj::Promise<planner::NodeRates> probeRates(ProbePeer& peer, kj::Timer& timer,
                                           const daemon::Clock& clock, ProbeSettings settings);

}  // namespace hnow::agent
