// DataSourcePlane's kept trees (docs/tree-send.md, "From the client's
// machine"): a client's directory uploaded once stays under hnowd's data
// directory, keyed by the client's host and the directory's path, so the
// next upload of it carries only the files that changed, asked about as
// the agents are (tree_bundle.h, "Only what changed"), and hnowd hashes
// only those again. The bundle is unpacked over the copy in place, file by
// file, with the files the tree no longer names removed: what rsync does
// to a mirror. The copy is hnowd's alone, so no reader sees it half-done.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <spdlog/spdlog.h>

#include "base/hex.h"
#include "base/printable.h"
#include "server/data_source_plane.h"
#include "server/kept_copies.h"
#include "transport/data/tree_bundle.h"
#include "transport/data/tree_fs.h"
#include "transport/data/tree_walk.h"

namespace hnow::daemon {

namespace {

namespace fs = std::filesystem;

// The trees kept at most: the least recently used go first. A lab's
// operators send a handful of directories each week.
constexpr std::size_t kMaxKeptTrees = 8;

constexpr const char* kUsedSuffix = ".used";  // beside each tree: its mtime is when it was last unpacked

Result<void> removeKept(const fs::path& dir) {
  const int parentFd = ::open(dir.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parentFd < 0) return Error{std::strerror(errno)};
  auto removed = transport::data::removeTree(parentFd, dir.filename().string());
  ::close(parentFd);
  std::error_code ignored;
  fs::remove(dir.string() + kUsedSuffix, ignored);
  return removed;
}

// Past kMaxKeptTrees, the trees unpacked least recently are removed (never one in `busy`).
void evictKept(const fs::path& keptDir, const std::set<std::string>& busy) {
  for (fs::path tree : usedPast(keptDir, kUsedSuffix, kMaxKeptTrees)) {
    tree.replace_extension();
    if (busy.count(tree.string())) continue;
    if (auto removed = removeKept(tree); !removed)
      spdlog::warn("cannot remove the kept tree {}: {}", tree.string(), removed.error().message);
    else
      spdlog::info("removed the kept tree {}: {} are kept at most", tree.string(), kMaxKeptTrees);
  }
}

}  // namespace

std::string DataSourcePlane::keptPath(const std::string& key) const { return bundleDir_ + "/kept/" + keptName(key); }

void DataSourcePlane::keptHeld(const std::string& key, const std::string& index, KeptHeld done) {
  const std::string dir = keptPath(key);
  if (keptBusy_.count(dir))
    return done(Error{"a send of this directory from this machine is running; hnowd's copy of it is in use until "
                      "that send ends"});
  work_.run<Result<KeptAnswer>>(
      [dir, index]() -> Result<KeptAnswer> {
        auto entries = transport::data::decodeTreeIndex(index, 0, 0);  // a query names no bytes
        if (!entries) return Error{"a bad tree index from the client: " + entries.error().message};
        const fs::path target(dir);
        std::error_code ignored;
        fs::create_directories(target.parent_path(), ignored);
        const int parentFd = ::open(target.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (parentFd < 0) return Error{"cannot open " + target.parent_path().string() + ": " + std::strerror(errno)};
        auto held = transport::data::missingFiles(*entries, parentFd, target.filename().string());
        ::close(parentFd);
        return KeptAnswer{std::move(held.missing), std::move(held.sameSize)};
      },
      [done](Result<KeptAnswer>& answer) { done(answer); });
}

void DataSourcePlane::unpackKept(const std::string& key, const std::string& bundlePath, UnpackedUpload done) {
  const std::string dir = keptPath(key);
  if (keptBusy_.count(dir)) {
    ::unlink(bundlePath.c_str());
    return done(Error{"a send of this directory from this machine is running; send it again once that one ended"});
  }
  keptBusy_.insert(dir);
  work_.run<Result<std::string>>(
      [bundlePath, dir, busy = keptBusy_]() -> Result<std::string> {
        const fs::path target(dir);
        std::error_code ignored;
        fs::create_directories(target.parent_path(), ignored);
        auto unpacked = unpackUploadedBundle(bundlePath, dir, false, true);
        std::string why = !unpacked ? unpacked.error().message
                          : unpacked->failed.empty()
                              ? std::string()
                              : printable(unpacked->failed.front().path) + ": " + printable(unpacked->failed.front().why);
        if (!why.empty()) {
          // The copy could not follow the client's tree: dropped, so the next upload carries it whole.
          removeKept(target);
          return Error{"cannot unpack the client's uploaded tree over hnowd's copy of it: " + why +
                       "; that copy was dropped: send again"};
        }
        const std::string used = dir + kUsedSuffix;
        if (const int fd = ::open(used.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600); fd >= 0) {
          ::futimens(fd, nullptr);
          ::close(fd);
        }
        evictKept(target.parent_path(), busy);
        return dir;
      },
      [this, dir, done](Result<std::string>& unpacked) {
        if (!unpacked) keptBusy_.erase(dir);
        done(unpacked);
      });
}

void DataSourcePlane::useKeptTree(const std::string& key, const std::string& listingHex, UnpackedUpload done) {
  const std::string dir = keptPath(key);
  if (keptBusy_.count(dir)) return done(Error{"a later send of the directory from that machine runs from it"});
  // Taken now, so no upload is unpacked over it while its listing is read.
  keptBusy_.insert(dir);
  work_.run<Result<std::string>>(
      [dir, listingHex]() -> Result<std::string> {
        std::error_code error;
        if (!fs::is_directory(dir, error))
          return Error{"hnowd no longer holds it: it keeps the " + std::to_string(kMaxKeptTrees) +
                       " directories uploaded most recently"};
        auto listing = transport::data::treeListingDigest(dir);
        if (!listing) return Error{"hnowd cannot list it: " + listing.error().message};
        if (hexOf(listing->data(), listing->size()) != listingHex)
          return Error{"it lists other files now: a later upload of the directory changed it"};
        return dir;
      },
      [this, dir, done](Result<std::string>& used) {
        if (!used) keptBusy_.erase(dir);
        done(used);
      });
}

std::size_t sweepKeptStaging(const std::string& bundleDir) {
  std::error_code error;
  std::size_t removed = 0;
  const fs::path kept = fs::path(bundleDir) / "kept";
  for (const auto& entry : fs::directory_iterator(kept, error))
    if (transport::data::isTreeStagingName(entry.path().filename().string()) && removeKept(entry.path()).ok())
      ++removed;
  return removed;
}

}  // namespace hnow::daemon
