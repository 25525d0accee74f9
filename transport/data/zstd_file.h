#pragma once
// A whole file compressed with zstd once at the source and expanded once at
// each receiver (docs/compression.md): `hnow send --compress`. Whole-file,
// not per chunk, so the data plane relays and checks the compressed file
// exactly as any other, and the plain bytes are checked again here against
// the source's SHA-256 after the expansion.
#include <cstdint>
#include <memory>
#include <optional>

#include "base/result.h"
#include "transport/data/data_plane.h"

namespace hnow::transport::data {

// Level 3 (zstd's default): several hundred MB/s per core on text, most of
// what the higher levels gain on the links hnow is for.
inline constexpr int kZstdLevel = 3;
// The largest window a receiver accepts (2^27 = 128 MiB): what a frame can
// make an agent allocate, hostile or not. Levels up to 19 use at most 2^23.
inline constexpr int kZstdWindowLogMax = 27;

struct CompressedFile {
  std::uint64_t plainSize = 0;
  std::uint64_t compressedSize = 0;
  Sha256 plainSha256{};
};

// `inFd` read from offset 0 (pread: its offset is left alone), `size` bytes,
// compressed into `outFd` (written from its current offset) as one frame at
// `level`, with two worker threads where libzstd has them; the plain bytes'
// SHA-256 taken in the same pass. Refused when the input is not `size`
// bytes (it changed since it was measured) or cannot be read or written.
Result<CompressedFile> compressFile(int inFd, std::uint64_t size, int outFd, int level = kZstdLevel);

// `inFd` (from offset 0) expanded into `outFd` (from its current offset).
// Refused, with what was wrong, when the input is not whole zstd frames,
// needs a window over 2^kZstdWindowLogMax, expands past `plainSize`, ends
// short of it, or does not match `plainSha256`. `outFd` may hold part of the
// output then: the caller removes it.
Result<void> decompressFile(int inFd, int outFd, std::uint64_t plainSize, const Sha256& plainSha256);

// decompressFile in steps, for a compressed file still being received: a
// frame expands in order, so each step takes the input's bytes landed
// since (up to `upTo`) and the output grows as they expand; finish() takes
// the rest, to the input's end, and checks the whole as decompressFile
// does. A step that fails is kept: every later call returns it.
class FileExpansion {
 public:
  FileExpansion(int outFd, std::uint64_t plainSize, const Sha256& plainSha256);  // outFd borrowed
  ~FileExpansion();
  FileExpansion(const FileExpansion&) = delete;
  FileExpansion& operator=(const FileExpansion&) = delete;
  Result<void> feed(int inFd, std::uint64_t upTo);
  Result<void> finish(int inFd);
  std::uint64_t produced() const { return produced_; }  // output bytes written, [0, produced)

 private:
  struct State;
  std::unique_ptr<State> state_;
  int outFd_;
  std::uint64_t plainSize_;
  Sha256 plainSha256_;
  std::uint64_t consumed_ = 0, produced_ = 0;
  std::size_t pending_ = 1;  // 0 once a frame ended and flushed
  std::optional<Error> failed_;
};

// What compressing a file would give, from up to 4 samples of 1 MiB spread
// over it (its start, a third, two thirds, its end) at kZstdLevel.
struct CompressionSample {
  std::uint64_t sampledBytes = 0;
  double ratio = 1.0;            // compressed / plain bytes over the samples
  double bytesPerSecond = 0.0;   // plain bytes compressed per second, one thread
};
Result<CompressionSample> sampleRatio(int fd, std::uint64_t size);

}  // namespace hnow::transport::data
