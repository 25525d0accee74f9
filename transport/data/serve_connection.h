#pragma once
// The parent's side of one child's connection: wait for a HELLO with a
// known token (anything else is dropped), then send chunks from the
// operation's file within the window, paced by the shared uplink bucket.
#include <optional>

#include "transport/data/plane_state.h"
#include "transport/data/send_window.h"
#include "transport/data/tcp_stream.h"

namespace hnow::transport::data {

class ServeConnection {
 public:
  explicit ServeConnection(PlaneCore& core);
  bool accept(uv_stream_t* server);
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

 private:
  void onFrame(Frame frame);
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
};

}  // namespace hnow::transport::data
