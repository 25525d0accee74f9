#pragma once
// The parent's side of one child's connection: wait for a HELLO with a
// known token (anything else is dropped), then send chunks from the
// operation's file within the window, paced by the shared uplink bucket.
// Most such connections were accepted; a parent its child cannot connect to
// dials the child itself and offers the file (dial(), DataPlane::offer).
#include <functional>
#include <optional>

#include "base/result.h"
#include "transport/data/plane_state.h"
#include "transport/data/send_window.h"
#include "transport/data/tcp_stream.h"

namespace hnow::transport::data {

class ServeConnection {
 public:
  explicit ServeConnection(PlaneCore& core);
  bool accept(uv_stream_t* server);
  // Connects to `child`, offers it `ticket`, and then serves `token` only,
  // from the offset of the child's HELLO. `started` once: when that HELLO
  // came, or why it never will (no connection within the connect timeout,
  // no HELLO within the hello timeout, the connection ended).
  using Started = std::function<void(const Result<void>& started)>;
  void dial(const sockaddr* child, std::string token, const std::string& ticket, Started started);
  // More bytes are available, an ack arrived or the pacing wait is over.
  void pump();
  void close(const std::string& reason) { stream_.close(reason); }
  // Stops sending and pacing at once; the plane destroys it later.
  void shutdown() {
    stream_.shutdown();
    pacing_.reset();
  }
  Operation* operation() const { return op_; }
  const std::string& peer() const { return stream_.peer(); }
  // An accepted connection whose first frame was an offer: its new owner
  // takes the socket (PullConnection::adopt).
  TcpStream& stream() { return stream_; }

 private:
  void onFrame(Frame frame);
  void onHello(const Frame& hello);
  void startTimer(hnow::Duration after, uv_timer_cb fire);
  void sendChunk(Chunk chunk);

  PlaneCore& core_;
  TcpStream stream_;
  Operation* op_ = nullptr;
  std::optional<SendWindow> window_;
  std::optional<Chunk> held_;  // taken from the bucket, waiting for the pacing timer
  UvHandle<uv_timer_t> pacing_;
  std::set<std::uint64_t> corrupted_;  // offsets the test hook corrupted
  std::uint64_t relayedFrames_ = 0;    // the relay-rewrite test hook's count
  std::optional<std::uint64_t> listedPiece_;  // whose digests this child got last
  bool sendListFor(std::uint64_t offset);
  // dial() only: the one token served, and `started` until it is answered.
  std::string dialedToken_, ticket_;
  Started started_;
};

}  // namespace hnow::transport::data
