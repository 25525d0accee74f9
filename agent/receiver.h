#pragma once
// An agent's part of `hnow send`, on the kj thread: hnowd's
// receive/pull/release commands go to the data plane (its own libuv thread),
// and the data plane's events come back through a KjInbox for the runtime to
// report to hnowd.
#include <kj/async.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agent/dest_claims.h"
#include "agent/later_result.h"
#include "agent/root_listings.h"
#include "base/clock.h"
#include "base/result.h"
#include "transport/orders/receive_order.h"
#include "transport/data/data_plane.h"
#include "transport/data/kj_inbox.h"
#include "transport/data/tree_bundle.h"
#include "transport/data/tree_held.h"

namespace hnow::agent {

class Receiver {
 public:
  Receiver(std::vector<std::string> roots, const hnow::Clock& clock,
           transport::data::DataOptions options);
  // Waits for the unpacks still running.
  ~Receiver();

  // Binds the data port on `host`: "host:port", or why not.
  Result<std::string> listen(const std::string& host, int port = 0);
  // Checks `dest` against the roots and prepares the temp file: the
  // absolute final path, or why the order is refused.
  // With the source's chunk digests, every chunk is checked as it lands.
  // Every receive holds its destination until it ends (DestClaims): one
  // into a destination another holds is refused, naming that one by its
  // `operation` (hnowd's name for it, "" none).
  // `outlivesProcess` false: no record is kept for a later process (a
  // job's share, which a restarted agent does not resume).
  Result<std::string> receive(const std::string& token, const std::string& dest, std::uint64_t size,
                              const transport::data::Sha256& sha256, transport::data::ChunkDigests digests = {},
                              const std::string& operation = "", bool outlivesProcess = true);
  // The same for a file that comes as byte ranges (its stripes), each
  // pulled under its own token.
  Result<std::string> receiveStriped(const transport::orders::ReceiveOrder& order);
  // A directory tree's bundle (whole or in stripes), unpacked as
  // `order.dest` once it matched; its transfers report done only after
  // the unpack, with what it published (docs/tree-send.md). A compressed
  // bundle is expanded first.
  Result<std::string> receiveTree(const transport::orders::ReceiveOrder& order);
  // A compressed file (whole or in stripes; docs/compression.md): received
  // and relayed as it is into a scratch file, then expanded beside
  // `order.dest`, checked against the plain size and SHA-256, and renamed
  // into place; its transfers report done only then.
  Result<std::string> receiveCompressed(const transport::orders::ReceiveOrder& order);
  // What `dest` already holds. These read the destination's files (a
  // digest takes seconds for a large one), so they run off the kj thread,
  // on a copy of the roots (`roots()`).
  // Only what changed: the ordinals of the files of `index` (a part of a
  // tree's, no bytes) that `dest` lacks; or why a bad index or dest is refused.
  // `listings`: the roots' listing the questions about one send share.
  static Result<transport::data::HeldFiles> treeHeld(const std::vector<std::string>& roots, const std::string& dest,
                                                     std::string_view index, RootListings& listings);
  // A single file's send (docs/send.md, "A file already there"): what
  // `dest` is to a file of `size` bytes and, when given, that SHA-256; or
  // why the dest is refused (outside the roots, a directory). Without a
  // digest, a file of that size anywhere under dest's root answers
  // kSameSize, so hnowd asks again with the digest; with it, `heldAt`
  // names such a file with those bytes when dest does not hold them.
  struct FileHolding {
    transport::data::DestHolding holding = transport::data::DestHolding::kAbsent;
    std::string heldAt;  // absolute; "" none
  };
  static Result<FileHolding> fileHeld(const std::vector<std::string>& roots, const std::string& dest,
                                      std::uint64_t size, const std::optional<transport::data::Sha256>& sha256,
                                      RootListings& listings);
  // Writes `dest` from this agent's file `from` (docs/send.md, "Under
  // another path"), checked against `sha256` as it is copied, and
  // publishes it as a receive does; the absolute final path, or why not.
  static Result<std::string> copyHeld(const std::vector<std::string>& roots, const std::string& dest,
                                      const std::string& from, std::uint64_t size,
                                      const transport::data::Sha256& sha256, RootListings& listings);
  // A copyHeld into `dest` holds it as a receive does while it runs: the
  // claim, given up when the returned handle goes (null when `dest` cannot
  // be opened: copyHeld then says why); or the refusal, as a receive's.
  Result<std::shared_ptr<void>> claimCopy(const std::string& dest);
  // Shared with the questions above, which run off the kj thread.
  std::shared_ptr<RootListings> listings() const { return listings_; }
  void pull(const std::string& token, const std::string& parentAddress);
  // This agent's part of a probe round of hnowd's link survey; resolves on
  // the kj thread once the window has closed.
  // The round's result, or why the order was refused. Held by kj::Own: GCC
  // 12 warns falsely about vectors (and shared_ptr) inside kj's ExceptionOr.
  using ProbeAnswer = kj::Own<Result<transport::data::ProbeResult>>;
  kj::Promise<ProbeAnswer> probe(transport::data::ProbeOrder order);
  // Hands the file served under `token` to the data plane at `address`
  // over a connection this agent opens (hnowd cannot connect to it,
  // docs/reachability.md); done on the kj thread once that plane said
  // HELLO, else why not.
  LaterResult<void> offer(const std::string& token, const std::string& ticket, const std::string& address);
  // What the data plane and the interface carrying `host` moved so far.
  transport::data::LinkCounters counters() { return plane_.counters(); }
  void watchInterface(const std::string& host) { plane_.watchInterface(host); }
  void release(const std::string& token);
  void releaseAll();
  void discard(const std::string& token) {
    claims_->release(token);
    if (auto it = receives_.find(token); it != receives_.end()) dropRecord(it->second);
    receives_.erase(token);
    adopted_.erase(token);
    plane_.discard(token);
  }
  // A restarted hnowd (the same key) will send its files again: the
  // receives of files (whole, striped, compressed, or a tree's bundle)
  // among `unfinished` are parked (they stop pulling and serving, and keep
  // their temp files and the bytes written in order,
  // DataPlane::releaseAllBut), everything else is released. The next
  // receive() (receiveStriped(), cut into the same stripes;
  // receiveCompressed() and receiveTree(), the same frame or bundle) of
  // the same size and SHA-256 into
  // the same path adopts the parked one, which resumes after the bytes it
  // holds. receiver_parked.cc.
  void park(const std::set<std::string>& unfinished);
  // The parked receives no send adopted: released, their temp files
  // removed. How many.
  std::size_t dropParked();
  std::size_t parked() const { return parked_.size() + leftovers_.size(); }
  // The receives an earlier process of this agent left (receive_records.h):
  // the next receive of the same file into the same path takes each over,
  // and dropParked() drops those none took. How many. receiver_leftover.cc.
  std::size_t restoreLeftovers();
  // The agent stops: receives still arriving keep their temp files and
  // records for its next process.
  void keepUnfinishedOnStop() { plane_.keepUnfinishedOnStop(); }
  // Whether `token` is a parked receive's (its file's or a stripe's): its
  // events concern no hnowd until a send adopts it.
  bool parks(const std::string& token) const;
  // Whether `token`'s receive resumed a parked one.
  bool adopted(const std::string& token) const { return adopted_.count(token) > 0; }
  // DATA payload this agent's plane took from its parents, every operation together.
  std::uint64_t bytesReceived() const { return plane_.bytesReceived(); }
  // Serve `fd` (owned from now) to children presenting `token`.
  void serve(const std::string& token, int fd, std::uint64_t size, transport::data::ChunkDigests digests = {}) {
    plane_.addSource(token, fd, size, std::move(digests));
  }
  const std::vector<std::string>& roots() const { return roots_; }
  void setRates(double uplinkBytesPerSecond, double downlinkBytesPerSecond) {
    plane_.setRates(uplinkBytesPerSecond, downlinkBytesPerSecond);
  }
  // Calls `report` on the kj thread for every event, forever; a tree's
  // done (or failed unpack) comes with what its unpack published.
  using Report = std::function<void(const transport::data::TransferEvent&, const transport::data::UnpackedTree*)>;
  kj::Promise<void> forwardEvents(Report report);

