#include "transport/data/tree_bundle.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "base/printable.h"

namespace hnow::transport::data {

namespace {

void putVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

void putBytes(std::string& out, std::string_view bytes) {
  putVarint(out, bytes.size());
  out.append(bytes);
}

// Zigzag: small differences either way take few varint bytes.
std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// The entry byte: the kind in the low two bits, then the file's flags.
constexpr std::uint8_t kKindMask = 0x03, kHeldFlag = 0x04, kSha256Flag = 0x08;

// Fields off the front of the plain index; each read checks the bytes left
// first, so a hostile length never allocates past the input.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  std::size_t left() const { return rest_.size(); }
  bool byte(std::uint64_t& v) {
    if (rest_.empty()) return false;
    v = static_cast<unsigned char>(rest_.front());
    rest_.remove_prefix(1);
    return true;
  }
  // At most 10 bytes; a varint past 64 bits is refused as truncated.
  bool varint(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && !rest_.empty(); shift += 7) {
      const auto b = static_cast<unsigned char>(rest_.front());
      rest_.remove_prefix(1);
      if (shift == 63 && b > 1) return false;
      v |= std::uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool take(std::size_t n, std::string_view& out) {
    if (rest_.size() < n) return false;
    out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return true;
  }
  // A varint length, then that many bytes (at most `max`; `tooLong` says so).
  bool sized(std::string_view& out, std::size_t max, bool& tooLong) {
    std::uint64_t n = 0;
    if (!varint(n)) return false;
    tooLong = n > max;
    return !tooLong && take(n, out);
  }

 private:
  std::string_view rest_;
};

// What is wrong with `path` as an entry's path, or nothing.
std::optional<std::string> pathProblem(std::string_view path) {
  if (path.empty()) return "its path is empty";
  if (path.front() == '/') return "its path is absolute";
  if (path.find('\0') != std::string_view::npos) return "its path holds a NUL byte";
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    const std::string_view name = path.substr(start, end - start);
    if (name.empty()) return "its path has an empty component";
    if (name == "." || name == "..") return "its path has a \"" + std::string(name) + "\" component";
    if (name.size() > kMaxTreeNameBytes)
      return "its path has a component of " + std::to_string(name.size()) + " bytes, more than " +
             std::to_string(kMaxTreeNameBytes);
    start = end + 1;
  }
  return std::nullopt;
}

std::string_view parentOf(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

const char* kindName(TreeEntryKind kind) {
  return kind == TreeEntryKind::kDirectory ? "directory" : kind == TreeEntryKind::kFile ? "file" : "symlink";
}

Error entryError(std::size_t k, std::string_view path, const std::string& what) {
  return Error{"tree index entry " + std::to_string(k) + " (\"" + printable(path) + "\"): " + what +
               "; the bundle is damaged or was not written by hnow"};
}

Error truncated(std::size_t k, const char* field) {
  return Error{"the tree index ends inside entry " + std::to_string(k) + ", before its " + field +
               "; the bundle is damaged or was not written by hnow"};
}

}  // namespace

bool treeSymlinkStaysInside(std::string_view linkPath, std::string_view target) {
  if (target.empty() || target.front() == '/') return false;
  // The depth of the link's directory below the top, then each component moves it.
  auto depth = static_cast<long>(std::count(linkPath.begin(), linkPath.end(), '/'));
  std::size_t start = 0;
  while (start < target.size()) {
    const std::size_t end = std::min(target.find('/', start), target.size());
    const std::string_view name = target.substr(start, end - start);
    if (name == "..") {
      if (--depth < 0) return false;
    } else if (!name.empty() && name != ".") {
      ++depth;
    }
    start = end + 1;
  }
  return true;
}

std::string encodePlainTreeIndex(const std::vector<TreeEntry>& entries) {
  std::string out;
  putVarint(out, entries.size());
  std::string_view before;
  std::int64_t mtimeBefore = 0;
  for (const TreeEntry& e : entries) {
    const bool held = e.kind == TreeEntryKind::kFile && e.size > 0 && e.offset == kHeldOffset;
    const bool withSha256 = held && e.withSha256;
    out += static_cast<char>(static_cast<std::uint8_t>(e.kind) | (held ? kHeldFlag : 0) |
                             (withSha256 ? kSha256Flag : 0));
    std::size_t shared = 0;
    while (shared < before.size() && shared < e.path.size() && before[shared] == e.path[shared]) ++shared;
    putVarint(out, shared);
    putBytes(out, std::string_view(e.path).substr(shared));
    putVarint(out, e.mode);
    putVarint(out, zigzag(static_cast<std::int64_t>(static_cast<std::uint64_t>(e.mtimeNs) -
                                                     static_cast<std::uint64_t>(mtimeBefore))));
    if (e.kind == TreeEntryKind::kFile) {
      putVarint(out, e.size);
      if (!held) putVarint(out, e.offset);
      if (withSha256) out.append(reinterpret_cast<const char*>(e.sha256.data()), e.sha256.size());
    } else if (e.kind == TreeEntryKind::kSymlink) {
      putBytes(out, e.target);
    }
    before = e.path;
    mtimeBefore = e.mtimeNs;
  }
  return out;
}

std::string encodeTreeIndex(const std::vector<TreeEntry>& entries) {
  return compressTreeIndex(encodePlainTreeIndex(entries));
}

std::uint32_t receivedMode(TreeEntryKind kind, std::uint32_t mode) {
  mode &= ~std::uint32_t{S_ISUID | S_ISGID};
  return kind == TreeEntryKind::kDirectory ? mode : mode & ~std::uint32_t{S_ISVTX};
}

Result<std::vector<TreeEntry>> decodeTreeIndex(std::string_view bytes, std::uint64_t dataStart,
                                               std::uint64_t bundleSize, std::size_t* clearedModes) {
  auto plain = expandTreeIndex(bytes);
  if (!plain) return plain.error();
  return decodePlainTreeIndex(*plain, dataStart, bundleSize, clearedModes);
}

Result<std::vector<TreeEntry>> decodePlainTreeIndex(std::string_view bytes, std::uint64_t dataStart,
                                                    std::uint64_t bundleSize, std::size_t* clearedModes) {
  Reader in(bytes);
  std::uint64_t count = 0;
  if (!in.varint(count)) return Error{"the tree index is shorter than its entry count; the bundle is damaged"};
  if (count > kMaxTreeEntries)
    return Error{"the tree index lists " + std::to_string(count) + " entries, more than " +
                 std::to_string(kMaxTreeEntries) + "; the bundle is damaged or was not written by hnow"};
  std::vector<TreeEntry> entries;
  // The smallest entry (a directory, one byte more of path) takes 6 bytes.
  entries.reserve(std::min<std::uint64_t>(count, in.left() / 6));
  std::string previous;  // the path of the entry before, for the prefix
  std::int64_t mtimeBefore = 0;
  // Paths seen so far (copies: the entries' strings move as the vector grows).
  std::unordered_map<std::string, TreeEntryKind> seen;
  for (std::size_t k = 0; k < count; ++k) {
    std::uint64_t kind = 0, mode = 0, mtime = 0, shared = 0;
    if (!in.byte(kind)) return truncated(k, "kind");
    const std::uint64_t flags = kind & ~std::uint64_t{kKindMask};
    kind &= kKindMask;
    if (kind < 1 || kind > 3)
      return Error{"tree index entry " + std::to_string(k) + ": unknown kind " + std::to_string(kind) +
                   " (1 directory, 2 file, 3 symlink); the bundle is damaged or was not written by hnow"};
    if ((flags & ~std::uint64_t{kHeldFlag | kSha256Flag}) != 0 || (kind != 2 && flags != 0) ||
        flags == kSha256Flag)
      return Error{"tree index entry " + std::to_string(k) + ": unknown flags " + std::to_string(flags) +
                   "; the bundle is damaged or was not written by hnow"};
    std::string_view suffix;
    bool tooLong = false;
    if (!in.varint(shared)) return truncated(k, "path");
    if (shared > previous.size())
      return Error{"tree index entry " + std::to_string(k) + ": its path shares " + std::to_string(shared) +
                   " bytes with the one before, which has " + std::to_string(previous.size()) +
                   "; the bundle is damaged or was not written by hnow"};
    if (!in.sized(suffix, kMaxTreePathBytes - shared, tooLong)) {
      if (tooLong)
        return Error{"tree index entry " + std::to_string(k) + ": its path is longer than " +
                     std::to_string(kMaxTreePathBytes) + " bytes; the bundle is damaged or was not written by hnow"};
      return truncated(k, "path");
    }
    previous.resize(shared);
    previous.append(suffix);
    const std::string_view path = previous;
    if (auto problem = pathProblem(path)) return entryError(k, path, *problem);
    if (!in.varint(mode) || !in.varint(mtime)) return truncated(k, "mode and mtime");
    if (mode > 07777) return entryError(k, path, "its mode " + std::to_string(mode) + " has bits beyond 07777");
    TreeEntry e;
    e.kind = static_cast<TreeEntryKind>(kind);
    e.mode = receivedMode(e.kind, static_cast<std::uint32_t>(mode));
    if (clearedModes && e.mode != mode) ++*clearedModes;
    e.mtimeNs = static_cast<std::int64_t>(static_cast<std::uint64_t>(mtimeBefore) +
                                          static_cast<std::uint64_t>(unzigzag(mtime)));
    mtimeBefore = e.mtimeNs;
    if (e.kind == TreeEntryKind::kFile) {
      const bool held = (flags & kHeldFlag) != 0;  // no bytes here: the receiver holds them
      if (!in.varint(e.size)) return truncated(k, "size");
      if (held && e.size == 0) return entryError(k, path, "it is held and empty (an empty file is always sent)");
      if (!held && !in.varint(e.offset)) return truncated(k, "offset");
      if (!held && e.offset == kHeldOffset && e.size > 0)
        return entryError(k, path, "its offset is 0, which only a held file names");
      e.withSha256 = (flags & kSha256Flag) != 0;
      if (e.withSha256) {
        std::string_view sha;
        if (!in.take(e.sha256.size(), sha)) return truncated(k, "digest");
        std::memcpy(e.sha256.data(), sha.data(), sha.size());
      }
      if (!held && (e.offset < dataStart || e.size > bundleSize || e.offset > bundleSize - e.size))
        return entryError(k, path, "its " + std::to_string(e.size) + " bytes at offset " + std::to_string(e.offset) +
                                       " lie outside the bundle's data [" + std::to_string(dataStart) + ", " +
                                       std::to_string(bundleSize) + ")");
    } else if (e.kind == TreeEntryKind::kSymlink) {
      std::string_view target;
      if (!in.sized(target, kMaxTreePathBytes, tooLong)) {
        if (tooLong)
          return entryError(k, path, "its symlink target is longer than " + std::to_string(kMaxTreePathBytes) +
                                         " bytes");
        return truncated(k, "symlink target");
      }
      if (target.find('\0') != std::string_view::npos) return entryError(k, path, "its symlink target holds a NUL byte");
      if (!treeSymlinkStaysInside(path, target))
        return entryError(k, path, "its symlink target \"" + printable(target) +
                                       (target.empty() ? "\" is empty"
                                        : target.front() == '/' ? "\" is absolute"
                                                                : "\" leads outside the tree"));
      e.target = std::string(target);
    }
    const std::string_view parent = parentOf(path);
    if (!parent.empty()) {
      auto it = seen.find(std::string(parent));
      if (it == seen.end())
        return entryError(k, path, "its directory \"" + printable(parent) + "\" is not listed before it");
      if (it->second != TreeEntryKind::kDirectory)
        return entryError(k, path, std::string("it lies under \"") + printable(parent) + "\", which is a " +
                                       kindName(it->second) + ", not a directory");
    }
    if (!seen.emplace(previous, e.kind).second) return entryError(k, path, "its path is listed twice");
    e.path = previous;
    entries.push_back(std::move(e));
  }
  if (in.left() > 0)
    return Error{"the tree index has " + std::to_string(in.left()) +
                 " bytes after its last entry; the bundle is damaged or was not written by hnow"};
  // No two files' bytes overlap: sorted by offset, each non-empty range
  // ends before the next starts. Held files have no range.
  std::vector<std::size_t> files;
  for (std::size_t k = 0; k < entries.size(); ++k)
    if (entries[k].kind == TreeEntryKind::kFile && entries[k].size > 0 && entries[k].offset != kHeldOffset)
      files.push_back(k);
  std::sort(files.begin(), files.end(),
            [&](std::size_t a, std::size_t b) { return entries[a].offset < entries[b].offset; });
  for (std::size_t i = 1; i < files.size(); ++i) {
    const TreeEntry& before = entries[files[i - 1]];
    const TreeEntry& at = entries[files[i]];
    if (before.offset + before.size > at.offset)
      return entryError(files[i], at.path, "its bytes from offset " + std::to_string(at.offset) +
                                                " overlap those of entry " + std::to_string(files[i - 1]) + " (\"" +
                                                printable(before.path) + "\")");
  }
  return entries;
}

Result<TreeIndex> readTreeIndex(int bundleFd) {
  struct stat info {};
  if (::fstat(bundleFd, &info) != 0) return Error{std::string("cannot stat the tree's bundle: ") + std::strerror(errno)};
  return readTreeIndex(bundleFd, static_cast<std::uint64_t>(info.st_size));
}

Result<TreeIndex> readTreeIndex(int bundleFd, std::uint64_t size) {
  const std::string damaged = "; the bundle is damaged or was not written by hnow";
  auto readAt = [&](std::string& out, std::uint64_t offset) -> Result<void> {
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = ::pread(bundleFd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error{std::string("cannot read the tree's bundle: ") + std::strerror(errno)};
      if (n == 0) return Error{"the tree's bundle ends at byte " + std::to_string(offset + done) + damaged};
      done += static_cast<std::size_t>(n);
    }
    return {};
  };
  if (size < kTreeHeaderBytes)
    return Error{"the tree's bundle is " + std::to_string(size) + " bytes, shorter than its header" + damaged};
  std::string header(kTreeHeaderBytes, '\0');
  if (auto read = readAt(header, 0); !read) return read.error();
  if (std::string_view(header).substr(0, kTreeMagic.size()) == "HNOWTRE1")
    return Error{"the bundle is of the format HNOWTRE1, from an older hnowd; run the same hnow on hnowd and agents"};
  if (std::string_view(header).substr(0, kTreeMagic.size()) != kTreeMagic)
    return Error{"the file does not start with " + std::string(kTreeMagic) + damaged};
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(header[8 + i]);
  if (length > kMaxTreeIndexBytes || length > size - kTreeHeaderBytes)
    return Error{"the tree's index claims " + std::to_string(length) + " bytes, more than the bundle's " +
                 std::to_string(size - kTreeHeaderBytes) + " after its header (at most " +
                 std::to_string(kMaxTreeIndexBytes) + ")" + damaged};
  std::string index(length, '\0');
  if (auto read = readAt(index, kTreeHeaderBytes); !read) return read.error();
  const std::uint64_t dataStart = kTreeHeaderBytes + length;
  std::size_t cleared = 0;
  auto entries = decodeTreeIndex(index, dataStart, size, &cleared);
  if (!entries) return entries.error();
  return TreeIndex{std::move(entries).value(), dataStart, cleared};
}

bool isTreeStagingName(const std::string& name) {
  constexpr std::string_view kMiddle = ".hnow-stage-";
  constexpr std::size_t kHex = 16;
  if (name.size() < 1 + 1 + kMiddle.size() + kHex || name.front() != '.') return false;
  const std::size_t hexAt = name.size() - kHex;
  if (name.compare(hexAt - kMiddle.size(), kMiddle.size(), kMiddle) != 0) return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(hexAt), name.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace hnow::transport::data
