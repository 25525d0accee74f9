// The source's chunk digests (transport/data/chunk_digests.h): what the
// source cuts, what a receiver takes from its parent and what it refuses.
#include <doctest/doctest.h>

#include "transport/data/chunk_digests.h"
#include "transport/data/frame.h"

using namespace hnow::transport::data;

namespace {

std::string bytesOf(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 131 + i / 4096);
  return s;
}

// A receiver's digests for `bytes`, from what hnowd sends of the source's.
ChunkDigests receiverOf(const ChunkDigests& source) {
  ChunkDigests receiver;
  REQUIRE(receiver.expect(source.chunkBytes, source.size, source.pieceBytes()));
  return receiver;
}

}  // namespace

TEST_CASE("the source cuts chunks of exactly the chunk size, the last shorter, and a piece digests its chunks' list") {
  const std::uint32_t chunk = 4096;  // 128 chunks a piece
  const std::string bytes = bytesOf(300 * 4096 + 100);
  ChunkHasher hasher(chunk);
  // Fed in pieces that straddle the chunks' edges.
  for (std::size_t at = 0; at < bytes.size(); at += 1000)
    hasher.update(bytes.data() + at, std::min<std::size_t>(1000, bytes.size() - at));
  const ChunkDigests d = hasher.finish();
  REQUIRE(d.chunks.size() == 301);
  CHECK(chunkCount(bytes.size(), chunk) == 301);
  CHECK(d.chunks[0] == sha256Of(std::string_view(bytes).substr(0, chunk)));
  CHECK(d.chunks[300] == sha256Of(std::string_view(bytes).substr(300 * 4096)));
  REQUIRE(d.pieces.size() == 3);
  CHECK(pieceCount(bytes.size(), chunk) == 3);
  CHECK(d.pieces[0] == sha256Of(d.listOf(0)));
  CHECK(d.listOf(0).size() == 128 * kDigestBytes);
  CHECK(d.listOf(2).size() == 45 * kDigestBytes);
  CHECK(d.pieceStart(2) == 2 * 128 * 4096);
  CHECK(d.pieceBytes().size() == 3 * kDigestBytes);
  // The same in one call.
  CHECK(chunkDigestsOf(bytes, chunk).pieces == d.pieces);
  // An empty file has no chunks and no pieces.
  CHECK(chunkDigestsOf("", chunk).pieces.empty());
}

TEST_CASE("a receiver takes each piece's list only when it matches hnowd's piece digest, then checks every chunk against it") {
  const std::uint32_t chunk = 4096;
  const std::string bytes = bytesOf(200 * 4096);
  const ChunkDigests source = chunkDigestsOf(bytes, chunk);
  ChunkDigests receiver = receiverOf(source);
  std::string why;
  // A chunk before its piece's list is refused: its parent skipped it.
  CHECK_FALSE(receiver.check(0, std::string_view(bytes).substr(0, chunk), why));
  CHECK(why.find("before its piece's digests") != std::string::npos);
  // A list rewritten by a relay, or put at another piece, is refused.
  std::string forged = source.listOf(0);
  forged[5] ^= 1;
  CHECK_FALSE(receiver.takeList(0, forged, why));
  CHECK(why.find("differ from the source's") != std::string::npos);
  CHECK_FALSE(receiver.takeList(receiver.pieceStart(1), source.listOf(0), why));
  CHECK_FALSE(receiver.takeList(100, source.listOf(0), why));
  CHECK(why.find("where no piece starts") != std::string::npos);
  CHECK_FALSE(receiver.takeList(0, source.listOf(0).substr(32), why));
  CHECK_FALSE(receiver.holdsList(0));
  // The true list is taken; the source's chunks pass.
  REQUIRE(receiver.takeList(0, source.listOf(0), why));
  CHECK(receiver.holdsList(0));
  CHECK(receiver.check(0, std::string_view(bytes).substr(0, chunk), why));
  CHECK(receiver.check(127 * 4096, std::string_view(bytes).substr(127 * 4096, chunk), why));
  // A rewritten chunk, a chunk cut elsewhere or short, and one of a piece
  // whose list has not come are refused, each saying where.
  std::string rewritten(bytes.substr(4096, chunk));
  rewritten[100] ^= 0x20;
  CHECK_FALSE(receiver.check(4096, rewritten, why));
  CHECK(why == "the chunk at byte 4096 differs from the source's (SHA-256)");
  CHECK_FALSE(receiver.check(2048, std::string_view(bytes).substr(2048, chunk), why));
  CHECK_FALSE(receiver.check(4096, std::string_view(bytes).substr(4096, chunk - 1), why));
  CHECK(why.find("not one of the source's 4096-byte chunks") != std::string::npos);
  CHECK_FALSE(receiver.check(128 * 4096, std::string_view(bytes).substr(128 * 4096, chunk), why));
  // A relay serves on what it took, list for list.
  REQUIRE(receiver.takeList(receiver.pieceStart(1), source.listOf(1), why));
  CHECK(receiver.listOf(1) == source.listOf(1));
}

TEST_CASE("hnowd's piece digests are taken only in the count the chunks cut the bytes into") {
  const ChunkDigests source = chunkDigestsOf(bytesOf(10 * 8192 * 256 + 1), 8192);  // 11 pieces
  ChunkDigests receiver;
  CHECK(receiver.expect(8192, source.size, source.pieceBytes()));
  CHECK_FALSE(receiver.expect(8192, source.size, source.pieceBytes().substr(32)));
  CHECK_FALSE(receiver.expect(8192, source.size - 1, source.pieceBytes()));
  CHECK_FALSE(receiver.expect(2048, source.size, source.pieceBytes()));
  CHECK_FALSE(receiver.expect(8192 + 1, source.size, source.pieceBytes()));
  CHECK_FALSE(digestChunkOk(256 * 1024));
  CHECK(digestChunkOk(kChunkBytes));
}

TEST_CASE("a DIGESTS frame must carry whole digests within the payload limit, or the stream fails") {
  for (std::size_t bad : {std::size_t{0}, std::size_t{33}, std::size_t{kChunkBytes + 32}}) {
    FrameDecoder decoder;
    const std::string wire = encodeFrame(FrameType::kDigests, 0, std::string(bad, 'd'));
    decoder.feed(wire.data(), wire.size());
    CHECK_FALSE(decoder.next());
    CHECK(decoder.failed());
  }
  FrameDecoder decoder;
  const std::string wire = encodeFrame(FrameType::kDigests, 4096, std::string(64, 'd'));
  decoder.feed(wire.data(), wire.size());
  auto frame = decoder.next();
  REQUIRE(frame);
  CHECK(frame->type == FrameType::kDigests);
  CHECK(checksumOk(*frame));
}
