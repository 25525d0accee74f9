#include "agent/receiver.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "agent/dest_path.h"
#include "agent/receiver_scratch.h"
#include "base/path_confinement.h"
#include "base/printable.h"

namespace hnow::agent {

Receiver::Receiver(std::vector<std::string> roots, const hnow::Clock& clock,
                   transport::data::DataOptions options)
    : roots_(std::move(roots)),
      plane_(clock, [this](transport::data::TransferEvent e) { inbox_.push({std::move(e), nullptr, false}); },
             options) {}

Receiver::~Receiver() {
  {
    std::lock_guard lock(unpackMutex_);
    stopping_ = true;
  }
  unpackWake_.notify_all();
  if (unpacker_.joinable()) unpacker_.join();
}

Result<std::string> Receiver::listen(const std::string& host, int fixedPort) {
  auto port = plane_.listen(host, fixedPort);
  if (!port) return port.error();
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port.value());
}

namespace {

// hnowd's order into `dest` refused with why, logged.
Error refused(const Error& why, const std::string& dest) {
  spdlog::warn("refused a receive into '{}' that hnowd ordered: {}", dest, why.message);
  return why;
}

// What hnowd sent of the source's chunk digests for `size` bytes (the
// wire checked the counts: receiveOrderFromWire); none without them.
transport::data::ChunkDigests expected(std::uint32_t chunkBytes, std::uint64_t size, const std::string& pieces) {
  transport::data::ChunkDigests digests;
  if (chunkBytes != 0) digests.expect(chunkBytes, size, pieces);
  return digests;
}

// A striped order's stripes as the data plane's byte ranges.
std::vector<transport::data::ByteRange> rangesOf(const transport::orders::ReceiveOrder& order) {
  std::vector<transport::data::ByteRange> ranges;
  for (const transport::orders::StripeOrder& s : order.stripes) {
    transport::data::ByteRange r{s.token, s.offset, s.length, {}, expected(order.digestChunkBytes, s.length, s.pieceDigests)};
    std::copy(s.sha256.begin(), s.sha256.end(), r.sha256.begin());
    ranges.push_back(std::move(r));
  }
  return ranges;
}

// A striped order's stripe tokens, which its transfers report under.
std::vector<std::string> transfersOf(const transport::orders::ReceiveOrder& order) {
  std::vector<std::string> out;
  for (const transport::orders::StripeOrder& s : order.stripes) out.push_back(s.token);
  return out;
}

// The directory of an absolute path, where a receive's temp file lies beside it.
std::string dirOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

// A target opened for a receive that is refused after all: its temp file goes.
void discardTarget(transport::data::ReceiveTarget& t) {
  if (t.fileFd >= 0) ::close(t.fileFd);
  if (t.dirFd >= 0) ::unlinkat(t.dirFd, t.tempName.c_str(), 0), ::close(t.dirFd);
  t.fileFd = t.dirFd = -1;
}

}  // namespace

transport::data::ChunkDigests wholeFileDigests(const transport::orders::ReceiveOrder& order) {
  return order.stripes.empty() ? expected(order.digestChunkBytes, order.size, order.pieceDigests)
                               : transport::data::ChunkDigests{};
}

Result<void> Receiver::claim(int dirFd, const std::string& name, const std::string& path, const std::string& token,
                             const std::string& operation, std::uint64_t size,
                             const std::vector<std::string>& transfers) {
  auto claimed = claims_->claim(dirFd, name, {token, operation, path, size}, transfers);
  if (!claimed)
    spdlog::warn("refused a receive{} into '{}' that hnowd ordered: {}",
                 operation.empty() ? "" : " of " + printable(operation), printable(path), claimed.error().message);
  return claimed;
}

Result<std::shared_ptr<void>> Receiver::claimCopy(const std::string& dest) {
  auto opened = openConfinedParent(roots_, dest, {"destination", "destination", "write under"}, true);
  if (!opened) return std::shared_ptr<void>();
  auto& [dir, path, name] = opened.value();
  const std::string token = "copy " + std::to_string(++copies_);
  auto claimed = claim(dir, name, path + "/" + name, token, "a copy from another path of this agent", 0);
  ::close(dir);
  if (!claimed) return claimed.error();
  return std::shared_ptr<void>(nullptr, [claims = std::weak_ptr<DestClaims>(claims_), token](void*) {
    if (auto held = claims.lock()) held->release(token);
  });
}

