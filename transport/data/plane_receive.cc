// The receiving side of the data plane: whole files and files moved as
// byte ranges, each range pulled from its own parent and relayed as it
// lands; the checks before the rename into place.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "transport/data/digest_cache.h"
#include "transport/data/frame.h"
#include "transport/data/plane_impl.h"

namespace hnow::transport::data {

namespace {

// A file's bytes are handed to the disk's writeback every this many landed
// (per range: this over the file's ranges, 1 MiB at least).
constexpr std::uint64_t kWritebackBytes = 8 << 20;
constexpr std::uint64_t kMinRangeWritebackBytes = 1 << 20;

// Gives up a duplicate order's descriptors: the first order stands.
void dropTarget(ReceiveTarget& target) {
  if (target.listsFd >= 0) ::close(target.listsFd);
  ::close(target.fileFd);
  ::unlinkat(target.dirFd, target.tempName.c_str(), 0);
  ::close(target.dirFd);
}

}  // namespace

Operation& DataPlane::Impl::addReceiving(const std::string& token, std::uint64_t size, Sha256 expected, int fd) {
  auto op = std::make_unique<Operation>();
  op->token = token;
  op->size = size;
  op->fd = fd;
  op->expected = expected;
  op->sha.reset(EVP_MD_CTX_new());
  EVP_DigestInit_ex(op->sha.get(), EVP_sha256(), nullptr);
  op->retryTimer = UvHandle<uv_timer_t>([this](uv_timer_t* t) { return uv_timer_init(loop(), t); });
  op->retryTimer.get()->data = op.get();
  op->retry = [this, raw = op.get()]() { connectUpstream(*raw); };
  Operation& added = *op;
  operations_[token] = std::move(op);
  return added;
}

void DataPlane::Impl::receive(std::string token, std::uint64_t size, Sha256 expected, ReceiveTarget target,
                              ChunkDigests digests) {
  if (find(token) || assemblies_.count(token)) return dropTarget(target);  // a repeated command
  Operation& op = addReceiving(token, size, expected, target.fileFd);
  if (target.cutChunkBytes > 0 && digests.empty()) op.cutter = std::make_unique<ChunkHasher>(target.cutChunkBytes);
  op.target = std::move(target);
  op.useDigests(std::move(digests));
  checkLeftover(op, op.target.heldBytes, std::exchange(op.target.keptLists, {}));
}

void DataPlane::Impl::receiveRanges(std::string fileToken, std::vector<ByteRange> ranges, ReceiveTarget target,
                                    std::uint32_t chunkBytes) {
  bool repeated = find(fileToken) || assemblies_.count(fileToken);
  for (const ByteRange& range : ranges) repeated = repeated || find(range.token) || assemblies_.count(range.token);
  if (repeated) return dropTarget(target);
  auto file = std::make_unique<Assembly>();
  file->token = fileToken;
  file->fd = target.fileFd;
  file->target = std::move(target);
  const std::vector<KeptList> kept = std::exchange(file->target.keptLists, {});
  for (const ByteRange& range : ranges) {
    Operation& op = addReceiving(range.token, range.length, range.sha256, file->fd);
    op.base = range.offset;
    op.assembly = file.get();
    op.chunkBytes = std::min(chunkBytes, kChunkBytes);
    op.rangeIndex = static_cast<std::uint32_t>(file->ranges.size());
    op.useDigests(range.digests);
    file->ranges.push_back(range.token);
    // Each range was written in order from its start: what an earlier process left reaches the file's end at most.
    const std::uint64_t held = file->target.heldBytes > range.offset ? file->target.heldBytes - range.offset : 0;
    checkLeftover(op, std::min(held, range.length), kept);
  }
  assemblies_[fileToken] = std::move(file);
}

void DataPlane::Impl::pull(const std::string& token, std::string parentAddress) {
  Operation* op = find(token);
  if (!op || !op->receiving()) return;
  op->parentAddress = std::move(parentAddress);
  op->parentBelied = false;
  uv_timer_stop(op->retryTimer.get());
  if (op->checkingLeftover) return;  // leftoverChecked() connects
  connectUpstream(*op);
}

void DataPlane::Impl::connectUpstream(Operation& op) {
  retire(std::move(op.upstream));
  if (op.available == op.size) return finish(op);
  sockaddr_storage address{};
  if (!parseAddress(op.parentAddress, address)) return fail(op, "cannot resolve the parent " + op.parentAddress);
  op.state = Operation::State::kReceiving;
  op.upstream = std::make_unique<PullConnection>(*this, op);
  op.upstream->connect(reinterpret_cast<sockaddr*>(&address));
}

void DataPlane::Impl::upstreamClosed(Operation& op, const std::string& reason) {
  if (!op.receiving() || op.parentBelied) return;
  retire(std::move(op.upstream));
  if (!op.offerTicket.empty()) {  // nothing to dial back to: the parent dials again, or hnowd gives up
    spdlog::warn("the connection {} opened to hand over a transfer ended at byte {}: {}; waiting for it to "
                 "dial again", op.parentAddress, op.base + op.available, reason);
    return emit(TransferEvent::Kind::kParentLost, op, reason, op.parentAddress);
  }
  spdlog::warn("the parent {} of a transfer went away at byte {}: {}; retrying until hnowd "
               "re-parents", op.parentAddress, op.base + op.available, reason);
  emit(TransferEvent::Kind::kParentLost, op, reason);
  uv_timer_start(
      op.retryTimer.get(), [](uv_timer_t* t) { static_cast<Operation*>(t->data)->retry(); },
      static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::milliseconds>(options_.reconnectDelay).count()),
      0);
}

