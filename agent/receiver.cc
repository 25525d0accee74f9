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
#include "transport/data/held_copy.h"
#include "transport/data/tree_find.h"
#include "transport/rpc_errors.h"

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

std::string Receiver::listen(const std::string& host) {
  auto port = plane_.listen(host);
  if (!port) transport::refuse(port.error().message);
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port.value());
}

namespace {

// The root `dest` lies in, opened to search it for bytes held under another
// path (O_PATH; caller closes); -1 when there is none.
int openSearchRoot(const std::vector<std::string>& roots, const std::string& dest) {
  const std::string root = rootOf(roots, dest);
  return root.empty() ? -1 : ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

// The destination opened for `dest`, or hnowd's order refused with why (and logged).
template <class Target>
Target openedOrRefused(Result<Target> opened, const std::string& dest) {
  if (!opened) {
    spdlog::warn("refused a receive into '{}' that hnowd ordered: {}", dest, opened.error().message);
    transport::refuse(opened.error().message);
  }
  return std::move(opened).value();
}

// What hnowd sent of the source's chunk digests for `size` bytes (the
// wire checked the counts: receiveOrderFromWire); none without them.
transport::data::ChunkDigests expected(std::uint32_t chunkBytes, std::uint64_t size, const std::string& pieces) {
  transport::data::ChunkDigests digests;
  if (chunkBytes != 0) digests.expect(chunkBytes, size, pieces);
  return digests;
}

// A striped order's stripes as the data plane's byte ranges.
std::vector<transport::data::ByteRange> rangesOf(const transport::ReceiveOrder& order) {
  std::vector<transport::data::ByteRange> ranges;
  for (const transport::StripeOrder& s : order.stripes) {
    transport::data::ByteRange r{s.token, s.offset, s.length, {}, expected(order.digestChunkBytes, s.length, s.pieceDigests)};
    std::copy(s.sha256.begin(), s.sha256.end(), r.sha256.begin());
    ranges.push_back(std::move(r));
  }
  return ranges;
}

}  // namespace

transport::data::ChunkDigests wholeFileDigests(const transport::ReceiveOrder& order) {
  return order.stripes.empty() ? expected(order.digestChunkBytes, order.size, order.pieceDigests)
                               : transport::data::ChunkDigests{};
}

std::string Receiver::receive(const std::string& token, const std::string& dest, std::uint64_t size,
                              const transport::data::Sha256& sha256, transport::data::ChunkDigests digests) {
  auto t = openedOrRefused(openDestination(roots_, dest), dest);
  std::string path = t.path;
  spdlog::info("receiving {} bytes into {}", size, path);
  plane_.receive(token, size, sha256, std::move(t), std::move(digests));
  return path;
}

std::string Receiver::receiveStriped(const transport::ReceiveOrder& order) {
  auto t = openedOrRefused(openDestination(roots_, order.dest), order.dest);
  std::string path = t.path;
  std::vector<transport::data::ByteRange> ranges = rangesOf(order);
  spdlog::info("receiving {} bytes into {} in {} stripes", order.size, path, ranges.size());
  plane_.receiveRanges(order.token, std::move(ranges), std::move(t), order.stripeChunkBytes);
  return path;
}

std::string Receiver::receiveTree(const transport::ReceiveOrder& order) {
  auto t = openedOrRefused(openTreeDestination(roots_, order.dest), order.dest);
  auto scratch = std::make_shared<Scratch>();
  scratch->parentFd = t.parentFd;
  scratch->name = t.name;
  scratch->parentPath = t.parentPath;
  scratch->tree = true;
  scratch->atomic = order.atomic;
  scratch->deleteOthers = order.deleteOthers;
  scratch->searchFd = openSearchRoot(roots_, order.dest);
  if (auto staged = stageTree(*scratch, order, t.bundle.fileFd); !staged) {
    ::close(t.bundle.fileFd);
    ::unlinkat(t.parentFd, t.bundle.tempName.c_str(), 0);
    openedOrRefused(Result<int>(staged.error()), order.dest);
  }
  const std::string path = t.parentPath + "/" + t.name;
  receiveScratch(order, scratch, std::move(t.bundle));
  spdlog::info("receiving a tree of {} bytes into {}{}{}", order.size, path, order.atomic ? " (atomic)" : "",
               order.compressed ? ", compressed from " + std::to_string(order.plainSize) : std::string());
  return path;
}

std::string Receiver::receiveCompressed(const transport::ReceiveOrder& order) {
  auto t = openedOrRefused(openCompressedDestination(roots_, order.dest), order.dest);
  auto scratch = std::make_shared<Scratch>();
  scratch->parentFd = t.parentFd;
  scratch->name = t.name;
  scratch->parentPath = t.parentPath;
  scratch->outputFd = t.outputFd;
  scratch->outputName = t.outputName;
  const std::string path = t.parentPath + "/" + t.name;
  receiveScratch(order, scratch, std::move(t.scratch));
  spdlog::info("receiving {} compressed bytes into {} ({} once expanded)", order.size, path, order.plainSize);
  return path;
}

void Receiver::receiveScratch(const transport::ReceiveOrder& order, std::shared_ptr<Scratch> scratch,
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
    for (const transport::StripeOrder& s : order.stripes) {
      scratch->transfers.push_back(s.token);
      scratch->firstByte[s.token] = s.offset;
    }
    plane_.receiveRanges(order.token, rangesOf(order), std::move(target), order.stripeChunkBytes);
  }
  scratch->waiting.insert(scratch->transfers.begin(), scratch->transfers.end());
  scratches_[order.token] = scratch;
  for (const std::string& token : scratch->transfers) scratches_[token] = scratch;
}

