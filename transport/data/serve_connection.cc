#include "transport/data/serve_connection.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hnow::transport::data {

namespace {
std::uint64_t toMillisCeil(hnow::Duration d) {
  return static_cast<std::uint64_t>((d.count() + 999'999) / 1'000'000);
}
}  // namespace

ServeConnection::ServeConnection(PlaneCore& core)
    : core_(core),
      stream_(core.loop(), TcpStream::Callbacks{
                               [this]() {  // dial() only
                                 stream_.write(encodeFrame(FrameType::kOffer, 0, ticket_));
                                 startTimer(core_.options().helloTimeout, [](uv_timer_t* t) {
                                   auto* self = static_cast<ServeConnection*>(t->data);
                                   if (!self->op_) self->stream_.close("no hello in time after the offer");
                                 });
                               },
                               [this](Frame f) { onFrame(std::move(f)); },
                               [this](const std::string& reason) {
                                 if (started_) std::exchange(started_, {})(Error{reason});
                                 // A frame that breaks the format is an attack or a bug: worth a warning.
                                 if (reason.rfind("refused: ", 0) == 0)
                                   spdlog::warn("data connection from {} {}; closed", stream_.peer(), reason);
                                 else
                                   spdlog::debug("data connection from {} ended: {}", stream_.peer(), reason);
                                 core_.serveClosed(this);
                               }},
              core.wire()),
      pacing_([&core](uv_timer_t* t) { return uv_timer_init(core.loop(), t); }) {
  if (pacing_) pacing_.get()->data = this;
}

void ServeConnection::startTimer(hnow::Duration after, uv_timer_cb fire) {
  if (pacing_) uv_timer_start(pacing_.get(), fire, toMillisCeil(after), 0);
}

bool ServeConnection::accept(uv_stream_t* server) {
  if (!stream_.accept(server)) return false;
  // Until the hello, the pacing timer is the hello deadline.
  startTimer(core_.options().helloTimeout, [](uv_timer_t* t) {
    auto* self = static_cast<ServeConnection*>(t->data);
    if (self->op_) return;
    spdlog::warn("data connection from {} closed: no hello within {:.1f} s", self->stream_.peer(),
                 std::chrono::duration<double>(self->core_.options().helloTimeout).count());
    self->stream_.close("no hello in time");
  });
  return true;
}

void ServeConnection::dial(const sockaddr* child, std::string token, const std::string& ticket, Started started) {
  dialedToken_ = std::move(token);
  ticket_ = ticket;
  started_ = std::move(started);
  // As a child's connect (DataOptions::connectTimeout): a NAT or firewall in
  // front of the child drops the SYN, and the kernel would retry for minutes.
  startTimer(core_.options().connectTimeout, [](uv_timer_t* t) {
    auto* self = static_cast<ServeConnection*>(t->data);
    if (self->stream_.open()) return;
    self->stream_.close(fmt::format("no answer to the connection within {:g} s (a firewall in the way?)",
                                    std::chrono::duration<double>(self->core_.options().connectTimeout).count()));
  });
  stream_.connect(child);
}

void ServeConnection::onFrame(Frame frame) {
  if (!op_) {
    // An offer is the dialer's first frame; the plane takes the connection over.
    if (frame.type == FrameType::kOffer && dialedToken_.empty()) return core_.offered(this, frame.payload);
    return onHello(frame);
  }
  switch (frame.type) {
    case FrameType::kAck: {
      const std::uint64_t before = window_->acked();
      if (!window_->ack(frame.offset)) return stream_.close("acknowledged bytes never sent");
      core_.countAcked(window_->acked() - before);
      break;
    }
    case FrameType::kResend:
      spdlog::info("child {} asks again from offset {} (corrupt chunk)", stream_.peer(), frame.offset);
      if (!window_->rewind(frame.offset)) return stream_.close("resend outside the window");
      listedPiece_.reset();  // it may have been the list that came corrupt
      break;
    default: return stream_.close("unexpected frame from a child");
  }
  pump();
}

void ServeConnection::onHello(const Frame& frame) {
  // A dialed connection serves the token it offered, nothing else.
  const bool known = frame.type == FrameType::kHello && (dialedToken_.empty() || frame.payload == dialedToken_);
  Operation* op = known ? core_.find(frame.payload) : nullptr;
  if (!op) {
    // Unknown tokens are dropped without an answer: a peer that guesses
    // learns nothing (docs/architecture.md "Integrity and security defaults").
    spdlog::warn("data connection from {} dropped: {}", stream_.peer(),
                 frame.type == FrameType::kHello
                     ? "unknown operation token (forged, or of an operation that has ended)"
                     : frame.type == FrameType::kOffer ? "an offer on a connection this plane opened"
                                                       : "it did not start with a hello");
    return stream_.close("unknown token");
  }
  op_ = op;
  if (pacing_) uv_timer_stop(pacing_.get());
  op_->children.insert(this);
  window_.emplace(op->size, core_.options().windowBytes, op->chunkBytes ? op->chunkBytes : core_.options().chunkBytes,
                  frame.offset);
  spdlog::debug("child {} pulls from offset {}", stream_.peer(), frame.offset);
  if (started_) std::exchange(started_, {})(Result<void>());
  pump();
}

void ServeConnection::pump() {
  if (!op_ || !window_ || !stream_.open() || held_) return;
  while (auto chunk = window_->next(op_->available)) {
    core_.countSent(chunk->length);
    hnow::Duration wait = core_.uplink().take(chunk->length, core_.now());
    if (wait > hnow::Duration::zero()) {
      held_ = chunk;
      uv_timer_start(
          pacing_.get(),
          [](uv_timer_t* t) {
            auto* self = static_cast<ServeConnection*>(t->data);
            Chunk chunk = *self->held_;
            self->held_.reset();
            self->sendChunk(chunk);
            self->pump();
          },
          toMillisCeil(wait), 0);
      return;
    }
    sendChunk(*chunk);
    if (!stream_.open()) return;
  }
}

void ServeConnection::sendChunk(Chunk chunk) {
  if (!stream_.open()) return;
  std::string frame(kHeaderBytes + chunk.length, '\0');
  if (op_->state == Operation::State::kProbe) {  // zeros: what a probe carries does not matter
    encodeHeaderInPlace(frame.data(), FrameType::kData, chunk.offset, chunk.length);
    return stream_.write(std::move(frame));
  }
  if (!sendListFor(chunk.offset)) return;
  std::size_t done = 0;
  while (done < chunk.length) {
    ssize_t n = ::pread(op_->fd, frame.data() + kHeaderBytes + done, chunk.length - done,
                        static_cast<off_t>(op_->base + chunk.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return stream_.close(std::string("cannot read the file: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  // Test-only: a hostile relay rewrites what it passes on and computes the
  // frame checksum over its own bytes; only the source's digests catch it.
  const std::uint64_t rewrite = core_.options().rewriteRelayedChunkEvery;
  if (rewrite > 0 && op_->state != Operation::State::kSource && ++relayedFrames_ % rewrite == 0) {
    frame[kHeaderBytes + chunk.length / 2] ^= 0x20;
    spdlog::info("test hook: rewriting the relayed chunk at offset {} (frame checksum recomputed)", chunk.offset);
  }
  encodeHeaderInPlace(frame.data(), FrameType::kData, chunk.offset, chunk.length);
  // Never the same offset twice, so every chunk gets through in the end.
  const std::uint64_t every = core_.options().corruptChunkEvery;
  if (every > 0 && core_.countSentFrame() % every == 0 && corrupted_.insert(chunk.offset).second) {
    frame[kHeaderBytes] ^= 0x5a;  // after the checksum: the child must notice
    spdlog::info("test hook: corrupting the chunk at offset {}", chunk.offset);
  }
  stream_.write(std::move(frame));
}

// Each piece's chunk digests go before its first chunk, and again after a
// RESEND: a child checks every chunk against them (chunk_digests.h).
bool ServeConnection::sendListFor(std::uint64_t offset) {
  const ChunkDigests& digests = op_->digests;
  if (digests.empty()) return true;
  const std::uint64_t piece = digests.pieceOf(offset);
  if (listedPiece_ == piece) return true;
  if (!digests.holdsList(piece)) {
    stream_.close("no chunk digests for the piece at byte " + std::to_string(digests.pieceStart(piece)));
    return false;
  }
  stream_.write(encodeFrame(FrameType::kDigests, digests.pieceStart(piece), digests.listOf(piece)));
  listedPiece_ = piece;
  return stream_.open();
}

}  // namespace hnow::transport::data
