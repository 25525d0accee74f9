// What an earlier process of an agent left in a receive's temp file
// (leftover_bytes.h): the lists of chunk digests kept on disk, the check of
// the bytes against the source's digests, and a receive that resumes after
// the bytes that matched (ReceiveTarget::heldBytes).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "cli/run_process.h"
#include "transport/data/chunk_digests.h"
#include "transport/data/data_plane.h"
#include "transport/data/frame.h"
#include "transport/data/leftover_bytes.h"
#include "transport/data_plane_nodes.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

constexpr std::uint32_t kChunk = 4096;                   // 128 chunks a piece: 512 KiB
constexpr std::uint64_t kPiece = std::uint64_t{kChunk} * 128;

// What a receiver is told of `source`'s digests: the pieces only.
ChunkDigests told(const ChunkDigests& source) {
  ChunkDigests d;
  REQUIRE(d.expect(source.chunkBytes, source.size, source.pieceBytes()));
  return d;
}

// A temp file holding `bytes` as an earlier process left them.
int leftover(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(fd >= 0);
  return fd;
}

// A file hnowd serves with its digests (in kChunk chunks) under `token`,
// and a receiver `b` it is sent to, whose temp file is `target` (in b/).
struct Served {
  TempDir dir;
  std::string bytes;
  ChunkDigests digests;
  std::string token;
  Node source, b;
  ReceiveTarget target;
  Served(std::size_t size, char name)
      : bytes(randomBytes(size)), digests(chunkDigestsOf(bytes, kChunk)), token(kTokenBytes, name) {
    std::ofstream(dir.path / "source", std::ios::binary) << bytes;
    source.plane.addSource(token, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), bytes.size(), digests);
    target = targetIn(dir.path / "b", "f");
  }
  // The target holds `left` as an earlier process left it.
  void leave(const std::string& left) {
    REQUIRE(::pwrite(target.fileFd, left.data(), left.size(), 0) == static_cast<ssize_t>(left.size()));
    target.heldBytes = left.size();
  }
  // Received into the target: true once the file is in place.
  bool received() {
    b.plane.receive(token, bytes.size(), shaOf(bytes), std::move(target), told(digests));
    b.plane.pull(token, source.address);
    return b.events.waitFor(TransferEvent::Kind::kDone).has_value();
  }
};

}  // namespace

TEST_CASE("kept lists of chunk digests read back whole, and an entry torn at the end is left out") {
  const KeptList a{0, 0, std::string(64, 'a')}, b{3, kPiece, std::string(96, 'b')};
  const std::string bytes = encodeKeptList(a) + encodeKeptList(b);
  auto back = decodeKeptLists(bytes);
  REQUIRE(back.size() == 2);
  CHECK(back[1].range == 3);
  CHECK(back[1].offset == kPiece);
  CHECK(back[1].digests == b.digests);
  CHECK(decodeKeptLists(bytes.substr(0, bytes.size() - 1)).size() == 1);
  CHECK(decodeKeptLists(bytes.substr(0, 5)).empty());
}

TEST_CASE("leftover bytes count as far as their chunks match: whole pieces by hnowd's digests alone, a partial piece by its kept list") {
  TempDir dir;
  const std::string bytes = randomBytes(2 << 20);  // 4 pieces
  const ChunkDigests source = chunkDigestsOf(bytes, kChunk);
  const std::uint64_t held = 2 * kPiece + 10 * kChunk + 100;  // a torn chunk at the end
  const int fd = leftover(dir.path / "left", bytes.substr(0, held));
  const std::vector<KeptList> third{{0, 2 * kPiece, source.listOf(2)}};

  ChunkDigests withList = told(source);
  CHECK(checkLeftover(fd, 0, 0, held, withList, third) == 2 * kPiece + 10 * kChunk);
  CHECK(withList.holdsList(0));
  CHECK(withList.holdsList(2));  // served on to children as it is
  CHECK_FALSE(withList.holdsList(3));

  // Without the partial piece's list only the whole pieces count.
  ChunkDigests without = told(source);
  CHECK(checkLeftover(fd, 0, 0, held, without, {}) == 2 * kPiece);
  // A list that is not the source's is not taken.
  ChunkDigests forged = told(source);
  CHECK(checkLeftover(fd, 0, 0, held, forged, {{0, 2 * kPiece, std::string(source.listOf(2).size(), 'x')}}) == 2 * kPiece);
  // Another range's list does not count for this one.
  ChunkDigests elsewhere = told(source);
  CHECK(checkLeftover(fd, 0, 0, held, elsewhere, {{1, 2 * kPiece, source.listOf(2)}}) == 2 * kPiece);
  // No digests: a receive that checks only the whole file starts over.
  ChunkDigests none;
  CHECK(checkLeftover(fd, 0, 0, held, none, third) == 0);
  ::close(fd);
}