  // Set before pull(): a parent advertised as 0.0.0.0 or :: (hnowd listening
  // on every interface) is reached at the host the agent uses for hnowd.
  void setCoordinatorHost(std::string host) { coordinatorHost_ = std::move(host); }

 private:
  // A data address as this agent reaches it (the coordinator host for 0.0.0.0 or ::).
  std::string reachable(const std::string& address) const;
  // `name` in `dirFd` claimed for the receive `token` (DestClaims), or the
  // refusal, logged; `transfers`: a striped file's stripe tokens.
  Result<void> claim(int dirFd, const std::string& name, const std::string& path, const std::string& token,
                     const std::string& operation, std::uint64_t size, const std::vector<std::string>& transfers = {});

  struct Scratch;
  // A file's receive as parking matches it: where, how large, its
  // SHA-256, and for a striped file its stripes (token, offset, length,
  // SHA-256 each; none: the file comes whole). A compressed file's are its
  // frame's, a tree's its bundle's, received into `scratch` and expanded
  // or unpacked once whole.
  struct HeldReceive {
    std::string path;
    std::uint64_t size = 0;
    transport::data::Sha256 sha256{};
    std::vector<transport::orders::StripeOrder> stripes;
    bool compressed = false;
    bool tree = false, atomic = false, deleteOthers = false;  // a tree's bundle, and how it is laid down
    std::shared_ptr<Scratch> scratch{};  // a compressed file's or a tree's, while received
    std::string recordId{};  // its record for the agent's next process (receive_records.h); "" none
    // The same file into the same path, laid down alike.
    bool sameFile(const HeldReceive& o) const;
    // The same file, cut into the same stripes.
    bool sameAs(const HeldReceive& o) const;
  };
  // A parked receive of the same file into the same path adopted by the
  // receive `token` (`held`'s stripes under its new tokens), which claims
  // its destination (`dirFd`, `name`) from now: its path, or the claim's
  // refusal; none when no parked receive is that file.
  std::optional<Result<std::string>> adoptParked(const std::string& token, const HeldReceive& held, int dirFd,
                                                 const std::string& name, const std::string& operation);
  // The receive `held` into `target` (beside it in `dir`, absolute) takes
  // over the temp file of the same file an earlier process left, if there
  // is one (its bytes checked before the pull, transport/data/
  // leftover_bytes.h), however either was cut into stripes: each range
  // checks the bytes from its own start. Else a record is kept of it.
  // held.recordId names it; `token` (and its stripes) count as adopted
  // when it took one over.
  void track(const std::string& token, HeldReceive& held, transport::data::ReceiveTarget& target,
             const std::string& dir);
  void dropRecord(const HeldReceive& held);
  std::size_t dropLeftovers();
  struct Leftover {
    HeldReceive held;  // its recordId names the record
    std::string dir, temp;
  };
  std::vector<Leftover> leftovers_;
  std::map<std::string, HeldReceive> receives_;  // receive()'s and receiveStriped()'s, by token, until released
  std::map<std::string, HeldReceive> parked_;    // by the token they came under
  std::set<std::string> adopted_;                      // receives that resumed a parked one, until released

