#include "agent/dest_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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
  target.tempName = "." + name + ".hnow-" + tempSuffix() + ".part";
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
  out.parentFd = ::fcntl(dir, F_DUPFD_CLOEXEC, 0);
  out.name = name;
  out.parentPath = path;
  out.bundle.dirFd = dir;
  out.bundle.tempName = "." + name + ".hnow-" + tempSuffix() + ".part";
  out.bundle.finalName = "." + name + ".hnow-" + tempSuffix() + ".part";
  out.bundle.path = path + "/" + out.bundle.finalName;
  out.bundle.durable = false;  // unpacked, synced as the tree's files, then removed
  out.bundle.fileFd = out.parentFd < 0 ? -1
                                       : ::openat(dir, out.bundle.tempName.c_str(),
                                                  O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out.bundle.fileFd < 0) {
    std::string why = std::strerror(errno);
    ::close(dir);
    if (out.parentFd >= 0) ::close(out.parentFd);
    return Error{"cannot create a temp file in " + path + ": " + why};
  }
  return out;
}

}  // namespace hnow::agent
