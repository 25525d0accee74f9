// A file moved as byte ranges (a striped broadcast): each range pulled from
// its own parent and relayed as it lands, the file renamed into place once
// every range matched its digest.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include "base/hex.h"
#include "cli/run_process.h"
#include "transport/data/frame.h"
#include "transport/data_plane_nodes.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

// A file cut into ranges at `cuts` (offsets, ascending), served by `plane`
// under a token per range.
struct StripedSource {
  std::string bytes;
  std::string fileToken = std::string(kTokenBytes, 'f');
  std::vector<ByteRange> ranges;
  // Served in chunks of `chunkBytes` (0: the plane's).
  StripedSource(TempDir& dir, std::size_t size, std::vector<std::uint64_t> cuts, DataPlane& plane,
                std::uint32_t chunkBytes = 0)
      : bytes(randomBytes(size)) {
    std::ofstream(dir.path / "source", std::ios::binary) << bytes;
    cuts.push_back(size);
    std::uint64_t start = 0;
    for (std::size_t k = 0; k < cuts.size(); ++k) {
      ByteRange r;
      r.token = std::string(kTokenBytes, static_cast<char>('a' + k));
      r.offset = start;
      r.length = cuts[k] - start;
      r.sha256 = shaOf(bytes.substr(r.offset, r.length));
      ranges.push_back(r);
      start = cuts[k];
    }
    plane.addSourceRanges(fileToken, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), ranges, chunkBytes);
  }
};

// Every kDone event of `node`, by token, once `count` have come.
std::vector<TransferEvent> doneEvents(Node& node, std::size_t count) {
  std::unique_lock lock(node.events.mutex);
  std::vector<TransferEvent> done;
  node.events.changed.wait_for(lock, 20s, [&]() {
    done.clear();
    for (auto& e : node.events.all)
      if (e.kind == TransferEvent::Kind::kDone) done.push_back(e);
    return done.size() >= count;
  });
  return done;
}

}  // namespace

TEST_CASE("a file in three ranges, each relayed along its own tree in 32 KiB chunks, arrives whole at every node") {
  TempDir dir;
  Node source, a, b, c;
  StripedSource file(dir, (3 << 20) + 12345, {1 << 20, 2 << 20}, source.plane, 32 << 10);
  for (Node* n : {&a, &b, &c})
    n->plane.receiveRanges(file.fileToken, file.ranges, targetIn(dir.path / n->address.substr(10), "f"), 32 << 10);
  // Range 0: source -> a -> b, c; range 1: source -> b -> a, c; range 2: source -> c -> a -> b.
  a.plane.pull(file.ranges[0].token, source.address);
  b.plane.pull(file.ranges[0].token, a.address);
  c.plane.pull(file.ranges[0].token, a.address);
  b.plane.pull(file.ranges[1].token, source.address);
  a.plane.pull(file.ranges[1].token, b.address);
  c.plane.pull(file.ranges[1].token, b.address);
  c.plane.pull(file.ranges[2].token, source.address);
  a.plane.pull(file.ranges[2].token, c.address);
  b.plane.pull(file.ranges[2].token, a.address);
  for (Node* n : {&a, &b, &c}) {
    auto done = doneEvents(*n, 3);
    REQUIRE(done.size() == 3);
    const fs::path path = dir.path / n->address.substr(10) / "f";
    CHECK(readWhole(path) == file.bytes);
    CHECK_FALSE(fs::exists(path.parent_path() / ".f.hnow-part"));
    for (const TransferEvent& e : done) {
      CHECK(e.path == path.string());
      // Each range reports its own length and digest.
      bool known = false;
      for (const ByteRange& r : file.ranges)
        if (r.token == e.token) {
          known = true;
          CHECK(e.bytes == r.length);
          CHECK(e.sha256Hex == hnow::hexOf(r.sha256.data(), 32));
        }
      CHECK(known);
    }
  }
  // Every byte crossed each hop once: the source sent the file once in all.
  CHECK(source.plane.bytesSent() == file.bytes.size());
  CHECK(a.plane.bytesReceived() == file.bytes.size());
  CHECK(a.plane.bytesSent() == file.ranges[0].length * 2 + file.ranges[2].length);
}

TEST_CASE("a range whose bytes differ from its digest fails the whole file, and nothing stays on disk") {
  TempDir dir;
  Node source, a;
  StripedSource file(dir, 2 << 20, {1 << 20}, source.plane);
  std::vector<ByteRange> told = file.ranges;
  told[1].sha256[0] ^= 1;  // the digest hnowd would have sent, but for other bytes
  a.plane.receiveRanges(file.fileToken, told, targetIn(dir.path / "a", "f"));
  for (const ByteRange& r : file.ranges) a.plane.pull(r.token, source.address);
  auto failed = a.events.waitFor(TransferEvent::Kind::kFailed);
  REQUIRE(failed);
  CHECK(failed->message.find("bytes 1048576-2097152") != std::string::npos);
  // Every range reports the failure, so whoever tracks either ends it.
  std::size_t failures = 0;
  for (int i = 0; i < 100 && failures < 2; ++i) {
    std::this_thread::sleep_for(20ms);
    std::lock_guard lock(a.events.mutex);
    failures = 0;
    for (auto& e : a.events.all) failures += e.kind == TransferEvent::Kind::kFailed;
  }
  CHECK(failures == 2);
  CHECK_FALSE(a.events.first(TransferEvent::Kind::kDone));
  CHECK_FALSE(fs::exists(dir.path / "a" / "f"));
  CHECK_FALSE(fs::exists(dir.path / "a" / ".f.hnow-part"));
}

TEST_CASE("releasing a striped file before its last range removes the part file, and its ranges stop") {
  TempDir dir;
  Node source, a;
  StripedSource file(dir, 2 << 20, {1 << 20}, source.plane);
  a.plane.receiveRanges(file.fileToken, file.ranges, targetIn(dir.path / "a", "f"));
  a.plane.pull(file.ranges[0].token, source.address);  // range 1 never pulled
  std::this_thread::sleep_for(300ms);
  CHECK(fs::exists(dir.path / "a" / ".f.hnow-part"));
  a.plane.release(file.fileToken);
  for (int i = 0; i < 100 && fs::exists(dir.path / "a" / ".f.hnow-part"); ++i) std::this_thread::sleep_for(10ms);
  CHECK_FALSE(fs::exists(dir.path / "a" / ".f.hnow-part"));
  CHECK_FALSE(fs::exists(dir.path / "a" / "f"));
  // A pull of a released range is ignored (the token is unknown now).
  a.plane.pull(file.ranges[1].token, source.address);
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(a.events.first(TransferEvent::Kind::kDone));
}

TEST_CASE("a repeated striped receive keeps the first order and drops the second's part file") {
  TempDir dir;
  Node source, a;
  StripedSource file(dir, 1 << 20, {512 << 10}, source.plane);
  a.plane.receiveRanges(file.fileToken, file.ranges, targetIn(dir.path / "a", "f"));
  a.plane.receiveRanges(file.fileToken, file.ranges, targetIn(dir.path / "a", "g"));
  for (const ByteRange& r : file.ranges) a.plane.pull(r.token, source.address);
  REQUIRE(doneEvents(a, 2).size() == 2);
  CHECK(readWhole(dir.path / "a" / "f") == file.bytes);
  CHECK_FALSE(fs::exists(dir.path / "a" / ".g.hnow-part"));
  CHECK_FALSE(fs::exists(dir.path / "a" / "g"));
}
