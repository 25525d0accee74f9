#include "agent/receiver.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <set>

#include "agent/dest_path.h"
#include "base/path_confinement.h"
#include "transport/rpc_errors.h"

namespace hnow::agent {

Receiver::Receiver(std::vector<std::string> roots, const hnow::Clock& clock,
                   transport::data::DataOptions options)
    : roots_(std::move(roots)),
      plane_(clock, [this](transport::data::TransferEvent e) { inbox_.push({std::move(e), nullptr, false}); },
             options) {}

// A tree being received: its transfers' done reports wait here until the
// bundle is unpacked.
struct Receiver::Tree {
  std::string fileToken;
  std::vector<std::string> transfers;  // what reports come under: the file's token, or each stripe's
  std::set<std::string> waiting;       // transfers not done yet
  std::vector<transport::data::TransferEvent> done;
  int parentFd = -1;  // the destination's directory
  std::string name, parentPath, bundleName;
  bool atomic = false;
  bool deleteOthers = false;
  ~Tree() {
    if (parentFd >= 0) ::close(parentFd);
  }
};

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

std::string Receiver::receive(const std::string& token, const std::string& dest, std::uint64_t size,
                              const transport::data::Sha256& sha256) {
  auto target = openDestination(roots_, dest);
  if (!target) {
    spdlog::warn("refused a receive into '{}' that hnowd ordered: {}", dest, target.error().message);
    transport::refuse(target.error().message);
  }
  auto& t = target.value();
  std::string path = t.path;
  spdlog::info("receiving {} bytes into {}", size, path);
  plane_.receive(token, size, sha256, std::move(t));
  return path;
}

std::string Receiver::receiveStriped(const transport::ReceiveOrder& order) {
  auto target = openDestination(roots_, order.dest);
  if (!target) {
    spdlog::warn("refused a receive into '{}' that hnowd ordered: {}", order.dest, target.error().message);
    transport::refuse(target.error().message);
  }
  auto& t = target.value();
  std::string path = t.path;
  std::vector<transport::data::ByteRange> ranges;
  for (const transport::StripeOrder& s : order.stripes) {
    transport::data::ByteRange r{s.token, s.offset, s.length, {}};
    std::copy(s.sha256.begin(), s.sha256.end(), r.sha256.begin());
    ranges.push_back(std::move(r));
  }
  spdlog::info("receiving {} bytes into {} in {} stripes", order.size, path, ranges.size());
  plane_.receiveRanges(order.token, std::move(ranges), std::move(t), order.stripeChunkBytes);
  return path;
}

std::string Receiver::receiveTree(const transport::ReceiveOrder& order) {
  auto target = openTreeDestination(roots_, order.dest);
  if (!target) {
    spdlog::warn("refused a tree into '{}' that hnowd ordered: {}", order.dest, target.error().message);
    transport::refuse(target.error().message);
  }
  auto& t = target.value();
  auto tree = std::make_shared<Tree>();
  tree->fileToken = order.token;
  tree->parentFd = t.parentFd;
  tree->name = t.name;
  tree->parentPath = t.parentPath;
  tree->bundleName = t.bundle.finalName;
  tree->atomic = order.atomic;
  tree->deleteOthers = order.deleteOthers;
  const std::string path = t.parentPath + "/" + t.name;
  if (order.stripes.empty()) {
    tree->transfers = {order.token};
    transport::data::Sha256 digest{};
    std::copy(order.sha256.begin(), order.sha256.end(), digest.begin());
    plane_.receive(order.token, order.size, digest, std::move(t.bundle));
  } else {
    std::vector<transport::data::ByteRange> ranges;
    for (const transport::StripeOrder& s : order.stripes) {
      transport::data::ByteRange r{s.token, s.offset, s.length, {}};
      std::copy(s.sha256.begin(), s.sha256.end(), r.sha256.begin());
      ranges.push_back(std::move(r));
      tree->transfers.push_back(s.token);
    }
    plane_.receiveRanges(order.token, std::move(ranges), std::move(t.bundle), order.stripeChunkBytes);
  }
  tree->waiting.insert(tree->transfers.begin(), tree->transfers.end());
  trees_[order.token] = tree;
  for (const std::string& token : tree->transfers) trees_[token] = tree;
  spdlog::info("receiving a tree of {} bytes into {}{}", order.size, path, order.atomic ? " (atomic)" : "");
  return path;
}

std::vector<std::uint32_t> Receiver::treeHeld(const std::string& dest, std::string_view index) {
  const std::uint64_t end = transport::data::kTreeHeaderBytes + index.size();
  auto entries = transport::data::decodeTreeIndex(index, end, end);
  if (!entries) transport::refuse("a bad tree index from hnowd: " + entries.error().message);
  // The directories on the way are made now: the send that follows needs them anyway.
  auto opened = openConfinedParent(roots_, dest, {"destination", "destination", "write under"}, true);
  if (!opened) {
    spdlog::warn("refused a tree into '{}' that hnowd asked about: {}", dest, opened.error().message);
    transport::refuse(opened.error().message);
  }
  auto& [dir, path, name] = opened.value();
  auto missing = transport::data::missingFiles(*entries, dir, name);
  ::close(dir);
  return missing;
}

void Receiver::release(const std::string& token) {
  if (auto it = trees_.find(token); it != trees_.end() && it->second->fileToken == token) {
    const std::shared_ptr<Tree> tree = it->second;
    trees_.erase(tree->fileToken);
    for (const std::string& t : tree->transfers) trees_.erase(t);
  }
  plane_.release(token);
}

void Receiver::releaseAll() {
  trees_.clear();
  plane_.releaseAll();
}

void Receiver::route(Event event, const Report& report) {
  using Kind = transport::data::TransferEvent::Kind;
  auto it = trees_.find(event.transfer.token);
  if (event.afterUnpack || it == trees_.end() || event.transfer.kind != Kind::kDone) {
    report(event.transfer, event.unpacked.get());
    return;
  }
  const std::shared_ptr<Tree> tree = it->second;
  tree->waiting.erase(event.transfer.token);
  tree->done.push_back(std::move(event.transfer));
  if (tree->waiting.empty()) unpack(tree);
}

void Receiver::unpack(std::shared_ptr<Tree> tree) {
  {
    std::lock_guard lock(unpackMutex_);
    unpackQueue_.push_back(std::move(tree));
    if (!unpacker_.joinable())
      unpacker_ = std::thread([this] {
        std::unique_lock lock(unpackMutex_);
        while (true) {
          unpackWake_.wait(lock, [this] { return stopping_ || !unpackQueue_.empty(); });
          if (stopping_) return;
          std::shared_ptr<Tree> next = std::move(unpackQueue_.front());
          unpackQueue_.pop_front();
          lock.unlock();
          unpackOne(*next);
          lock.lock();
        }
      });
  }
  unpackWake_.notify_one();
}

// On the unpack thread: the bundle, whole and matched, becomes the tree;
// its transfers then report done with what was published, or failed.
void Receiver::unpackOne(Tree& tree) {
  const auto began = std::chrono::steady_clock::now();
  const int fd = ::openat(tree.parentFd, tree.bundleName.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  Result<transport::data::UnpackedTree> unpacked =
      fd < 0 ? Result<transport::data::UnpackedTree>(Error{"cannot open the received bundle " + tree.parentPath + "/" +
                                                          tree.bundleName + ": " + std::strerror(errno)})
             : transport::data::unpackTree(fd, tree.parentFd, tree.name, tree.parentPath, tree.atomic,
                                           tree.deleteOthers);
  if (fd >= 0) ::close(fd);
  // The data plane still relays the bundle to this agent's children from its open descriptor.
  ::unlinkat(tree.parentFd, tree.bundleName.c_str(), 0);
  const std::string path = tree.parentPath + "/" + tree.name;
  std::shared_ptr<const transport::data::UnpackedTree> outcome;
  if (unpacked) {
    outcome = std::make_shared<const transport::data::UnpackedTree>(std::move(unpacked).value());
    spdlog::info("unpacked {} in {:.3f} s: {} files ({} bytes), {} held already, {} replaced, {} deleted, {} failed",
                 path, std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(),
                 outcome->files, outcome->bytes, outcome->held, outcome->replaced, outcome->deleted,
                 outcome->failed.size());
  } else {
    spdlog::warn("cannot unpack the tree into {}: {}", path, unpacked.error().message);
  }
  for (transport::data::TransferEvent e : tree.done) {
    if (outcome) {
      e.path = path;
    } else {
      e.kind = transport::data::TransferEvent::Kind::kFailed;
      e.message = unpacked.error().message;
    }
    inbox_.push({std::move(e), outcome, true});
  }
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
