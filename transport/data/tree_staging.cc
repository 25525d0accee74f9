// TreeStaging (tree_staging.h): the staging directory and what is written
// into it. Every write goes through a directory fd opened component by
// component without following symlinks, and the index was checked
// (decodeTreeIndex) to hold no entry under a symlink, so nothing lands
// outside the staging. Held files (tree_held.h) are copied in from where
// `name` holds them, with `atomic`, and left where they are without.
// Publishing (finish) is in tree_unpack.cc.
#include "transport/data/tree_staging.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <spdlog/spdlog.h>

#include "base/printable.h"
#include "transport/data/file_digest.h"
#include "transport/data/tree_fs.h"
#include "transport/data/tree_find.h"
#include "transport/data/tree_held.h"
#include "transport/data/tree_walk.h"

namespace hnow::transport::data {

void removeStaging(int parentFd, const std::string& staging, const std::string& displayPath) {
  if (auto removed = removeTree(parentFd, staging); !removed)
    spdlog::warn("cannot remove {}/{}: {}", displayPath, printable(staging), removed.error().message);
}

namespace {

// `.NAME.hnow-stage-<16 hex>`, NAME cut so the whole fits in 255 bytes.
std::string stagingNameFor(const std::string& name) {
  unsigned long long random = 0;
  if (::getrandom(&random, sizeof random, 0) != sizeof random) random ^= static_cast<unsigned long long>(::getpid());
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", random);
  return "." + name.substr(0, kMaxTreeNameBytes - 29) + ".hnow-stage-" + hex;
}

// `size` bytes of the bundle from `offset` into `outFd` (new and empty):
// copy_file_range, so a filesystem that can shares or copies the blocks
// itself; plain reads and writes where it cannot.
Result<void> copyBytes(int bundleFd, std::uint64_t offset, std::uint64_t size, int outFd) {
  std::uint64_t done = 0;
  bool plain = false;
  while (done < size && !plain) {
    loff_t in = static_cast<loff_t>(offset + done), out = static_cast<loff_t>(done);
    const ssize_t n = ::copy_file_range(bundleFd, &in, outFd, &out, std::min<std::uint64_t>(size - done, 1 << 30), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) plain = true;
    else if (n < 0) return Error{std::strerror(errno)};
    else if (n == 0) return Error{"the bundle ends before its bytes"};
    else done += static_cast<std::uint64_t>(n);
  }
  std::vector<char> buffer(plain ? std::min<std::uint64_t>(size - done, 1 << 20) : 0);
  while (done < size) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - done));
    const ssize_t n = ::pread(bundleFd, buffer.data(), want, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read the bundle: ") + std::strerror(errno)};
    if (n == 0) return Error{"the bundle ends before its bytes"};
    for (ssize_t written = 0; written < n;) {
      const ssize_t w = ::pwrite(outFd, buffer.data() + written, static_cast<std::size_t>(n - written),
                                 static_cast<off_t>(done + static_cast<std::uint64_t>(written)));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return Error{std::strerror(errno)};
      written += w;
    }
    done += static_cast<std::uint64_t>(n);
  }
  return {};
}

// Sets the mode and mtime of the new file `fd`.
Result<void> finishFile(int fd, const TreeEntry& e) {
  const FileTimes t = mtimeOnly(e.mtimeNs);
  if (::fchmod(fd, e.mode) != 0) return Error{std::string("cannot set its mode: ") + std::strerror(errno)};
  if (::futimens(fd, t.times) != 0) return Error{std::string("cannot set its mtime: ") + std::strerror(errno)};
  return {};
}

// A directory (0700 until its mode is set, after what goes inside it) or
// a symlink, in the staging directory `dirFd` (its directory already there).
Result<void> writeNonFile(int dirFd, const TreeEntry& e) {
  const std::string name(baseName(e.path));
  if (e.kind == TreeEntryKind::kDirectory) {
    if (::mkdirat(dirFd, name.c_str(), 0700) != 0) return Error{std::strerror(errno)};
    return {};
  }
  if (::symlinkat(e.target.c_str(), dirFd, name.c_str()) != 0) return Error{std::strerror(errno)};
  const FileTimes t = mtimeOnly(e.mtimeNs);
  if (::utimensat(dirFd, name.c_str(), t.times, AT_SYMLINK_NOFOLLOW) != 0)
    return Error{std::string("cannot set its mtime: ") + std::strerror(errno)};
  return {};
}

