#include "transport/data/pull_connection.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace hnow::transport::data {

PullConnection::PullConnection(PlaneCore& core, Operation& op)
    : core_(core), op_(op),
      stream_(core.loop(), TcpStream::Callbacks{
                               [this]() { onConnected(); },
                               [this](Frame f) { onFrame(std::move(f)); },
                               [this](const std::string& reason) { onClosed(reason); }},
              core.wire()),
      pacing_([&core](uv_timer_t* t) { return uv_timer_init(core.loop(), t); }),
      connecting_([&core](uv_timer_t* t) { return uv_timer_init(core.loop(), t); }) {
  if (pacing_) pacing_.get()->data = this;
  if (connecting_) connecting_.get()->data = this;
}

void PullConnection::connect(const sockaddr* parent) {
  const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(core_.options().connectTimeout);
  if (connecting_ && timeout.count() > 0)
    uv_timer_start(
        connecting_.get(),
        [](uv_timer_t* t) {
          auto* self = static_cast<PullConnection*>(t->data);
          const double seconds =
              std::chrono::duration<double>(self->core_.options().connectTimeout).count();
          self->stream_.close(fmt::format("no answer to the connection within {:g} s (a firewall or NAT "
                                          "dropping inbound connections to it?)",
                                          seconds));
        },
        static_cast<std::uint64_t>(timeout.count()), 0);
  stream_.connect(parent);
}

void PullConnection::onClosed(const std::string& reason) {
  if (connecting_) uv_timer_stop(connecting_.get());
  if (connected_) return core_.upstreamClosed(op_, reason);
  core_.parentUnreachable(op_, reason);
}

void PullConnection::onConnected() {
  connected_ = true;
  if (connecting_) uv_timer_stop(connecting_.get());
  expected_ = op_.available;
  stream_.write(encodeFrame(FrameType::kHello, expected_, op_.token));
}

void PullConnection::askAgain() {
  ++op_.corruptChunks;
  if (resendAsked_ == expected_) return;
  spdlog::warn("corrupt chunk at offset {} (XXH3 mismatch); asking again", expected_);
  stream_.write(encodeFrame(FrameType::kResend, expected_, {}));
  resendAsked_ = expected_;
}

void PullConnection::onFrame(Frame frame) {
  if (frame.type == FrameType::kDigests && !op_.digests.empty()) {
    // Taking a piece's list again (sent again after a RESEND) changes nothing.
    // A bit flipped on the way is the link's; a list that checks by
    // XXH3 and not by the piece's digest is the parent's doing.
    if (!checksumOk(frame)) return askAgain();
    std::string why;
    const bool known = op_.digests.holdsList(op_.digests.pieceOf(frame.offset));
    if (!op_.digests.takeList(frame.offset, frame.payload, why)) return core_.parentCorrupt(op_, why);
    if (!known) core_.listTaken(op_, frame.offset, frame.payload);
    return;
  }
  if (frame.type != FrameType::kData) return stream_.close("unexpected frame from the parent");
  // After a RESEND the frames already in flight are stale: skip until the
  // asked-for offset comes back.
  if (frame.offset != expected_) return;
  if (frame.payload.size() > op_.size - expected_) return stream_.close("data beyond the file's end");
  if (!checksumOk(frame)) return askAgain();
  resendAsked_.reset();
  // Checked before it is written: a byte the source did not serve is never
  // held, relayed or acknowledged here (chunk_digests.h).
  if (std::string why; !op_.digests.empty() && !op_.digests.check(frame.offset, frame.payload, why))
    return core_.parentCorrupt(op_, why);  // destroys this connection
  if (!writeChunk(frame)) return;
  const std::uint64_t length = frame.payload.size();
  expected_ += length;
  stream_.write(encodeFrame(FrameType::kAck, expected_, {}));
  core_.countReceived(length);
  hnow::Duration wait = core_.downlink().take(static_cast<double>(length), core_.now());
  if (wait > hnow::Duration::zero()) {
    stream_.pauseReading();
    uv_timer_start(
        pacing_.get(), [](uv_timer_t* t) { static_cast<PullConnection*>(t->data)->stream_.resumeReading(); },
        static_cast<std::uint64_t>((wait.count() + 999'999) / 1'000'000), 0);
  }
  op_.available = expected_;
  core_.chunkWritten(op_);  // may destroy this connection (the file is complete)
}

bool PullConnection::writeChunk(const Frame& frame) {
  std::size_t done = 0;
  while (done < frame.payload.size()) {
    ssize_t n = ::pwrite(op_.fd, frame.payload.data() + done, frame.payload.size() - done,
                         static_cast<off_t>(op_.base + frame.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // Where and how far, so a full disk names its filesystem.
      core_.fail(op_, "cannot write " + op_.file().path + " at byte " +
                          std::to_string(op_.base + frame.offset + done) + ": " +
                          (n == 0 ? std::string("nothing written") : std::strerror(errno)));
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  // Every chunk checked against the source's digest stands for the whole
  // file's SHA-256 (hnowd took both in one pass): hashing it twice would
  // only cost each receiver's CPU.
  if (op_.digests.empty()) EVP_DigestUpdate(op_.sha.get(), frame.payload.data(), frame.payload.size());
  if (op_.cutter) op_.cutter->update(frame.payload.data(), frame.payload.size());
  return true;
}

}  // namespace hnow::transport::data
