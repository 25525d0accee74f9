#pragma once
// The data plane's wire format (docs/architecture.md "Integrity and security
// defaults"): a stream of frames, each a fixed 32-byte little-endian header
// and a payload. DATA payloads carry an XXH3 checksum seeded with their
// offset, so a flipped bit or a chunk at the wrong place is caught; the
// header's length is checked against a limit before any payload is read, so a
// peer cannot make us buffer an arbitrary amount.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hnow::transport::data {

inline constexpr std::uint32_t kMagic = 0x50444e48;  // "HNDP"
inline constexpr std::size_t kHeaderBytes = 32;
// Payload of one DATA frame; also the decoder's default limit.
inline constexpr std::uint32_t kChunkBytes = 128 * 1024;
inline constexpr std::size_t kTokenBytes = 32;

enum class FrameType : std::uint8_t {
  kHello = 1,   // child -> parent: payload = operation token, offset = resume offset
  kData = 2,    // parent -> child: a chunk of the file at `offset`
  kAck = 3,     // child -> parent: every byte before `offset` is written
  kResend = 4,  // child -> parent: the chunk at `offset` arrived corrupt; send again from there
  // parent -> child: the SHA-256 of each chunk of the piece starting at
  // `offset`, sent before that piece's first chunk (chunk_digests.h)
  kDigests = 5,
  // dialer -> the plane it dialed: payload = the 32-byte ticket hnowd gave
  // for one receive (DataPlane::offer). The dialer opened the connection,
  // yet it is the parent: the plane it dialed answers with a HELLO and pulls
  // (a parent nobody can connect to, docs/reachability.md).
  kOffer = 6,
};

struct Frame {
  FrameType type = FrameType::kData;
  std::uint64_t offset = 0;
  std::uint64_t checksum = 0;
  std::string payload;
};

// XXH3-64 of `payload`, seeded with `offset`.
std::uint64_t chunkChecksum(std::string_view payload, std::uint64_t offset);
bool checksumOk(const Frame& frame);

// Header and payload in one buffer, the checksum computed here.
std::string encodeFrame(FrameType type, std::uint64_t offset, std::string_view payload);
// Writes the header for a payload already in place at `out + kHeaderBytes`
// (the sender reads file data straight into its frame buffer).
void encodeHeaderInPlace(char* out, FrameType type, std::uint64_t offset, std::uint32_t length);

// Incremental decoder: feed bytes as they arrive, take frames out. A stream
// that breaks the format (bad magic, unknown type, payload over the limit, a
// HELLO, ACK, RESEND or DIGESTS of the wrong size) puts it in a failed state for good:
// the connection is closed, nothing after the bad header is interpreted.
class FrameDecoder {
 public:
  explicit FrameDecoder(std::uint32_t maxPayload = kChunkBytes) : maxPayload_(maxPayload) {}

  void feed(const char* data, std::size_t size);
  // The next complete frame, or none when more bytes are needed or failed.
  std::optional<Frame> next();
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // Bytes held while waiting for the rest of a frame.
  std::size_t buffered() const { return buffer_.size() - consumed_; }

 private:
  std::uint32_t maxPayload_;
  std::vector<char> buffer_;
  std::size_t consumed_ = 0;
  std::string error_;
};

}  // namespace hnow::transport::data
