#pragma once
// Trees on disk for the tree bundle's tests (tree_bundle_test.cc,
// tree_unpack_test.cc, tree_scan_test.cc, tree_held_test.cc): a scratch
// directory under /tmp, files with chosen bytes, modes and mtimes, and
// scan/pack/unpack through real files.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

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

// Every byte of the file open at `fd`, read from its start.
inline std::string readAll(int fd) {
  std::string out;
  char buffer[65536];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n <= 0) return out;
    out.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
}

// A bundle made by hand, not by packTree: the header, `entries`' index
// padded with zeros up to `dataStart`, then `data`.
inline std::string handMadeBundle(const std::vector<transport::data::TreeEntry>& entries, std::uint64_t dataStart,
                                  const std::string& data) {
  std::string index = transport::data::encodeTreeIndex(entries);
  REQUIRE(transport::data::kTreeHeaderBytes + index.size() <= dataStart);
  index.resize(dataStart - transport::data::kTreeHeaderBytes, '\0');
  std::string bundle(transport::data::kTreeMagic);
  for (int i = 0; i < 8; ++i) bundle += static_cast<char>((index.size() >> (8 * i)) & 0xff);
  return bundle + index + data;
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

// A scan of `dir` packed into `bundlePath`, the files with `send` only.
struct PackedScan {
  Result<transport::data::PackedTree> tree = Error{"not packed"};
  int fd = -1;
  // Held files list their digest where `withSha256` says (empty: none do).
  PackedScan(const std::string& dir, const transport::data::ScannedTree& scan, const std::vector<bool>& send,
             const std::string& bundlePath, std::vector<bool> withSha256 = {})
      : fd(::open(bundlePath.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) {
    if (withSha256.empty()) withSha256.assign(scan.entries.size(), false);
    tree = transport::data::packTree(dir, scan, send, withSha256, fd);
  }
  ~PackedScan() { ::close(fd); }
  PackedScan(const PackedScan&) = delete;
  PackedScan& operator=(const PackedScan&) = delete;
};

// Unpacks `bundleFd` as `name` in the directory `parent`.
inline Result<transport::data::UnpackedTree> unpackInto(int bundleFd, const std::string& parent, const std::string& name,
                                                        bool atomic, bool deleteOthers = false) {
  const int parentFd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  auto out = transport::data::unpackTree(bundleFd, parentFd, name, parent, atomic, deleteOthers);
  ::close(parentFd);
  return out;
}

// missingFiles for `name` in the directory `parent`.
// `searchUnder`: the directory where a file not at its path is looked for ("": the tree itself).
inline transport::data::HeldFiles heldIn(const std::vector<transport::data::TreeEntry>& entries,
                                         const std::string& parent, const std::string& name,
                                         const std::string& searchUnder = "") {
  const int parentFd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const int searchFd = searchUnder.empty() ? -1 : ::open(searchUnder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  auto out = transport::data::missingFiles(entries, parentFd, name, searchFd);
  if (searchFd >= 0) ::close(searchFd);
  ::close(parentFd);
  return out;
}
// ... and only the files it lacks.
inline std::vector<std::uint32_t> missingIn(const std::vector<transport::data::TreeEntry>& entries,
                                            const std::string& parent, const std::string& name) {
  return heldIn(entries, parent, name).missing;
}

// The ordinal of the entry at `path` in `entries` (entries.size() if none).
inline std::uint32_t ordinalOf(const std::vector<transport::data::TreeEntry>& entries, const std::string& path) {
  std::uint32_t k = 0;
  while (k < entries.size() && entries[k].path != path) ++k;
  return k;
}

inline std::int64_t mtimeNsOf(const std::string& path) {
  const struct stat info = lstatOf(path);
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

// A small tree: two directories, three files (one empty), a symlink.
inline void makeSmallTree(const std::string& top) {
  ::mkdir(top.c_str(), 0755);
  ::mkdir((top + "/d").c_str(), 0755);
  ::mkdir((top + "/d/e").c_str(), 0700);
  writeFile(top + "/a.txt", "alpha alpha", 0644);
  writeFile(top + "/d/b.bin", std::string(70000, 'b'), 0600);
  writeFile(top + "/d/e/c", "gamma", 0640);
  writeFile(top + "/empty", "", 0644);
  ::symlink("d/b.bin", (top + "/link").c_str());
  setMtime(top + "/a.txt", 1'600'000'000, 1);
  setMtime(top + "/d/b.bin", 1'600'000'001, 2);
  setMtime(top + "/d/e/c", 1'600'000'002, 3);
}

// scanTree of `top`, required to succeed.
inline transport::data::ScannedTree scanOf(const std::string& top, transport::data::TreeDigestCache& cache) {
  auto scan = transport::data::scanTree(top, cache);
  REQUIRE_MESSAGE(scan.ok(), messageOf(scan));
  return scan.value();
}

// The entries of `scan`'s query index as an agent decodes them: the
// second round's, with digests, or (`withSha256` false) the first's.
inline std::vector<transport::data::TreeEntry> queryEntries(const transport::data::ScannedTree& scan,
                                                            bool withSha256 = true) {
  const std::string bytes = transport::data::queryIndexOf(scan.entries, withSha256);
  auto decoded = transport::data::decodeTreeIndex(bytes, 0, 0);
  REQUIRE_MESSAGE(decoded.ok(), messageOf(decoded));
  return decoded.value();
}

// packTree's `send` for `scan`: true for `paths` only.
inline std::vector<bool> sendOnly(const transport::data::ScannedTree& scan, const std::vector<std::string>& paths) {
  std::vector<bool> send(scan.entries.size(), false);
  for (const std::string& path : paths) send.at(ordinalOf(scan.entries, path)) = true;
  return send;
}

}  // namespace hnow::testing
