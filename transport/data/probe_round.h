#pragma once
// One node's part of a probe round of hnowd's link survey (DataPlane::probe)
// on the data thread: serve the round's token for its length, pull one flow
// from each peer named, and read this node's counters and each flow over
// the same window, set from when the order arrived (hnowd hands every node
// of a round its order at once).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "transport/data/data_plane.h"
#include "transport/data/flow_slope.h"
#include "transport/data/probe_connection.h"

namespace hnow::transport::data {

class ProbeRound {
 public:
  struct Hooks {
    std::function<void(const std::string& token)> serve;  // accept the round's flows
    std::function<void(const std::string& token)> stopServing;
    std::function<LinkCounters()> counters;
    std::function<void(ProbeRound*)> ended;  // the plane destroys it later
  };
  // Done when `order` can be run; else the Error saying why not.
  static Result<void> checkOrder(const ProbeOrder& order);

  ProbeRound(PlaneCore& core, ProbeOrder order, ProbeDone done, Hooks hooks);
  void start();
  // A child acknowledged `sent` payload bytes, or the plane took `received`
  // from a socket: fitted over the window as the node's own loads.
  void counted(std::uint64_t sent, std::uint64_t received);

 private:
  UvHandle<uv_timer_t> timer(void (*callback)(uv_timer_t*), double seconds);
  void openWindow();
  void closeWindow();
  void end();

  PlaneCore& core_;
  ProbeOrder order_;
  ProbeDone done_;
  Hooks hooks_;
  std::vector<std::unique_ptr<ProbeConnection>> flows_;
  WindowCount sent_, received_;  // this plane's loads over the window
  ProbeResult result_;
  std::vector<UvHandle<uv_timer_t>> timers_;
};

}  // namespace hnow::transport::data
