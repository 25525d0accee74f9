#pragma once
// The child's side: connect to the parent, say HELLO with the token and the
// offset already held, then write chunks in order. A chunk whose XXH3 does
// not match is asked for again (go-back-N: frames after it are ignored until
// it comes back). With the source's digests (chunk_digests.h) each chunk
// is also checked against its SHA-256 before it is written, and one that
// differs drops this parent for good (PlaneCore::parentCorrupt). Reading pauses while the shared downlink bucket is in
// debt, so TCP pushes back on the parent.
#include <optional>

#include "transport/data/plane_state.h"
#include "transport/data/tcp_stream.h"

namespace hnow::transport::data {

class PullConnection {
 public:
  PullConnection(PlaneCore& core, Operation& op);
  void connect(const sockaddr* parent);
  // The parent dialed this plane and offered the operation (DataPlane::offer):
  // pull over its connection, taken from `accepted`, as over one opened here.
  void adopt(TcpStream& accepted) {
    stream_.adopt(accepted);
    if (stream_.open()) onConnected();
  }
  // Stops reading and pacing at once; the plane destroys it later.
  void shutdown() {
    stream_.shutdown();
    pacing_.reset();
    connecting_.reset();
  }

 private:
  void onConnected();
  // The stream ended: before it was ever open, the parent is unreachable.
  void onClosed(const std::string& reason);
  void onFrame(Frame frame);
  // The frame at expected_ failed its XXH3: ask for it again (once).
  void askAgain();
  bool writeChunk(const Frame& frame);

  PlaneCore& core_;
  Operation& op_;
  TcpStream stream_;
  UvHandle<uv_timer_t> pacing_;
  // Bounds the wait for the parent to accept (DataOptions::connectTimeout).
  UvHandle<uv_timer_t> connecting_;
  bool connected_ = false;
  std::uint64_t expected_ = 0;
  std::optional<std::uint64_t> resendAsked_;
};

}  // namespace hnow::transport::data