// Nothing it sent past the last good chunk was written, so the receive
// resumes from there at whichever parent hnowd names; its own children were
// never served a byte of it. Trying the same parent again would only fetch
// the same lie: hnowd decides (it bars the relay, docs/security.md).
void DataPlane::Impl::parentCorrupt(Operation& op, const std::string& what) {
  if (!op.receiving()) return;
  retire(std::move(op.upstream));
  uv_timer_stop(op.retryTimer.get());
  op.parentBelied = true;
  const std::string message = what + ", from the parent " + op.parentAddress;
  spdlog::warn("{} (the source's digests); dropped that parent at byte {}, waiting for hnowd to name another",
               message, op.base + op.available);
  emit(TransferEvent::Kind::kParentCorrupt, op, message, op.parentAddress);
}

// Retrying a parent that never answered would wait as long again, and a
// NAT or firewall does not open by itself: hnowd names another (and plans
// that parent as one that cannot serve, docs/reachability.md).
void DataPlane::Impl::parentUnreachable(Operation& op, const std::string& why) {
  if (!op.receiving()) return;
  retire(std::move(op.upstream));
  uv_timer_stop(op.retryTimer.get());
  op.parentBelied = true;
  spdlog::warn("cannot connect to the parent {} of a transfer at byte {}: {}; waiting for hnowd to name another",
               op.parentAddress, op.base + op.available, why);
  emit(TransferEvent::Kind::kParentUnreachable, op, why, op.parentAddress);
}

void DataPlane::Impl::chunkWritten(Operation& op) {
  // Start the disk's writeback as the bytes land, so that the fdatasync
  // before the rename has little left to write: a striped file completes
  // at every node at once, and 8 copies syncing 128 MiB each together took
  // 0.6 s of a 6 s send on one machine. Only starts writing; never waits.
  // Each range of a file starts its own share: 16 ranges of 8 MiB each
  // waited for 8 MiB apiece, their ends, and a whole GiB was left dirty
  // until the last second of a 5 s send.
  const std::uint64_t every =
      op.assembly ? std::max<std::uint64_t>(kMinRangeWritebackBytes, kWritebackBytes / op.assembly->ranges.size())
                  : kWritebackBytes;
  const bool durable = op.file().durable;
  if (durable && (op.available - op.writebackFrom >= every || op.available == op.size)) {
    ::sync_file_range(op.fd, static_cast<off_t>(op.base + op.writebackFrom),
                      static_cast<off_t>(op.available - op.writebackFrom), SYNC_FILE_RANGE_WRITE);
    op.writebackFrom = op.available;
  }
  for (ServeConnection* child : std::vector<ServeConnection*>(op.children.begin(), op.children.end()))
    child->pump();
  // The ranges of a file report less often each (at most 4 times the
  // interval apart): an agent with 16 ranges sends hnowd 4 times the reports
  // of a whole file, and each range still reports often enough for hnowd
  // to judge its flow over a 2 s window (transfer_flows.h).
  const auto shares = op.assembly ? std::min<std::size_t>(op.assembly->ranges.size(), 4) : 1;
  const hnow::TimePoint t = now();
  if (t - op.lastProgress >= options_.progressInterval * static_cast<int>(shares)) {
    op.lastProgress = t;
    emit(TransferEvent::Kind::kProgress, op);
  }
  if (op.available == op.size) finish(op);
}