  struct Event {
    transport::data::TransferEvent transfer;
    std::shared_ptr<const transport::data::UnpackedTree> unpacked;  // a tree's done, after its unpack
    bool afterUnpack = false;
  };
  // A scratch file's transfers (a tree's bundle, a compressed file), each
  // pulled under its token.
  void receiveScratch(const transport::orders::ReceiveOrder& order, std::shared_ptr<Scratch> scratch,
                      transport::data::ReceiveTarget target);
  // An event on the kj thread: a scratch file's transfers wait for its unpack or expansion.
  void route(Event event, const Report& report);
  void unpack(std::shared_ptr<Scratch> scratch);
  // A tree's transfer reported bytes landed: its staging advances to them
  // on the unpack thread (one advance queued at a time, to the latest).
  void landed(const std::shared_ptr<Scratch>& scratch, const std::string& token, std::uint64_t bytes);
  void enqueue(std::shared_ptr<Scratch> scratch, bool advance);
  void advanceStaging(Scratch& scratch);
  // A tree's staging (and a compressed bundle's expansion), made as its
  // receive is ordered; `receivedFd` is the bundle's scratch file.
  Result<void> stageTree(Scratch& scratch, const transport::orders::ReceiveOrder& order, int receivedFd);
  void unpackOne(Scratch& scratch);
  // unpackOne's parts (receiver_scratch.cc), on the unpack thread.
  Result<void> expandFile(Scratch& scratch, int compressedFd);
  Result<transport::data::UnpackedTree> unpackBundle(Scratch& scratch, int receivedFd);

  std::vector<std::string> roots_;
  transport::data::KjInbox<Event> inbox_;
  std::map<std::string, std::shared_ptr<Scratch>> scratches_;  // by each transfer token and the file's token
  // One unpack or expansion at a time, on a thread of its own (the kj
  // thread answers hnowd meanwhile; the data plane keeps relaying the file).
  std::mutex unpackMutex_;
  std::condition_variable unpackWake_;
  struct UnpackWork {
    std::shared_ptr<Scratch> scratch;
    bool advance = false;  // a staging's advance; else the unpack or expansion once matched
  };
  std::deque<UnpackWork> unpackQueue_;
  bool stopping_ = false;
  std::thread unpacker_;
  transport::data::DataPlane plane_;
  std::shared_ptr<RootListings> listings_ = std::make_shared<RootListings>();
  // Shared with copyHeld's claims, which may outlive this receiver.
  std::shared_ptr<DestClaims> claims_ = std::make_shared<DestClaims>();
  std::uint64_t copies_ = 0;  // copyHeld claims made, to name each
  std::string coordinatorHost_;
};

// A whole file's chunk digests from hnowd's order; none for a striped one
// (its stripes carry theirs) or an order without them.
transport::data::ChunkDigests wholeFileDigests(const transport::orders::ReceiveOrder& order);

}  // namespace hnow::agent
