// The source's chunk digests on real data planes (chunk_digests.h): a relay
// that rewrites a chunk and computes its frame checksum again is caught by
// its child at that chunk; nothing of it is written or served on, and the
// child resumes from another parent.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "cli/run_process.h"
#include "transport/data/chunk_digests.h"
#include "transport/data/data_plane.h"
#include "transport/data/frame.h"
#include "transport/data_plane_nodes.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

// A file hnowd serves with its chunk digests; what receivers are told.
struct DigestedSource {
  std::string bytes;
  std::string token = std::string(kTokenBytes, 'd');
  ChunkDigests digests;
  DigestedSource(TempDir& dir, std::size_t size, DataPlane& plane, std::uint32_t chunk = kChunkBytes)
      : bytes(randomBytes(size)), digests(chunkDigestsOf(bytes, chunk)) {
    std::ofstream(dir.path / "source", std::ios::binary) << bytes;
    plane.addSource(token, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), size, digests);
  }
  ChunkDigests told() const {
    ChunkDigests d;
    REQUIRE(d.expect(digests.chunkBytes, digests.size, digests.pieceBytes()));
    return d;
  }
  void receiveAt(Node& node, const fs::path& dir) const {
    node.plane.receive(token, bytes.size(), shaOf(bytes), targetIn(dir, "f"), told());
  }
};

}  // namespace

TEST_CASE("a relay that rewrites a chunk and its frame checksum is caught by its child at that chunk, which moves to another parent") {
  TempDir dir;
  DataOptions hostile;
  hostile.rewriteRelayedChunkEvery = 5;  // the 5th chunk it passes on
  Node source, relay(hostile), child;
  DigestedSource file(dir, 3 << 20, source.plane);
  file.receiveAt(relay, dir.path / "relay");
  file.receiveAt(child, dir.path / "child");
  relay.plane.pull(file.token, source.address);
  child.plane.pull(file.token, relay.address);

  auto caught = child.events.waitFor(TransferEvent::Kind::kParentCorrupt);
  REQUIRE(caught);
  // The first four chunks were the source's: they were kept, the fifth was not.
  CHECK(caught->bytes == 4 * kChunkBytes);
  CHECK(caught->message.find("the chunk at byte 524288 differs from the source's (SHA-256)") != std::string::npos);
  CHECK(caught->message.find(relay.address) != std::string::npos);
  CHECK(caught->corruptChunks == 0);  // its XXH3 checksum matched: only the digest caught it
  // The child does not try the lying parent again on its own.
  std::this_thread::sleep_for(500ms);
  CHECK_FALSE(child.events.first(TransferEvent::Kind::kParentLost));
  CHECK_FALSE(child.events.first(TransferEvent::Kind::kDone));
  // The relay's own copy is the source's (it lies only to its children).
  REQUIRE(relay.events.waitFor(TransferEvent::Kind::kDone));
  // hnowd names another parent: the copy resumes from the good bytes and lands.
  child.plane.pull(file.token, source.address);
  auto done = child.events.waitFor(TransferEvent::Kind::kDone);
  REQUIRE(done);
  CHECK(readWhole(dir.path / "child" / "f") == file.bytes);
  // It resumed: the source served it no more than it lacked.
  CHECK(source.plane.bytesSent() == file.bytes.size() + (file.bytes.size() - 4 * kChunkBytes));
}

TEST_CASE("digests and XXH3 resends work together through honest relays in small chunks") {
  TempDir dir;
  DataOptions flaky;
  flaky.corruptChunkEvery = 7;  // bits flipped on the way: asked again, never blamed
  Node source(flaky), a(flaky), b(flaky), c;
  // 8 KiB chunks: 256 chunks a piece, so the file spans several pieces' lists.
  DigestedSource file(dir, (5 << 20) + 1234, source.plane, 8192);
  file.receiveAt(a, dir.path / "a");
  file.receiveAt(b, dir.path / "b");
  file.receiveAt(c, dir.path / "c");
  a.plane.pull(file.token, source.address);
  b.plane.pull(file.token, a.address);
  c.plane.pull(file.token, b.address);
  for (Node* n : {&a, &b, &c}) {
    auto done = n->events.waitFor(TransferEvent::Kind::kDone, 20s);
    REQUIRE(done);
    CHECK_FALSE(n->events.first(TransferEvent::Kind::kParentCorrupt));
  }
  CHECK(a.events.waitFor(TransferEvent::Kind::kDone)->corruptChunks >= 1);
  CHECK(readWhole(dir.path / "c" / "f") == file.bytes);
}

TEST_CASE("a stripe relayed by a hostile relay is caught by its child in that stripe, which resumes from the source") {
  TempDir dir;
  DataOptions hostile;
  hostile.rewriteRelayedChunkEvery = 3;
  Node source, relay(hostile), child;
  const std::string bytes = randomBytes(2 << 20);
  std::ofstream(dir.path / "source", std::ios::binary) << bytes;
  const std::uint32_t chunk = 16384;
  // Two stripes, each cut into chunks from its own start.
  std::vector<ByteRange> served, told;
  const std::uint64_t half = 1 << 20;
  for (int k = 0; k < 2; ++k) {
    const std::string part = bytes.substr(k * half, half);
    ByteRange r{std::string(kTokenBytes, static_cast<char>('s' + k)), k * half, half, shaOf(part),
                chunkDigestsOf(part, chunk)};
    ByteRange t = r;
    t.digests = ChunkDigests{};
    REQUIRE(t.digests.expect(chunk, half, r.digests.pieceBytes()));
    served.push_back(std::move(r));
    told.push_back(std::move(t));
  }
  const std::string fileToken(kTokenBytes, 'F');
  source.plane.addSourceRanges(fileToken, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), served, chunk);
  relay.plane.receiveRanges(fileToken, told, targetIn(dir.path / "relay", "f"), chunk);
  child.plane.receiveRanges(fileToken, told, targetIn(dir.path / "child", "f"), chunk);
  for (const ByteRange& r : told) relay.plane.pull(r.token, source.address);
  // The child takes stripe 0 from the relay, stripe 1 from the source.
  child.plane.pull(told[0].token, relay.address);
  child.plane.pull(told[1].token, source.address);
  auto caught = child.events.waitFor(TransferEvent::Kind::kParentCorrupt);
  REQUIRE(caught);
  CHECK(caught->token == told[0].token);
  CHECK(caught->bytes % chunk == 0);
  CHECK(caught->bytes < half);
  child.plane.pull(told[0].token, source.address);
  REQUIRE(child.events.waitFor(TransferEvent::Kind::kDone));
  CHECK(readWhole(dir.path / "child" / "f") == bytes);
}