Result<transport::data::HeldFiles> Receiver::treeHeld(const std::vector<std::string>& roots, const std::string& dest,
                                                      std::string_view index, RootListings& listings) {
  auto entries = transport::data::decodeTreeIndex(index, 0, 0);  // a query names no bytes
  if (!entries) return Error{"a bad tree index from hnowd: " + entries.error().message};
  // The directories on the way are made now: the send that follows needs them anyway.
  auto opened = openConfinedParent(roots, dest, {"destination", "destination", "write under"}, true);
  if (!opened) {
    spdlog::warn("refused a tree into '{}' that hnowd asked about: {}", dest, opened.error().message);
    return opened.error();
  }
  auto& [dir, path, name] = opened.value();
  // A file not at its path is looked for under the whole root dest lies in (docs/tree-send.md).
  const int rootFd = openSearchRoot(roots, dest);
  transport::data::HeldFiles held;
  if (rootFd < 0) {
    held = transport::data::missingFiles(*entries, dir, name);
  } else {
    listings.withFinder(rootFd, [&](transport::data::ContentFinder& elsewhere) {
      held = transport::data::missingFiles(*entries, dir, name, elsewhere);
    });
    ::close(rootFd);
  }
  ::close(dir);
  return held;
}

Result<Receiver::FileHolding> Receiver::fileHeld(const std::vector<std::string>& roots, const std::string& dest,
                                                 std::uint64_t size,
                                                 const std::optional<transport::data::Sha256>& sha256,
                                                 RootListings& listings) {
  using transport::data::DestHolding;
  // As a receive resolves it; the directories on the way are made, as the receive that follows would.
  auto opened = openConfinedParent(roots, dest, {"destination", "destination", "write under"}, true);
  if (!opened) {
    spdlog::warn("refused a file into '{}' that hnowd asked about: {}", dest, opened.error().message);
    return opened.error();
  }
  auto& [dir, path, name] = opened.value();
  FileHolding out{transport::data::destHolding(dir, name, size, sha256 ? &*sha256 : nullptr), ""};
  ::close(dir);
  if (out.holding == DestHolding::kDirectory)
    return Error{path + "/" + name + " is a directory; a file cannot replace it: name a path inside it (" + dest +
                 "/NAME) or another --dest"};
  if (out.holding == DestHolding::kSame || out.holding == DestHolding::kSameSize) return out;
  // The same bytes under another path of the root (docs/send.md, "Under another path"): sizes first, no read.
  const std::string root = rootOf(roots, dest);
  const int rootFd = openSearchRoot(roots, dest);
  listings.withFinder(rootFd, [&](transport::data::ContentFinder& elsewhere) {
    if (!sha256 && elsewhere.hasSize(size)) out.holding = DestHolding::kSameSize;
    if (sha256)
      if (auto found = elsewhere.find(size, *sha256)) out.heldAt = root + "/" + *found;
  });
  if (rootFd >= 0) ::close(rootFd);
  return out;
}

Result<std::string> Receiver::copyHeld(const std::vector<std::string>& roots, const std::string& dest,
                                       const std::string& from, std::uint64_t size,
                                       const transport::data::Sha256& sha256, RootListings& listings) {
  auto source = openConfinedParent(roots, from, {"source file", "source", "read from"}, false);
  if (!source) return source.error();
  auto& [fromDir, fromPath, fromName] = source.value();
  const std::string fromFile = fromPath + "/" + fromName;
  // O_NONBLOCK: should a fifo have taken the file's place, the open must not wait for a writer.
  const int in = ::openat(fromDir, fromName.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  const int openError = errno;
  ::close(fromDir);
  if (in < 0) return Error{"cannot open " + fromFile + ": " + std::strerror(openError)};
  struct stat info {};
  if (::fstat(in, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(in);
    return Error{fromFile + " is not a regular file"};
  }
  auto target = openDestination(roots, dest);
  if (!target) {
    ::close(in);
    return target.error();
  }
  Result<void> copied = transport::data::copyChecked(in, size, sha256, target->fileFd);
  ::close(in);
  if (copied && ::fdatasync(target->fileFd) != 0) copied = Error{std::string("fdatasync failed: ") + std::strerror(errno)};
  if (copied && ::renameat(target->dirFd, target->tempName.c_str(), target->dirFd, target->finalName.c_str()) != 0)
    copied = Error{std::string("cannot rename it into place: ") + std::strerror(errno)};
  if (!copied) ::unlinkat(target->dirFd, target->tempName.c_str(), 0);
  ::close(target->fileFd);
  ::close(target->dirFd);
  if (!copied) return Error{"cannot copy " + fromFile + " to " + target->path + ": " + copied.error().message};
  listings.published();
  spdlog::info("wrote {} from {}, which held the same bytes (not sent)", target->path, fromFile);
  return target->path;
}

void Receiver::release(const std::string& token) {
  if (auto it = scratches_.find(token); it != scratches_.end() && it->second->fileToken == token) {
    const std::shared_ptr<Scratch> scratch = it->second;
    scratches_.erase(scratch->fileToken);
    for (const std::string& t : scratch->transfers) scratches_.erase(t);
  }
  plane_.release(token);
}

void Receiver::releaseAll() {
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

kj::Promise<void> Receiver::forwardEvents(Report report) {
  return inbox_.next().then([this, report](std::vector<Event> events) mutable {
    for (Event& e : events) route(std::move(e), report);
    return forwardEvents(kj::mv(report));
  });
}

}  // namespace hnow::agent