Result<std::string> Receiver::receive(const std::string& token, const std::string& dest, std::uint64_t size,
                                      const transport::data::Sha256& sha256, transport::data::ChunkDigests digests,
                                      const std::string& operation, bool outlivesProcess) {
  auto opened = openDestination(roots_, dest);
  if (!opened) return refused(opened.error(), dest);
  auto& t = opened.value();
  const HeldReceive held{t.path, size, sha256, {}};
  if (auto adopted = adoptParked(token, held, t.dirFd, t.finalName, operation)) {
    discardTarget(t);  // the parked receive's temp file goes on instead
    return *adopted;
  }
  if (auto held = claim(t.dirFd, t.finalName, t.path, token, operation, size); !held) {
    discardTarget(t);
    return held.error();
  }
  std::string path = t.path;
  spdlog::info("receiving {} bytes into {}", size, path);
  HeldReceive& tracked = receives_[token] = held;
  if (outlivesProcess) track(token, tracked, t, dirOf(t.path));
  plane_.receive(token, size, sha256, std::move(t), std::move(digests));
  return path;
}

Result<std::string> Receiver::receiveStriped(const transport::orders::ReceiveOrder& order) {
  auto opened = openDestination(roots_, order.dest);
  if (!opened) return refused(opened.error(), order.dest);
  auto& t = opened.value();
  HeldReceive file{t.path, order.size, {}, order.stripes};
  std::copy(order.sha256.begin(), order.sha256.end(), file.sha256.begin());
  if (auto adopted = adoptParked(order.token, file, t.dirFd, t.finalName, order.operation)) {
    discardTarget(t);  // the parked receive's temp file goes on instead
    return *adopted;
  }
  if (auto held = claim(t.dirFd, t.finalName, t.path, order.token, order.operation, order.size, transfersOf(order));
      !held) {
    discardTarget(t);
    return held.error();
  }
  std::string path = t.path;
  track(order.token, file, t, dirOf(t.path));
  receives_[order.token] = file;
  std::vector<transport::data::ByteRange> ranges = rangesOf(order);
  spdlog::info("receiving {} bytes into {} in {} stripes", order.size, path, ranges.size());
  plane_.receiveRanges(order.token, std::move(ranges), std::move(t), order.stripeChunkBytes);
  return path;
}

Result<std::string> Receiver::receiveTree(const transport::orders::ReceiveOrder& order) {
  auto opened = openTreeDestination(roots_, order.dest);
  if (!opened) return refused(opened.error(), order.dest);
  auto& t = opened.value();
  HeldReceive file{t.parentPath + "/" + t.name, order.size, {}, order.stripes, order.compressed,
                   true, order.copy.atomic, order.copy.deleteOthers};
  std::copy(order.sha256.begin(), order.sha256.end(), file.sha256.begin());
  auto adopted = adoptParked(order.token, file, t.parentFd, t.name, order.operation);
  std::optional<Result<void>> held;
  if (!adopted) held = claim(t.parentFd, t.name, file.path, order.token, order.operation, order.size, transfersOf(order));
  if (adopted || !*held) {  // the parked receive's bundle goes on instead, or it is refused
    discardTarget(t.bundle);
    ::close(t.parentFd);
    return adopted ? *adopted : Result<std::string>(held->error());
  }
  auto scratch = std::make_shared<Scratch>();
  scratch->parentFd = t.parentFd;
  scratch->name = t.name;
  scratch->parentPath = t.parentPath;
  scratch->tree = true;
  scratch->atomic = order.copy.atomic;
  scratch->deleteOthers = order.copy.deleteOthers;
  scratch->searchFd = openSearchRoot(roots_, order.dest);
  track(order.token, file, t.bundle, t.parentPath);
  if (auto staged = stageTree(*scratch, order, t.bundle.fileFd); !staged) {
    ::close(t.bundle.fileFd);
    if (t.bundle.listsFd >= 0) ::close(t.bundle.listsFd);
    ::unlinkat(t.parentFd, t.bundle.tempName.c_str(), 0);
    dropRecord(file);
    return refused(staged.error(), order.dest);
  }
  const std::string path = t.parentPath + "/" + t.name;
  receiveScratch(order, scratch, std::move(t.bundle));
  file.scratch = scratch;
  receives_[order.token] = std::move(file);
  spdlog::info("receiving a tree of {} bytes into {}{}{}", order.size, path, order.copy.atomic ? " (atomic)" : "",
               order.compressed ? ", compressed from " + std::to_string(order.plainSize) : std::string());
  return path;
}