// The held entry `e` copied from the file at `path` in the tree `held`
// holds (nullptr: none; `path` is e.path, or another path with the same
// bytes, ContentFinder) into the staging directory `dirFd`, and checked:
// the source kept the entry's size and mtime all along, or the copy has
// the SHA-256 it lists. A copy that fails its check is removed.
Result<void> copyHeld(DirWalk* held, const std::string& path, int dirFd, const TreeEntry& e) {
  const std::string again(kHeldChanged);
  if (held == nullptr) return Error{"this agent no longer holds it: " + again};
  auto from = held->open(dirName(path));
  if (!from) return Error{from.error().message + ": " + again};
  const std::string name(baseName(e.path));
  const int in = ::openat(*from, std::string(baseName(path)).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (in < 0)
    return Error{(errno == ENOENT ? std::string("this agent no longer holds it") : std::strerror(errno)) + ": " + again};
  struct stat before {}, after {};
  if (::fstat(in, &before) != 0 || !S_ISREG(before.st_mode) || static_cast<std::uint64_t>(before.st_size) != e.size) {
    ::close(in);
    return Error{"it is no longer the file this agent held: " + again};
  }
  const int out = ::openat(dirFd, name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out < 0) {
    const int error = errno;
    ::close(in);
    return Error{std::strerror(error)};
  }
  Result<void> outcome = copyBytes(in, 0, e.size, out);
  if (outcome) {
    const bool untouched = ::fstat(in, &after) == 0 && after.st_size == before.st_size &&
                           mtimeNsOf(after) == mtimeNsOf(before) && mtimeNsOf(before) == e.mtimeNs;
    if (!untouched) {
      // Without a digest listed, only an untouched size and mtime hold.
      auto digest = e.withSha256 ? sha256OfFile(out) : Result<Sha256>(Error{"no digest listed"});
      if (!digest || *digest != e.sha256) outcome = Error{"its bytes are no longer those this agent held: " + again};
    }
  }
  ::close(in);
  if (outcome) outcome = finishFile(out, e);
  ::close(out);
  if (!outcome) ::unlinkat(dirFd, name.c_str(), 0);
  return outcome;
}

// Whether the tree `held` holds a regular file of the entry's size at its path (no read).
bool regularOfSize(DirWalk* held, const TreeEntry& e) {
  if (held == nullptr) return false;
  auto dirFd = held->open(dirName(e.path));
  struct stat info {};
  return dirFd && ::fstatat(*dirFd, std::string(baseName(e.path)).c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) == e.size;
}

// Whether [offset, offset + size) lies inside one of `spans` (sorted by
// offset, adjacent ones merged).
bool covered(const std::vector<LandedSpan>& spans, std::uint64_t offset, std::uint64_t size) {
  auto after = std::upper_bound(spans.begin(), spans.end(), offset,
                                [](std::uint64_t at, const LandedSpan& s) { return at < s.offset; });
  if (after == spans.begin()) return false;
  const LandedSpan& s = *std::prev(after);
  return offset + size <= s.offset + s.length;
}

std::vector<LandedSpan> merged(std::vector<LandedSpan> spans) {
  std::sort(spans.begin(), spans.end(), [](const LandedSpan& a, const LandedSpan& b) { return a.offset < b.offset; });
  std::vector<LandedSpan> out;
  for (const LandedSpan& s : spans) {
    if (s.length == 0) continue;
    if (!out.empty() && s.offset <= out.back().offset + out.back().length)
      out.back().length = std::max(out.back().length, s.offset + s.length - out.back().offset);
    else
      out.push_back(s);
  }
  return out;
}

}  // namespace

std::uint64_t landedFromStart(std::vector<LandedSpan> spans) {
  spans = merged(std::move(spans));
  return !spans.empty() && spans.front().offset == 0 ? spans.front().length : 0;
}

