// packTree (tree_bundle.h) in two passes: the walk lists what the tree
// holds (stat sizes), which fixes the index's length, since its fields
// are fixed-width; then each file's bytes are copied and hashed, and the
// index written at the front with the final offsets and digests.
#include <dirent.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "base/printable.h"
#include "transport/data/tree_bundle.h"
#include "transport/data/tree_fs.h"

namespace hnow::transport::data {

namespace {

// An entry as the walk saw it; a file's identity, to tell a file swapped in before the copy.
struct Found {
  TreeEntry entry;
  dev_t dev = 0;
  ino_t ino = 0;
};

struct Walk {
  std::vector<Found> found;
  std::vector<TreeProblem> refused;
  dev_t bundleDev = 0;  // the bundle itself, should it lie inside the tree
  ino_t bundleIno = 0;
  bool tooMany = false;
};

std::int64_t mtimeOf(const struct stat& info) {
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

// Lists the directory `dir` (its entries under `prefix`) into `walk`, in
// byte order of names, each directory followed at once by what it holds.
void walkDirectory(DIR* dir, const std::string& prefix, Walk& walk) {
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
    errno = 0;
  }
  if (errno != 0)
    walk.refused.push_back({prefix.empty() ? "." : prefix, std::string("cannot list all of it: ") + std::strerror(errno)});
  std::sort(names.begin(), names.end());
  const int dirFd = ::dirfd(dir);
  for (const std::string& name : names) {
    const std::string path = prefix.empty() ? name : prefix + "/" + name;
    if (walk.found.size() >= kMaxTreeEntries) {
      walk.tooMany = true;
      return;
    }
    if (path.size() > kMaxTreePathBytes || name.size() > kMaxTreeNameBytes) {
      walk.refused.push_back({path, "its path is longer than " + std::to_string(kMaxTreePathBytes) + " bytes"});
      continue;
    }
    struct stat info {};
    if (::fstatat(dirFd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
      walk.refused.push_back({path, std::string("cannot stat: ") + std::strerror(errno)});
      continue;
    }
    Found f;
    f.entry.path = path;
    f.entry.mode = info.st_mode & 07777;
    f.entry.mtimeNs = mtimeOf(info);
    if (S_ISREG(info.st_mode)) {
      if (info.st_dev == walk.bundleDev && info.st_ino == walk.bundleIno) {
        walk.refused.push_back({path, "it is the bundle being written"});
        continue;
      }
      f.entry.kind = TreeEntryKind::kFile;
      f.entry.size = static_cast<std::uint64_t>(info.st_size);
      f.dev = info.st_dev;
      f.ino = info.st_ino;
      walk.found.push_back(std::move(f));
    } else if (S_ISLNK(info.st_mode)) {
      std::string target(kMaxTreePathBytes + 1, '\0');
      const ssize_t n = ::readlinkat(dirFd, name.c_str(), target.data(), target.size());
      if (n < 0) {
        walk.refused.push_back({path, std::string("cannot read the symlink: ") + std::strerror(errno)});
        continue;
      }
      target.resize(static_cast<std::size_t>(n));
      if (target.size() > kMaxTreePathBytes) {
        walk.refused.push_back({path, "its target is longer than " + std::to_string(kMaxTreePathBytes) + " bytes"});
        continue;
      }
      if (!treeSymlinkStaysInside(path, target)) {
        walk.refused.push_back({path, "symlink to " + printable(target) + " leads outside the tree"});
        continue;
      }
      f.entry.kind = TreeEntryKind::kSymlink;
      f.entry.target = std::move(target);
      walk.found.push_back(std::move(f));
    } else if (S_ISDIR(info.st_mode)) {
      const int fd = ::openat(dirFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      DIR* child = fd < 0 ? nullptr : ::fdopendir(fd);
      if (child == nullptr) {
        walk.refused.push_back({path, std::string("cannot read the directory: ") + std::strerror(errno)});
        if (fd >= 0) ::close(fd);
        continue;
      }
      f.entry.kind = TreeEntryKind::kDirectory;
      walk.found.push_back(std::move(f));
      walkDirectory(child, path, walk);
      ::closedir(child);
      if (walk.tooMany) return;
    } else {
      walk.refused.push_back({path, "not a regular file, directory or symlink"});
    }
  }
}

Result<void> writeAll(int fd, const char* bytes, std::size_t size, std::uint64_t at) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, bytes, size, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot write the tree's bundle: ") + std::strerror(errno)};
    bytes += n;
    size -= static_cast<std::size_t>(n);
    at += static_cast<std::uint64_t>(n);
  }
  return {};
}

// A file copied into the bundle (with its digest), or why it was left out.
struct FileOutcome {
  std::string refused;
  Sha256 sha256{};
};

// Copies the file `f` (in the directory `dirFd`) to the bundle at `at`;
// an Error only when the bundle cannot be written.
Result<FileOutcome> packFile(int dirFd, const Found& f, int outFd, std::uint64_t at, std::vector<char>& buffer) {
  const std::string name(baseName(f.entry.path));
  // O_NONBLOCK: should a fifo have taken the file's place, the open must not wait for a writer.
  const int fd = ::openat(dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  const std::string changed = "changed while it was read; send again";
  if (fd < 0) return FileOutcome{errno == ELOOP ? changed : std::string("cannot read: ") + std::strerror(errno), {}};
  const auto same = [&](const struct stat& s) {
    return S_ISREG(s.st_mode) && s.st_dev == f.dev && s.st_ino == f.ino &&
           static_cast<std::uint64_t>(s.st_size) == f.entry.size && mtimeOf(s) == f.entry.mtimeNs;
  };
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !same(info)) {
    ::close(fd);
    return FileOutcome{changed, {}};
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr);
  FileOutcome outcome;
  std::uint64_t done = 0;
  for (;;) {
    // One byte past the size, to notice a file that grew.
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), f.entry.size - done + 1));
    const ssize_t n = ::pread(fd, buffer.data(), want, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      outcome.refused = std::string("cannot read: ") + std::strerror(errno);
      break;
    }
    if (n == 0 || done + static_cast<std::uint64_t>(n) > f.entry.size) break;
    EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(n));
    if (auto written = writeAll(outFd, buffer.data(), static_cast<std::size_t>(n), at + done); !written) {
      ::close(fd);
      return written.error();
    }
    done += static_cast<std::uint64_t>(n);
  }
  if (outcome.refused.empty() && (done != f.entry.size || ::fstat(fd, &info) != 0 || !same(info)))
    outcome.refused = changed;
  // A file that grew after the loop's last read.
  if (outcome.refused.empty()) {
    char extra = 0;
    if (::pread(fd, &extra, 1, static_cast<off_t>(f.entry.size)) != 0) outcome.refused = changed;
  }
  ::close(fd);
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), outcome.sha256.data(), &length);
  return outcome;
}

