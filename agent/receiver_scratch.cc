// The unpack thread's work on a scratch file whose every transfer is done
// and matched: a tree's bundle is unpacked (docs/tree-send.md); a
// compressed file is expanded beside its destination and renamed into
// place, a compressed bundle expanded into a second scratch file and
// unpacked from it (docs/compression.md). The transfers then report done,
// or failed with why; nothing half-written stays at the destination.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

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

Result<transport::data::UnpackedTree> Receiver::unpackBundle(Scratch& s, int receivedFd) {
  if (!s.compressed)
    return transport::data::unpackTree(receivedFd, s.parentFd, s.name, s.parentPath, s.atomic, s.deleteOthers);
  // Not synced: it is read once by the unpack, whose files are synced.
  const int bundleFd = ::openat(s.parentFd, s.expandedName.c_str(),
                                O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (bundleFd < 0)
    return Error{"cannot create a temp file in " + s.parentPath + ": " + std::string(std::strerror(errno))};
  auto expanded = transport::data::decompressFile(receivedFd, bundleFd, s.plainSize, s.plainSha256);
  Result<transport::data::UnpackedTree> unpacked =
      expanded ? transport::data::unpackTree(bundleFd, s.parentFd, s.name, s.parentPath, s.atomic, s.deleteOthers)
               : Result<transport::data::UnpackedTree>(Error{"cannot expand the compressed tree for " + s.parentPath +
                                                             "/" + s.name + ": " + expanded.error().message});
  ::close(bundleFd);
  ::unlinkat(s.parentFd, s.expandedName.c_str(), 0);
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
    spdlog::info("unpacked {} in {:.3f} s: {} files ({} bytes), {} held already, {} replaced, {} deleted, {} failed",
                 path, seconds, outcome->files, outcome->bytes, outcome->held, outcome->replaced, outcome->deleted,
                 outcome->failed.size());
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
