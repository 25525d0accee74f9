#include "server/send_paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "base/path_confinement.h"

namespace hnow::daemon {

namespace {

// The descriptor a pin holds, closed when the last send reading through it lets go.
struct HeldDescriptor {
  int fd = -1;
  explicit HeldDescriptor(int f) : fd(f) {}
  HeldDescriptor(const HeldDescriptor&) = delete;
  HeldDescriptor& operator=(const HeldDescriptor&) = delete;
  ~HeldDescriptor() { ::close(fd); }
};

// `fd` (owned from now) as a pin of `path`, if it is a regular file or a
// directory and /proc/self/fd names it here.
Result<SourcePin> pinOf(int fd, const std::string& path, const std::string& shown) {
  auto held = std::make_shared<HeldDescriptor>(fd);
  struct stat opened {};
  if (::fstat(fd, &opened) != 0) return Error{"cannot read " + path + ": " + std::strerror(errno)};
  if (S_ISLNK(opened.st_mode)) return Error{"refused " + path + ": " + shown + " is a symlink" + kSendRootsHint};
  if (!S_ISREG(opened.st_mode) && !S_ISDIR(opened.st_mode))
    return Error{"refused " + path + ": not a regular file or a directory"};
  // The plane opens the descriptor through /proc (its reads take paths): a
  // hnowd without /proc is refused rather than reading by the path again.
  SourcePin pin{"/proc/self/fd/" + std::to_string(fd), held, S_ISDIR(opened.st_mode)};
  struct stat named {};
  if (::stat(pin.readPath.c_str(), &named) != 0 || named.st_dev != opened.st_dev || named.st_ino != opened.st_ino)
    return Error{"cannot read " + path + ": hnowd reads what it checked through " + pin.readPath +
                 ", which it cannot see (mount /proc for hnowd)"};
  return pin;
}

}  // namespace

Result<SourcePin> pinSendSource(const std::vector<std::string>& roots, const std::string& path) {
  if (path.empty() || path.front() != '/')
    return Error{"refused " + path + ": not an absolute path" + kSendRootsHint};
  // A root itself is the administrator's to name, and may be sent whole.
  for (const std::string& root : roots)
    if (path == root) {
      const int fd = ::open(root.c_str(), O_PATH | O_CLOEXEC);
      if (fd < 0) return Error{"cannot read " + path + ": " + std::strerror(errno)};
      return pinOf(fd, path, root);
    }
  auto opened = openConfinedParent(roots, path, {"path to send", "path to send", "read what it sends from", "hnowd"},
                                   false);
  if (!opened) {
    const std::string& why = opened.error().message;
    if (why.rfind("cannot ", 0) == 0) return Error{why};  // missing: nothing to fix in the roots
    return Error{"refused " + path + ": " + why + kSendRootsHint};
  }
  auto& [dir, dirPath, name] = opened.value();
  // O_PATH: a fifo opens without waiting for a writer, a symlink as itself (refused above).
  const int fd = ::openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  const int error = errno;
  ::close(dir);
  if (fd < 0) return Error{"cannot read " + path + ": " + std::strerror(error)};
  return pinOf(fd, path, dirPath + "/" + name);
}

}  // namespace hnow::daemon
