#pragma once
// The one codec of hnowd's orders to an agent that carry data (control.capnp
// ReceiveOrder, JobInput, JobTask, JobResult): hnowd's RPC glue writes the
// orders and reads the results, the agent the other way round, both through
// these pairs. Tokens and digests are raw bytes; what the agent reads is
// checked (32-byte tokens and digests, stripes that cover the file in
// order, a command to run).
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "transport/control.capnp.h"

namespace hnow::transport {

// One byte range of a file received as several (control.capnp Stripe).
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
  bool atomic = false;  // a tree published at once
  bool deleteOthers = false;  // a tree: then remove what dest holds that it does not name
  // One zstd frame of the source's file (a tree's bundle): `size` and
  // `sha256` are the frame's, expanded and checked against these after.
  bool compressed = false;
  std::uint64_t plainSize = 0;
  std::string plainSha256{};  // 32 bytes when compressed
  double downlinkPaceBytesPerSecond = 0.0;  // 0: not paced for this receive
  // The source's chunk digests (transport/data/chunk_digests.h): the chunk
  // they cut (0: none) and the whole file's pieces' digests (a striped
  // file: each stripe's, in its StripeOrder).
  std::uint32_t digestChunkBytes = 0;
  std::string pieceDigests{};
  std::string operation{};  // hnowd's name for what it is part of, for an agent's messages
  std::uint32_t progressEveryMs = 0;  // progress reports at most this often; 0: the data plane's
};
void toWire(const ReceiveOrder& order, wire::ReceiveOrder::Builder out);
Result<ReceiveOrder> receiveOrderFromWire(wire::ReceiveOrder::Reader in);

// A file the agent fetches into its job area (a share, a partial result).
struct JobFileOrder {
  std::string token;  // 32 bytes
  std::uint64_t size = 0;
  std::string sha256;  // 32 bytes
  std::string source;  // host:port of the data plane serving it
};
void toWire(const JobFileOrder& order, wire::JobInput::Builder out);
Result<JobFileOrder> jobFileFromWire(wire::JobInput::Reader in);

struct JobTaskOrder {
  std::vector<std::string> inputs;  // tokens of files the agent holds, on stdin in this order
  std::vector<std::string> argv;
  std::string resultToken;  // 32 bytes
  bool shell = false;       // argv is /bin/sh -c COMMAND
  std::uint64_t run = 0;    // for the agent's log
};
void toWire(const JobTaskOrder& order, wire::JobTask::Builder out);
Result<JobTaskOrder> jobTaskFromWire(wire::JobTask::Reader in);

// What the command did: it ran (and failed unless `commandError` is empty).
struct JobTaskAnswer {
  int exitCode = -1;
  std::string commandError;
  std::uint64_t size = 0;
  std::string sha256;
  double computeS = 0.0;  // including the emulated slow-down (compute factor)
  double runS = 0.0;      // the command's own wall time
  bool refused = false;   // the agent's [jobs] does not allow it: nothing ran
  bool limited = false;   // a limit of the agent's [jobs] ended it
};
void toWire(const JobTaskAnswer& answer, wire::JobResult::Builder out);
JobTaskAnswer jobTaskAnswerFromWire(wire::JobResult::Reader in);

}  // namespace hnow::transport
