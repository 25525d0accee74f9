#pragma once
// One process's data plane (hnowd as a source, every agent as a receiver
// and relay): a listening socket, the operations it takes part in, and the
// connections of each. Children connect to their parent and pull from an
// offset, so re-parenting after a failure is "connect elsewhere and resume
// from the last acknowledged byte". A relay serves its children from the
// temp file it is writing, as each chunk lands (pipelined; the page cache
// makes the read-back cheap), with a bounded window per child.
//
// Thread-safe facade: every method posts to the data thread (DataLoop) and
// returns at once; events come back through `EventSink` on the data thread.
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "transport/data/chunk_digests.h"
#include "transport/data/leftover_bytes.h"
#include "transport/data/link_counters.h"

namespace hnow::transport::data {

struct DataOptions {
  std::uint32_t chunkBytes = 128 * 1024;
  // Unacknowledged bytes per child connection: what a relay holds per child.
  std::uint64_t windowBytes = 2 * 1024 * 1024;
  // Test-only fault injection: every Nth DATA frame this process sends has
  // one payload byte flipped after its checksum was computed, never twice at
  // the same offset of a connection (0: never).
  // From HNOW_TEST_CORRUPT_CHUNK_EVERY in the daemons' main().
  std::uint64_t corruptChunkEvery = 0;
  // Test-only: every Nth DATA frame this process relays (never one it
  // sources) has a payload byte rewritten before its checksum is computed,
  // as a hostile relay would (0: never). From
  // HNOW_TEST_REWRITE_RELAYED_CHUNK_EVERY in hnow-agent's main().
  std::uint64_t rewriteRelayedChunkEvery = 0;
  hnow::Duration progressInterval = std::chrono::milliseconds(100);
  hnow::Duration reconnectDelay = std::chrono::milliseconds(300);
  // A parent that has not accepted the connection by then is unreachable
  // from here (a firewall or NAT dropping inbound SYNs): the kernel alone
  // would retry for about two minutes. Three seconds leave room for one
  // lost SYN (retried after 1 s) on a slow link, and none for a dead end.
  hnow::Duration connectTimeout = std::chrono::seconds(3);
  // A connection must say HELLO within helloTimeout, and at most
  // maxAwaitingHello may wait to; once all wait, an address holds at most
  // maxAwaitingHelloPerHost of them, and a newcomer takes the oldest slot
  // of the address holding the most: a peer without a token cannot hold
  // this process's sockets for long or in bulk, nor lock out the others (as
  // hnowd's ConnectionLimits; base/peer_slots.h).
  hnow::Duration helloTimeout = std::chrono::seconds(10);
  std::size_t maxAwaitingHello = 256;
  std::size_t maxAwaitingHelloPerHost = 8;
};

// Where a received file goes: a directory opened without following links,
// a temp file created in it, and the final name it is renamed to once its
// SHA-256 matches. The data plane takes ownership of both descriptors.
struct ReceiveTarget {
  int dirFd = -1;
  int fileFd = -1;
  std::string tempName;
  std::string finalName;
  std::string path;  // absolute final path, for reports
  // False for a scratch file the receiver copies out and removes (a tree's
  // bundle, docs/tree-send.md): no writeback as it lands and no fdatasync
  // before the rename, since what is unpacked from it is synced instead;
  // its bytes may then never reach the disk at all.
  bool durable = true;
  // False: the bytes' SHA-256 is not known before they land (a client's
  // upload, which its client hashes as it serves it), so it is not checked
  // here; the kDone event carries the digest taken as they landed, for the
  // caller to compare with the one the sender gives at the end.
  bool digestKnown = true;
  // Not 0: the landing bytes are also cut into chunk digests of this
  // (chunk_digests.h), remembered with the file's SHA-256 once it is in
  // place (digest_cache.h: rememberWritten), so serving the file on (hnowd
  // relaying an upload to agents) reads it no more.
  std::uint32_t cutChunkBytes = 0;
  // An agent's earlier process left `heldBytes` in the temp file (a whole
  // file's, or the furthest a striped file's ranges reached), with the
  // lists of chunk digests it took (`keptLists`, leftover_bytes.h): the
  // receive checks them against the source's digests off the loop, and
  // pulls from after the last chunk that matched (each range from its own).
  std::uint64_t heldBytes = 0;
  std::vector<KeptList> keptLists;
  // >= 0 (owned): every list of chunk digests taken is appended here, for
  // a later process to check what this receive leaves (leftover_bytes.h).
  int listsFd = -1;
};

// One byte range of a file moved as several (a striped broadcast,
// docs/striped-broadcast.md): bytes [offset, offset + length) under their
// own token, pulled, relayed and acknowledged apart from the other ranges,
// with their own SHA-256. A range's offsets on the wire start at 0.
struct ByteRange {
  std::string token;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  Sha256 sha256{};
  // Its chunks' digests from the source (chunk_digests.h): the source's
  // every chunk's, a receiver's the pieces' from hnowd; none: unchecked
  // until the range's SHA-256.
  ChunkDigests digests{};
};

struct TransferEvent {
  // kParentCorrupt: the parent sent a chunk (or a list of chunk digests)
  // that differs from the source's; the connection is dropped and not
  // tried again: hnowd moves the receive to another parent (pull()).
  // kParentUnreachable: the connection to the parent could not be opened
  // (refused, or no answer within DataOptions::connectTimeout); not tried
  // again either: hnowd names another parent.
  enum class Kind { kProgress, kDone, kFailed, kParentLost, kParentCorrupt, kParentUnreachable };
  Kind kind = Kind::kProgress;
  std::string token;
  std::uint64_t bytes = 0;          // written in order so far
  std::uint64_t corruptChunks = 0;  // detected by XXH3 and asked for again
  std::string message;              // kFailed, kParentLost, kParentCorrupt, kParentUnreachable
  std::string parent;               // kParentCorrupt, kParentUnreachable: the parent's address, as pull() named it
  std::string path;                 // kDone
  std::string sha256Hex;            // kDone
};

// One node's part of a probe round of hnowd's link survey
// (daemon/core/links/survey_runner.h).
struct ProbeOrder {
  std::string token;                  // 32 bytes; the round's flows present it in their HELLO
  bool serve = false;                 // this node sends in the round: chunks of zeros to whoever pulls
  std::vector<std::string> pullFrom;  // host:port of data planes to pull one flow from each (at most 64)
  double warmSeconds = 0.3;           // flows run this long before the window opens (TCP's ramp-up)
  double windowSeconds = 0.6;         // the measured window; warm + window at most 10 s
};

struct ProbeResult {
  std::vector<std::uint64_t> flowBytes;  // payload from each pullFrom peer within the window
  // Each flow's rate, fitted to its arrivals in the window (flow_slope.h).
  std::vector<double> flowBytesPerSecond;
  // What this plane's children acknowledged and what it took from its
  // sockets, fitted the same way: its loads where no interface counts them.
  // 0: too little to fit.
  double sentBytesPerSecond = 0.0, receivedBytesPerSecond = 0.0;
  double windowSeconds = 0.0;            // the window as measured here
  LinkCounters before, after;            // this plane's counters when it opened and closed
};
// The round's result, or why the order was refused (nothing done then).
using ProbeDone = std::function<void(Result<ProbeResult>)>;

class DataPlane {
 public:
  using EventSink = std::function<void(TransferEvent)>;

