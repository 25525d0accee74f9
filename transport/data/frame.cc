#include "transport/data/frame.h"

#include <xxhash.h>

#include <cstring>

namespace hnow::transport::data {

namespace {

void put32(char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
void put64(char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
std::uint32_t get32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}
std::uint64_t get64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

// Header layout: magic u32 | type u8 | 3 reserved | length u32 | 4 reserved
// | offset u64 | checksum u64.
void writeHeader(char* out, FrameType type, std::uint64_t offset, std::uint32_t length,
                 std::uint64_t checksum) {
  std::memset(out, 0, kHeaderBytes);
  put32(out, kMagic);
  out[4] = static_cast<char>(type);
  put32(out + 8, length);
  put64(out + 16, offset);
  put64(out + 24, checksum);
}

}  // namespace

std::uint64_t chunkChecksum(std::string_view payload, std::uint64_t offset) {
  return XXH3_64bits_withSeed(payload.data(), payload.size(), offset);
}

bool checksumOk(const Frame& frame) {
  return chunkChecksum(frame.payload, frame.offset) == frame.checksum;
}

std::string encodeFrame(FrameType type, std::uint64_t offset, std::string_view payload) {
  std::string out(kHeaderBytes + payload.size(), '\0');
  std::memcpy(out.data() + kHeaderBytes, payload.data(), payload.size());
  encodeHeaderInPlace(out.data(), type, offset, static_cast<std::uint32_t>(payload.size()));
  return out;
}

void encodeHeaderInPlace(char* out, FrameType type, std::uint64_t offset, std::uint32_t length) {
  writeHeader(out, type, offset, length,
              chunkChecksum(std::string_view(out + kHeaderBytes, length), offset));
}

void FrameDecoder::feed(const char* data, std::size_t size) {
  if (failed()) return;
  // Drop what was consumed before growing, so the buffer stays about one frame.
  if (consumed_ > 0) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(consumed_));
    consumed_ = 0;
  }
  buffer_.insert(buffer_.end(), data, data + size);
}

std::optional<Frame> FrameDecoder::next() {
  if (failed() || buffered() < kHeaderBytes) return std::nullopt;
  const char* h = buffer_.data() + consumed_;
  if (get32(h) != kMagic) {
    error_ = "not an hnow data stream (bad magic)";
    return std::nullopt;
  }
  const auto type = static_cast<FrameType>(static_cast<unsigned char>(h[4]));
  const std::uint32_t length = get32(h + 8);
  switch (type) {
    case FrameType::kData:
      if (length > maxPayload_)
        error_ = "oversized frame: " + std::to_string(length) + " bytes (the limit is " +
                 std::to_string(maxPayload_) + ")";
      break;
    case FrameType::kDigests:
      if (length == 0 || length % 32 != 0 || length > maxPayload_)
        error_ = "a list of chunk digests of " + std::to_string(length) +
                 " bytes (a multiple of 32, at most " + std::to_string(maxPayload_) + ")";
      break;
    case FrameType::kHello:
      if (length != kTokenBytes)
        error_ = "a hello of " + std::to_string(length) + " bytes (it must carry a 32-byte token)";
      break;
    case FrameType::kOffer:
      if (length != kTokenBytes)
        error_ = "an offer of " + std::to_string(length) + " bytes (it must carry a 32-byte ticket)";
      break;
    case FrameType::kAck:
    case FrameType::kResend:
      if (length != 0) error_ = "an ack or resend carries no payload";
      break;
    // The type byte as sent (0..255): char is signed here.
    default: error_ = "unknown frame type " + std::to_string(static_cast<unsigned char>(h[4]));
  }
  if (failed() || buffered() < kHeaderBytes + length) return std::nullopt;
  Frame frame;
  frame.type = type;
  frame.offset = get64(h + 16);
  frame.checksum = get64(h + 24);
  frame.payload.assign(h + kHeaderBytes, length);
  consumed_ += kHeaderBytes + length;
  return frame;
}

}  // namespace hnow::transport::data
