// DataSourcePlane's trees (docs/tree-send.md): a directory is packed into
// one bundle file under hnowd's data directory, served as any file, and
// removed when its send ends.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include <spdlog/spdlog.h>

#include "base/hex.h"
#include "base/printable.h"
#include "server/data_source_plane.h"
#include "transport/data/tree_bundle.h"
#include "transport/data/tree_fs.h"
#include "transport/data/tree_query.h"
#include "transport/data/tree_walk.h"

namespace hnow::daemon {

namespace {

// A client's tree unpacked here, removed with all it holds (directories
// without write permission included: it keeps the client's modes).
Result<void> removeScratchTree(const std::string& dir) {
  const std::filesystem::path path(dir);
  const int parentFd = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parentFd < 0) return Error{std::strerror(errno)};
  auto removed = transport::data::removeTree(parentFd, path.filename().string());
  ::close(parentFd);
  return removed;
}

}  // namespace

bool DataSourcePlane::isDirectory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

namespace {

std::vector<PathProblem> firstProblems(const std::vector<transport::data::TreeProblem>& all) {
  std::vector<PathProblem> out;
  for (std::size_t i = 0; i < all.size() && i < kMaxPathProblems; ++i)
    out.push_back({printable(all[i].path), printable(all[i].why)});
  return out;
}

}  // namespace

struct DataSourcePlane::Scan {
  std::string path;
  transport::data::ScannedTree tree;
};

namespace {

// The files `files` of `scan` as hnowd asks the agents about them (tree_query.h).
TreeQueries splitQueries(const transport::data::ScannedTree& scan, const std::vector<std::size_t>& files,
                         bool withSha256) {
  auto parts = transport::data::queryParts(scan, files, withSha256);
  return TreeQueries{std::move(parts.parts), std::move(parts.ordinals)};
}

}  // namespace

namespace {

// The walk and what the agents will be asked, done off the kj thread (a
// first send of a large tree reads every byte of it); the id is given on
// the kj thread.
struct Walked {
  TreeScan scan;
  transport::data::ScannedTree tree;
};

// The name a tree's digests are remembered under: a send's pinned
// descriptor (/proc/self/fd/N, server/send_paths.h) by the path it was
// opened at, so the next send of that directory, through another
// descriptor, finds them. Safe whatever the name: a digest is taken only
// for a file of the same device, inode, size, mtime and ctime.
std::string cacheNameOf(const std::string& path) {
  if (path.rfind("/proc/self/fd/", 0) != 0) return path;
  std::error_code error;
  const std::filesystem::path opened = std::filesystem::read_symlink(path, error);
  return error ? path : opened.string();
}

Result<Walked> walkTree(const std::string& path, transport::data::TreeDigestCache& cache) {
  const std::string shown = cacheNameOf(path);
  auto scanned = transport::data::scanTree(path, cache, shown);
  if (!scanned) return scanned.error();
  Walked out;
  out.scan.entries = scanned->entries.size();
  TreeSummary& s = out.scan.summary;
  s.entries = scanned->entries.size();
  s.files = scanned->files;
  s.fileBytes = scanned->fileBytes;
  s.refusedCount = scanned->refused.size();
  s.refused = firstProblems(scanned->refused);
  for (const PathProblem& r : s.refused) spdlog::warn("left out of {}: {}: {}", shown, r.path, r.why);
  if (s.refusedCount > s.refused.size())
    spdlog::warn("left out of {}: {} more entries", shown, s.refusedCount - s.refused.size());
  std::vector<std::size_t> all(scanned->entries.size());
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
  TreeQueries first = splitQueries(*scanned, all, false);
  out.scan.queries = std::move(first.parts);
  out.scan.ordinals = std::move(first.ordinals);
  out.scan.sizes.reserve(scanned->entries.size());
  for (const auto& e : scanned->entries) out.scan.sizes.push_back(e.size);
  out.tree = std::move(scanned).value();
  return out;
}

}  // namespace

void DataSourcePlane::scanTree(const std::string& path, Scanned done) {
  work_.run<Result<Walked>>(
      [path, digests = digests_] {
        std::lock_guard<std::mutex> hold(digests->lock);
        return walkTree(path, digests->cache);
      },
      [this, path, done](Result<Walked>& walked) {
        if (!walked) return done(walked.error());
        Walked& w = walked.value();
        w.scan.id = nextScan_++;
        scans_[w.scan.id] = std::make_shared<Scan>(Scan{path, std::move(w.tree)});
        done(w.scan);
      });
}

Result<TreeQueries> DataSourcePlane::digestQueries(std::uint64_t scanId, const std::vector<std::size_t>& files) {
  auto found = scans_.find(scanId);
  if (found == scans_.end()) return Error{"the tree's scan is gone; send again"};
  for (std::size_t k : files)
    if (k >= found->second->tree.entries.size()) return Error{"no scan entry " + std::to_string(k) + " (a bug in hnowd)"};
  return splitQueries(found->second->tree, files, true);
}