  // `clock` (for pacing) and `sink` must outlive the data plane.
  DataPlane(const hnow::Clock& clock, EventSink sink, DataOptions options = {});
  // Closes every connection, removes unfinished temp files, joins the thread.
  ~DataPlane();
  DataPlane(const DataPlane&) = delete;
  DataPlane& operator=(const DataPlane&) = delete;

  // Binds `host`:`port` (0: one the OS chooses) and returns the port, or
  // the error (blocks until bound).
  Result<int> listen(const std::string& host, int port = 0);

  // Emulated rates, bytes/s; 0: not limited. The uplink is shared by every
  // child this process serves, the downlink by every parent it pulls from.
  void setRates(double uplinkBytesPerSecond, double downlinkBytesPerSecond);

  // hnowd: serve `fd` (owned from now) to children presenting `token`;
  // with `digests` (every chunk's), in exactly their chunks, each piece's
  // list before its first chunk (chunk_digests.h).
  void addSource(std::string token, int fd, std::uint64_t size, ChunkDigests digests = {});
  // hnowd: serve each range of `fd` (owned from now) to children
  // presenting the range's token, in chunks of `chunkBytes` (0: the
  // plane's; at most kChunkBytes); release(fileToken) ends them all.
  void addSourceRanges(std::string fileToken, int fd, std::vector<ByteRange> ranges, std::uint32_t chunkBytes = 0);
  // An agent: accept children presenting `token` and wait for pull().
  // With `digests` (the pieces' from hnowd), every chunk is checked before
  // it is written, relayed or acknowledged, and served on in the same chunks.
  void receive(std::string token, std::uint64_t size, Sha256 expected, ReceiveTarget target,
               ChunkDigests digests = {});
  // An agent: receive a file as `ranges` (in order, covering it), each
  // pulled with pull(range.token, ...) and relayed as it lands. Once every
  // range matched its SHA-256 the file is renamed into place and each range
  // reports kDone (its bytes and digest); a failure of any fails them all.
  // release(fileToken) ends every range; release(range.token) that one.
  // Children are served in chunks of `chunkBytes` (as addSourceRanges).
  void receiveRanges(std::string fileToken, std::vector<ByteRange> ranges, ReceiveTarget target,
                     std::uint32_t chunkBytes = 0);
  // (Re)connect to the parent at host:port, resuming after the bytes held.
  void pull(std::string token, std::string parentAddress);
  // hnowd: the receive `token` (receive()) comes from a parent that cannot
  // be connected to (behind NAT or a firewall, docs/reachability.md).
  // Instead of pull(), wait for it to dial this plane's port and present
  // `ticket` (32 bytes, handed to that parent alone), then pull over its
  // connection as pull() does: HELLO from the bytes held, chunk checks, the
  // SHA-256 before the rename. One connection at a time; one that ends
  // before the file is complete reports kParentLost (`parent` the dialer's
  // address) and the receive waits for the next offer.
  void awaitOffer(std::string token, std::string ticket);
  // An agent: dial the data plane at `address` (host:port), present
  // `ticket`, and serve `token` (a file this plane serves, or holds whole)
  // over that connection, as to a child that connected. `started` once, on
  // the data thread: when the peer said HELLO, or why it never will.
  using OfferStarted = std::function<void(const Result<void>& started)>;
  void offer(std::string token, std::string ticket, std::string address, OfferStarted started);
  // The process stops: receives still arriving keep their temp files
  // (for its next process, agent/receive_records.h) when the plane goes.
  void keepUnfinishedOnStop();
  // Forget the operation: close its connections; an unfinished temp file is removed.
  void release(std::string token);
  // Release() every operation (the agent lost hnowd, which forgot them).
  void releaseAll();
  // Release() every operation but the receives `parked` (whole files, or
  // files moved as ranges by their file's token) still arriving (a
  // restarted hnowd, which will send the same files again): those stop
  // pulling and serving, and keep their temp file, the bytes written in
  // order and the digest taken over them (each range its own), for adopt()
  // or release().
  void releaseAllBut(std::set<std::string> parked);
  // The parked receive `parked` goes on as `token` (a new send's receive of
  // the same file into the same path): pull(token, ...) resumes it after
  // the bytes it holds, as after a lost parent. Gone (it ended as it was
  // parked), `token` reports kFailed, so that hnowd does not wait for it.
  void adopt(std::string parked, std::string token);
  // The same for a file moved as ranges: its ranges, in file order, go on
  // as `ranges` (the same byte ranges, under the new send's tokens).
  void adoptRanges(std::string parked, std::string token, std::vector<std::string> ranges);
  // Runs one node's part of a probe round: `done` once, on the data thread,
  // when the window has closed (at once with an error for a bad order).
  // The round's token is served only until shortly after that.
  void probe(ProbeOrder order, ProbeDone done);
  // What this plane and its interface carried so far; a sample taken on the
  // data thread (the caller waits a moment for it).
  LinkCounters counters();
  // From now on counters() also reads the interface carrying the local
  // address `host` (none for loopback or an address no interface has).
  void watchInterface(const std::string& host);

  // Release() and remove the received file even when it is complete
  // (a job file nobody wants). In order with the rename on the data thread,
  // so a receive finishing as it is discarded leaves nothing either.
  void discard(std::string token);

  // DATA payload bytes sent to children and received from parents since the
  // plane started, every operation together; any thread. An unpaced probe
  // adds what moved meanwhile to its own reading (agent/rate_probe.h).
  std::uint64_t bytesSent() const { return counters_.sent.load(std::memory_order_relaxed); }
  std::uint64_t bytesReceived() const { return counters_.received.load(std::memory_order_relaxed); }

 private:
  struct Counters {
    std::atomic<std::uint64_t> sent{0};
    std::atomic<std::uint64_t> received{0};
  };
  struct Impl;
  Counters counters_;
  std::unique_ptr<class DataLoop> loop_;
  std::unique_ptr<Impl> impl_;  // created and destroyed on the data thread
};


}  // namespace hnow::transport::data