std::string headerOf(std::uint64_t indexLength) {
  std::string header(kTreeMagic);
  for (int i = 0; i < 8; ++i) header += static_cast<char>((indexLength >> (8 * i)) & 0xff);
  return header;
}

}  // namespace

Result<PackedTree> packTree(const std::string& dir, int outFd) {
  // The top may be named through a symlink; nothing below it is followed.
  const int topFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (topFd < 0) {
    const int error = errno;
    return Error{error == ENOTDIR ? dir + " is not a directory"
                                  : "cannot read the directory " + dir + ": " + std::strerror(error)};
  }
  Walk walk;
  struct stat bundle {};
  if (::fstat(outFd, &bundle) == 0) walk.bundleDev = bundle.st_dev, walk.bundleIno = bundle.st_ino;
  const int listFd = ::dup(topFd);
  DIR* top = listFd < 0 ? nullptr : ::fdopendir(listFd);
  if (top == nullptr) {
    const std::string why = std::strerror(errno);
    if (listFd >= 0) ::close(listFd);
    ::close(topFd);
    return Error{"cannot read the directory " + dir + ": " + why};
  }
  walkDirectory(top, "", walk);
  ::closedir(top);
  if (walk.tooMany) {
    ::close(topFd);
    return Error{dir + " holds more than " + std::to_string(kMaxTreeEntries) + " entries; send it in parts"};
  }
  std::vector<TreeEntry> entries;
  entries.reserve(walk.found.size());
  for (const Found& f : walk.found) entries.push_back(f.entry);
  // Room for the index of every entry found: leaving files out only shortens it.
  const std::uint64_t reserved = encodeTreeIndex(entries).size();
  if (reserved > kMaxTreeIndexBytes) {
    ::close(topFd);
    return Error{"the index of " + dir + " would take " + std::to_string(reserved) + " bytes, more than " +
                 std::to_string(kMaxTreeIndexBytes) + "; send it in parts"};
  }
  PackedTree packed;
  packed.refused = std::move(walk.refused);
  std::uint64_t at = kTreeHeaderBytes + reserved;
  std::vector<char> buffer(1 << 20);
  DirWalk dirs(topFd);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    TreeEntry& e = entries[k];
    if (e.kind == TreeEntryKind::kFile) {
      auto dirFd = dirs.open(dirName(e.path));
      auto outcome = dirFd ? packFile(*dirFd, walk.found[k], outFd, at, buffer)
                           : Result<FileOutcome>(FileOutcome{dirFd.error().message, {}});
      if (!outcome) {
        ::close(topFd);
        return outcome.error();
      }
      if (!outcome->refused.empty()) {
        // Its bytes, if any were written, are overwritten by the next file's or cut by the truncate below.
        packed.refused.push_back({e.path, outcome->refused});
        continue;
      }
      e.offset = at;
      e.sha256 = outcome->sha256;
      at += e.size;
      packed.fileBytes += e.size;
      ++packed.files;
    }
    packed.entries.push_back(std::move(e));
  }
  ::close(topFd);
  const std::string index = encodeTreeIndex(packed.entries);
  std::string front = headerOf(index.size()) + index;
  front.resize(kTreeHeaderBytes + reserved, '\0');  // the padding tree_bundle.h describes
  if (auto written = writeAll(outFd, front.data(), front.size(), 0); !written) return written.error();
  if (::ftruncate(outFd, static_cast<off_t>(at)) != 0)
    return Error{std::string("cannot write the tree's bundle: ") + std::strerror(errno)};
  packed.size = at;
  return packed;
}

}  // namespace hnow::transport::data
