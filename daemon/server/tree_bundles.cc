// DataSourcePlane's trees (docs/tree-send.md): a directory is packed into
// one bundle file under hnowd's data directory, served as any file, and
// removed when its send ends.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <spdlog/spdlog.h>

#include "base/printable.h"
#include "server/data_source_plane.h"
#include "transport/data/tree_bundle.h"

namespace hnow::daemon {

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

Result<TreeBundle> DataSourcePlane::packTree(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(bundleDir_, error);
  if (error) return Error{"cannot create " + bundleDir_ + " for the tree's bundle: " + error.message()};
  TreeBundle bundle;
  bundle.path = bundleDir_ + "/" + std::to_string(::getpid()) + "-" + std::to_string(nextBundle_++) + ".bundle";
  const int fd = ::open(bundle.path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"cannot create " + bundle.path + ": " + std::strerror(errno)};
  auto packed = transport::data::packTree(path, fd);
  ::close(fd);
  if (!packed) {
    ::unlink(bundle.path.c_str());
    return packed.error();
  }
  bundle.size = packed->size;
  TreeSummary& s = bundle.summary;
  s.entries = packed->entries.size();
  s.files = packed->files;
  s.fileBytes = packed->fileBytes;
  s.refusedCount = packed->refused.size();
  s.refused = firstProblems(packed->refused);
  for (const PathProblem& r : s.refused) spdlog::warn("left out of {}: {}: {}", path, r.path, r.why);
  if (s.refusedCount > s.refused.size())
    spdlog::warn("left out of {}: {} more entries", path, s.refusedCount - s.refused.size());
  return bundle;
}

void DataSourcePlane::dropBundle(const std::string& bundlePath) {
  if (::unlink(bundlePath.c_str()) != 0 && errno != ENOENT)
    spdlog::warn("cannot remove the tree bundle {}: {}", bundlePath, std::strerror(errno));
}

std::size_t sweepBundles(const std::string& bundleDir) {
  std::error_code error;
  std::size_t removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(bundleDir, error))
    if (entry.path().extension() == ".bundle" && std::filesystem::remove(entry.path(), error)) ++removed;
  return removed;
}

}  // namespace hnow::daemon
