#include "agent/dest_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <random>

#include "agent/path_parts.h"

namespace hnow::agent {

namespace {

std::string tempSuffix() {
  static std::mt19937_64 random(std::random_device{}());
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(random()));
  return text;
}

}  // namespace

std::variant<transport::data::ReceiveTarget, std::string> openDestination(
    const std::vector<std::string>& roots, const std::string& dest) {
  if (roots.empty()) return std::string("this agent has no roots to write under");
  if (dest.empty()) return std::string("the destination is empty");
  std::vector<std::string> parts = componentsOf(dest);
  for (const auto& p : parts)
    if (p == "..") return "'..' is not allowed in a destination (" + dest + ")";
  if (parts.empty() || dest.back() == '/')
    return "the destination must name a file, not a directory (" + dest + ")";

  // Pick the root: the data root for a relative path, the root it lies in otherwise.
  std::string root;
  if (dest.front() != '/') {
    root = realRoot(roots.front());
  } else {
    for (const auto& r : roots) {
      std::vector<std::string> rootParts = componentsOf(r), realParts = componentsOf(realRoot(r));
      for (const auto* candidate : {&rootParts, &realParts}) {
        if (candidate->empty() || candidate->size() >= parts.size()) continue;
        if (std::equal(candidate->begin(), candidate->end(), parts.begin())) {
          root = realRoot(r);
          parts.erase(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(candidate->size()));
          break;
        }
      }
      if (!root.empty()) break;
    }
    if (root.empty()) return dest + " is outside this agent's roots";
  }
  if (root.empty()) return std::string("the agent's data root does not exist");

  int dir = ::open(root.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (dir < 0) return "cannot open the root " + root + ": " + std::strerror(errno);
  std::string path = root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (::mkdirat(dir, parts[i].c_str(), 0755) != 0 && errno != EEXIST) {
      std::string why = std::strerror(errno);
      ::close(dir);
      return "cannot create " + path + "/" + parts[i] + ": " + why;
    }
    int next = ::openat(dir, parts[i].c_str(), O_DIRECTORY | O_NOFOLLOW | O_RDONLY | O_CLOEXEC);
    int error = errno;
    ::close(dir);
    if (next < 0)
      return error == ELOOP || error == ENOTDIR
                 ? path + "/" + parts[i] + " is a symlink or not a directory: refused"
                 : "cannot open " + path + "/" + parts[i] + ": " + std::strerror(error);
    dir = next;
    path += "/" + parts[i];
  }
  const std::string& name = parts.back();
  struct stat existing {};
  if (::fstatat(dir, name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(existing.st_mode)) {
    ::close(dir);
    return path + "/" + name + " is a directory";
  }
  transport::data::ReceiveTarget target;
  target.dirFd = dir;
  target.finalName = name;
  target.tempName = "." + name + ".hnow-" + tempSuffix() + ".part";
  target.path = path + "/" + name;
  target.fileFd = ::openat(dir, target.tempName.c_str(),
                           O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (target.fileFd < 0) {
    std::string why = std::strerror(errno);
    ::close(dir);
    return "cannot create a temp file in " + path + ": " + why;
  }
  return target;
}

}  // namespace hnow::agent
