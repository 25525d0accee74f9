#pragma once
// What a sender may put on one data connection next:
// at most `windowBytes` sent and not yet acknowledged, so a relay holds a
// fixed amount of memory per child whatever the file size; only bytes the
// sender itself already holds (`available`, which grows while a relay is
// still receiving); go-back-N on a RESEND. Pure: no sockets, no clock.
#include <cstdint>
#include <optional>

namespace hnow::transport::data {

struct Chunk {
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
};

class SendWindow {
 public:
  // Sends [start, size) in chunks of at most `chunkBytes`.
  SendWindow(std::uint64_t size, std::uint64_t windowBytes, std::uint32_t chunkBytes,
             std::uint64_t start);

  // The next chunk to send, given the bytes the sender holds; none when the
  // window is full, nothing new is available, or everything was sent. Taking
  // it counts it as sent.
  std::optional<Chunk> next(std::uint64_t available);
  // Cumulative acknowledgement. False for an offset never sent (a broken
  // peer); an old acknowledgement is ignored.
  bool ack(std::uint64_t offset);
  // Send again from `offset` (a corrupt chunk). False outside [acked, sent].
  bool rewind(std::uint64_t offset);

  std::uint64_t acked() const { return acked_; }
  std::uint64_t sent() const { return next_; }
  std::uint64_t inFlight() const { return next_ - acked_; }
  bool complete() const { return acked_ == size_; }

 private:
  std::uint64_t size_;
  std::uint64_t window_;
  std::uint32_t chunk_;
  std::uint64_t acked_;
  std::uint64_t next_;
};

}  // namespace hnow::transport::data
