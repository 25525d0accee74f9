#include <doctest/doctest.h>

#include "transport/data/frame.h"

using namespace hnow::transport::data;

namespace {
std::string payload(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 31 + 7);
  return s;
}
}  // namespace

TEST_CASE("frames survive a byte-at-a-time stream and keep their fields") {
  const std::string token(kTokenBytes, 't');
  std::string wire = encodeFrame(FrameType::kHello, 42, token) +
                     encodeFrame(FrameType::kData, 1 << 20, payload(1000)) +
                     encodeFrame(FrameType::kAck, 7, {});
  FrameDecoder decoder;
  std::vector<Frame> frames;
  for (char c : wire) {
    decoder.feed(&c, 1);
    while (auto f = decoder.next()) frames.push_back(std::move(*f));
  }
  REQUIRE(frames.size() == 3);
  CHECK(frames[0].type == FrameType::kHello);
  CHECK(frames[0].offset == 42);
  CHECK(frames[0].payload == token);
  CHECK(frames[1].type == FrameType::kData);
  CHECK(frames[1].offset == (1u << 20));
  CHECK(frames[1].payload == payload(1000));
  CHECK(checksumOk(frames[1]));
  CHECK(frames[2].type == FrameType::kAck);
  CHECK(frames[2].offset == 7);
  CHECK_FALSE(decoder.failed());
  CHECK(decoder.buffered() == 0);
}

TEST_CASE("a flipped payload bit or a chunk moved to another offset fails its XXH3 checksum") {
  FrameDecoder decoder;
  std::string wire = encodeFrame(FrameType::kData, 4096, payload(512));
  std::string flipped = wire;
  flipped[kHeaderBytes + 100] ^= 1;
  decoder.feed(flipped.data(), flipped.size());
  auto frame = decoder.next();
  REQUIRE(frame);
  CHECK_FALSE(checksumOk(*frame));
  CHECK_FALSE(decoder.failed());  // corruption is the receiver's call (resend), not a broken stream

  decoder.feed(wire.data(), wire.size());
  frame = decoder.next();
  REQUIRE(frame);
  CHECK(checksumOk(*frame));
  frame->offset = 8192;  // same bytes, wrong place
  CHECK_FALSE(checksumOk(*frame));
}

TEST_CASE("an oversized frame is refused from its header, before its payload is buffered") {
  FrameDecoder decoder(1024);
  std::string wire = encodeFrame(FrameType::kData, 0, payload(1025));
  decoder.feed(wire.data(), kHeaderBytes);  // only the header has arrived
  CHECK_FALSE(decoder.next());
  CHECK(decoder.failed());
  CHECK(decoder.error().find("oversized") != std::string::npos);
  decoder.feed(wire.data() + kHeaderBytes, 1025);  // ignored once failed
  CHECK_FALSE(decoder.next());
  CHECK(decoder.buffered() == kHeaderBytes);
}

TEST_CASE("bad magic, an unknown type and malformed control frames are refused") {
  SUBCASE("bad magic") {
    FrameDecoder decoder;
    std::string wire = encodeFrame(FrameType::kAck, 0, {});
    wire[0] ^= 0xff;
    decoder.feed(wire.data(), wire.size());
    CHECK_FALSE(decoder.next());
    CHECK(decoder.error().find("magic") != std::string::npos);
  }
  SUBCASE("unknown type") {
    FrameDecoder decoder;
    std::string wire = encodeFrame(FrameType::kAck, 0, {});
    wire[4] = 9;
    decoder.feed(wire.data(), wire.size());
    CHECK_FALSE(decoder.next());
    CHECK(decoder.error().find("unknown frame type") != std::string::npos);
  }
  SUBCASE("an unknown type above 127 is named by its byte value (seen while writing frame_decoder_fuzz)") {
    FrameDecoder decoder;
    std::string wire = encodeFrame(FrameType::kAck, 0, {});
    wire[4] = static_cast<char>(0xc8);
    decoder.feed(wire.data(), wire.size());
    CHECK_FALSE(decoder.next());
    CHECK(decoder.error() == "unknown frame type 200");
  }
  SUBCASE("a hello without a full token") {
    FrameDecoder decoder;
    std::string wire = encodeFrame(FrameType::kHello, 0, "short");
    decoder.feed(wire.data(), wire.size());
    CHECK_FALSE(decoder.next());
    CHECK(decoder.failed());
  }
  SUBCASE("an ack with a payload") {
    FrameDecoder decoder;
    std::string wire = encodeFrame(FrameType::kAck, 0, "x");
    decoder.feed(wire.data(), wire.size());
    CHECK_FALSE(decoder.next());
    CHECK(decoder.failed());
  }
}
