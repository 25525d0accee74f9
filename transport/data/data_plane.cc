#include "transport/data/data_plane.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <spdlog/spdlog.h>
#include <unistd.h>


#include <algorithm>

#include "base/hex.h"
#include "transport/data/frame.h"
#include "transport/data/plane_impl.h"

namespace hnow::transport::data {

namespace {
// Credit for a timer that fires late (libuv's are in whole milliseconds), so
// pacing keeps the rate; no more, so an emulated link stays a link: a relay
// idle for a while cannot pass its next chunk on at once. With a burst of
// whole chunks, as before, every hop of a slow tree took no time and sends
// finished well before the planner's per-hop model said.
constexpr hnow::Duration kPacingBurst = std::chrono::milliseconds(5);
}  // namespace

DataPlane::Impl::Impl(DataLoop& dataLoop, const hnow::Clock& clock, EventSink sink, DataOptions options,
                      Counters& counters)
    : dataLoop_(dataLoop), clock_(clock), sink_(std::move(sink)), options_(options), counters_(counters),
      uplink_(0, kPacingBurst, clock.now()), downlink_(0, kPacingBurst, clock.now()) {}

DataPlane::Impl::~Impl() {
  rounds_.clear();
  releaseAll();
  children_.clear();
}

void DataPlane::Impl::emit(TransferEvent::Kind kind, Operation& op, std::string message, std::string parent) {
  TransferEvent e;
  e.kind = kind;
  e.token = op.token;
  e.bytes = op.available;
  e.corruptChunks = op.corruptChunks;
  e.message = std::move(message);
  e.parent = std::move(parent);
  if (kind == TransferEvent::Kind::kDone) {
    e.path = op.file().path;
    e.sha256Hex = hexOf(op.expected.data(), op.expected.size());
  }
  sink_(std::move(e));
}

Result<int> DataPlane::Impl::listen(const std::string& host, int port) {
  listener_ = UvHandle<uv_tcp_t>([this](uv_tcp_t* t) { return uv_tcp_init(loop(), t); });
  sockaddr_storage address{};
  if (!parseAddress(host + ":1", address)) return Error{"cannot parse the data listen host " + host};
  const auto netPort = htons(static_cast<std::uint16_t>(port));
  if (address.ss_family == AF_INET) reinterpret_cast<sockaddr_in*>(&address)->sin_port = netPort;
  else reinterpret_cast<sockaddr_in6*>(&address)->sin6_port = netPort;
  // libuv may report a bind's EADDRINUSE only at uv_listen.
  auto cannotBind = [&](int rc) {
    return Error{"cannot bind the data port " + (port ? std::to_string(port) : std::string("(any)")) + " on " + host +
                 ": " + uv_strerror(rc) +
                 (rc == UV_EADDRINUSE ? " (another process holds it: set data_port to a free one)" : "")};
  };
  if (int rc = uv_tcp_bind(listener_.get(), reinterpret_cast<sockaddr*>(&address), 0); rc != 0) return cannotBind(rc);
  listener_.get()->data = this;
  // The kernel's most (somaxconn caps it): hundreds of agents may connect at
  // once at a send's start, and a SYN dropped on a full queue is retried
  // only a second later, which a child's connect timeout counts.
  int rc = uv_listen(listener_.stream(), SOMAXCONN, [](uv_stream_t* server, int status) {
    if (status == 0 && server->data) static_cast<Impl*>(server->data)->accept(server);
  });
  if (rc != 0) return cannotBind(rc);
  sockaddr_storage bound{};
  int length = sizeof bound;
  uv_tcp_getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&bound), &length);
  return bound.ss_family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port)
                                    : ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
}

