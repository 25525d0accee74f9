#include "agent/dest_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <random>

#include "base/path_confinement.h"

namespace hnow::agent {

namespace {

std::string tempSuffix() {
  static std::mt19937_64 random(std::random_device{}());
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(random()));
  return text;
}

// `.NAME.hnow-<16 hex>.part`, NAME cut so the whole fits in NAME_MAX: a
// final name may take all 255 bytes, and its temp name the 28 more. The
// cut keeps whole UTF-8 letters, the start still says which file the temp
// file is for, and the startup sweep knows the name by its ends alone
// (isReceiveTempName), however much of NAME is left.
std::string tempNameFor(const std::string& name) {
  constexpr std::size_t kAdded = 1 + 6 + 16 + 5;  // ".", ".hnow-", the hex, ".part"
  constexpr std::size_t kRoom = NAME_MAX - kAdded;
  std::size_t keep = std::min(name.size(), kRoom);
  while (keep > 0 && keep < name.size() && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80) --keep;
  if (keep == 0) keep = std::min(name.size(), kRoom);  // no letter boundary: not UTF-8, cut where it fits
  return "." + name.substr(0, keep) + ".hnow-" + tempSuffix() + ".part";
}

}  // namespace

Result<transport::data::ReceiveTarget> openDestination(const std::vector<std::string>& roots,
                                                       const std::string& dest) {
  auto opened = openConfinedParent(roots, dest, {"destination", "destination", "write under"}, true);
  if (!opened) return opened.error();
  auto& [dir, path, name] = opened.value();
  struct stat existing {};
  if (::fstatat(dir, name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(existing.st_mode)) {
    ::close(dir);
    return Error{path + "/" + name + " is a directory"};
  }
  transport::data::ReceiveTarget target;
  target.dirFd = dir;
  target.finalName = name;
  target.tempName = tempNameFor(name);
  target.path = path + "/" + name;
  target.fileFd = ::openat(dir, target.tempName.c_str(),
                           O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (target.fileFd < 0) {
    std::string why = std::strerror(errno);
    ::close(dir);
    return Error{"cannot create a temp file in " + path + ": " + why};
  }
  return target;
}

int openSearchRoot(const std::vector<std::string>& roots, const std::string& dest) {
  const std::string root = rootOf(roots, dest);
  return root.empty() ? -1 : ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

std::string scratchNameFor(const std::string& name) { return tempNameFor(name); }

namespace {

// A scratch target in `dir` (a duplicate of which it owns) beside `name`:
// both its names are temp names, and it is not durable (what is unpacked
// or expanded from it is synced instead). False with errno on failure.
bool openScratch(int dir, const std::string& parentPath, const std::string& name,
                 transport::data::ReceiveTarget& out) {
  out.dirFd = ::fcntl(dir, F_DUPFD_CLOEXEC, 0);
  out.tempName = scratchNameFor(name);
  out.finalName = scratchNameFor(name);
  out.path = parentPath + "/" + out.finalName;
  out.durable = false;
  out.fileFd = out.dirFd < 0 ? -1
                             : ::openat(out.dirFd, out.tempName.c_str(),
                                        O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out.fileFd >= 0) return true;
  const int error = errno;
  if (out.dirFd >= 0) ::close(out.dirFd);
  out.dirFd = -1;
  errno = error;
  return false;
}

}  // namespace

Result<TreeDestination> openTreeDestination(const std::vector<std::string>& roots, const std::string& dest) {
  auto opened = openConfinedParent(roots, dest, {"destination", "destination", "write under"}, true);
  if (!opened) return opened.error();
  auto& [dir, path, name] = opened.value();
  struct stat existing {};
  if (::fstatat(dir, name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(existing.st_mode)) {
    ::close(dir);
    return Error{path + "/" + name + " exists and is not a directory; a tree cannot replace it: remove it or "
                 "choose another --dest"};
  }
  TreeDestination out;
  out.parentFd = dir;
  out.name = name;
  out.parentPath = path;
  if (!openScratch(dir, path, name, out.bundle)) {
    std::string why = std::strerror(errno);
    ::close(dir);
    return Error{"cannot create a temp file in " + path + ": " + why};
  }
  return out;
}

Result<CompressedDestination> openCompressedDestination(const std::vector<std::string>& roots,
                                                        const std::string& dest) {
  auto opened = openDestination(roots, dest);
  if (!opened) return opened.error();
  transport::data::ReceiveTarget& output = opened.value();
  CompressedDestination out;
  out.parentFd = output.dirFd;
  out.outputFd = output.fileFd;
  out.outputName = output.tempName;
  out.name = output.finalName;
  out.parentPath = output.path.substr(0, output.path.size() - output.finalName.size() - 1);
  if (!openScratch(out.parentFd, out.parentPath, out.name, out.scratch)) {
    std::string why = std::strerror(errno);
    ::close(out.outputFd);
    ::unlinkat(out.parentFd, out.outputName.c_str(), 0);
    ::close(out.parentFd);
    return Error{"cannot create a temp file in " + out.parentPath + ": " + why};
  }
  return out;
}

}  // namespace hnow::agent
