#pragma once
// The SHA-256 of a whole file (docs/architecture.md "Integrity and security
// defaults": checked before the rename into place), for whoever serves a file:
// hnowd as a send's source, an agent as a manifest item's.
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "transport/data/data_plane.h"

namespace hnow::transport::data {

// A read buffer for a file of `size` bytes: 1 MiB, or the file's size (at
// least 4 KiB) when smaller. Hashing thousands of small files, each on a
// worker thread, with a 1 MiB buffer apiece leaves megabytes of heap in
// every thread's arena.
std::size_t readBufferBytes(std::uint64_t size);

// Reads `fd` from offset 0 with pread (its own offset is left alone); the
// digest, or why the file could not be read.
Result<Sha256> sha256OfFile(int fd);

// The same pass, also cutting the file into chunks of `chunkBytes` for the
// source's chunk digests (chunk_digests.h).
struct FileDigests {
  Sha256 whole{};
  ChunkDigests chunks;
};
Result<FileDigests> digestsOfFile(int fd, std::uint32_t chunkBytes);

// The SHA-256 of the whole file and of each byte range [ends[k-1], ends[k])
// (ends ascending, the last the file's size), in one pass over it: a
// striped file's ranges are checked apart (data_plane.h ByteRange); with
// `chunkBytes`, each range's chunk digests too, its chunks cut from its start.
struct RangeDigests {
  Sha256 whole{};
  std::vector<Sha256> ranges;
  std::vector<ChunkDigests> rangeChunks;  // with chunkBytes only
};
Result<RangeDigests> sha256OfRanges(int fd, const std::vector<std::uint64_t>& ends, std::uint32_t chunkBytes = 0);

// A file opened to be served: its descriptor, size and digest.
struct HashedFile {
  int fd = -1;
  std::uint64_t size = 0;
  Sha256 sha256{};
  ChunkDigests digests;  // with chunkBytes only
};
// `fd`, owned from now (closed when refused), checked to be a regular file
// and hashed (or its digest remembered: digest_cache.h); `path` names it in
// the reason it is refused. With `chunkBytes`, its chunk digests as well.
Result<HashedFile> hashedFile(int fd, const std::string& path, std::uint32_t chunkBytes = 0);

}  // namespace hnow::transport::data
