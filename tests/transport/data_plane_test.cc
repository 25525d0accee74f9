// The data plane in one process: a source and agents' planes on 127.0.0.1,
// each with its own libuv thread, as hnowd and agents run them.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include "base/hex.h"
#include "cli/run_process.h"
#include "transport/data/data_plane.h"
#include "transport/data/frame.h"
#include "transport/data_plane_nodes.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

struct Source {
  std::string bytes;
  std::string token = std::string(kTokenBytes, 'k');
  Source(TempDir& dir, std::size_t size, DataPlane& plane) : bytes(randomBytes(size)) {
    std::ofstream(dir.path / "source", std::ios::binary) << bytes;
    plane.addSource(token, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), size);
  }
};

}  // namespace

TEST_CASE("a file relayed source -> A -> B arrives byte-identical at both, renamed into place") {
  TempDir dir;
  Node source, a, b;
  Source file(dir, 3 << 20, source.plane);
  a.plane.receive(file.token, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "a", "f"));
  b.plane.receive(file.token, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "b", "f"));
  a.plane.pull(file.token, source.address);
  b.plane.pull(file.token, a.address);
  auto doneA = a.events.waitFor(TransferEvent::Kind::kDone);
  auto doneB = b.events.waitFor(TransferEvent::Kind::kDone);
  REQUIRE(doneA);
  REQUIRE(doneB);
  CHECK(doneB->path == (dir.path / "b" / "f").string());
  CHECK(doneB->sha256Hex == hnow::hexOf(shaOf(file.bytes).data(), 32));
  CHECK(readWhole(dir.path / "a" / "f") == file.bytes);
  CHECK(readWhole(dir.path / "b" / "f") == file.bytes);
  CHECK_FALSE(fs::exists(dir.path / "b" / ".f.hnow-part"));
  CHECK(doneB->corruptChunks == 0);
  // What each plane moved, for the agents' probes: every byte once per hop.
  CHECK(source.plane.bytesSent() == file.bytes.size());
  CHECK(a.plane.bytesReceived() == file.bytes.size());
  CHECK(a.plane.bytesSent() == file.bytes.size());
  CHECK(b.plane.bytesReceived() == file.bytes.size());
  CHECK(b.plane.bytesSent() == 0);
  // Once a transfer is over, TCP carried its payload and the frames' headers.
  const LinkCounters s = source.plane.counters(), r = a.plane.counters();
  CHECK(r.tcpReceived >= r.dataReceived);
  CHECK(r.tcpSent >= r.dataSent);
  CHECK(s.tcpSent >= s.dataSent);
  CHECK_FALSE(s.nicKnown);  // loopback has no interface of its own
}

TEST_CASE("corrupt chunks are caught by XXH3, sent again, and the copies still verify") {
  TempDir dir;
  DataOptions corrupting;
  corrupting.corruptChunkEvery = 4;
  Node source(corrupting), a(corrupting), b;
  Source file(dir, 2 << 20, source.plane);
  a.plane.receive(file.token, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "a", "f"));
  b.plane.receive(file.token, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "b", "f"));
  a.plane.pull(file.token, source.address);
  b.plane.pull(file.token, a.address);
  auto doneA = a.events.waitFor(TransferEvent::Kind::kDone);
  auto doneB = b.events.waitFor(TransferEvent::Kind::kDone);
  REQUIRE(doneA);
  REQUIRE(doneB);
  // The 4th frame on each connection is corrupt and arrives where expected;
  // later corrupt frames may be skipped anyway while going back N.
  CHECK(doneA->corruptChunks >= 1);
  CHECK(doneB->corruptChunks >= 1);
  CHECK(readWhole(dir.path / "b" / "f") == file.bytes);
}

