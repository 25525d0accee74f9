#include "server/send_paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/path_confinement.h"

namespace hnow::daemon {

Result<void> checkSendSource(const std::vector<std::string>& roots, const std::string& path) {
  if (path.empty() || path.front() != '/')
    return Error{"refused " + path + ": not an absolute path" + kSendRootsHint};
  // A root itself is the administrator's to name, and may be sent whole.
  for (const std::string& root : roots)
    if (path == root) return {};
  auto opened = openConfinedParent(roots, path, {"path to send", "path to send", "read what it sends from", "hnowd"},
                                   false);
  if (!opened) {
    const std::string& why = opened.error().message;
    if (why.rfind("cannot ", 0) == 0) return Error{why};  // missing: nothing to fix in the roots
    return Error{"refused " + path + ": " + why + kSendRootsHint};
  }
  auto& [dir, dirPath, name] = opened.value();
  struct stat info {};
  const int got = ::fstatat(dir, name.c_str(), &info, AT_SYMLINK_NOFOLLOW);
  const int error = errno;
  ::close(dir);
  if (got != 0) return Error{"cannot read " + path + ": " + std::strerror(error)};
  if (S_ISLNK(info.st_mode)) return Error{"refused " + path + ": " + dirPath + "/" + name + " is a symlink" + kSendRootsHint};
  if (!S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode))
    return Error{"refused " + path + ": not a regular file or a directory"};
  return {};
}

}  // namespace hnow::daemon