Result<std::string> Receiver::receiveCompressed(const transport::orders::ReceiveOrder& order) {
  auto opened = openCompressedDestination(roots_, order.dest);
  if (!opened) return refused(opened.error(), order.dest);
  auto& t = opened.value();
  HeldReceive file{t.parentPath + "/" + t.name, order.size, {}, order.stripes, true};
  std::copy(order.sha256.begin(), order.sha256.end(), file.sha256.begin());
  auto adopted = adoptParked(order.token, file, t.parentFd, t.name, order.operation);
  std::optional<Result<void>> held;
  if (!adopted) held = claim(t.parentFd, t.name, file.path, order.token, order.operation, order.size, transfersOf(order));
  if (adopted || !*held) {  // the parked receive's files go on instead, or it is refused
    discardTarget(t.scratch);
    ::close(t.outputFd);
    ::unlinkat(t.parentFd, t.outputName.c_str(), 0);
    ::close(t.parentFd);
    return adopted ? *adopted : Result<std::string>(held->error());
  }
  auto scratch = std::make_shared<Scratch>();
  scratch->parentFd = t.parentFd;
  scratch->name = t.name;
  scratch->parentPath = t.parentPath;
  scratch->outputFd = t.outputFd;
  scratch->outputName = t.outputName;
  const std::string path = t.parentPath + "/" + t.name;
  track(order.token, file, t.scratch, t.parentPath);
  receiveScratch(order, scratch, std::move(t.scratch));
  file.scratch = scratch;
  receives_[order.token] = std::move(file);
  spdlog::info("receiving {} compressed bytes into {} ({} once expanded)", order.size, path, order.plainSize);
  return path;
}

void Receiver::receiveScratch(const transport::orders::ReceiveOrder& order, std::shared_ptr<Scratch> scratch,
                              transport::data::ReceiveTarget target) {
  scratch->fileToken = order.token;
  scratch->receivedName = target.finalName;
  scratch->compressed = order.compressed;
  scratch->plainSize = order.plainSize;
  std::copy(order.plainSha256.begin(), order.plainSha256.end(), scratch->plainSha256.begin());
  if (order.stripes.empty()) {
    scratch->transfers = {order.token};
    scratch->firstByte[order.token] = 0;
    transport::data::Sha256 digest{};
    std::copy(order.sha256.begin(), order.sha256.end(), digest.begin());
    plane_.receive(order.token, order.size, digest, std::move(target), wholeFileDigests(order));
  } else {
    for (const transport::orders::StripeOrder& s : order.stripes) {
      scratch->transfers.push_back(s.token);
      scratch->firstByte[s.token] = s.offset;
    }
    plane_.receiveRanges(order.token, rangesOf(order), std::move(target), order.stripeChunkBytes);
  }
  scratch->waiting.insert(scratch->transfers.begin(), scratch->transfers.end());
  scratches_[order.token] = scratch;
  for (const std::string& token : scratch->transfers) scratches_[token] = scratch;
}

void Receiver::release(const std::string& token) {
  claims_->release(token);
  if (auto it = receives_.find(token); it != receives_.end()) {
    for (const transport::orders::StripeOrder& s : it->second.stripes) adopted_.erase(s.token);
    dropRecord(it->second);
    receives_.erase(it);
  }
  adopted_.erase(token);
  if (auto it = scratches_.find(token); it != scratches_.end() && it->second->fileToken == token) {
    const std::shared_ptr<Scratch> scratch = it->second;
    scratches_.erase(scratch->fileToken);
    for (const std::string& t : scratch->transfers) scratches_.erase(t);
  }
  plane_.release(token);
}

void Receiver::releaseAll() {
  for (const auto& [token, receive] : receives_) dropRecord(receive);
  for (const auto& [token, receive] : parked_) dropRecord(receive);
  claims_->clear();
  receives_.clear();
  parked_.clear();
  adopted_.clear();
  scratches_.clear();
  plane_.releaseAll();
}

