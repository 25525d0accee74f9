#include "transport/data/digest_cache.h"

#include <sys/stat.h>

#include <atomic>
#include <ctime>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "transport/data/file_digest.h"

namespace hnow::transport::data {

namespace {

// Enough for the files a lab sends whole; the oldest goes first.
constexpr std::size_t kMaxEntries = 4096;

struct Stamp {
  off_t size = 0;
  timespec mtime{}, ctime{};
  bool operator==(const Stamp& o) const {
    return size == o.size && mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec &&
           ctime.tv_sec == o.ctime.tv_sec && ctime.tv_nsec == o.ctime.tv_nsec;
  }
};

Stamp stampOf(const struct stat& info) { return {info.st_size, info.st_mtim, info.st_ctim}; }

using Inode = std::pair<dev_t, ino_t>;

// Chunk digests are 32 bytes per chunk (256 KiB a GiB in 128 KiB chunks):
// this keeps those of 256 GiB of sources.
constexpr std::size_t kMaxChunkDigestBytes = 64 << 20;

struct Chunked {
  Stamp stamp;
  std::shared_ptr<const FileDigests> digests;
};

struct Cache {
  std::mutex mutex;
  std::map<Inode, std::pair<Stamp, Sha256>> entries;
  std::deque<Inode> order;  // insertion order, for eviction
  std::map<Inode, Chunked> chunked;
  std::deque<Inode> chunkedOrder;
  std::size_t chunkedBytes = 0;
};

std::size_t bytesOf(const FileDigests& d) { return (d.chunks.chunks.size() + d.chunks.pieces.size()) * sizeof(Sha256); }

Cache& cache() {
  static Cache c;
  return c;
}

std::atomic<std::uint64_t> reads{0};

// With c.mutex held.
void remember(Cache& c, const Inode& inode, const Stamp& stamp, const Sha256& digest) {
  if (c.entries.insert_or_assign(inode, std::make_pair(stamp, digest)).second) c.order.push_back(inode);
  while (c.entries.size() > kMaxEntries && !c.order.empty()) {
    c.entries.erase(c.order.front());
    c.order.pop_front();
  }
}

// With c.mutex held.
void rememberChunked(Cache& c, const Inode& inode, const Stamp& stamp, const FileDigests& digests) {
  remember(c, inode, stamp, digests.whole);
  auto& slot = c.chunked[inode];
  if (slot.digests) c.chunkedBytes -= bytesOf(*slot.digests);
  else c.chunkedOrder.push_back(inode);
  slot = {stamp, std::make_shared<const FileDigests>(digests)};
  c.chunkedBytes += bytesOf(digests);
  while (c.chunkedBytes > kMaxChunkDigestBytes && !c.chunkedOrder.empty()) {
    auto old = c.chunked.find(c.chunkedOrder.front());
    c.chunkedOrder.pop_front();
    if (old == c.chunked.end()) continue;
    c.chunkedBytes -= bytesOf(*old->second.digests);
    c.chunked.erase(old);
  }
}

}  // namespace

Result<Sha256> rememberedSha256(int fd) {
  struct stat before {};
  if (::fstat(fd, &before) != 0 || !S_ISREG(before.st_mode)) return sha256OfFile(fd);
  const Inode inode{before.st_dev, before.st_ino};
  {
    Cache& c = cache();
    std::lock_guard lock(c.mutex);
    auto it = c.entries.find(inode);
    if (it != c.entries.end() && it->second.first == stampOf(before)) return it->second.second;
  }
  timespec started{};
  ::clock_gettime(CLOCK_REALTIME, &started);
  reads.fetch_add(1, std::memory_order_relaxed);
  auto digest = sha256OfFile(fd);
  if (!digest) return digest;
  struct stat after {};
  const bool settled = ::fstat(fd, &after) == 0 && stampOf(after) == stampOf(before) &&
                       before.st_ctim.tv_sec + 1 < started.tv_sec;
  if (settled) {
    Cache& c = cache();
    std::lock_guard lock(c.mutex);
    remember(c, inode, stampOf(before), *digest);
  }
  return digest;
}

void rememberWritten(int fd, const FileDigests& digests) {
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || bytesOf(digests) > kMaxChunkDigestBytes) return;
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  rememberChunked(c, {info.st_dev, info.st_ino}, stampOf(info), digests);
}

Result<FileDigests> rememberedDigests(int fd, std::uint32_t chunkBytes) {
  struct stat before {};
  if (::fstat(fd, &before) != 0 || !S_ISREG(before.st_mode)) return digestsOfFile(fd, chunkBytes);
  const Inode inode{before.st_dev, before.st_ino};
  {
    Cache& c = cache();
    std::lock_guard lock(c.mutex);
    auto it = c.chunked.find(inode);
    if (it != c.chunked.end() && it->second.stamp == stampOf(before) && it->second.digests->chunks.chunkBytes == chunkBytes)
      return *it->second.digests;
  }
  timespec started{};
  ::clock_gettime(CLOCK_REALTIME, &started);
  reads.fetch_add(1, std::memory_order_relaxed);
  auto digests = digestsOfFile(fd, chunkBytes);
  if (!digests) return digests;
  struct stat after {};
  const bool settled = ::fstat(fd, &after) == 0 && stampOf(after) == stampOf(before) &&
                       before.st_ctim.tv_sec + 1 < started.tv_sec;
  if (settled && bytesOf(*digests) <= kMaxChunkDigestBytes) {
    Cache& c = cache();
    std::lock_guard lock(c.mutex);
    rememberChunked(c, inode, stampOf(before), *digests);
  }
  return digests;
}

std::uint64_t digestReads() { return reads.load(std::memory_order_relaxed); }

void forgetDigests() {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  c.entries.clear();
  c.order.clear();
  c.chunked.clear();
  c.chunkedOrder.clear();
  c.chunkedBytes = 0;
}

}  // namespace hnow::transport::data
