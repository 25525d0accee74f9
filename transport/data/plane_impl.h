#pragma once
// Inside the data plane, on the data thread only: the state behind the
// DataPlane facade. data_plane.cc has the listening side, sources and
// probes; plane_receive.cc the receiving side (whole files and ranges).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/peer_slots.h"
#include "transport/data/data_loop.h"
#include "transport/data/plane_state.h"
#include "transport/data/probe_round.h"
#include "transport/data/pull_connection.h"
#include "transport/data/serve_connection.h"

namespace hnow::transport::data {

// Lives on the data thread: created and destroyed there.
struct DataPlane::Impl final : PlaneCore {
  Impl(DataLoop& dataLoop, const hnow::Clock& clock, EventSink sink, DataOptions options, Counters& counters);
  ~Impl() override;

  uv_loop_t* loop() override { return dataLoop_.loop(); }
  const DataOptions& options() const override { return options_; }
  hnow::TimePoint now() const override { return clock_.now(); }
  hnow::TokenBucket& uplink() override { return uplink_; }
  hnow::TokenBucket& downlink() override { return downlink_; }
  std::shared_ptr<WireTally> wire() override { return wire_; }
  std::uint64_t countSentFrame() override { return ++sentFrames_; }
  void countSent(std::uint64_t bytes) override { counters_.sent.fetch_add(bytes, std::memory_order_relaxed); }
  void countAcked(std::uint64_t bytes) override {
    for (auto& [round, owned] : rounds_) round->counted(bytes, 0);
  }
  void countReceived(std::uint64_t bytes) override {
    counters_.received.fetch_add(bytes, std::memory_order_relaxed);
    for (auto& [round, owned] : rounds_) round->counted(0, bytes);
  }
  Operation* find(const std::string& token) override {
    auto it = operations_.find(token);
    return it == operations_.end() ? nullptr : it->second.get();
  }

  // Destroys `p` in a later turn of the loop: connections end from inside
  // their own callbacks.
  template <class T>
  void retire(std::unique_ptr<T> p) {
    if (!p) return;
    p->shutdown();
    std::shared_ptr<T> shared(std::move(p));
    dataLoop_.post([shared]() {});
  }
  void emit(TransferEvent::Kind kind, Operation& op, std::string message = {}, std::string parent = {});

  // data_plane.cc
  Result<int> listen(const std::string& host, int port);
  void accept(uv_stream_t* server);
  void serveClosed(ServeConnection* connection) override;
  void addSource(std::string token, int fd, std::uint64_t size, ChunkDigests digests);
  void addSourceRanges(std::string fileToken, int fd, std::vector<ByteRange> ranges, std::uint32_t chunkBytes);
  LinkCounters counters();
  void probe(ProbeOrder order, ProbeDone done);

  // plane_receive.cc
  // A receiving operation on `fd` (not owned by it), waiting for pull().
  Operation& addReceiving(const std::string& token, std::uint64_t size, Sha256 expected, int fd);
  void receive(std::string token, std::uint64_t size, Sha256 expected, ReceiveTarget target, ChunkDigests digests);
  void receiveRanges(std::string fileToken, std::vector<ByteRange> ranges, ReceiveTarget target,
                     std::uint32_t chunkBytes);
  void pull(const std::string& token, std::string parentAddress);
  void connectUpstream(Operation& op);
  // plane_offer.cc
  void awaitOffer(const std::string& token, std::string ticket);
  void offered(ServeConnection* connection, const std::string& ticket) override;
  void offer(std::string token, std::string ticket, std::string address, OfferStarted started);
  void upstreamClosed(Operation& op, const std::string& reason) override;
  void parentCorrupt(Operation& op, const std::string& what) override;
  void parentUnreachable(Operation& op, const std::string& why) override;
  void chunkWritten(Operation& op) override;
  void finish(Operation& op);
  void rangeVerified(Operation& op);
  // fdatasync off the loop (libuv's thread pool), then renameIntoPlace.
  // `durable` false: renamed at once (ReceiveTarget::durable).
  void syncThenRename(const std::string& token, int fd, bool durable);
  void renameIntoPlace(const std::string& token, ssize_t syncResult);
  bool renamed(const ReceiveTarget& target, ssize_t syncResult, std::string& error);
  void fail(Operation& op, const std::string& message) override;
  void failAssembly(Assembly& file, const std::string& message);
  // Forgets the operation, or every range of the assembly `token` names.
  void release(const std::string& token, bool removeFile = false);
  void releaseOperation(const std::string& token, bool removeFile);
  void releaseAll();
  // plane_leftover.cc
  // `op` starts from what an earlier process left (`held` bytes of its
  // range, `kept` lists): checked off the loop, then leftoverChecked().
  void checkLeftover(Operation& op, std::uint64_t held, const std::vector<KeptList>& kept);
  void leftoverChecked(const std::string& token, std::uint64_t good, ChunkDigests digests);
  void listTaken(Operation& op, std::uint64_t offset, std::string_view list) override;
  // plane_park.cc
  void releaseAllBut(const std::set<std::string>& parked);
  void park(Operation& op);
  // The operation `from` goes on under `to`.
  void rekey(const std::string& from, const std::string& to);
  void adopt(const std::string& parked, const std::string& token);
  // The receives `tokens` adopted a parked one that is gone: each fails.
  void lostParked(const std::vector<std::string>& tokens);
  void adoptRanges(const std::string& parked, const std::string& token, const std::vector<std::string>& ranges);

  DataLoop& dataLoop_;
  const hnow::Clock& clock_;
  EventSink sink_;
  DataOptions options_;
  Counters& counters_;  // the facade's, read from any thread
  hnow::TokenBucket uplink_;
  hnow::TokenBucket downlink_;
  std::shared_ptr<WireTally> wire_ = std::make_shared<WireTally>();
  std::string interface_;  // whose counters counters() reads; "" none
  std::map<ProbeRound*, std::unique_ptr<ProbeRound>> rounds_;
  std::uint64_t sentFrames_ = 0;
  std::uint64_t refusedAwaiting_ = 0;
  std::uint64_t evictedAwaiting_ = 0;
  // The connections that have not said hello yet, each holding a slot.
  PeerSlots helloSlots_{{options_.maxAwaitingHello, options_.maxAwaitingHelloPerHost}};
  std::map<ServeConnection*, PeerSlots::Ticket> awaitingHello_;
  UvHandle<uv_tcp_t> listener_;
  std::map<std::string, std::unique_ptr<Operation>> operations_;
  std::map<std::string, std::unique_ptr<Assembly>> assemblies_;  // by the file's token
  std::map<std::string, std::string> offerTickets_;               // awaitOffer's ticket -> token
  std::map<ServeConnection*, std::unique_ptr<ServeConnection>> children_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  bool keepUnfinished_ = false;  // keepUnfinishedOnStop()
};

}  // namespace hnow::transport::data
