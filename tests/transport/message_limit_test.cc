// The control plane's framing watch (transport/message_limit_stream.h):
// real Cap'n Proto messages pass, whatever way the bytes are split; a
// segment table over the limit is refused from the table alone.
#include <doctest/doctest.h>

#include <capnp/message.h>
#include <capnp/serialize.h>

#include "transport/message_limit_stream.h"
#include "transport/rates.capnp.h"

using hnow::transport::MessageFraming;

namespace {

std::string le32(std::uint32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (8 * i));
  return out;
}

// A real message of `segments` segments (a registration with many roots
// forces more when the first segment is small).
std::string encoded(int roots, unsigned firstSegmentWords) {
  capnp::MallocMessageBuilder message(firstSegmentWords, capnp::AllocationStrategy::FIXED_SIZE);
  auto r = message.initRoot<hnow::wire::Registration>();
  r.setName("agent-1");
  auto list = r.initRoots(static_cast<unsigned>(roots));
  for (int i = 0; i < roots; ++i) list.set(static_cast<unsigned>(i), "/srv/hnow/root-" + std::to_string(i));
  auto words = capnp::messageToFlatArray(message);
  auto bytes = words.asBytes();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

bool feedIn(MessageFraming& framing, const std::string& bytes, std::size_t step) {
  for (std::size_t i = 0; i < bytes.size(); i += step)
    if (!framing.feed(reinterpret_cast<const unsigned char*>(bytes.data() + i), std::min(step, bytes.size() - i)))
      return false;
  return true;
}

}  // namespace

TEST_CASE("real messages of one and of several segments pass, in any split, one after another") {
  const std::string one = encoded(2, 1024), several = encoded(40, 8);
  REQUIRE(several.size() > one.size());
  CHECK(static_cast<unsigned char>(several[0]) > 0);  // more than one segment
  for (std::size_t step : {std::size_t{1}, std::size_t{3}, std::size_t{8}, std::size_t{4096}}) {
    MessageFraming framing(1 << 20, 512);
    CHECK(feedIn(framing, one + several + one + several, step));
    CHECK(framing.refusal().empty());
  }
}

TEST_CASE("a segment table over the byte limit or the segment limit is refused before its body") {
  MessageFraming big(2 << 20, 512);
  CHECK_FALSE(feedIn(big, le32(0) + le32(16u << 20), 8));
  CHECK(big.refusal() == "a message of 134217728 bytes (the limit is 2097152)");
  // The sum counts: two segments of 1.5 MiB, each under the limit alone.
  MessageFraming sum(2 << 20, 512);
  CHECK_FALSE(feedIn(sum, le32(1) + le32((3u << 19) / 8) + le32((3u << 19) / 8) + le32(0), 1));
  CHECK(sum.refusal().find("3145728 bytes") != std::string::npos);
  MessageFraming many(2 << 20, 512);
  CHECK_FALSE(feedIn(many, le32(512) + le32(1), 8));
  CHECK(many.refusal() == "a message of 513 segments (the limit is 512)");
  // Exactly at the limit passes, and the next message is read as one.
  MessageFraming edge(2 << 20, 512);
  CHECK(feedIn(edge, le32(0) + le32((2 << 20) / 8) + std::string(2 << 20, '\0') + encoded(1, 64), 65536));
  // Once refused, always refused.
  CHECK_FALSE(big.feed(reinterpret_cast<const unsigned char*>("x"), 1));
}
