// Receives parked while hnowd restarts (DataPlane::releaseAllBut) and
// adopted by its next send of the same file (DataPlane::adopt).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "cli/run_process.h"
#include "transport/data/data_plane.h"
#include "transport/data/frame.h"
#include "transport/data_plane_nodes.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

// `plane`'s calls so far have run: a later synchronous call orders after them.
void settle(DataPlane& plane) { plane.listen("127.0.0.1"); }

// The last event of `kind` under `token`, none yet.
std::optional<TransferEvent> lastOf(Events& events, TransferEvent::Kind kind, const std::string& token) {
  std::lock_guard lock(events.mutex);
  std::optional<TransferEvent> found;
  for (const auto& e : events.all)
    if (e.kind == kind && e.token == token) found = e;
  return found;
}

}  // namespace

TEST_CASE("a parked receive keeps its temp file and bytes while the others go, and adopted under a new token it resumes after its bytes at another source and verifies") {
  TempDir dir;
  const std::string bytes = randomBytes(2 << 20);
  std::ofstream(dir.path / "source", std::ios::binary) << bytes;
  const std::string first(kTokenBytes, 'k'), other(kTokenBytes, 'o'), second(kTokenBytes, 'n');
  auto source = std::make_unique<Node>();  // the hnowd that is killed
  source->plane.addSource(first, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), bytes.size());
  Node b;
  b.plane.setRates(0, 4e6);  // slow enough to park midway
  b.plane.receive(first, bytes.size(), shaOf(bytes), targetIn(dir.path / "b", "f"));
  b.plane.receive(other, bytes.size(), shaOf(bytes), targetIn(dir.path / "b", "g"));
  b.plane.pull(first, source->address);
  REQUIRE(b.events.waitFor(TransferEvent::Kind::kProgress));  // only `first` is pulled
  b.plane.releaseAllBut({first, other + "x"});
  settle(b.plane);
  const std::uint64_t held = lastOf(b.events, TransferEvent::Kind::kProgress, first)->bytes;
  const std::uint64_t before = b.plane.bytesReceived();
  source.reset();
  CHECK(fs::exists(dir.path / "b" / ".f.hnow-part"));
  CHECK_FALSE(fs::exists(dir.path / "b" / ".g.hnow-part"));  // not parked: released
  CHECK(held > 0);
  CHECK(held < bytes.size());

  Node again;  // the restarted hnowd, serving the same file under a new token
  again.plane.addSource(second, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), bytes.size());
  b.plane.adopt(first, second);
  b.plane.pull(second, again.address);
  auto done = b.events.waitFor(TransferEvent::Kind::kDone);
  REQUIRE(done);
  CHECK(done->token == second);
  // The digest is taken over the bytes in the order written: a restart from
  // 0 or a gap would not verify.
  CHECK(readWhole(dir.path / "b" / "f") == bytes);
  const std::uint64_t moved = b.plane.bytesReceived() - before;
  CHECK(moved <= bytes.size() - held);
  CHECK(moved > 0);
}

TEST_CASE("a parked receive is released with its temp file, and an adoption of a receive not parked fails the new one") {
  TempDir dir;
  const std::string bytes = randomBytes(1 << 20);
  const std::string parked(kTokenBytes, 'p'), unknown(kTokenBytes, 'u'), next(kTokenBytes, 'n');
  Node b;
  b.plane.receive(parked, bytes.size(), shaOf(bytes), targetIn(dir.path / "b", "f"));
  b.plane.releaseAllBut({parked});
  b.plane.adopt(unknown, next);
  settle(b.plane);
  CHECK(fs::exists(dir.path / "b" / ".f.hnow-part"));
  // hnowd hears that the new receive will not come, rather than wait for it.
  auto failed = b.events.waitFor(TransferEvent::Kind::kFailed);
  REQUIRE(failed);
  CHECK(failed->token == next);
  CHECK(failed->message.find("received before hnowd restarted is gone") != std::string::npos);
  b.plane.release(next);  // nothing under it
  settle(b.plane);
  CHECK(fs::exists(dir.path / "b" / ".f.hnow-part"));
  b.plane.release(parked);
  settle(b.plane);
  CHECK_FALSE(fs::exists(dir.path / "b" / ".f.hnow-part"));
}

TEST_CASE("a file parked while it arrives as two ranges resumes each range after its bytes under the new send's tokens, and verifies") {
  TempDir dir;
  const std::string bytes = randomBytes(2 << 20);
  std::ofstream(dir.path / "source", std::ios::binary) << bytes;
  // The same two ranges under each send's tokens: 'f' the file's, then one per range.
  auto rangesOf = [&](char file) {
    std::vector<ByteRange> ranges;
    for (std::uint64_t k = 0; k < 2; ++k) {
      ByteRange r;
      r.token = std::string(kTokenBytes, static_cast<char>(file + 1 + k));
      r.offset = k << 20;
      r.length = 1 << 20;
      r.sha256 = shaOf(bytes.substr(r.offset, r.length));
      ranges.push_back(r);
    }
    return ranges;
  };
  const std::string first(kTokenBytes, 'a'), second(kTokenBytes, 'k');
  const auto before = rangesOf('a'), after = rangesOf('k');
  auto source = std::make_unique<Node>();
  source->plane.addSourceRanges(first, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), before);
  Node b;
  b.plane.setRates(0, 4e6);  // slow enough to park midway
  b.plane.receiveRanges(first, before, targetIn(dir.path / "b", "f"));
  for (const ByteRange& r : before) b.plane.pull(r.token, source->address);
  for (int i = 0; i < 500 && b.plane.bytesReceived() <= 2 * kChunkBytes; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  b.plane.releaseAllBut({first});
  settle(b.plane);
  const std::uint64_t received = b.plane.bytesReceived();
  source.reset();
  CHECK(fs::exists(dir.path / "b" / ".f.hnow-part"));
  CHECK(received > 2 * kChunkBytes);
  CHECK(received < bytes.size());

  Node again;
  again.plane.addSourceRanges(second, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), after);
  b.plane.adoptRanges(first, second, {after[0].token, after[1].token});
  for (const ByteRange& r : after) b.plane.pull(r.token, again.address);
  auto done = b.events.waitFor(TransferEvent::Kind::kDone);
  REQUIRE(done);
  CHECK((done->token == after[0].token || done->token == after[1].token));
  CHECK(readWhole(dir.path / "b" / "f") == bytes);
  // Only what the ranges lacked moved again (within a chunk each in flight
  // as they were parked): from 0, more than `received` again.
  CHECK(b.plane.bytesReceived() <= bytes.size() + 2 * kChunkBytes);
}

TEST_CASE("a receive that landed whole as it was parked stays in place, and adopted it reports done under the new token") {
  TempDir dir;
  const std::string bytes = randomBytes(256 << 10);
  std::ofstream(dir.path / "source", std::ios::binary) << bytes;
  const std::string first(kTokenBytes, 'w'), second(kTokenBytes, 'v');
  Node source, b;
  source.plane.addSource(first, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), bytes.size());
  b.plane.receive(first, bytes.size(), shaOf(bytes), targetIn(dir.path / "b", "f"));
  b.plane.pull(first, source.address);
  REQUIRE(b.events.waitFor(TransferEvent::Kind::kDone));
  b.plane.releaseAllBut({first});  // the agent had not heard of its end yet
  b.plane.adopt(first, second);
  settle(b.plane);
  auto done = lastOf(b.events, TransferEvent::Kind::kDone, second);
  REQUIRE(done);
  CHECK(done->path == (dir.path / "b" / "f").string());
  CHECK(readWhole(dir.path / "b" / "f") == bytes);
}
