#pragma once
// hnowd's order to an agent to receive a file of `hnow send`: the one
// definition daemon/core writes, transport/agent_wire.h carries
// (agent_control.capnp ReceiveOrder) and agent/receiver.h carries out.
// Tokens and digests are raw bytes.
#include <cstdint>
#include <string>
#include <vector>

#include "transport/orders/copy_options.h"

namespace hnow::transport::orders {

// One byte range of a file received as several (agent_control.capnp Stripe).
struct StripeOrder {
  std::string token;  // 32 bytes
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::string sha256;  // 32 bytes, of these bytes
  std::string pieceDigests{};  // with ReceiveOrder::digestChunkBytes: its pieces', 32 bytes each
};

struct ReceiveOrder {
  std::string token;  // 32 bytes
  std::string dest;
  std::uint64_t size = 0;
  std::string sha256;  // 32 bytes
  std::vector<StripeOrder> stripes;  // none: the file comes whole
  std::uint32_t stripeChunkBytes = 0;  // 0: the data plane's
  double uplinkPaceBytesPerSecond = 0.0;  // 0: not paced for this receive
  bool tree = false;    // a tree's bundle, unpacked as dest
  CopyOptions copy{};   // the send's, whole: how the agent lays down its copy
  // --compress: one zstd frame of the source's file; `size` and `sha256`
  // are the frame's, these the file's as the agent expands and checks it.
  bool compressed = false;
  std::uint64_t plainSize = 0;
  std::string plainSha256{};  // 32 bytes when compressed
  // --max-rate, or a cap of the agent's measured downlink: the data
  // plane's downlink at most this while the receive lives; 0: as it is.
  double downlinkPaceBytesPerSecond = 0.0;
  // The source's chunk digests (transport/data/chunk_digests.h): the chunk
  // they cut (0: none) and the whole file's pieces' digests (a striped
  // file: each stripe's, in its StripeOrder).
  std::uint32_t digestChunkBytes = 0;
  std::string pieceDigests{};
  // What the agent calls this receive's operation when it refuses
  // another into the same destination ("send record 12").
  std::string operation{};
  std::uint32_t progressEveryMs = 0;  // progress reports at most this often; 0: the data plane's
};

}  // namespace hnow::transport::orders
