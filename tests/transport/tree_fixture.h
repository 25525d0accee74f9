#pragma once
// Trees on disk for the tree bundle's tests (tree_bundle_test.cc,
// tree_unpack_test.cc): a scratch directory under /tmp, files with chosen
// bytes, modes and mtimes, and pack/unpack through real files.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "transport/data/tree_bundle.h"

namespace hnow::testing {

// Makes `dir` and every directory below it 0700, so all can be removed.
inline void openUp(const std::filesystem::path& dir) {
  ::chmod(dir.c_str(), 0700);
  std::error_code ignored;
  for (const auto& e : std::filesystem::directory_iterator(dir, ignored))
    if (e.symlink_status(ignored).type() == std::filesystem::file_type::directory) openUp(e.path());
}

// A directory made with mkdtemp under /tmp, removed with all it holds
// (directories left without permissions included) by the destructor.
struct Scratch {
  std::string path;
  Scratch() {
    char pattern[] = "/tmp/hnow-tree-XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~Scratch() {
    openUp(path);
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

// A result's error message, or "" (safe where doctest formats a message for a passing check too).
template <class T>
std::string messageOf(const Result<T>& r) {
  return r.ok() ? std::string() : r.error().message;
}

inline void writeFile(const std::string& path, const std::string& bytes, mode_t mode = 0644) {
  std::ofstream(path, std::ios::binary) << bytes;
  ::chmod(path.c_str(), mode);
}

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void setMtime(const std::string& path, std::int64_t seconds, long nanos) {
  struct timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(seconds), nanos}};
  ::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

inline struct stat lstatOf(const std::string& path) {
  struct stat info {};
  ::lstat(path.c_str(), &info);
  return info;
}

inline bool exists(const std::string& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0;
}

// The names in `dir`, sorted.
inline std::set<std::string> namesIn(const std::string& dir) {
  std::set<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.insert(e->d_name);
    ::closedir(d);
  }
  return names;
}

// True when `dir` holds a staging directory of unpackTree.
inline bool hasStaging(const std::string& dir) {
  for (const std::string& name : namesIn(dir))
    if (transport::data::isTreeStagingName(name) || name.find(".hnow-stage-") != std::string::npos) return true;
  return false;
}

// `dir` packed into the file `bundlePath`; the bundle's fd (read/write) in `fd`.
struct Packed {
  Result<transport::data::PackedTree> tree = Error{"not packed"};
  int fd = -1;
  Packed(const std::string& dir, const std::string& bundlePath)
      : fd(::open(bundlePath.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) {
    tree = transport::data::packTree(dir, fd);
  }
  ~Packed() { ::close(fd); }
  Packed(const Packed&) = delete;
  Packed& operator=(const Packed&) = delete;
};

// Unpacks `bundleFd` as `name` in the directory `parent`.
inline Result<transport::data::UnpackedTree> unpackInto(int bundleFd, const std::string& parent, const std::string& name,
                                                        bool atomic) {
  const int parentFd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  auto out = transport::data::unpackTree(bundleFd, parentFd, name, parent, atomic);
  ::close(parentFd);
  return out;
}

}  // namespace hnow::testing
