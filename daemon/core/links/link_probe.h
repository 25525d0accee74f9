#pragma once
// One node's part of a probe round of a link survey (survey_runner.h), as
// hnowd hands it out and gets it back: the data plane runs it
// (transport/data/data_plane.h), the RPC glue carries it to agents.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "core/links/node_loads.h"

namespace hnow::daemon {

struct ProbeOrder {
  std::string token;                  // 32 bytes, new for every round
  bool serve = false;                 // the node sends in this round
  std::vector<std::string> pullFrom;  // data addresses to pull a flow from each
  double warmSeconds = 0.3;
  double windowSeconds = 0.6;
};

struct ProbeReply {
  std::vector<double> flowBytesPerSecond;  // per pullFrom, over the window
  // The node's data plane's loads fitted to its chunks (0: not fitted):
  // what its counters say without the chunk a count gains or loses at
  // each end of the window.
  double sentBytesPerSecond = 0.0, receivedBytesPerSecond = 0.0;
  double windowSeconds = 0.0;
  CounterSample before, after;           // the node's counters at the window's ends
};

class LinkProber {
 public:
  virtual ~LinkProber() = default;
  // Runs `node`'s part (kCoordinatorNode: hnowd's own data plane); `done`
  // is called once, later, on the caller's thread.
  // The reply, or why the node measured nothing.
  using ProbeDone = std::function<void(const Result<ProbeReply>& reply)>;
  virtual void probe(const std::string& node, const ProbeOrder& order, ProbeDone done) = 0;
};

}  // namespace hnow::daemon
