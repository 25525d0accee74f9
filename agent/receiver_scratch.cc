// The unpack thread's work on a scratch file whose every transfer is done
// and matched: a tree's bundle is unpacked (docs/tree-send.md); a
// compressed file is expanded beside its destination and renamed into
// place, a compressed bundle expanded into a second scratch file and
// unpacked from it (docs/compression.md). The transfers then report done,
// or failed with why; nothing half-written stays at the destination.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "agent/dest_path.h"
#include "agent/receiver_scratch.h"
#include "transport/data/zstd_file.h"

namespace hnow::agent {

Result<void> Receiver::expandFile(Scratch& s, int compressedFd) {
  const std::string path = s.parentPath + "/" + s.name;
  auto expanded = transport::data::decompressFile(compressedFd, s.outputFd, s.plainSize, s.plainSha256);
  if (!expanded) return Error{"cannot expand the compressed file for " + path + ": " + expanded.error().message};
  // Durable before it takes the destination's name, as any received file.
  if (::fdatasync(s.outputFd) != 0) return Error{"cannot sync " + path + ": " + std::strerror(errno)};
  ::close(s.outputFd);
  s.outputFd = -1;
  if (::renameat(s.parentFd, s.outputName.c_str(), s.parentFd, s.name.c_str()) != 0)
    return Error{"cannot rename the expanded file into place at " + path + ": " + std::strerror(errno)};
  s.published = true;
  return {};
}

Result<void> Receiver::stageTree(Scratch& s, const transport::orders::ReceiveOrder& order, int receivedFd) {
  const std::uint64_t bundleSize = order.compressed ? order.plainSize : order.size;
  auto staging = transport::data::TreeStaging::open(s.parentFd, s.name, s.parentPath, bundleSize, order.copy.atomic);
  if (!staging) return staging.error();
  s.staging = std::move(staging).value();
  s.staging->searchUnder(s.searchFd);
  s.stagedAsLanded = true;
  s.bundleFd = ::dup(receivedFd);
  if (s.bundleFd < 0) return Error{std::string("cannot keep the bundle open: ") + std::strerror(errno)};
  if (!order.compressed) return {};
  // The bundle expands into a second scratch file as its frame lands. Not
  // synced: it is read once by the staging, whose files are synced.
  s.expandedName = scratchNameFor(s.name);
  s.expandedFd = ::openat(s.parentFd, s.expandedName.c_str(), O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (s.expandedFd < 0) {
    s.expandedName.clear();
    return Error{"cannot create a temp file in " + s.parentPath + ": " + std::string(std::strerror(errno))};
  }
  transport::data::Sha256 plainSha256{};
  std::copy(order.plainSha256.begin(), order.plainSha256.end(), plainSha256.begin());
  s.expansion = std::make_unique<transport::data::FileExpansion>(s.expandedFd, order.plainSize, plainSha256);
  return {};
}

// On the unpack thread: the files whose bytes have landed since, written
// into the staging (a compressed bundle expanded first, as far as its
// frame has landed from its start). A failure is kept by the staging or
// the expansion and reported by the unpack once the bundle is in; the
// transfer goes on meanwhile, since this agent still relays the bundle to
// its children.
void Receiver::advanceStaging(Scratch& s) {
  std::vector<transport::data::LandedSpan> spans;
  {
    std::lock_guard lock(unpackMutex_);
    spans = std::move(s.spans);
    s.advanceQueued = false;
  }
  if (!s.staging || s.staging->failed() || s.expansionFailed) return;
  int from = s.bundleFd;
  if (s.expansion) {
    if (auto fed = s.expansion->feed(s.bundleFd, transport::data::landedFromStart(spans)); !fed) {
      s.expansionFailed = true;
      spdlog::warn("cannot expand the compressed tree for {}/{}: {}; the bundle is still received and relayed",
                   s.parentPath, s.name, fed.error().message);
      return;
    }
    spans = {{0, s.expansion->produced()}};
    from = s.expandedFd;
  }
  if (auto advanced = s.staging->advance(from, spans); !advanced)
    spdlog::warn("{}; the bundle is still received and relayed", advanced.error().message);
}

Result<transport::data::UnpackedTree> Receiver::unpackBundle(Scratch& s, int receivedFd) {
  s.filesAsLanded = s.staging->filesWritten();
  Result<transport::data::UnpackedTree> unpacked = Error{""};
  if (!s.expansion) {
    unpacked = s.staging->finish(receivedFd, s.deleteOthers);
  } else if (auto expanded = s.expansion->finish(receivedFd); !expanded) {
    unpacked = Error{"cannot expand the compressed tree for " + s.parentPath + "/" + s.name + ": " +
                     expanded.error().message};
  } else {
    unpacked = s.staging->finish(s.expandedFd, s.deleteOthers);
  }
  // Published or failed, the staging is done: the expanded bundle goes
  // now, not when hnowd releases the send (the data plane relays the
  // received file from its own descriptor meanwhile).
  s.staging.reset();
  s.expansion.reset();
  for (int* fd : {&s.bundleFd, &s.expandedFd})
    if (*fd >= 0) ::close(*fd), *fd = -1;
  if (!s.expandedName.empty()) ::unlinkat(s.parentFd, s.expandedName.c_str(), 0), s.expandedName.clear();
  return unpacked;
}

// On the unpack thread: the received file, whole and matched, becomes the
// tree or the expanded file; its transfers then report done with what was
// published, or failed.
void Receiver::unpackOne(Scratch& s) {
  const auto began = std::chrono::steady_clock::now();
  const std::string path = s.parentPath + "/" + s.name;
  const int fd = ::openat(s.parentFd, s.receivedName.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  Result<void> ok;
  std::shared_ptr<const transport::data::UnpackedTree> outcome;
  if (fd < 0) {
    ok = Error{"cannot open the received file " + s.parentPath + "/" + s.receivedName + ": " + std::strerror(errno)};
  } else if (!s.tree) {
    ok = expandFile(s, fd);
  } else if (auto unpacked = unpackBundle(s, fd); unpacked) {
    outcome = std::make_shared<const transport::data::UnpackedTree>(std::move(unpacked).value());
  } else {
    ok = unpacked.error();
  }
  if (fd >= 0) ::close(fd);
  if (!ok && s.outputFd >= 0) {  // nothing half-expanded stays beside the destination
    ::close(s.outputFd);
    s.outputFd = -1;
    ::unlinkat(s.parentFd, s.outputName.c_str(), 0);
    s.outputName.clear();
  }
  // The data plane still relays the file to this agent's children from its open descriptor.
  ::unlinkat(s.parentFd, s.receivedName.c_str(), 0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (!ok) {
    spdlog::warn("cannot {} {}: {}", s.tree ? "unpack the tree into" : "expand", path, ok.error().message);
  } else if (outcome) {
    spdlog::info("unpacked {} in {:.3f} s after its last byte ({} files written as it landed): {} files ({} bytes), "
                 "{} held already, {} copied from another path here, {} replaced, {} deleted, {} failed",
                 path, seconds, s.filesAsLanded, outcome->files, outcome->bytes, outcome->held, outcome->copied,
                 outcome->replaced, outcome->deleted, outcome->failed.size());
    if (outcome->clearedModes > 0)
      spdlog::info("{}: {} entries came setuid, setgid or (a file) sticky and were written without those bits: a "
                   "tree never grants privileges where it lands (docs/security.md)",
                   path, outcome->clearedModes);
  } else {
    spdlog::info("expanded {} in {:.3f} s: {} bytes, SHA-256 matched", path, seconds, s.plainSize);
  }
  for (transport::data::TransferEvent e : s.done) {
    if (ok) {
      e.path = path;
    } else {
      e.kind = transport::data::TransferEvent::Kind::kFailed;
      e.message = ok.error().message;
    }
    inbox_.push({std::move(e), outcome, true});
  }
}

}  // namespace hnow::agent
