#pragma once
// One data-plane TCP connection on the data thread: frames in through a
// FrameDecoder, frames out as owned buffers. The owner may destroy the
// stream at any time, even from inside one of its callbacks: the handle is
// closed by UvHandle, pending writes free themselves.
#include <uv.h>

#include <functional>
#include <memory>
#include <string>

#include "transport/data/frame.h"
#include "transport/data/link_counters.h"
#include "transport/data/uv_handle.h"

namespace hnow::transport::data {

class TcpStream {
 public:
  struct Callbacks {
    std::function<void()> onConnected;                 // connect() only
    std::function<void(Frame)> onFrame;
    std::function<void(const std::string&)> onClosed;  // once: EOF, error, bad frame
  };

  // `wire`, when given, is told what the socket carried (link_counters.h);
  // shared, since a retired stream may be destroyed after its plane.
  TcpStream(uv_loop_t* loop, Callbacks callbacks, std::shared_ptr<WireTally> wire = nullptr);
  ~TcpStream();

  // The accepting side: takes the pending connection of `server`.
  bool accept(uv_stream_t* server);
  void connect(const sockaddr* address);
  // Takes over the open connection of `from` (which is then closed, without
  // its onClosed), with any bytes it read and did not decode yet: a
  // connection whose roles swap changes owners mid-stream (DataPlane::offer).
  // Only on a stream that never opened; `from` may be inside its own onFrame.
  void adopt(TcpStream& from);

  void write(std::string bytes);
  void pauseReading();
  void resumeReading();
  // Closes now; onClosed is called with `reason` unless it was already.
  void close(const std::string& reason);
  // Closes without calling onClosed: the owner is going away.
  void shutdown();
  bool open() const { return open_; }
  // host:port of the other end, kept from when the connection opened, so
  // it can still be named after the socket is closed.
  const std::string& peer() const { return peer_; }
  // Adds to the tally what the socket carried since the last call.
  void countWire();

 private:
  void startReading();
  void onRead(ssize_t n, const uv_buf_t* buf);
  std::string lookUpPeer() const;

  Callbacks callbacks_;
  UvHandle<uv_tcp_t> tcp_;
  FrameDecoder decoder_;
  bool open_ = false;
  bool closed_ = false;
  bool reading_ = false;
  std::string peer_ = "?";
  std::shared_ptr<WireTally> wire_;
  WireBytes wireSeen_;
  char readBuffer_[64 * 1024];
  // Cleared on destruction so a callback loop notices that its owner
  // destroyed the stream from inside a callback.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

// "host:port" (numeric IPv4 or IPv6, or a name resolved here, blocking) to
// a socket address; false when it cannot be parsed or resolved.
bool parseAddress(const std::string& hostPort, sockaddr_storage& out);

}  // namespace hnow::transport::data
