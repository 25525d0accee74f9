#pragma once
// The walk and the file read that packTree and scanTree share
// (tree_bundle.h): what a tree holds, listed without following symlinks
// below its top, and one file read (and hashed, and copied into a bundle
// when asked) only while it stays the file the walk saw.
#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "transport/data/tree_bundle.h"

namespace hnow::transport::data {

std::int64_t mtimeNsOf(const struct stat& info);
FileStamp stampOf(const struct stat& info);

// A tree as the walk listed it: directories before what they hold, names
// in byte order, files' digests and offsets not yet known.
struct WalkedTree {
  int topFd = -1;                  // `dir` itself (owned: closed by the destructor)
  std::vector<TreeEntry> entries;  // depth-first
  std::vector<FileStamp> stamps;   // parallel to entries; a file's from its lstat
  std::vector<TreeProblem> refused;
  WalkedTree() = default;
  WalkedTree(WalkedTree&& other) noexcept;
  WalkedTree& operator=(WalkedTree&&) = delete;
  WalkedTree(const WalkedTree&) = delete;
  ~WalkedTree();
};

// Opens `dir` (the top may be named through a symlink; nothing below it is
// followed) and lists it. `bundleFd` (or -1): a file being written that
// the walk must leave out. Fails when `dir` is not a readable directory or
// holds more than kMaxTreeEntries entries.
Result<WalkedTree> walkTree(const std::string& dir, int bundleFd);

// What the tree at `dir` lists, summed up without reading a file: a
// SHA-256 over every entry's kind, path, mode, mtime, size and symlink
// target as walkTree lists them, and the paths it leaves out. Two
// machines that list the same tree get the same digest: a client asks
// hnowd with it whether hnowd sees, at the same path, the directory the
// client would send (a shared filesystem), else it uploads its own.
Result<Sha256> treeListingDigest(const std::string& dir);

// Opens `dir` as walkTree does, for a second pass over a walk's entries.
Result<int> openTreeTop(const std::string& dir);

// A file read whole: its digest, or why it was left out ("" when it was not).
struct FileRead {
  std::string refused;
  Sha256 sha256{};
};

inline constexpr std::string_view kChangedWhileRead = "changed while it was read; send again";

// Reads the file `name` in `dirFd` and hashes it, refusing it unless it
// is, before and after, the regular file `stamp` describes (device, inode,
// size, mtime) and holds exactly `stamp.size` bytes. With `outFd` >= 0 the
// bytes are also written to `outFd` at `at`. `unchanged` (optional) is set
// when the whole stamp, ctime included, still held after the read: a
// digest then safe to remember. An Error only when `outFd` cannot be
// written.
Result<FileRead> readTreeFile(int dirFd, const std::string& name, const FileStamp& stamp, int outFd, std::uint64_t at,
                              std::vector<char>& buffer, bool* unchanged = nullptr);

// All of `size` bytes to `fd` at `at`.
Result<void> writeBundleBytes(int fd, const char* bytes, std::size_t size, std::uint64_t at);

}  // namespace hnow::transport::data