namespace {

// The bundle of `scan` written to `bundle.path`, as packScanned says.
Result<TreeBundle> packInto(const std::string& dir, const transport::data::ScannedTree& tree,
                            const std::vector<bool>& send, const std::vector<bool>& withSha256, TreeBundle bundle) {
  const int fd = ::open(bundle.path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"cannot create " + bundle.path + ": " + std::strerror(errno)};
  auto packed = transport::data::packTree(dir, tree, send, withSha256, fd);
  ::close(fd);
  if (!packed) {
    ::unlink(bundle.path.c_str());
    return packed.error();
  }
  bundle.size = packed->size;
  TreeSummary& s = bundle.summary;
  s.entries = packed->entries.size();
  s.sentFiles = packed->files;
  s.sentBytes = packed->fileBytes;
  // Files left out now had changed since the scan: they join what the scan refused.
  std::vector<transport::data::TreeProblem> refused = tree.refused;
  refused.insert(refused.end(), packed->refused.begin(), packed->refused.end());
  s.refusedCount = refused.size();
  s.refused = firstProblems(refused);
  for (const auto& p : packed->refused)
    spdlog::warn("left out of {}: {}: {}", cacheNameOf(dir), printable(p.path), printable(p.why));
  s.files = tree.files - packed->refused.size();
  s.fileBytes = tree.fileBytes;
  std::set<std::string> left;
  for (const auto& p : packed->refused) left.insert(p.path);
  for (const auto& e : tree.entries)
    if (left.count(e.path)) s.fileBytes -= e.size;
  return bundle;
}

}  // namespace

void DataSourcePlane::packScanned(std::uint64_t scanId, const std::vector<std::vector<bool>>& sends,
                                  const std::vector<bool>& withSha256, Packed done) {
  auto found = scans_.find(scanId);
  if (found == scans_.end()) return done(Error{"the tree's scan is gone; send again"});
  const std::shared_ptr<Scan> scan = found->second;
  scans_.erase(found);
  std::error_code error;
  std::filesystem::create_directories(bundleDir_, error);
  if (error) return done(Error{"cannot create " + bundleDir_ + " for the tree's bundle: " + error.message()});
  std::vector<TreeBundle> bundles(sends.size());
  for (TreeBundle& b : bundles) b.path = newScratchPath(".bundle");
  work_.run<Result<std::vector<TreeBundle>>>(
      [scan, sends, withSha256, bundles]() mutable -> Result<std::vector<TreeBundle>> {
        for (std::size_t g = 0; g < sends.size(); ++g) {
          auto packed = packInto(scan->path, scan->tree, sends[g], withSha256, bundles[g]);
          if (!packed) {
            for (std::size_t made = 0; made < g; ++made) ::unlink(bundles[made].path.c_str());
            return packed.error();
          }
          bundles[g] = std::move(packed).value();
        }
        return bundles;
      },
      [done](Result<std::vector<TreeBundle>>& packed) { done(packed); });
}

void DataSourcePlane::dropScratch(const std::string& bundlePath) {
  if (isDirectory(bundlePath)) {
    if (auto removed = removeScratchTree(bundlePath); !removed)
      spdlog::warn("cannot remove the scratch directory {}: {}", bundlePath, removed.error().message);
    return;
  }
  if (::unlink(bundlePath.c_str()) != 0 && errno != ENOENT)
    spdlog::warn("cannot remove the scratch file {}: {}", bundlePath, std::strerror(errno));
}

void DataSourcePlane::listTree(const std::string& path, Listed done) {
  work_.run<Result<std::string>>(
      [path]() -> Result<std::string> {
        auto digest = transport::data::treeListingDigest(path);
        if (!digest) return digest.error();
        return hnow::hexOf(digest->data(), digest->size());
      },
      [done](Result<std::string>& listed) { done(listed); });
}

void DataSourcePlane::unpackUpload(const std::string& bundlePath, UnpackedUpload done) {
  const std::string dir = newScratchPath(".tree");
  work_.run<Result<std::string>>(
      [bundlePath, dir]() -> Result<std::string> {
        std::error_code ignored;
        std::filesystem::create_directories(std::filesystem::path(dir).parent_path(), ignored);
        auto unpacked = unpackUploadedBundle(bundlePath, dir, true, false);
        if (!unpacked) return Error{"cannot unpack the client's uploaded tree: " + unpacked.error().message};
        if (!unpacked->failed.empty())
          return Error{"cannot unpack the client's uploaded tree: " + printable(unpacked->failed.front().path) + ": " +
                       printable(unpacked->failed.front().why)};
        if (unpacked->clearedModes > 0)
          spdlog::info("{}: {} entries of the client's tree came setuid, setgid or (a file) sticky and were written "
                       "without those bits (docs/security.md)",
                       dir, unpacked->clearedModes);
        return dir;
      },
      [done](Result<std::string>& unpacked) { done(unpacked); });
}

Result<transport::data::UnpackedTree> unpackUploadedBundle(const std::string& bundlePath, const std::string& dir,
                                                           bool atomic, bool deleteOthers) {
  const std::filesystem::path target(dir);
  const int bundleFd = ::open(bundlePath.c_str(), O_RDONLY | O_CLOEXEC);
  const int parentFd = ::open(target.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  Result<transport::data::UnpackedTree> unpacked =
      bundleFd < 0 || parentFd < 0
          ? Result<transport::data::UnpackedTree>(Error{std::string("cannot open the uploaded tree: ") +
                                                        std::strerror(errno)})
          : transport::data::unpackTree(bundleFd, parentFd, target.filename().string(), target.parent_path().string(),
                                        atomic, deleteOthers);
  if (bundleFd >= 0) ::close(bundleFd);
  if (parentFd >= 0) ::close(parentFd);
  ::unlink(bundlePath.c_str());  // the tree is all the send needs now
  return unpacked;
}

std::size_t sweepBundles(const std::string& bundleDir) {
  std::error_code error;
  std::size_t removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(bundleDir, error))
    if (entry.path().extension() == ".tree" ? removeScratchTree(entry.path().string()).ok()
        : entry.path().extension() == ".bundle" || entry.path().extension() == ".zst"
            ? std::filesystem::remove(entry.path(), error)
            : false)
      ++removed;
  return removed;
}

}  // namespace hnow::daemon
