#include "transport/data/leftover_bytes.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace hnow::transport::data {

namespace {

constexpr std::size_t kHeaderBytes = 4 + 8 + 4;

template <class T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <class T>
T take(std::string_view bytes, std::size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

bool readAll(int fd, std::uint64_t at, char* into, std::size_t length) {
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd, into + done, length - done, static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::string encodeKeptList(const KeptList& list) {
  std::string out;
  put(out, list.range);
  put(out, list.offset);
  put(out, static_cast<std::uint32_t>(list.digests.size()));
  out += list.digests;
  return out;
}

std::vector<KeptList> decodeKeptLists(std::string_view bytes) {
  std::vector<KeptList> out;
  std::size_t at = 0;
  while (bytes.size() - at >= kHeaderBytes) {
    KeptList list;
    list.range = take<std::uint32_t>(bytes, at);
    list.offset = take<std::uint64_t>(bytes, at + 4);
    const std::uint32_t length = take<std::uint32_t>(bytes, at + 12);
    if (bytes.size() - at - kHeaderBytes < length) break;
    list.digests.assign(bytes.substr(at + kHeaderBytes, length));
    at += kHeaderBytes + length;
    out.push_back(std::move(list));
  }
  return out;
}

std::string readKeptLists(int fd) {
  std::string out;
  char buffer[1 << 16];
  for (std::uint64_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return {};
    if (n == 0) return out;
    out.append(buffer, static_cast<std::size_t>(n));
    at += static_cast<std::uint64_t>(n);
  }
}

std::uint64_t checkLeftover(int fd, std::uint32_t range, std::uint64_t base, std::uint64_t held,
                            ChunkDigests& digests, const std::vector<KeptList>& kept) {
  if (digests.empty() || fd < 0) return 0;
  held = std::min(held, digests.size);
  std::string why;
  for (const KeptList& list : kept)  // one that differs is not taken
    if (list.range == range) digests.takeList(list.offset, list.digests, why);
  std::string chunk;
  std::uint64_t good = 0;
  while (good < held) {
    const std::uint64_t piece = digests.pieceOf(good);
    const std::uint64_t pieceEnd =
        std::min(digests.size, digests.pieceStart(piece) + std::uint64_t{digests.chunkBytes} * chunksPerPiece(digests.chunkBytes));
    if (!digests.holdsList(piece)) {
      // Held whole: its list is the chunks' digests, checked by hnowd's.
      if (held < pieceEnd) return good;
      std::string list;
      for (std::uint64_t at = good; at < pieceEnd; at += digests.chunkBytes) {
        chunk.resize(static_cast<std::size_t>(std::min<std::uint64_t>(digests.chunkBytes, pieceEnd - at)));
        if (!readAll(fd, base + at, chunk.data(), chunk.size())) return good;
        const Sha256 d = sha256Of(chunk);
        list.append(reinterpret_cast<const char*>(d.data()), d.size());
      }
      if (!digests.takeList(good, list, why)) return good;
      good = pieceEnd;
      continue;
    }
    const std::uint64_t length = std::min<std::uint64_t>(digests.chunkBytes, digests.size - good);
    if (good + length > held) return good;
    chunk.resize(static_cast<std::size_t>(length));
    if (!readAll(fd, base + good, chunk.data(), chunk.size()) || !digests.check(good, chunk, why)) return good;
    good += length;
  }
  return good;
}

}  // namespace hnow::transport::data
