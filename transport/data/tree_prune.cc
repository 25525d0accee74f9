// pruneUnnamed (tree_publish.h): what `deleteOthers` removes, and what an
// atomic publish counts as deleted.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "transport/data/tree_fs.h"
#include "transport/data/tree_held.h"
#include "transport/data/tree_publish.h"

namespace hnow::transport::data {

namespace {

using Named = std::unordered_map<std::string_view, TreeEntryKind>;

constexpr std::string_view kCannotList = "cannot list it to delete what the tree does not name: ";

// The directory `fd` (owned; `prefix` its path in the tree).
std::uint64_t pruneDirectory(int fd, const std::string& prefix, const Named& named, bool remove,
                             std::vector<TreeProblem>& failed) {
  const std::string where = prefix.empty() ? "." : prefix;
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    failed.push_back({where, std::string(kCannotList) + std::strerror(errno)});
    ::close(fd);
    return 0;
  }
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
    errno = 0;
  }
  if (errno != 0)
    failed.push_back({where, std::string("cannot list all of it to delete what the tree does not name: ") +
                                 std::strerror(errno)});
  std::uint64_t count = 0;
  for (const std::string& name : names) {
    if (isHnowTempName(name)) continue;  // a transfer under way
    const std::string path = prefix.empty() ? name : prefix + "/" + name;
    const auto it = named.find(path);
    if (it == named.end()) {
      if (!remove) {
        ++count;
      } else if (auto removed = removeTree(::dirfd(dir), name); removed) {
        ++count;
      } else {
        failed.push_back({path, "cannot delete it: " + removed.error().message});
      }
      continue;
    }
    if (it->second != TreeEntryKind::kDirectory) continue;
    const int child = ::openat(::dirfd(dir), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child >= 0) {
      count += pruneDirectory(child, path, named, remove, failed);
    } else if (errno != ENOTDIR && errno != ELOOP && errno != ENOENT) {
      // (Not a directory here: its entry failed, and what is in its way stays.)
      failed.push_back({path, std::string(kCannotList) + std::strerror(errno)});
    }
  }
  ::closedir(dir);
  return count;
}

}  // namespace

std::uint64_t pruneUnnamed(int treeFd, const std::vector<TreeEntry>& entries, bool remove,
                           std::vector<TreeProblem>& failed) {
  Named named;
  named.reserve(entries.size());
  for (const TreeEntry& e : entries) named.emplace(e.path, e.kind);
  // `treeFd` may be O_PATH: the listing needs a descriptor of its own.
  const int fd = ::openat(treeFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    failed.push_back({".", std::string(kCannotList) + std::strerror(errno)});
    return 0;
  }
  return pruneDirectory(fd, "", named, remove, failed);
}

}  // namespace hnow::transport::data
