#pragma once
// One probe flow of a probe round, the receiving side: connect to a peer's
// data plane, say HELLO with the round's token, count the DATA that comes
// and acknowledge it (so the peer's window moves), paced by the shared
// downlink bucket like any download. A flow that fails before the window
// opens is opened again after a moment: the peer may not have registered
// the round's token yet. Data thread only.
#include <sys/socket.h>

#include <cstdint>
#include <memory>
#include <string>

#include "transport/data/flow_slope.h"
#include "transport/data/plane_state.h"
#include "transport/data/tcp_stream.h"

namespace hnow::transport::data {

class ProbeConnection {
 public:
  ProbeConnection(PlaneCore& core, std::string token, const sockaddr_storage& peer);
  void connect();
  // Payload received so far, over every connection this flow opened.
  std::uint64_t bytes() const { return bytes_; }
  // The window opened: arrivals from now on are fitted to a rate. A flow
  // that fails from now on stays closed (a peer that forgot the token would
  // be asked every 50 ms for nothing, and a flow restarted mid-window
  // measures its ramp-up, not the link).
  void openWindow();
  // Its rate over a window of `windowSeconds` that opened at openWindow().
  double bytesPerSecond(double windowSeconds) const;
  // Stops at once, for good.
  void stop();

 private:
  void onFrame(Frame frame);
  void onClosed();

  PlaneCore& core_;
  std::string token_;
  sockaddr_storage peer_;
  std::unique_ptr<TcpStream> stream_;
  UvHandle<uv_timer_t> pacing_;
  UvHandle<uv_timer_t> retry_;
  std::uint64_t bytes_ = 0;
  std::uint64_t bytesAtOpen_ = 0;
  std::uint64_t openedNs_ = 0;  // uv_hrtime at openWindow(); 0 before
  FlowSlope slope_;
  bool stopped_ = false;
  bool retrying_ = true;
};

}  // namespace hnow::transport::data
