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
  // The window opened: payload from now on is counted and fitted. A flow
  // that fails from now on stays closed (a peer that forgot the token would
  // be asked every 50 ms for nothing, and a flow restarted mid-window
  // measures its ramp-up, not the link).
  void openWindow();
  // Its payload since openWindow(), and its rate over a window of
  // `windowSeconds` that opened then.
  std::uint64_t windowBytes() const { return window_.bytes(); }
  double bytesPerSecond(double windowSeconds) const { return window_.bytesPerSecond(windowSeconds); }
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
  WindowCount window_;
  bool stopped_ = false;
  bool retrying_ = true;
};

}  // namespace hnow::transport::data