Result<std::unique_ptr<TreeStaging>> TreeStaging::open(int parentFd, const std::string& name,
                                                       const std::string& displayPath, std::uint64_t bundleSize,
                                                       bool atomic) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos)
    return Error{"cannot unpack a tree as \"" + printable(name) + "\" in " + displayPath + ": not a single name"};
  struct stat existing {};
  if (::fstatat(parentFd, name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(existing.st_mode))
    return Error{displayPath + "/" + printable(name) + (S_ISLNK(existing.st_mode) ? " is a symlink" : " is a file") +
                 "; remove it or send to another --dest"};
  const std::string staging = stagingNameFor(name);
  if (::mkdirat(parentFd, staging.c_str(), 0700) != 0)
    return Error{"cannot create the staging directory " + displayPath + "/" + printable(staging) + ": " +
                 std::strerror(errno)};
  const int stageFd = ::openat(parentFd, staging.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (stageFd < 0) {
    const std::string why = std::strerror(errno);
    removeStaging(parentFd, staging, displayPath);
    return Error{"cannot open the staging directory " + displayPath + "/" + printable(staging) + ": " + why};
  }
  return std::unique_ptr<TreeStaging>(
      new TreeStaging(parentFd, name, displayPath, staging, stageFd, bundleSize, atomic));
}

TreeStaging::TreeStaging(int parentFd, std::string name, std::string displayPath, std::string staging, int stageFd,
                         std::uint64_t bundleSize, bool atomic)
    : parentFd_(parentFd),
      name_(std::move(name)),
      displayPath_(std::move(displayPath)),
      staging_(std::move(staging)),
      stageFd_(stageFd),
      bundleSize_(bundleSize),
      atomic_(atomic) {}

TreeStaging::~TreeStaging() {
  ::close(stageFd_);
  if (!published_) removeStaging(parentFd_, staging_, displayPath_);
}

std::string TreeStaging::where() const { return displayPath_ + "/" + printable(name_); }

Result<void> TreeStaging::readIndex(int bundleFd) {
  auto index = readTreeIndex(bundleFd, bundleSize_);
  if (!index) return Error{"cannot unpack the tree into " + where() + ": " + index.error().message};
  return adoptIndex(std::move(index).value());
}

Result<void> TreeStaging::adoptIndex(TreeIndex index) {
  index_ = std::move(index);
  const std::vector<TreeEntry>& entries = index_->entries;
  written_.assign(entries.size(), false);
  DirWalk dirs(stageFd_);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const TreeEntry& e = entries[k];
    if (e.kind == TreeEntryKind::kFile) {
      if (!isHeldEntry(e)) pending_.push_back(static_cast<std::uint32_t>(k));
      continue;
    }
    auto dirFd = dirs.open(dirName(e.path));
    auto made = dirFd ? writeNonFile(*dirFd, e) : Result<void>(dirFd.error());
    if (!made) return Error{"cannot write \"" + printable(e.path) + "\": " + made.error().message};
    written_[k] = true;
  }
  std::stable_sort(pending_.begin(), pending_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return entries[a].offset < entries[b].offset; });
  return {};
}

Result<void> TreeStaging::writeFile(int bundleFd, std::size_t k, bool startWriteback) {
  const TreeEntry& e = index_->entries[k];
  if (!fileDirs_) fileDirs_ = std::make_unique<DirWalk>(stageFd_);
  auto dirFd = fileDirs_->open(dirName(e.path));
  if (!dirFd) return Error{"cannot write \"" + printable(e.path) + "\": " + dirFd.error().message};
  const std::string name(baseName(e.path));
  const int fd = ::openat(*dirFd, name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"cannot write \"" + printable(e.path) + "\": " + std::strerror(errno)};
  Result<void> outcome = copyBytes(bundleFd, e.offset, e.size, fd);
  if (outcome) outcome = finishFile(fd, e);
  // Its bytes head for the disk now, while the transfer goes on, and the
  // sync before publishing has little left to wait for.
  if (outcome && startWriteback && e.size > 0) ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  ::close(fd);
  if (!outcome) return Error{"cannot write \"" + printable(e.path) + "\": " + outcome.error().message};
  written_[k] = true;
  ++filesWritten_;
  bytesWritten_ += e.size;
  return {};
}

Result<void> TreeStaging::advance(int bundleFd, const std::vector<LandedSpan>& landed) {
  if (failed_) return *failed_;
  const std::vector<LandedSpan> spans = merged(landed);
  auto fail = [&](Error error) -> Result<void> {
    failed_ = error;
    return error;
  };
  if (!index_) {
    std::uint64_t indexEnd = kTreeHeaderBytes;
    if (!covered(spans, 0, kTreeHeaderBytes)) return {};
    char header[kTreeHeaderBytes];
    if (::pread(bundleFd, header, sizeof header, 0) != static_cast<ssize_t>(sizeof header))
      return fail(Error{"cannot read the header of the tree's bundle for " + where()});
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(header[8 + i]);
    // A length past the bundle waits for finish(), whose readTreeIndex says what is wrong.
    if (length > bundleSize_ - std::min(bundleSize_, kTreeHeaderBytes)) return {};
    indexEnd += length;
    if (!covered(spans, 0, indexEnd)) return {};
    if (auto read = readIndex(bundleFd); !read) return fail(read.error());
  }
  const std::vector<TreeEntry>& entries = index_->entries;
  std::size_t kept = 0;
  for (std::uint32_t k : pending_) {
    const TreeEntry& e = entries[k];
    if (!covered(spans, e.offset, e.size) && e.size > 0) {
      pending_[kept++] = k;
      continue;
    }
    if (auto written = writeFile(bundleFd, k, true); !written)
      return fail(Error{"cannot unpack the tree into " + where() + ": " + written.error().message + " (in " +
                        displayPath_ + "/" + printable(staging_) + ")"});
  }
  pending_.resize(kept);
  return {};
}