void DataPlane::Impl::finish(Operation& op) {
  retire(std::move(op.upstream));
  Sha256 digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(op.sha.get(), digest.data(), &length);
  // With the source's digests every chunk was checked before it was written.
  if (op.digests.empty() && !op.file().digestKnown) op.expected = digest;  // the caller checks it (kDone)
  if (op.digests.empty() && digest != op.expected)
    return fail(op, op.assembly ? "the bytes " + std::to_string(op.base) + "-" + std::to_string(op.base + op.size) +
                                      " received differ from the source's (SHA-256)"
                                : "the received file's SHA-256 differs from the source's");
  op.state = Operation::State::kVerifying;
  if (op.assembly) return rangeVerified(op);
  syncThenRename(op.token, op.target.fileFd, op.target.durable);
}

// The range keeps serving its children; the file is renamed once every
// range has matched.
void DataPlane::Impl::rangeVerified(Operation& op) {
  Assembly& file = *op.assembly;
  if (++file.verified < file.ranges.size() || file.state != Assembly::State::kReceiving) return;
  file.state = Assembly::State::kVerifying;
  syncThenRename(file.token, file.fd, file.target.durable);
}

void DataPlane::Impl::syncThenRename(const std::string& token, int fd, bool durable) {
  if (!durable) return renameIntoPlace(token, 0);
  struct Sync {
    uv_fs_t request;
    std::weak_ptr<bool> alive;
    Impl* impl;
    std::string token;
  };
  auto* sync = new Sync{{}, alive_, this, token};
  uv_fs_fdatasync(loop(), &sync->request, fd, [](uv_fs_t* r) {
    auto* sync = reinterpret_cast<Sync*>(r);
    uv_fs_req_cleanup(r);
    if (!sync->alive.expired()) sync->impl->renameIntoPlace(sync->token, r->result);
    delete sync;
  });
}

bool DataPlane::Impl::renamed(const ReceiveTarget& target, ssize_t syncResult, std::string& error) {
  if (syncResult < 0) {
    error = std::string("fdatasync failed: ") + uv_strerror(static_cast<int>(syncResult));
    return false;
  }
  if (::renameat(target.dirFd, target.tempName.c_str(), target.dirFd, target.finalName.c_str()) != 0) {
    error = std::string("cannot rename into place: ") + std::strerror(errno);
    return false;
  }
  return true;
}

void DataPlane::Impl::renameIntoPlace(const std::string& token, ssize_t syncResult) {
  std::string error;
  if (auto it = assemblies_.find(token); it != assemblies_.end()) {
    Assembly& file = *it->second;
    if (file.state != Assembly::State::kVerifying) return;
    if (!renamed(file.target, syncResult, error)) return failAssembly(file, error);
    file.state = Assembly::State::kDone;
    spdlog::info("received {} in {} ranges (each range's SHA-256 verified)", file.target.path, file.ranges.size());
    for (const std::string& range : file.ranges)
      if (Operation* op = find(range)) {
        op->state = Operation::State::kDone;
        emit(TransferEvent::Kind::kDone, *op);
      }
    return;
  }
  Operation* op = find(token);
  if (!op || op->state != Operation::State::kVerifying) return;
  if (!renamed(op->target, syncResult, error)) return fail(*op, error);
  // Stamped after the rename, which changes the file's ctime.
  if (op->cutter) rememberWritten(op->fd, {op->expected, std::exchange(op->cutter, nullptr)->finish()});
  op->state = Operation::State::kDone;
  spdlog::info("received {} ({} bytes, SHA-256 {})", op->target.path, op->size,
               op->target.digestKnown ? "verified" : "taken for the sender's to check");
  emit(TransferEvent::Kind::kDone, *op);
}

