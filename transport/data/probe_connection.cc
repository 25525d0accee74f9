#include "transport/data/probe_connection.h"

namespace hnow::transport::data {

namespace {
constexpr std::uint64_t kRetryMs = 50;
}

ProbeConnection::ProbeConnection(PlaneCore& core, std::string token, const sockaddr_storage& peer)
    : core_(core), token_(std::move(token)), peer_(peer),
      pacing_([&core](uv_timer_t* t) { return uv_timer_init(core.loop(), t); }),
      retry_([&core](uv_timer_t* t) { return uv_timer_init(core.loop(), t); }) {
  if (pacing_) pacing_.get()->data = this;
  if (retry_) retry_.get()->data = this;
}

void ProbeConnection::connect() {
  if (stopped_) return;
  stream_ = std::make_unique<TcpStream>(
      core_.loop(),
      TcpStream::Callbacks{[this]() { stream_->write(encodeFrame(FrameType::kHello, 0, token_)); },
                           [this](Frame f) { onFrame(std::move(f)); }, [this](const std::string&) { onClosed(); }},
      core_.wire());
  stream_->connect(reinterpret_cast<const sockaddr*>(&peer_));
}

void ProbeConnection::onFrame(Frame frame) {
  if (frame.type != FrameType::kData) return stream_->close("unexpected frame from a probe peer");
  const std::uint64_t length = frame.payload.size();
  window_.add(length);
  core_.countReceived(length);
  stream_->write(encodeFrame(FrameType::kAck, frame.offset + length, {}));
  hnow::Duration wait = core_.downlink().take(static_cast<double>(length), core_.now());
  if (wait > hnow::Duration::zero() && pacing_) {
    stream_->pauseReading();
    uv_timer_start(
        pacing_.get(),
        [](uv_timer_t* t) {
          auto* self = static_cast<ProbeConnection*>(t->data);
          if (self->stream_) self->stream_->resumeReading();
        },
        static_cast<std::uint64_t>((wait.count() + 999'999) / 1'000'000), 0);
  }
}

// From inside the stream's own callback: the stream is replaced later, by
// the retry timer.
void ProbeConnection::onClosed() {
  if (stopped_ || !retrying_ || !retry_) return;
  uv_timer_start(
      retry_.get(),
      [](uv_timer_t* t) {
        auto* self = static_cast<ProbeConnection*>(t->data);
        self->stream_.reset();
        self->connect();
      },
      kRetryMs, 0);
}

void ProbeConnection::openWindow() {
  window_.open();
  retrying_ = false;
  if (retry_) uv_timer_stop(retry_.get());
}

void ProbeConnection::stop() {
  stopped_ = true;
  retry_.reset();
  pacing_.reset();
  if (stream_) stream_->shutdown();
}

}  // namespace hnow::transport::data