TEST_CASE("a child with an unknown token is dropped and gets nothing, release removes its temp file") {
  TempDir dir;
  Node source, b;
  Source file(dir, 1 << 20, source.plane);
  const std::string wrong(kTokenBytes, 'w');
  b.plane.receive(wrong, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "b", "f"));
  b.plane.pull(wrong, source.address);
  auto lost = b.events.waitFor(TransferEvent::Kind::kParentLost);
  REQUIRE(lost);
  CHECK(lost->bytes == 0);
  CHECK(fs::file_size(dir.path / "b" / ".f.hnow-part") == 0);
  b.plane.release(wrong);
  // release runs on the data thread; a later synchronous call orders after it
  b.plane.listen("127.0.0.1");
  CHECK_FALSE(fs::exists(dir.path / "b" / ".f.hnow-part"));
  CHECK_FALSE(fs::exists(dir.path / "b" / "f"));
}

TEST_CASE("pacing: a 4 MiB pull at an 8 MB/s downlink takes at least 0.45 s") {
  TempDir dir;
  Node source, b;
  b.plane.setRates(0, 8e6);
  Source file(dir, 4 << 20, source.plane);
  b.plane.receive(file.token, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "b", "f"));
  auto start = std::chrono::steady_clock::now();
  b.plane.pull(file.token, source.address);
  REQUIRE(b.events.waitFor(TransferEvent::Kind::kDone));
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(elapsed >= 0.45);  // 4.19 MB / 8 MB/s = 0.52 s, less one burst
  CHECK(elapsed < 1.5);
}

TEST_CASE("a child whose relay dies resumes from its last acknowledged byte at the grandparent") {
  TempDir dir;
  Node source;
  auto relay = std::make_unique<Node>();
  Node b;
  relay->plane.setRates(4e6, 0);  // slow enough to die mid-transfer
  Source file(dir, 2 << 20, source.plane);
  relay->plane.receive(file.token, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "a", "f"));
  b.plane.receive(file.token, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "b", "f"));
  relay->plane.pull(file.token, source.address);
  b.plane.pull(file.token, relay->address);
  REQUIRE(b.events.waitFor(TransferEvent::Kind::kProgress));
  relay.reset();  // the relay's process is gone
  auto lost = b.events.waitFor(TransferEvent::Kind::kParentLost);
  REQUIRE(lost);
  CHECK(lost->bytes > 0);
  CHECK(lost->bytes < file.bytes.size());
  b.plane.pull(file.token, source.address);  // hnowd re-parents
  auto done = b.events.waitFor(TransferEvent::Kind::kDone);
  REQUIRE(done);
  // The digest is computed over the bytes in the order written: a restart
  // from 0 or a gap would not verify.
  CHECK(readWhole(dir.path / "b" / "f") == file.bytes);
}

// What an agent does with its operations when it loses hnowd
// (releaseAll), and with a job file nobody wants (discard).
TEST_CASE("release keeps a finished file, discard removes it, releaseAll forgets every operation and its temp file") {
  TempDir dir;
  Node source, a, b, c;
  Source file(dir, 1 << 20, source.plane);
  a.plane.receive(file.token, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "a", "f"));
  b.plane.receive(file.token, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "b", "f"));
  a.plane.pull(file.token, source.address);
  b.plane.pull(file.token, source.address);
  REQUIRE(a.events.waitFor(TransferEvent::Kind::kDone));
  REQUIRE(b.events.waitFor(TransferEvent::Kind::kDone));
  a.plane.release(file.token);
  b.plane.discard(file.token);
  const std::string stranger(kTokenBytes, 's');  // a parent that never answers: stays unfinished
  c.plane.receive(stranger, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "c", "f"));
  c.plane.pull(stranger, source.address);
  REQUIRE(c.events.waitFor(TransferEvent::Kind::kParentLost));
  c.plane.releaseAll();
  // each call runs on its plane's data thread; a later synchronous call orders after it
  a.plane.listen("127.0.0.1");
  b.plane.listen("127.0.0.1");
  c.plane.listen("127.0.0.1");
  CHECK(readWhole(dir.path / "a" / "f") == file.bytes);
  CHECK_FALSE(fs::exists(dir.path / "b" / "f"));
  CHECK_FALSE(fs::exists(dir.path / "c" / ".f.hnow-part"));
  CHECK_FALSE(fs::exists(dir.path / "c" / "f"));
}