void DataPlane::Impl::fail(Operation& op, const std::string& message) {
  if (op.assembly) return failAssembly(*op.assembly, message);
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

// One range failing fails the file: every range reports it.
void DataPlane::Impl::failAssembly(Assembly& file, const std::string& message) {
  if (file.state == Assembly::State::kFailed || file.state == Assembly::State::kDone ||
      file.state == Assembly::State::kSource)
    return;
  file.state = Assembly::State::kFailed;
  spdlog::error("transfer to {} failed: {}", file.target.path, message);
  if (file.target.dirFd >= 0) ::unlinkat(file.target.dirFd, file.target.tempName.c_str(), 0);
  for (const std::string& range : file.ranges) {
    Operation* op = find(range);
    if (!op || op->state == Operation::State::kFailed) continue;
    op->state = Operation::State::kFailed;
    retire(std::move(op->upstream));
    uv_timer_stop(op->retryTimer.get());
    emit(TransferEvent::Kind::kFailed, *op, message);
  }
}

void DataPlane::Impl::release(const std::string& token, bool removeFile) {
  auto it = assemblies_.find(token);
  if (it == assemblies_.end()) return releaseOperation(token, removeFile);
  Assembly& file = *it->second;
  for (const std::string& range : file.ranges) releaseOperation(range, false);
  if (file.state != Assembly::State::kSource) {
    const bool kept = file.state == Assembly::State::kReceiving && keepUnfinished_;
    if (file.state != Assembly::State::kDone && !kept) ::unlinkat(file.target.dirFd, file.target.tempName.c_str(), 0);
    else if (file.state == Assembly::State::kDone && removeFile) ::unlinkat(file.target.dirFd, file.target.finalName.c_str(), 0);
    if (file.target.dirFd >= 0) ::close(file.target.dirFd);
    if (file.target.listsFd >= 0) ::close(file.target.listsFd);
  }
  if (file.fd >= 0) ::close(file.fd);
  assemblies_.erase(it);
}

void DataPlane::Impl::releaseOperation(const std::string& token, bool removeFile) {
  auto it = operations_.find(token);
  if (it == operations_.end()) return;
  Operation& op = *it->second;
  for (ServeConnection* child : std::vector<ServeConnection*>(op.children.begin(), op.children.end()))
    child->close("the operation ended");
  if (!op.offerTicket.empty()) offerTickets_.erase(op.offerTicket);
  retire(std::move(op.upstream));
  if (!op.assembly) {  // a range's file is its assembly's, released with it
    if (removeFile && op.state == Operation::State::kDone)
      ::unlinkat(op.target.dirFd, op.target.finalName.c_str(), 0);
    if (op.state != Operation::State::kSource && op.state != Operation::State::kProbe) {
      if (op.state != Operation::State::kDone && !(keepUnfinished_ && op.receiving()))
        ::unlinkat(op.target.dirFd, op.target.tempName.c_str(), 0);
      if (op.target.dirFd >= 0) ::close(op.target.dirFd);
      if (op.target.listsFd >= 0) ::close(op.target.listsFd);
    }
    if (op.fd >= 0) ::close(op.fd);
  }
  operations_.erase(it);
}

void DataPlane::Impl::releaseAll() {
  std::vector<std::string> tokens;
  for (const auto& [token, file] : assemblies_) tokens.push_back(token);
  for (const auto& [token, op] : operations_) tokens.push_back(token);
  for (const auto& token : tokens) release(token);
}

}  // namespace hnow::transport::data
