// What an agent's destination already holds (Receiver::treeHeld, fileHeld)
// and a copy from the same bytes under another path (copyHeld): the
// questions hnowd asks before a send moves a byte, run off the kj thread.
#include <fcntl.h>
#include <sys/stat.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/dest_path.h"
#include "agent/receiver.h"
#include "base/path_confinement.h"
#include "transport/data/held_copy.h"
#include "transport/data/tree_find.h"

namespace hnow::agent {

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

}  // namespace hnow::agent
