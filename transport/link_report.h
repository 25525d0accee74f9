#pragma once
// One link of a node as hnowd reports it (`hnow status`): what the CLI
// shows, without the wire (transport/link_wire.h carries it).
#include <string>

namespace hnow::transport {

struct LinkRateReport {
  double bytesPerSecond = 0.0;  // the capacity; for method "bound", the least it is
  std::string method = "unknown";
  double ageSeconds = 0.0;
  double spread = 0.0;
  unsigned samples = 0;
  double otherTraffic = 0.0;  // bytes/s that are not hnow's on it now
  double available = 0.0;     // what a plan made now takes
  // The rate the agent tells, when its transfers belied it (0: none).
  double told = 0.0;
};

}  // namespace hnow::transport
