#include "base/path_confinement.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace hnow {

std::vector<std::string> componentsOf(const std::string& path) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : path + "/") {
    if (c != '/') {
      part += c;
      continue;
    }
    if (!part.empty() && part != ".") parts.push_back(part);
    part.clear();
  }
  return parts;
}

std::string realRoot(const std::string& root) {
  char buffer[PATH_MAX];
  return ::realpath(root.c_str(), buffer) ? std::string(buffer) : "";
}

namespace {

// The root the path of components `parts` lies in, resolved, and how many
// leading components name it (0 for a relative path: the data root);
// an empty root when it lies in none.
struct PickedRoot {
  std::string root;
  std::size_t depth = 0;
};
PickedRoot pickRoot(const std::vector<std::string>& roots, const std::string& path,
                    const std::vector<std::string>& parts) {
  if (path.front() != '/') return {realRoot(roots.front()), 0};
  for (const auto& r : roots) {
    const std::string real = realRoot(r);  // "": a root that does not exist holds nothing
    std::vector<std::string> rootParts = componentsOf(r), realParts = componentsOf(real);
    for (const auto* candidate : {&rootParts, &realParts})
      if (!real.empty() && !candidate->empty() && candidate->size() < parts.size() &&
          std::equal(candidate->begin(), candidate->end(), parts.begin()))
        return {real, candidate->size()};
  }
  return {};
}

}  // namespace

std::string rootOf(const std::vector<std::string>& roots, const std::string& path) {
  if (roots.empty() || path.empty()) return "";
  return pickRoot(roots, path, componentsOf(path)).root;
}

Result<ConfinedParent> openConfinedParent(const std::vector<std::string>& roots,
                                          const std::string& path, const PathWords& words,
                                          bool createDirs) {
  if (roots.empty()) return Error{std::string(words.owner) + " has no roots to " + words.rootsUse};
  if (path.empty()) return Error{std::string("the ") + words.noun + " is empty"};
  std::vector<std::string> parts = componentsOf(path);
  for (const auto& p : parts)
    if (p == "..") return Error{std::string("'..' is not allowed in a ") + words.noun + " (" + path + ")"};
  if (parts.empty() || path.back() == '/')
    return Error{std::string("the ") + words.shortNoun + " must name a file, not a directory (" + path + ")"};

  const PickedRoot picked = pickRoot(roots, path, parts);
  if (path.front() == '/' && picked.root.empty()) return Error{path + " is outside " + words.owner + "'s roots"};
  if (picked.root.empty()) return Error{std::string("the agent's data root does not exist")};
  parts.erase(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(picked.depth));
  const std::string& root = picked.root;

  int dir = ::open(root.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (dir < 0) return Error{"cannot open the root " + root + ": " + std::strerror(errno)};
  std::string dirPath = root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (createDirs && ::mkdirat(dir, parts[i].c_str(), 0755) != 0 && errno != EEXIST) {
      std::string why = std::strerror(errno);
      ::close(dir);
      return Error{"cannot create " + dirPath + "/" + parts[i] + ": " + why};
    }
    int next = ::openat(dir, parts[i].c_str(), O_DIRECTORY | O_NOFOLLOW | O_RDONLY | O_CLOEXEC);
    int error = errno;
    ::close(dir);
    if (next < 0)
      return Error{error == ELOOP || error == ENOTDIR
                 ? dirPath + "/" + parts[i] + " is a symlink or not a directory: refused"
                 : "cannot open " + dirPath + "/" + parts[i] + ": " + std::strerror(error)};
    dir = next;
    dirPath += "/" + parts[i];
  }
  return ConfinedParent{dir, dirPath, parts.back()};
}

}  // namespace hnow