Result<void> TreeStaging::writeRest(int bundleFd) {
  const std::vector<TreeEntry>& entries = index_->entries;
  DirWalk dirs(stageFd_);
  std::optional<DirWalk> held;
  // Held files come from the tree `name` holds now: with `atomic` every
  // one; in place, those no longer at their own path, copied from another
  // path with their SHA-256 (the rest are kept where they are, publishInPlace).
  const bool anyHeld = std::any_of(entries.begin(), entries.end(), isHeldEntry);
  const int heldFd =
      anyHeld ? ::openat(parentFd_, name_.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
  if (heldFd >= 0) held.emplace(heldFd);
  ContentFinder elsewhere(searchFd_ >= 0 ? searchFd_ : heldFd, searchFd_ >= 0 ? kMaxFilesSearched : SIZE_MAX);
  std::optional<DirWalk> searched;  // the root found paths are relative to, when not the tree
  if (searchFd_ >= 0) searched.emplace(searchFd_);
  DirWalk* heldTree = held ? &*held : nullptr;
  Result<void> outcome;
  for (std::size_t k = 0; k < entries.size() && outcome; ++k) {
    const TreeEntry& e = entries[k];
    if (written_[k]) continue;
    if (e.kind != TreeEntryKind::kFile) {
      auto dirFd = dirs.open(dirName(e.path));
      outcome = dirFd ? writeNonFile(*dirFd, e) : Result<void>(dirFd.error());
      if (!outcome) outcome = Error{"cannot write \"" + printable(e.path) + "\": " + outcome.error().message};
    } else if (!isHeldEntry(e)) {
      outcome = writeFile(bundleFd, k, false);
    } else if (atomic_ || (e.withSha256 && !regularOfSize(heldTree, e))) {
      // Not at its path (in place: only then): the same bytes under another path, if any.
      std::string from = e.path;
      DirWalk* fromTree = heldTree;
      bool moved = false;
      if (!regularOfSize(heldTree, e) && e.withSha256)
        if (auto found = elsewhere.find(e.size, e.sha256)) {
          from = *found;
          fromTree = searched ? &*searched : heldTree;
          moved = true;
        }
      if (!atomic_ && !moved) continue;  // publishInPlace finds it gone and says so
      auto dirFd = dirs.open(dirName(e.path));
      outcome = dirFd ? copyHeld(fromTree, from, *dirFd, e) : Result<void>(dirFd.error());
      if (!outcome) outcome = Error{"cannot write \"" + printable(e.path) + "\": " + outcome.error().message};
      if (outcome && moved) ++copied_;
    }
  }
  held.reset();
  if (heldFd >= 0) ::close(heldFd);
  for (std::size_t k = entries.size(); outcome && atomic_ && k-- > 0;) {
    const TreeEntry& e = entries[k];
    if (e.kind != TreeEntryKind::kDirectory) continue;
    auto dirFd = dirs.open(dirName(e.path));
    auto set = dirFd ? setDirectoryMeta(*dirFd, std::string(baseName(e.path)), e.mode, e.mtimeNs)
                     : Result<void>(dirFd.error());
    if (!set) outcome = Error{"cannot finish the directory \"" + printable(e.path) + "\": " + set.error().message};
  }
  if (!outcome) {
    const std::string& why = outcome.error().message;
    // A held file gone or changed says so last ("send again"); where the staging was matters only for the rest.
    const bool heldChanged = why.size() >= kHeldChanged.size() &&
                             why.compare(why.size() - kHeldChanged.size(), kHeldChanged.size(), kHeldChanged) == 0;
    return Error{"cannot unpack the tree into " + where() + ": " + why +
                 (heldChanged ? std::string() : " (in " + displayPath_ + "/" + printable(staging_) + ")")};
  }
  return {};
}

}  // namespace hnow::transport::data