TEST_CASE("a leftover byte that differs from the source's ends what counts at its chunk, or at its piece when the piece has no list") {
  TempDir dir;
  const std::string bytes = randomBytes(2 << 20);
  const ChunkDigests source = chunkDigestsOf(bytes, kChunk);
  std::string left = bytes.substr(0, 3 * kPiece);
  left[2 * kPiece + 7 * kChunk + 5] ^= 1;  // in the listed piece
  int fd = leftover(dir.path / "a", left);
  ChunkDigests d = told(source);
  CHECK(checkLeftover(fd, 0, 0, left.size(), d, {{0, 2 * kPiece, source.listOf(2)}}) == 2 * kPiece + 7 * kChunk);
  ::close(fd);

  left = bytes.substr(0, 3 * kPiece);
  left[kPiece + 3] ^= 1;  // in a piece held whole, with no list kept
  fd = leftover(dir.path / "b", left);
  ChunkDigests e = told(source);
  CHECK(checkLeftover(fd, 0, 0, left.size(), e, {}) == kPiece);
  ::close(fd);

  // A range checks from its own start in the file.
  left = std::string(1000, 'z') + bytes.substr(0, kPiece + kChunk);
  fd = leftover(dir.path / "c", left);
  ChunkDigests f = told(source);
  CHECK(checkLeftover(fd, 0, 1000, kPiece + kChunk, f, {{0, kPiece, source.listOf(1)}}) == kPiece + kChunk);
  ::close(fd);
}

TEST_CASE("a receive given an earlier process's leftover pulls only what did not match, keeps the lists it takes, and the file verifies") {
  Served sent(3 << 20, 'r');
  // Left: 1.5 pieces and a torn chunk, then a flipped byte the check must catch.
  std::string left = sent.bytes.substr(0, kPiece + kPiece / 2 + 200);
  left[kPiece + 20 * kChunk + 9] ^= 0x40;
  sent.leave(left);
  sent.target.keptLists = {{0, kPiece, sent.digests.listOf(1)}};
  const fs::path listsFile = sent.dir.path / "lists";
  sent.target.listsFd = ::open(listsFile.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  REQUIRE(sent.received());
  CHECK(readWhole(sent.dir.path / "b" / "f") == sent.bytes);
  const std::uint64_t good = kPiece + 20 * kChunk;
  // The parent serves from the first chunk that differed: nothing before it moves again.
  CHECK(sent.b.plane.bytesReceived() == sent.bytes.size() - good);
  // The lists it took from the parent were kept for a later process: those
  // of the pieces after the one it resumed in (that one's it held already).
  std::ifstream in(listsFile, std::ios::binary);
  const std::string kept((std::istreambuf_iterator<char>(in)), {});
  auto lists = decodeKeptLists(kept);
  REQUIRE(lists.size() == 4);
  CHECK(lists.front().offset == 2 * kPiece);
  CHECK(lists.back().offset == 5 * kPiece);
}

TEST_CASE("a receive whose leftover holds the whole file renames it into place once checked, pulling nothing") {
  Served sent(1 << 20, 'w');
  sent.leave(sent.bytes);
  REQUIRE(sent.received());
  CHECK(readWhole(sent.dir.path / "b" / "f") == sent.bytes);
  CHECK(sent.b.plane.bytesReceived() == 0);
}

TEST_CASE("a file in two ranges resumes each range from its own leftover bytes") {
  TempDir dir;
  const std::string bytes = randomBytes(2 << 20);
  std::ofstream(dir.path / "source", std::ios::binary) << bytes;
  const std::string file(kTokenBytes, 'F');
  std::vector<ByteRange> sent, asked;
  for (std::uint64_t k = 0; k < 2; ++k) {
    ByteRange r;
    r.token = std::string(kTokenBytes, static_cast<char>('a' + k));
    r.offset = k << 20;
    r.length = 1 << 20;
    r.sha256 = shaOf(bytes.substr(r.offset, r.length));
    r.digests = chunkDigestsOf(bytes.substr(r.offset, r.length), kChunk);
    sent.push_back(r);
    r.digests = told(r.digests);
    asked.push_back(r);
  }
  Node source, b;
  source.plane.addSourceRanges(file, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), sent, kChunk);
  ReceiveTarget t = targetIn(dir.path / "b", "f");
  // The first range reached 300 KiB, the second 700 KiB (a piece and a half):
  // the file's length is the second's end.
  const std::uint64_t firstHeld = 300 << 10, secondHeld = 700 << 10;
  REQUIRE(::pwrite(t.fileFd, bytes.data(), firstHeld, 0) == static_cast<ssize_t>(firstHeld));
  REQUIRE(::pwrite(t.fileFd, bytes.data() + (1 << 20), secondHeld, 1 << 20) == static_cast<ssize_t>(secondHeld));
  t.heldBytes = (1 << 20) + secondHeld;
  t.keptLists = {{0, 0, sent[0].digests.listOf(0)}, {1, kPiece, sent[1].digests.listOf(1)}};
  b.plane.receiveRanges(file, asked, std::move(t), kChunk);
  for (const ByteRange& r : asked) b.plane.pull(r.token, source.address);
  REQUIRE(b.events.waitFor(TransferEvent::Kind::kDone));
  for (int i = 0; i < 200 && readWhole(dir.path / "b" / "f") != bytes; ++i) std::this_thread::sleep_for(10ms);
  CHECK(readWhole(dir.path / "b" / "f") == bytes);
  CHECK(b.plane.bytesReceived() == bytes.size() - firstHeld - secondHeld);
}