void Receiver::route(Event event, const Report& report) {
  using Kind = transport::data::TransferEvent::Kind;
  if (event.transfer.kind == Kind::kDone) listings_->published();  // a file, or a tree's unpack
  auto it = scratches_.find(event.transfer.token);
  const bool lands = event.transfer.kind == Kind::kProgress || event.transfer.kind == Kind::kDone;
  if (!event.afterUnpack && it != scratches_.end() && it->second->stagedAsLanded && lands)
    landed(it->second, event.transfer.token, event.transfer.bytes);
  if (event.afterUnpack || it == scratches_.end() || event.transfer.kind != Kind::kDone) {
    // A receive that ended here (a file renamed into place, a tree
    // published, or failed) holds its destination no longer.
    if (event.transfer.kind == Kind::kDone || event.transfer.kind == Kind::kFailed) claims_->release(event.transfer.token);
    report(event.transfer, event.unpacked.get());
    return;
  }
  const std::shared_ptr<Scratch> scratch = it->second;
  scratch->waiting.erase(event.transfer.token);
  scratch->done.push_back(std::move(event.transfer));
  if (scratch->waiting.empty()) unpack(scratch);
}

void Receiver::landed(const std::shared_ptr<Scratch>& scratch, const std::string& token, std::uint64_t bytes) {
  auto& held = scratch->landed[token];
  if (bytes <= held) return;
  held = bytes;
  std::vector<transport::data::LandedSpan> spans;
  for (const auto& [t, n] : scratch->landed) spans.push_back({scratch->firstByte[t], n});
  bool queue = false;
  {
    std::lock_guard lock(unpackMutex_);
    scratch->spans = std::move(spans);
    queue = !std::exchange(scratch->advanceQueued, true);
  }
  if (queue) enqueue(scratch, true);
}

void Receiver::unpack(std::shared_ptr<Scratch> scratch) { enqueue(std::move(scratch), false); }

void Receiver::enqueue(std::shared_ptr<Scratch> scratch, bool advance) {
  {
    std::lock_guard lock(unpackMutex_);
    unpackQueue_.push_back({std::move(scratch), advance});
    if (!unpacker_.joinable())
      unpacker_ = std::thread([this] {
        std::unique_lock lock(unpackMutex_);
        while (true) {
          unpackWake_.wait(lock, [this] { return stopping_ || !unpackQueue_.empty(); });
          if (stopping_) return;
          UnpackWork next = std::move(unpackQueue_.front());
          unpackQueue_.pop_front();
          lock.unlock();
          if (next.advance) advanceStaging(*next.scratch);
          else unpackOne(*next.scratch);
          next.scratch.reset();  // a released scratch's staging is removed here, off the kj thread
          lock.lock();
        }
      });
  }
  unpackWake_.notify_one();
}

std::string Receiver::reachable(const std::string& address) const {
  for (const char* any : {"0.0.0.0:", "[::]:"})
    if (address.rfind(any, 0) == 0 && !coordinatorHost_.empty())
      return coordinatorHost_ + address.substr(std::string(any).size() - 1);
  return address;
}

void Receiver::pull(const std::string& token, const std::string& parentAddress) {
  plane_.pull(token, reachable(parentAddress));
}

kj::Promise<Receiver::ProbeAnswer> Receiver::probe(transport::data::ProbeOrder order) {
  for (std::string& address : order.pullFrom) address = reachable(address);
  auto paf = kj::newPromiseAndCrossThreadFulfiller<ProbeAnswer>();
  using Fulfiller = kj::Own<kj::CrossThreadPromiseFulfiller<ProbeAnswer>>;
  auto fulfiller = std::make_shared<Fulfiller>(kj::mv(paf.fulfiller));
  plane_.probe(std::move(order), [fulfiller](Result<transport::data::ProbeResult> result) {
    (*fulfiller)->fulfill(kj::heap<Result<transport::data::ProbeResult>>(std::move(result)));
  });
  return kj::mv(paf.promise);
}

LaterResult<void> Receiver::offer(const std::string& token, const std::string& ticket,
                                  const std::string& address) {
  auto paf = kj::newPromiseAndCrossThreadFulfiller<kj::Own<Result<void>>>();
  using Fulfiller = kj::Own<kj::CrossThreadPromiseFulfiller<kj::Own<Result<void>>>>;
  auto fulfiller = std::make_shared<Fulfiller>(kj::mv(paf.fulfiller));
  plane_.offer(token, ticket, reachable(address),
               [fulfiller](const Result<void>& started) { (*fulfiller)->fulfill(held(Result<void>(started))); });
  return kj::mv(paf.promise);
}

kj::Promise<void> Receiver::forwardEvents(Report report) {
  return inbox_.next().then([this, report](std::vector<Event> events) mutable {
    for (Event& e : events) route(std::move(e), report);
    return forwardEvents(kj::mv(report));
  });
}

}  // namespace hnow::agent
