#pragma once
// Inside the data plane, on the data thread only: one operation's state and
// what its connections need from the plane. Not part of the API.
#include <openssl/evp.h>

#include <functional>
#include <memory>
#include <set>
#include <vector>
#include <string>
#include <string_view>

#include "base/token_bucket.h"
#include "transport/data/data_plane.h"
#include "transport/data/uv_handle.h"

namespace hnow::transport::data {

class ServeConnection;
class PullConnection;

struct ShaDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

// A file moved as byte ranges, each its own operation under its own token
// (a striped broadcast, docs/striped-broadcast.md): the ranges share its
// descriptor and, on a receiver, its target, which is renamed into place
// once every range has matched its own SHA-256. Together the ranges cover
// the file, so the whole file is then the source's.
struct Assembly {
  enum class State { kSource, kReceiving, kVerifying, kDone, kFailed };
  std::string token;  // the file's: release(token) ends every range
  State state = State::kReceiving;
  int fd = -1;          // owned; the ranges' operations read and write it
  ReceiveTarget target; // a receiver's (its fileFd is `fd`)
  std::vector<std::string> ranges;  // the ranges' tokens, in file order
  std::size_t verified = 0;         // ranges whose digest matched
  hnow::TimePoint lastProgress{};
};

struct Operation {
  // kProbe: a probe round's source (DataPlane::probe): chunks of zeros for
  // as long as the round lasts, no file behind them.
  enum class State { kSource, kProbe, kWaiting, kReceiving, kVerifying, kDone, kFailed };
  std::string token;
  std::uint64_t size = 0;
  int fd = -1;                  // what children are served from (the assembly's, if any: not owned then)
  std::uint64_t base = 0;       // where offset 0 of this operation lies in `fd` (a range's start)
  std::uint32_t chunkBytes = 0; // what it is served in; 0: the plane's (DataOptions::chunkBytes)
  Assembly* assembly = nullptr; // the file this operation is a range of; none for a whole file
  std::uint64_t available = 0;  // bytes of `fd` written, in order
  std::uint64_t writebackFrom = 0;  // bytes before this have been handed to the disk's writeback
  State state = State::kWaiting;
  ReceiveTarget target;
  Sha256 expected{};
  // The whole file's SHA-256, updated as chunks are written in order.
  std::unique_ptr<EVP_MD_CTX, ShaDeleter> sha;
  std::string parentAddress;
  // hnowd: the parent cannot be connected to, so it dials in and presents
  // this ticket (DataPlane::awaitOffer); "" pulled from parentAddress.
  std::string offerTicket;
  std::unique_ptr<PullConnection> upstream;
  std::set<ServeConnection*> children;
  std::uint64_t corruptChunks = 0;
  // The source's chunk digests (chunk_digests.h); empty: none came.
  ChunkDigests digests;
  // ReceiveTarget::cutChunkBytes: the chunk digests taken as bytes land.
  std::unique_ptr<ChunkHasher> cutter;
  // The parent served bytes that differ from the source's, or could not be
  // connected to: no retry until hnowd names a parent (pull()).
  bool parentBelied = false;
  // The bytes an earlier process left are being checked (plane_leftover.cc):
  // pull() waits for the check to say where to resume.
  bool checkingLeftover = false;
  std::uint32_t rangeIndex = 0;  // its place in its assembly's ranges (the lists file names it)
  hnow::TimePoint lastProgress{};
  UvHandle<uv_timer_t> retryTimer;
  std::function<void()> retry;  // reconnect to parentAddress

  bool receiving() const { return state == State::kWaiting || state == State::kReceiving; }
  // Served in exactly the digests' chunks, so every node cuts them alike.
  void useDigests(ChunkDigests d) {
    if (d.empty()) return;
    chunkBytes = d.chunkBytes;
    digests = std::move(d);
  }
  // Where the received bytes go: this operation's file, or its assembly's.
  const ReceiveTarget& file() const { return assembly ? assembly->target : target; }
};

// What connections ask of the plane.
class PlaneCore {
 public:
  virtual ~PlaneCore() = default;
  virtual uv_loop_t* loop() = 0;
  virtual const DataOptions& options() const = 0;
  virtual hnow::TimePoint now() const = 0;
  virtual hnow::TokenBucket& uplink() = 0;
  virtual hnow::TokenBucket& downlink() = 0;
  // Every data connection's bytes on the wire (link_counters.h).
  virtual std::shared_ptr<WireTally> wire() = 0;
  virtual Operation* find(const std::string& token) = 0;
  // Numbers the DATA frames this process sends (fault injection).
  virtual std::uint64_t countSentFrame() = 0;
  // DATA payload bytes sent to a child / received in order from a parent.
  virtual void countSent(std::uint64_t bytes) = 0;
  virtual void countReceived(std::uint64_t bytes) = 0;
  // A child acknowledged `bytes` more: they crossed the link (a probe
  // round fits its sender's load to these, probe_round.h).
  virtual void countAcked(std::uint64_t bytes) = 0;
  // A chunk was written to `op` in order.
  virtual void chunkWritten(Operation& op) = 0;
  // `op` took the list of chunk digests of the piece at `offset`, new to
  // it: kept in its file's lists file, when it has one.
  virtual void listTaken(Operation& op, std::uint64_t offset, std::string_view list) = 0;
  // The connection to `op`'s parent ended before the file was complete.
  virtual void upstreamClosed(Operation& op, const std::string& reason) = 0;
  // `op`'s parent sent what differs from the source's (`what`): it is
  // dropped, and the receive waits for hnowd to name another.
  virtual void parentCorrupt(Operation& op, const std::string& what) = 0;
  // The connection to `op`'s parent could not be opened (`why`): the receive
  // waits for hnowd to name another parent, as after parentCorrupt.
  virtual void parentUnreachable(Operation& op, const std::string& why) = 0;
  // The operation cannot complete here (a write failed, the digest differs).
  virtual void fail(Operation& op, const std::string& message) = 0;
  // A child's connection ended; the plane destroys it later.
  virtual void serveClosed(ServeConnection* connection) = 0;
  // An accepted connection's first frame offered `ticket` (DataPlane::offer):
  // the plane pulls over it, or closes it when no receive awaits that ticket.
  virtual void offered(ServeConnection* connection, const std::string& ticket) = 0;
};

}  // namespace hnow::transport::data
