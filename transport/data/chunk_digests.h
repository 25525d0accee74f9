#pragma once
// End-to-end digests from the source (docs/security.md, "Data a relay
// alters"). The frame checksum (XXH3, frame.h) catches a flipped bit, not a
// relay that rewrites a chunk and computes the checksum again. So the source
// cuts what it serves into chunks of exactly `chunkBytes` (the last one
// shorter) and takes the SHA-256 of each; the chunks' digests are grouped
// into pieces of chunkBytes / 32 chunks, and a piece's digest is the SHA-256
// of its chunks' digests in order. Only the pieces' digests travel over
// hnowd's authenticated control channel (32 bytes per piece: 32 bytes per
// 512 MiB in 128 KiB chunks), so they cost hnowd's uplink next to nothing
// however many agents receive. A piece's chunk digests travel in-band, in a
// DIGESTS frame its parent sends before the piece's first chunk, checked
// against the piece's digest before any chunk of it is taken. BitTorrent v2
// (BEP 52) sends its piece layers beside the data under one trusted root
// for the same reason.
//
// A receiver checks every chunk before it writes it, so it never holds,
// relays or acknowledges a byte the source did not serve, and a bad
// relay is caught at its first altered chunk by its own children (and only
// them: an honest relay never passes on what it could not check). Pure: no
// sockets, no files.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hnow::transport::data {

using Sha256 = std::array<unsigned char, 32>;

inline constexpr std::size_t kDigestBytes = 32;

// Chunks in one piece: a piece's list of digests fills one chunk.
std::uint32_t chunksPerPiece(std::uint32_t chunkBytes);
std::uint64_t chunkCount(std::uint64_t size, std::uint32_t chunkBytes);
std::uint64_t pieceCount(std::uint64_t size, std::uint32_t chunkBytes);
// Whether `chunkBytes` may cut digests: 4 KiB to the largest DATA payload
// (kChunkBytes), a multiple of 32.
bool digestChunkOk(std::uint32_t chunkBytes);

Sha256 sha256Of(std::string_view bytes);

// Everything a node of an operation knows of its digests.
struct ChunkDigests {
  std::uint32_t chunkBytes = 0;  // 0: none (whole-file SHA-256 only)
  std::uint64_t size = 0;        // the operation's bytes
  std::vector<Sha256> pieces;    // from hnowd
  // Every chunk's at the source; at a receiver, those of the pieces whose
  // lists arrived and matched (listed[piece]), to check chunks and serve on.
  std::vector<Sha256> chunks;
  std::vector<bool> listed;

  bool empty() const { return chunkBytes == 0; }
  // A receiver's, from what hnowd sent: `pieces` concatenated, 32 bytes
  // each, as many as the operation has. False for a wrong count or chunk.
  bool expect(std::uint32_t chunk, std::uint64_t operationSize, std::string_view pieceDigests);
  // The pieces as the control channel carries them.
  std::string pieceBytes() const;

  std::uint64_t pieceOf(std::uint64_t offset) const { return offset / (std::uint64_t{chunkBytes} * chunksPerPiece(chunkBytes)); }
  std::uint64_t pieceStart(std::uint64_t piece) const { return piece * chunkBytes * chunksPerPiece(chunkBytes); }
  bool holdsList(std::uint64_t piece) const { return piece < listed.size() && listed[piece]; }
  // The payload of piece `piece`'s DIGESTS frame (it must be held).
  std::string listOf(std::uint64_t piece) const;
  // A DIGESTS frame at `offset`: taken when it is piece-aligned and its
  // digest is the piece's; else why not.
  bool takeList(std::uint64_t offset, std::string_view payload, std::string& why);
  // A DATA frame at `offset`: true when it is exactly a chunk and its
  // SHA-256 is the one its piece's list gives; else why not.
  bool check(std::uint64_t offset, std::string_view payload, std::string& why) const;
};

// Cuts bytes fed in order into chunks and pieces (the source's pass over
// what it serves, together with the whole file's SHA-256).
class ChunkHasher {
 public:
  explicit ChunkHasher(std::uint32_t chunkBytes);
  ~ChunkHasher();
  ChunkHasher(const ChunkHasher&) = delete;
  ChunkHasher& operator=(const ChunkHasher&) = delete;
  void update(const char* data, std::size_t size);
  // Every chunk's digest and the pieces', all listed; the hasher is spent.
  ChunkDigests finish();

 private:
  struct Context;
  std::uint32_t chunkBytes_;
  std::uint64_t size_ = 0;
  std::uint64_t inChunk_ = 0;
  Context* context_;
  std::vector<Sha256> chunks_;
};

ChunkDigests chunkDigestsOf(std::string_view bytes, std::uint32_t chunkBytes);

}  // namespace hnow::transport::data
