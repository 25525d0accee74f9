#include "transport/data/data_plane.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "base/hex.h"
#include "transport/data/data_loop.h"
#include "transport/data/plane_state.h"
#include "transport/data/probe_round.h"
#include "transport/data/pull_connection.h"
#include "transport/data/serve_connection.h"

namespace hnow::transport::data {

namespace {
// Bursts of two chunks keep pacing close to the rate without a timer per chunk.
double burstOf(const DataOptions& o) { return 2.0 * o.chunkBytes; }
}  // namespace

// Lives on the data thread: created and destroyed there.
struct DataPlane::Impl final : PlaneCore {
  Impl(DataLoop& dataLoop, const hnow::Clock& clock, EventSink sink, DataOptions options, Counters& counters)
      : dataLoop_(dataLoop), clock_(clock), sink_(std::move(sink)), options_(options), counters_(counters),
        uplink_(0, burstOf(options), clock.now()), downlink_(0, burstOf(options), clock.now()) {}

  ~Impl() override {
    rounds_.clear();
    std::vector<std::string> tokens;
    for (auto& [token, op] : operations_) tokens.push_back(token);
    for (auto& token : tokens) release(token);
    children_.clear();
  }

  uv_loop_t* loop() override { return dataLoop_.loop(); }
  const DataOptions& options() const override { return options_; }
  hnow::TimePoint now() const override { return clock_.now(); }
  hnow::TokenBucket& uplink() override { return uplink_; }
  hnow::TokenBucket& downlink() override { return downlink_; }
  std::shared_ptr<WireTally> wire() override { return wire_; }
  std::uint64_t countSentFrame() override { return ++sentFrames_; }
  void countSent(std::uint64_t bytes) override { counters_.sent.fetch_add(bytes, std::memory_order_relaxed); }
  void countReceived(std::uint64_t bytes) override { counters_.received.fetch_add(bytes, std::memory_order_relaxed); }

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

  void emit(TransferEvent::Kind kind, Operation& op, std::string message = {}) {
    TransferEvent e;
    e.kind = kind;
    e.token = op.token;
    e.bytes = op.available;
    e.corruptChunks = op.corruptChunks;
    e.message = std::move(message);
    if (kind == TransferEvent::Kind::kDone) {
      e.path = op.target.path;
      e.sha256Hex = hexOf(op.expected.data(), op.expected.size());
    }
    sink_(std::move(e));
  }

