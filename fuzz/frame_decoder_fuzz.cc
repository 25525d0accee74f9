// The data plane's frame decoder (transport/data/frame.h) as a peer's byte
// stream reaches it: arbitrary bytes, cut at arbitrary points. It must
// decode the same frames however the stream is cut, never hold more than
// one frame, stop for good at the first bad header, and the window a
// parent keeps for a child (send_window.h) must stay consistent under any
// HELLO / ACK / RESEND sequence, as serve_connection.cc applies them.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "transport/data/chunk_digests.h"
#include "transport/data/frame.h"
#include "transport/data/send_window.h"

namespace {

using namespace hnow::transport::data;

struct Decoded {
  std::vector<Frame> frames;
  bool failed = false;
};

bool sameFrame(const Frame& a, const Frame& b) {
  return a.type == b.type && a.offset == b.offset && a.checksum == b.checksum && a.payload == b.payload;
}

// Feeds `stream` in the pieces `cuts` gives, taking frames out after each.
Decoded decode(const std::string& stream, std::uint32_t maxPayload, const std::vector<std::size_t>& cuts) {
  FrameDecoder decoder(maxPayload);
  Decoded out;
  std::size_t at = 0;
  std::size_t cut = 0;
  while (at < stream.size()) {
    std::size_t piece = cut < cuts.size() ? cuts[cut++] : stream.size() - at;
    piece = std::min(piece, stream.size() - at);
    decoder.feed(stream.data() + at, piece);
    at += piece;
    while (auto frame = decoder.next()) out.frames.push_back(std::move(*frame));
    HNOW_FUZZ_CHECK(decoder.failed() ||
                        decoder.buffered() < kHeaderBytes + std::max<std::size_t>(maxPayload, kTokenBytes),
                    "the decoder holds less than one frame once its frames are taken");
    if (decoder.failed()) {
      HNOW_FUZZ_CHECK(!decoder.error().empty(), "a failure says why");
      const std::string unknown = "unknown frame type ";
      if (decoder.error().rfind(unknown, 0) == 0)
        HNOW_FUZZ_CHECK(decoder.error().find_first_not_of("0123456789", unknown.size()) == std::string::npos,
                        "an unknown type is named by its byte as sent");
      out.failed = true;
      break;
    }
  }
  return out;
}

// What a parent does with a child's frames (serve_connection.cc onFrame),
// minus the socket: the first frame must be a HELLO, then ACK and RESEND
// move the window; a frame the parent would close on ends the sequence.
void serveChild(const std::vector<Frame>& frames, std::uint64_t size, std::uint64_t available,
                std::uint32_t chunk, std::uint64_t windowBytes) {
  std::optional<SendWindow> window;
  for (const Frame& frame : frames) {
    if (!window) {
      if (frame.type != FrameType::kHello) return;
      window.emplace(size, windowBytes, chunk, frame.offset);
    } else if (frame.type == FrameType::kAck) {
      if (!window->ack(frame.offset)) return;
    } else if (frame.type == FrameType::kResend) {
      if (!window->rewind(frame.offset)) return;
    } else {
      return;
    }
    while (auto next = window->next(available)) {
      HNOW_FUZZ_CHECK(next->length > 0 && next->length <= chunk, "a chunk fits a frame");
      HNOW_FUZZ_CHECK(next->offset + next->length <= std::min(size, available),
                      "only bytes the sender holds are sent");
    }
    HNOW_FUZZ_CHECK(window->acked() <= window->sent() && window->sent() <= size,
                    "acknowledged <= sent <= size");
    HNOW_FUZZ_CHECK(window->inFlight() <= std::max<std::uint64_t>(windowBytes, chunk),
                    "the window bounds what is in flight");
  }
}

// What a child does with its parent's DIGESTS and DATA frames
// (pull_connection.cc) under the source's digests (chunk_digests.h), in
// 64-byte chunks so that small frames reach every branch: whatever a
// parent sends, a list is taken only when it is the source's, and a chunk
// passes only when it is the source's bytes at that offset.
void pullFromParent(const std::vector<Frame>& frames, const std::string& source) {
  constexpr std::uint32_t kChunk = 64;  // 2 chunks a piece
  const ChunkDigests served = chunkDigestsOf(source, kChunk);
  ChunkDigests child;
  child.chunkBytes = kChunk;
  child.size = source.size();
  child.pieces = served.pieces;
  child.chunks.assign(served.chunks.size(), Sha256{});
  child.listed.assign(served.pieces.size(), false);
  for (const Frame& frame : frames) {
    std::string why;
    if (frame.type == FrameType::kDigests) {
      const bool taken = child.takeList(frame.offset, frame.payload, why);
      HNOW_FUZZ_CHECK(taken == why.empty(), "a refused list says why");
      if (taken) HNOW_FUZZ_CHECK(frame.payload == served.listOf(child.pieceOf(frame.offset)), "only the source's list is taken");
    } else if (frame.type == FrameType::kData) {
      const bool passed = child.check(frame.offset, frame.payload, why);
      HNOW_FUZZ_CHECK(passed == why.empty(), "a refused chunk says why");
      if (passed)
        HNOW_FUZZ_CHECK(frame.offset < source.size() && source.compare(frame.offset, frame.payload.size(), frame.payload) == 0,
                        "only the source's bytes pass");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // Small limits so that oversized frames are reachable with small inputs.
  const std::uint32_t maxPayload = in.ConsumeIntegralInRange<std::uint32_t>(0, 256);
  const std::uint64_t fileSize = in.ConsumeIntegralInRange<std::uint64_t>(0, 1 << 20);
  const std::uint64_t available = in.ConsumeIntegralInRange<std::uint64_t>(0, fileSize);
  const std::uint32_t chunk = in.ConsumeIntegralInRange<std::uint32_t>(1, 64 * 1024);
  const std::uint64_t windowBytes = in.ConsumeIntegralInRange<std::uint64_t>(0, 1 << 18);
  std::vector<std::size_t> cuts(in.ConsumeIntegralInRange<std::size_t>(0, 16));
  for (std::size_t& c : cuts) c = in.ConsumeIntegralInRange<std::size_t>(0, 80);
  const std::string stream = in.ConsumeRemainingBytesAsString();

  const Decoded whole = decode(stream, maxPayload, {});
  const Decoded pieces = decode(stream, maxPayload, cuts);
  HNOW_FUZZ_CHECK(whole.failed == pieces.failed, "a cut stream fails exactly when the whole one does");
  HNOW_FUZZ_CHECK(whole.frames.size() == pieces.frames.size(), "a cut stream gives the same frames");
  for (std::size_t i = 0; i < whole.frames.size(); ++i) {
    const Frame& f = whole.frames[i];
    HNOW_FUZZ_CHECK(sameFrame(f, pieces.frames[i]), "a cut stream gives the same frames");
    const bool tokenSized = f.type == FrameType::kHello || f.type == FrameType::kOffer;
    HNOW_FUZZ_CHECK(f.payload.size() <= maxPayload || tokenSized, "no payload over the limit");
    // A frame whose checksum holds is exactly what encodeFrame makes of it.
    if (checksumOk(f)) {
      const std::string again = encodeFrame(f.type, f.offset, f.payload);
      auto one = decode(again, std::max<std::uint32_t>(maxPayload, kTokenBytes), {});
      HNOW_FUZZ_CHECK(one.frames.size() == 1 && sameFrame(one.frames[0], f), "encode and decode agree");
    }
  }
  serveChild(whole.frames, fileSize, available, chunk, windowBytes);
  pullFromParent(whole.frames, std::string(static_cast<std::size_t>(fileSize % 400), 's'));
  return 0;
}
