#include "transport/data/send_window.h"

#include <algorithm>

namespace hnow::transport::data {

SendWindow::SendWindow(std::uint64_t size, std::uint64_t windowBytes, std::uint32_t chunkBytes,
                       std::uint64_t start)
    : size_(size), window_(std::max<std::uint64_t>(windowBytes, chunkBytes)), chunk_(chunkBytes),
      acked_(std::min(start, size)), next_(acked_) {}

std::optional<Chunk> SendWindow::next(std::uint64_t available) {
  available = std::min(available, size_);
  if (next_ >= available) return std::nullopt;
  const std::uint64_t length = std::min<std::uint64_t>({chunk_, available - next_});
  if (inFlight() + length > window_) return std::nullopt;
  Chunk chunk{next_, static_cast<std::uint32_t>(length)};
  next_ += length;
  return chunk;
}

bool SendWindow::ack(std::uint64_t offset) {
  if (offset > next_) return false;
  acked_ = std::max(acked_, offset);
  return true;
}

bool SendWindow::rewind(std::uint64_t offset) {
  if (offset < acked_ || offset > next_) return false;
  next_ = offset;
  return true;
}

}  // namespace hnow::transport::data