  Result<int> listen(const std::string& host) {
    listener_ = UvHandle<uv_tcp_t>([this](uv_tcp_t* t) { return uv_tcp_init(loop(), t); });
    sockaddr_storage address{};
    if (!parseAddress(host + ":1", address)) return Error{"cannot parse the data listen host " + host};
    if (address.ss_family == AF_INET) reinterpret_cast<sockaddr_in*>(&address)->sin_port = 0;
    else reinterpret_cast<sockaddr_in6*>(&address)->sin6_port = 0;
    if (int rc = uv_tcp_bind(listener_.get(), reinterpret_cast<sockaddr*>(&address), 0); rc != 0)
      return Error{std::string("cannot bind the data port: ") + uv_strerror(rc)};
    listener_.get()->data = this;
    int rc = uv_listen(listener_.stream(), 128, [](uv_stream_t* server, int status) {
      if (status == 0 && server->data) static_cast<Impl*>(server->data)->accept(server);
    });
    if (rc != 0) return Error{std::string("cannot listen: ") + uv_strerror(rc)};
    sockaddr_storage bound{};
    int length = sizeof bound;
    uv_tcp_getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&bound), &length);
    return bound.ss_family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port)
                                      : ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  }

  void accept(uv_stream_t* server) {
    std::size_t awaiting = 0;
    for (const auto& [child, owned] : children_) awaiting += child->operation() == nullptr;
    auto connection = std::make_unique<ServeConnection>(*this);
    ServeConnection* raw = connection.get();
    if (!connection->accept(server)) return;
    children_[raw] = std::move(connection);
    if (awaiting >= options_.maxAwaitingHello) {
      // A flood is logged, not every connection of it.
      if (refusedAwaiting_++ % 100 == 0)
        spdlog::warn("data connection from {} closed: {} connections are waiting to say hello ({} refused so far)",
                     raw->peer(), awaiting, refusedAwaiting_);
      raw->close("too many connections waiting to say hello");
    }
  }

  void serveClosed(ServeConnection* connection) override {
    auto it = children_.find(connection);
    if (it == children_.end()) return;
    if (Operation* op = connection->operation()) op->children.erase(connection);
    retire(std::move(it->second));
    children_.erase(it);
  }

  void addSource(std::string token, int fd, std::uint64_t size) {
    auto op = std::make_unique<Operation>();
    op->token = token;
    op->size = size;
    op->fd = fd;
    op->available = size;
    op->state = Operation::State::kSource;
    operations_[token] = std::move(op);
  }

  LinkCounters counters() {
    return countersOf(hnow::seconds(now().time_since_epoch()), counters_.sent.load(std::memory_order_relaxed),
                      counters_.received.load(std::memory_order_relaxed), wire_->total(), interface_);
  }

  void probe(ProbeOrder order, ProbeDone done) {
    if (std::string problem = ProbeRound::problem(order); !problem.empty()) return done(Error{problem});
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

  void receive(std::string token, std::uint64_t size, Sha256 expected, ReceiveTarget target) {
    if (find(token)) {  // a repeated command: keep the first, drop the new descriptors
      ::close(target.fileFd);
      ::unlinkat(target.dirFd, target.tempName.c_str(), 0);
      ::close(target.dirFd);
      return;
    }
    auto op = std::make_unique<Operation>();
    op->token = token;
    op->size = size;
    op->fd = target.fileFd;
    op->target = std::move(target);
    op->expected = expected;
    op->sha.reset(EVP_MD_CTX_new());
    EVP_DigestInit_ex(op->sha.get(), EVP_sha256(), nullptr);
    op->retryTimer = UvHandle<uv_timer_t>([this](uv_timer_t* t) { return uv_timer_init(loop(), t); });
    op->retryTimer.get()->data = op.get();
    op->retry = [this, raw = op.get()]() { connectUpstream(*raw); };
    operations_[token] = std::move(op);
  }

  void pull(const std::string& token, std::string parentAddress) {
    Operation* op = find(token);
    if (!op || !op->receiving()) return;
    op->parentAddress = std::move(parentAddress);
    uv_timer_stop(op->retryTimer.get());
    connectUpstream(*op);
  }

  void connectUpstream(Operation& op) {
    retire(std::move(op.upstream));
    if (op.available == op.size) return finish(op);
    sockaddr_storage address{};
    if (!parseAddress(op.parentAddress, address)) return fail(op, "cannot resolve the parent " + op.parentAddress);
    op.state = Operation::State::kReceiving;
    op.upstream = std::make_unique<PullConnection>(*this, op);
    op.upstream->connect(reinterpret_cast<sockaddr*>(&address));
  }

  void upstreamClosed(Operation& op, const std::string& reason) override {
    if (!op.receiving()) return;
    retire(std::move(op.upstream));
    spdlog::warn("the parent {} of a transfer went away at byte {}: {}; retrying until hnowd "
                 "re-parents", op.parentAddress, op.available, reason);
    emit(TransferEvent::Kind::kParentLost, op, reason);
    uv_timer_start(
        op.retryTimer.get(),
        [](uv_timer_t* t) {
          static_cast<Operation*>(t->data)->retry();
        },
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                       options_.reconnectDelay).count()),
        0);
  }

  void chunkWritten(Operation& op) override {
    for (ServeConnection* child : std::vector<ServeConnection*>(op.children.begin(), op.children.end()))
      child->pump();
    const hnow::TimePoint t = now();
    if (t - op.lastProgress >= options_.progressInterval) {
      op.lastProgress = t;
      emit(TransferEvent::Kind::kProgress, op);
    }
    if (op.available == op.size) finish(op);
  }

  void finish(Operation& op) {
    retire(std::move(op.upstream));
    Sha256 digest{};
    unsigned int length = 0;
    EVP_DigestFinal_ex(op.sha.get(), digest.data(), &length);
    if (digest != op.expected) return fail(op, "the received file's SHA-256 differs from the source's");
    op.state = Operation::State::kVerifying;
    // fdatasync off the loop (libuv's thread pool), then the atomic rename.
    struct Sync {
      uv_fs_t request;
      std::weak_ptr<bool> alive;
      Impl* impl;
      std::string token;
    };
    auto* sync = new Sync{{}, alive_, this, op.token};
    uv_fs_fdatasync(loop(), &sync->request, op.target.fileFd, [](uv_fs_t* r) {
      auto* sync = reinterpret_cast<Sync*>(r);
      uv_fs_req_cleanup(r);
      if (!sync->alive.expired())
        if (Operation* op = sync->impl->find(sync->token)) sync->impl->renameIntoPlace(*op, r->result);
      delete sync;
    });
  }

  void renameIntoPlace(Operation& op, ssize_t syncResult) {
    if (op.state != Operation::State::kVerifying) return;
    if (syncResult < 0) return fail(op, std::string("fdatasync failed: ") + uv_strerror(static_cast<int>(syncResult)));
    if (::renameat(op.target.dirFd, op.target.tempName.c_str(), op.target.dirFd,
                   op.target.finalName.c_str()) != 0)
      return fail(op, std::string("cannot rename into place: ") + std::strerror(errno));
    op.state = Operation::State::kDone;
    spdlog::info("received {} ({} bytes, SHA-256 verified)", op.target.path, op.size);
    emit(TransferEvent::Kind::kDone, op);
  }

  void fail(Operation& op, const std::string& message) override {
    if (op.state == Operation::State::kFailed || op.state == Operation::State::kDone) return;
    op.state = Operation::State::kFailed;
    retire(std::move(op.upstream));
    uv_timer_stop(op.retryTimer.get());
    spdlog::error("transfer to {} failed: {}", op.target.path, message);
    // Nothing partial stays: a full disk gets its space back now,
    // not when hnowd ends the operation; children still read the open fd.
    if (op.target.dirFd >= 0) ::unlinkat(op.target.dirFd, op.target.tempName.c_str(), 0);
    emit(TransferEvent::Kind::kFailed, op, message);
  }

  void release(const std::string& token, bool removeFile = false) {
    auto it = operations_.find(token);
    if (it == operations_.end()) return;
    Operation& op = *it->second;
    if (removeFile && op.state == Operation::State::kDone)
      ::unlinkat(op.target.dirFd, op.target.finalName.c_str(), 0);
    for (ServeConnection* child : std::vector<ServeConnection*>(op.children.begin(), op.children.end()))
      child->close("the operation ended");
    retire(std::move(op.upstream));
    if (op.state != Operation::State::kSource && op.state != Operation::State::kProbe) {
      if (op.state != Operation::State::kDone) ::unlinkat(op.target.dirFd, op.target.tempName.c_str(), 0);
      if (op.target.dirFd >= 0) ::close(op.target.dirFd);
    }
    if (op.fd >= 0) ::close(op.fd);
    operations_.erase(it);
  }

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
  UvHandle<uv_tcp_t> listener_;
  std::map<std::string, std::unique_ptr<Operation>> operations_;
  std::map<ServeConnection*, std::unique_ptr<ServeConnection>> children_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

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

Result<int> DataPlane::listen(const std::string& host) {
  Result<int> result = Error{"the data plane did not answer"};
  loop_->runSync([&]() { result = impl_->listen(host); });
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

void DataPlane::addSource(std::string token, int fd, std::uint64_t size) {
  loop_->post([this, token = std::move(token), fd, size]() mutable { impl_->addSource(std::move(token), fd, size); });
}

void DataPlane::receive(std::string token, std::uint64_t size, Sha256 expected, ReceiveTarget target) {
  loop_->post([this, token = std::move(token), size, expected, target = std::move(target)]() mutable {
    impl_->receive(std::move(token), size, expected, std::move(target));
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
  loop_->post([this]() {
    std::vector<std::string> tokens;
    for (const auto& [token, op] : impl_->operations_) tokens.push_back(token);
    for (const auto& token : tokens) impl_->release(token);
  });
}

}  // namespace hnow::transport::data
