#include "transport/message_limit_stream.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "transport/rpc_errors.h"

namespace hnow::transport {

// Cap'n Proto's stream framing (capnp encoding spec, "Serialization over a
// stream"): u32 segment count - 1, one u32 size in words per segment,
// padding to a whole word, then the segments.
bool MessageFraming::feed(const unsigned char* bytes, std::size_t size) {
  for (std::size_t i = 0; i < size && refusal_.empty();) {
    if (part_ == Part::kBody) {
      const std::uint64_t take = std::min<std::uint64_t>(bodyLeft_, size - i);
      bodyLeft_ -= take;
      i += take;
      if (bodyLeft_ == 0) part_ = Part::kCount;
      continue;
    }
    if (part_ == Part::kPadding) {
      ++i;
      if (--paddingLeft_ == 0) tableDone();
      continue;
    }
    word_ |= std::uint32_t(bytes[i++]) << (8 * wordBytes_);
    if (++wordBytes_ < 4) continue;
    const std::uint32_t value = word_;
    word_ = wordBytes_ = 0;
    if (part_ == Part::kCount) {
      if (value >= maxSegments_) {
        refusal_ = "a message of " + std::to_string(std::uint64_t(value) + 1) + " segments (the limit is " +
                   std::to_string(maxSegments_) + ")";
        break;
      }
      segments_ = value + 1;
      sizesLeft_ = segments_;
      words_ = 0;
      part_ = Part::kTable;
      continue;
    }
    words_ += value;
    if (--sizesLeft_ > 0) continue;
    // The table (count and sizes) is padded to a whole 8-byte word.
    if (segments_ % 2 == 0) {
      part_ = Part::kPadding;
      paddingLeft_ = 4;
    } else {
      tableDone();
    }
  }
  return refusal_.empty();
}

void MessageFraming::tableDone() {
  if (words_ * 8 > maxBytes_) {
    refusal_ = "a message of " + std::to_string(words_ * 8) + " bytes (the limit is " +
               std::to_string(maxBytes_) + ")";
    return;
  }
  bodyLeft_ = words_ * 8;
  part_ = bodyLeft_ == 0 ? Part::kCount : Part::kBody;
}

MessageLimitStream::MessageLimitStream(kj::Own<kj::AsyncIoStream> inner, std::string peer, std::uint64_t maxBytes)
    // 512 segments: what capnp's own reader accepts (serialize.c++).
    : inner_(kj::mv(inner)), peer_(std::move(peer)), framing_(maxBytes, 512) {}

kj::Promise<size_t> MessageLimitStream::tryRead(void* buffer, size_t minBytes, size_t maxBytes) {
  return inner_->tryRead(buffer, minBytes, maxBytes).then([this, buffer](size_t n) -> size_t {
    if (!framing_.refusal().empty()) refuse("control message refused: " + framing_.refusal());
    if (!framing_.feed(static_cast<const unsigned char*>(buffer), n)) {
      spdlog::warn("refused a control message from {}: {}; closing the connection", peer_, framing_.refusal());
      refuse("control message refused: " + framing_.refusal());
    }
    return n;
  });
}

}  // namespace hnow::transport
