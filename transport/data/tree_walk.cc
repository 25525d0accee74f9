#include "transport/data/tree_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "base/printable.h"

namespace hnow::transport::data {

namespace {

struct Walk {
  WalkedTree& tree;
  dev_t bundleDev = 0;  // the bundle itself, should it lie inside the tree
  ino_t bundleIno = 0;
  bool hasBundle = false;
  bool tooMany = false;
};

// Lists the directory `dir` (its entries under `prefix`) into `walk`, in
// byte order of names, each directory followed at once by what it holds.
void walkDirectory(DIR* dir, const std::string& prefix, Walk& walk) {
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
    errno = 0;
  }
  std::vector<TreeProblem>& refused = walk.tree.refused;
  if (errno != 0)
    refused.push_back({prefix.empty() ? "." : prefix, std::string("cannot list all of it: ") + std::strerror(errno)});
  std::sort(names.begin(), names.end());
  const int dirFd = ::dirfd(dir);
  for (const std::string& name : names) {
    const std::string path = prefix.empty() ? name : prefix + "/" + name;
    if (walk.tree.entries.size() >= kMaxTreeEntries) {
      walk.tooMany = true;
      return;
    }
    if (path.size() > kMaxTreePathBytes || name.size() > kMaxTreeNameBytes) {
      refused.push_back({path, "its path is longer than " + std::to_string(kMaxTreePathBytes) + " bytes"});
      continue;
    }
    struct stat info {};
    if (::fstatat(dirFd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
      refused.push_back({path, std::string("cannot stat: ") + std::strerror(errno)});
      continue;
    }
    TreeEntry entry;
    entry.path = path;
    entry.mode = info.st_mode & 07777;
    entry.mtimeNs = mtimeNsOf(info);
    FileStamp stamp;
    if (S_ISREG(info.st_mode)) {
      if (walk.hasBundle && info.st_dev == walk.bundleDev && info.st_ino == walk.bundleIno) {
        refused.push_back({path, "it is the bundle being written"});
        continue;
      }
      entry.kind = TreeEntryKind::kFile;
      entry.size = static_cast<std::uint64_t>(info.st_size);
      stamp = stampOf(info);
    } else if (S_ISLNK(info.st_mode)) {
      std::string target(kMaxTreePathBytes + 1, '\0');
      const ssize_t n = ::readlinkat(dirFd, name.c_str(), target.data(), target.size());
      if (n < 0) {
        refused.push_back({path, std::string("cannot read the symlink: ") + std::strerror(errno)});
        continue;
      }
      target.resize(static_cast<std::size_t>(n));
      if (target.size() > kMaxTreePathBytes) {
        refused.push_back({path, "its target is longer than " + std::to_string(kMaxTreePathBytes) + " bytes"});
        continue;
      }
      if (!treeSymlinkStaysInside(path, target)) {
        refused.push_back({path, "symlink to " + printable(target) + " leads outside the tree"});
        continue;
      }
      entry.kind = TreeEntryKind::kSymlink;
      entry.target = std::move(target);
    } else if (S_ISDIR(info.st_mode)) {
      const int fd = ::openat(dirFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      DIR* child = fd < 0 ? nullptr : ::fdopendir(fd);
      if (child == nullptr) {
        refused.push_back({path, std::string("cannot read the directory: ") + std::strerror(errno)});
        if (fd >= 0) ::close(fd);
        continue;
      }
      entry.kind = TreeEntryKind::kDirectory;
      walk.tree.entries.push_back(std::move(entry));
      walk.tree.stamps.push_back(stamp);
      walkDirectory(child, path, walk);
      ::closedir(child);
      if (walk.tooMany) return;
      continue;
    } else {
      refused.push_back({path, "not a regular file, directory or symlink"});
      continue;
    }
    walk.tree.entries.push_back(std::move(entry));
    walk.tree.stamps.push_back(stamp);
  }
}

}  // namespace

std::int64_t mtimeNsOf(const struct stat& info) {
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

FileStamp stampOf(const struct stat& info) {
  FileStamp s;
  s.dev = static_cast<std::uint64_t>(info.st_dev);
  s.ino = static_cast<std::uint64_t>(info.st_ino);
  s.size = static_cast<std::uint64_t>(info.st_size);
  s.mtimeNs = mtimeNsOf(info);
  s.ctimeNs = static_cast<std::int64_t>(info.st_ctim.tv_sec) * 1'000'000'000 + info.st_ctim.tv_nsec;
  return s;
}

WalkedTree::WalkedTree(WalkedTree&& other) noexcept
    : topFd(std::exchange(other.topFd, -1)),
      entries(std::move(other.entries)),
      stamps(std::move(other.stamps)),
      refused(std::move(other.refused)) {}

WalkedTree::~WalkedTree() {
  if (topFd >= 0) ::close(topFd);
}

Result<int> openTreeTop(const std::string& dir) {
  const int topFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (topFd < 0) {
    const int error = errno;
    return Error{error == ENOTDIR ? dir + " is not a directory"
                                  : "cannot read the directory " + dir + ": " + std::strerror(error)};
  }
  return topFd;
}

Result<WalkedTree> walkTree(const std::string& dir, int bundleFd) {
  auto top = openTreeTop(dir);
  if (!top) return top.error();
  WalkedTree tree;
  tree.topFd = *top;
  Walk walk{tree};
  struct stat bundle {};
  if (bundleFd >= 0 && ::fstat(bundleFd, &bundle) == 0)
    walk.bundleDev = bundle.st_dev, walk.bundleIno = bundle.st_ino, walk.hasBundle = true;
  const int listFd = ::dup(tree.topFd);
  DIR* list = listFd < 0 ? nullptr : ::fdopendir(listFd);
  if (list == nullptr) {
    const std::string why = std::strerror(errno);
    if (listFd >= 0) ::close(listFd);
    return Error{"cannot read the directory " + dir + ": " + why};
  }
  walkDirectory(list, "", walk);
  ::closedir(list);
  if (walk.tooMany)
    return Error{dir + " holds more than " + std::to_string(kMaxTreeEntries) + " entries; send it in parts"};
  return tree;
}

Result<void> writeBundleBytes(int fd, const char* bytes, std::size_t size, std::uint64_t at) {
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

Result<FileRead> readTreeFile(int dirFd, const std::string& name, const FileStamp& stamp, int outFd, std::uint64_t at,
                              std::vector<char>& buffer, bool* unchanged) {
  if (unchanged != nullptr) *unchanged = false;
  const std::string changed(kChangedWhileRead);
  // O_NONBLOCK: should a fifo have taken the file's place, the open must not wait for a writer.
  const int fd = ::openat(dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return FileRead{errno == ELOOP ? changed : std::string("cannot read: ") + std::strerror(errno), {}};
  const auto same = [&](const struct stat& s) {
    return S_ISREG(s.st_mode) && static_cast<std::uint64_t>(s.st_dev) == stamp.dev &&
           static_cast<std::uint64_t>(s.st_ino) == stamp.ino && static_cast<std::uint64_t>(s.st_size) == stamp.size &&
           mtimeNsOf(s) == stamp.mtimeNs;
  };
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !same(info)) {
    ::close(fd);
    return FileRead{changed, {}};
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr);
  FileRead outcome;
  std::uint64_t done = 0;
  for (;;) {
    // One byte past the size, to notice a file that grew.
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), stamp.size - done + 1));
    const ssize_t n = ::pread(fd, buffer.data(), want, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      outcome.refused = std::string("cannot read: ") + std::strerror(errno);
      break;
    }
    if (n == 0 || done + static_cast<std::uint64_t>(n) > stamp.size) break;
    EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(n));
    if (outFd >= 0) {
      if (auto written = writeBundleBytes(outFd, buffer.data(), static_cast<std::size_t>(n), at + done); !written) {
        ::close(fd);
        return written.error();
      }
    }
    done += static_cast<std::uint64_t>(n);
  }
  if (outcome.refused.empty() && (done != stamp.size || ::fstat(fd, &info) != 0 || !same(info)))
    outcome.refused = changed;
  // A file that grew after the loop's last read.
  if (outcome.refused.empty()) {
    char extra = 0;
    if (::pread(fd, &extra, 1, static_cast<off_t>(stamp.size)) != 0) outcome.refused = changed;
  }
  if (outcome.refused.empty() && unchanged != nullptr) *unchanged = stampOf(info) == stamp;
  ::close(fd);
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), outcome.sha256.data(), &length);
  return outcome;
}

Result<Sha256> treeListingDigest(const std::string& dir) {
  auto walked = walkTree(dir, -1);
  if (!walked) return walked.error();
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> sha(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(sha.get(), EVP_sha256(), nullptr);
  auto add = [&](const std::string& text) { EVP_DigestUpdate(sha.get(), text.data(), text.size() + 1); };  // with its NUL
  for (const TreeEntry& e : walked->entries)
    add(std::to_string(static_cast<int>(e.kind)) + " " + std::to_string(e.mode) + " " + std::to_string(e.mtimeNs) +
        " " + std::to_string(e.size) + " " + e.path + '\0' + e.target);
  for (const TreeProblem& r : walked->refused) add("refused " + r.path);
  Sha256 out{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(sha.get(), out.data(), &length);
  return out;
}

}  // namespace hnow::transport::data
