#pragma once
// A control connection's byte stream, watched for Cap'n Proto framing
// (segment table, then segments) as it is read. A message whose segment
// table declares more than the reader limit, or too many segments, is
// refused before its body is read: capnp would refuse it too, but silently;
// hnowd logs what was refused, from whom and why (security tests).
#include <kj/async-io.h>

#include <cstdint>
#include <string>

namespace hnow::transport {

// The framing parser alone (pure): feed bytes as they are read.
class MessageFraming {
 public:
  MessageFraming(std::uint64_t maxBytes, std::uint32_t maxSegments)
      : maxBytes_(maxBytes), maxSegments_(maxSegments) {}
  // Consumes `size` bytes; false once a segment table broke a limit
  // (`refusal()` says which), and for good.
  bool feed(const unsigned char* bytes, std::size_t size);
  const std::string& refusal() const { return refusal_; }

 private:
  void tableDone();

  std::uint64_t maxBytes_;
  std::uint32_t maxSegments_;
  enum class Part { kCount, kTable, kPadding, kBody } part_ = Part::kCount;
  std::uint32_t word_ = 0;        // the little-endian u32 being assembled
  std::uint32_t wordBytes_ = 0;   // bytes of it so far
  std::uint32_t segments_ = 0;
  std::uint32_t sizesLeft_ = 0;   // segment sizes still to come
  std::uint32_t paddingLeft_ = 0;  // bytes padding the table to a word
  std::uint64_t words_ = 0;       // sum of segment sizes so far
  std::uint64_t bodyLeft_ = 0;    // bytes of the current message's segments
  std::string refusal_;
};

class MessageLimitStream final : public kj::AsyncIoStream {
 public:
  // `peer` names the other end in the log line.
  MessageLimitStream(kj::Own<kj::AsyncIoStream> inner, std::string peer, std::uint64_t maxBytes);

  kj::Promise<size_t> tryRead(void* buffer, size_t minBytes, size_t maxBytes) override;
  kj::Promise<void> write(const void* buffer, size_t size) override { return inner_->write(buffer, size); }
  kj::Promise<void> write(kj::ArrayPtr<const kj::ArrayPtr<const kj::byte>> pieces) override {
    return inner_->write(pieces);
  }
  kj::Promise<void> whenWriteDisconnected() override { return inner_->whenWriteDisconnected(); }
  void shutdownWrite() override { inner_->shutdownWrite(); }
  void abortRead() override { inner_->abortRead(); }
  void getsockopt(int level, int option, void* value, kj::uint* length) override {
    inner_->getsockopt(level, option, value, length);
  }
  void setsockopt(int level, int option, const void* value, kj::uint length) override {
    inner_->setsockopt(level, option, value, length);
  }
  void getsockname(struct sockaddr* addr, kj::uint* length) override { inner_->getsockname(addr, length); }
  void getpeername(struct sockaddr* addr, kj::uint* length) override { inner_->getpeername(addr, length); }

 private:
  kj::Own<kj::AsyncIoStream> inner_;
  std::string peer_;
  MessageFraming framing_;
};

}  // namespace hnow::transport