void DataPlane::Impl::accept(uv_stream_t* server) {
  // Connections that said hello since hold no slot any more.
  for (auto it = awaitingHello_.begin(); it != awaitingHello_.end();) {
    if (!it->first->operation()) {
      ++it;
      continue;
    }
    helloSlots_.release(it->second);
    it = awaitingHello_.erase(it);
  }
  auto connection = std::make_unique<ServeConnection>(*this);
  ServeConnection* raw = connection.get();
  if (!connection->accept(server)) return;
  children_[raw] = std::move(connection);
  const std::string host = addressOf(raw->peer());
  PeerSlots::Admission admission = helloSlots_.admit(host);
  if (admission.verdict != PeerSlots::Verdict::kAdmitted) {
    // A flood is logged, not every connection of it.
    if (refusedAwaiting_++ % 100 == 0) {
      if (admission.verdict == PeerSlots::Verdict::kPeerFull)
        spdlog::warn("data connection from {} closed: every hello slot is taken and {} connections from {} are "
                     "waiting to say hello, its share ({} refused so far)",
                     raw->peer(), helloSlots_.heldBy(host), host, refusedAwaiting_);
      else
        spdlog::warn("data connection from {} closed: {} connections are waiting to say hello ({} refused so far)",
                     raw->peer(), helloSlots_.held(), refusedAwaiting_);
    }
    return raw->close("too many connections waiting to say hello");
  }
  awaitingHello_[raw] = admission.ticket;
  if (!admission.evicted) return;
  ServeConnection* evicted = nullptr;
  for (const auto& [waiting, ticket] : awaitingHello_)
    if (ticket == *admission.evicted) evicted = waiting;
  if (!evicted) return;
  if (evictedAwaiting_++ % 100 == 0)
    spdlog::warn("data connection from {} closed to make room for {}: every hello slot is taken and {} holds the "
                 "most ({} closed so far)",
                 evicted->peer(), raw->peer(), admission.evictedPeer, evictedAwaiting_);
  evicted->close("closed to make room for another peer's connection");
}

void DataPlane::Impl::serveClosed(ServeConnection* connection) {
  if (auto waiting = awaitingHello_.find(connection); waiting != awaitingHello_.end()) {
    helloSlots_.release(waiting->second);
    awaitingHello_.erase(waiting);
  }
  auto it = children_.find(connection);
  if (it == children_.end()) return;
  if (Operation* op = connection->operation()) op->children.erase(connection);
  retire(std::move(it->second));
  children_.erase(it);
}

void DataPlane::Impl::addSource(std::string token, int fd, std::uint64_t size, ChunkDigests digests) {
  auto op = std::make_unique<Operation>();
  op->token = token;
  op->size = size;
  op->fd = fd;
  op->available = size;
  op->useDigests(std::move(digests));
  op->state = Operation::State::kSource;
  operations_[token] = std::move(op);
}

void DataPlane::Impl::addSourceRanges(std::string fileToken, int fd, std::vector<ByteRange> ranges,
                                      std::uint32_t chunkBytes) {
  auto file = std::make_unique<Assembly>();
  file->token = fileToken;
  file->state = Assembly::State::kSource;
  file->fd = fd;
  for (ByteRange& range : ranges) {
    auto op = std::make_unique<Operation>();
    op->token = range.token;
    op->size = op->available = range.length;
    op->base = range.offset;
    op->fd = fd;
    op->assembly = file.get();
    op->chunkBytes = std::min(chunkBytes, kChunkBytes);
    op->useDigests(std::move(range.digests));
    op->state = Operation::State::kSource;
    file->ranges.push_back(range.token);
    operations_[range.token] = std::move(op);
  }
  assemblies_[fileToken] = std::move(file);
}

LinkCounters DataPlane::Impl::counters() {
  return countersOf(hnow::seconds(now().time_since_epoch()), counters_.sent.load(std::memory_order_relaxed),
                    counters_.received.load(std::memory_order_relaxed), wire_->total(), interface_);
}

void DataPlane::Impl::probe(ProbeOrder order, ProbeDone done) {
  if (auto runnable = ProbeRound::checkOrder(order); !runnable) return done(runnable.error());
  if (order.serve && find(order.token)) return done(Error{"the probe token is in use"});
  ProbeRound::Hooks hooks{
      [this](const std::string& token) {
        auto op = std::make_unique<Operation>();
        op->token = token;
        op->size = op->available = std::uint64_t{1} << 60;  // as long as the round lasts
        op->state = Operation::State::kProbe;
        operations_[token] = std::move(op);
      },
      [this](const std::string& token) {
        // Only the round's own source: the token may have been released
        // and given to an operation since.
        if (Operation* op = find(token); op && op->state == Operation::State::kProbe) release(token);
      },
      [this]() { return counters(); },
      [this](ProbeRound* round) {
        auto it = rounds_.find(round);
        if (it == rounds_.end()) return;
        std::shared_ptr<ProbeRound> ended(std::move(it->second));
        rounds_.erase(it);
        dataLoop_.post([ended]() {});  // destroyed after its timer's callback returns
      }};
  auto round = std::make_unique<ProbeRound>(*this, std::move(order), std::move(done), std::move(hooks));
  ProbeRound* raw = round.get();
  rounds_[raw] = std::move(round);
  raw->start();
}

DataPlane::DataPlane(const hnow::Clock& clock, EventSink sink, DataOptions options)
    : loop_(std::make_unique<DataLoop>()) {
  // libuv writes with write(2): a peer that died mid-transfer would raise
  // SIGPIPE and kill the whole process instead of failing that one
  // connection with EPIPE (kj ignores it too, but only where its async I/O
  // is set up; the data plane may run without it, as in its tests).
  ::signal(SIGPIPE, SIG_IGN);
  loop_->runSync([&]() { impl_ = std::make_unique<Impl>(*loop_, clock, std::move(sink), options, counters_); });
}

DataPlane::~DataPlane() {
  loop_->runSync([this]() { impl_.reset(); });
  loop_->stop();
}

void DataPlane::keepUnfinishedOnStop() {
  loop_->runSync([this]() { impl_->keepUnfinished_ = true; });
}

Result<int> DataPlane::listen(const std::string& host, int port) {
  Result<int> result = Error{"the data plane did not answer"};
  loop_->runSync([&]() { result = impl_->listen(host, port); });
  return result;
}

void DataPlane::setRates(double up, double down) {
  loop_->post([this, up, down]() {
    impl_->uplink_.setRate(up, impl_->now());
    impl_->downlink_.setRate(down, impl_->now());
  });
}

void DataPlane::probe(ProbeOrder order, ProbeDone done) {
  loop_->post([this, order = std::move(order), done = std::move(done)]() mutable {
    impl_->probe(std::move(order), std::move(done));
  });
}

LinkCounters DataPlane::counters() {
  LinkCounters c;
  loop_->runSync([&]() { c = impl_->counters(); });
  return c;
}

void DataPlane::watchInterface(const std::string& host) {
  std::string interface = interfaceOf(host);
  loop_->post([this, interface = std::move(interface)]() { impl_->interface_ = interface; });
}

void DataPlane::addSource(std::string token, int fd, std::uint64_t size, ChunkDigests digests) {
  loop_->post([this, token = std::move(token), fd, size, digests = std::move(digests)]() mutable {
    impl_->addSource(std::move(token), fd, size, std::move(digests));
  });
}

void DataPlane::addSourceRanges(std::string fileToken, int fd, std::vector<ByteRange> ranges,
                                std::uint32_t chunkBytes) {
  loop_->post([this, fileToken = std::move(fileToken), fd, ranges = std::move(ranges), chunkBytes]() mutable {
    impl_->addSourceRanges(std::move(fileToken), fd, std::move(ranges), chunkBytes);
  });
}

void DataPlane::receiveRanges(std::string fileToken, std::vector<ByteRange> ranges, ReceiveTarget target,
                              std::uint32_t chunkBytes) {
  loop_->post([this, fileToken = std::move(fileToken), ranges = std::move(ranges), target = std::move(target),
               chunkBytes]() mutable {
    impl_->receiveRanges(std::move(fileToken), std::move(ranges), std::move(target), chunkBytes);
  });
}

void DataPlane::receive(std::string token, std::uint64_t size, Sha256 expected, ReceiveTarget target,
                        ChunkDigests digests) {
  loop_->post([this, token = std::move(token), size, expected, target = std::move(target),
               digests = std::move(digests)]() mutable {
    impl_->receive(std::move(token), size, expected, std::move(target), std::move(digests));
  });
}

void DataPlane::pull(std::string token, std::string parentAddress) {
  loop_->post([this, token = std::move(token), a = std::move(parentAddress)]() mutable {
    impl_->pull(token, std::move(a));
  });
}

void DataPlane::release(std::string token) {
  loop_->post([this, token = std::move(token)]() { impl_->release(token); });
}

void DataPlane::discard(std::string token) {
  loop_->post([this, token = std::move(token)]() { impl_->release(token, true); });
}

void DataPlane::releaseAll() {
  loop_->post([this]() { impl_->releaseAll(); });
}

}  // namespace hnow::transport::data
