// Receives an agent's process leaves for its next one (agent/
// receive_records.h): the record each receive keeps while it runs, the
// start-up sweep that keeps its temp file, and the next process's receive
// of the same file into the same path that takes it over and pulls only
// the bytes it lacked.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <kj/async-io.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "agent/receive_records.h"
#include "agent/receiver.h"
#include "agent/receiver_checks.h"
#include "agent/startup_sweep.h"
#include "cli/run_process.h"
#include "transport/data/chunk_digests.h"
#include "transport/data_plane_nodes.h"

using hnow::testing::digestOfBytes;
using hnow::testing::Node;
using hnow::testing::randomBytes;
using hnow::testing::readWhole;
using hnow::testing::TempDir;
using namespace hnow::transport::data;
namespace fs = std::filesystem;

namespace {

int records(const fs::path& root) {
  int n = 0;
  std::error_code error;
  for (const auto& e : fs::directory_iterator(root / hnow::agent::kReceiveRecordDir, error))
    n += e.path().extension() == ".receive";
  return n;
}

// The one receive temp file under `dir`, or "".
fs::path tempIn(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (hnow::agent::isReceiveTempName(e.path().filename().string())) return e.path();
  return {};
}

struct LeftoverLab {
  TempDir dir;
  fs::path root = dir.path / "root";
  kj::AsyncIoContext io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  std::string bytes = randomBytes(3 << 20);
  ChunkDigests digests = chunkDigestsOf(bytes, 4096);  // pieces of 512 KiB
  Node source;
  LeftoverLab() {
    fs::create_directories(root / "m");
    std::ofstream(dir.path / "source", std::ios::binary) << bytes;
  }
  std::unique_ptr<hnow::agent::Receiver> start() {
    return std::make_unique<hnow::agent::Receiver>(std::vector<std::string>{root.string()}, clock, DataOptions{});
  }
  // hnowd serves the file under `token`, and orders `receiver` to receive it into m/f.bin from there.
  hnow::Result<std::string> send(hnow::agent::Receiver& receiver, char token) {
    const std::string t(32, token);
    source.plane.addSource(t, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), bytes.size(), digests);
    ChunkDigests told;
    REQUIRE(told.expect(digests.chunkBytes, digests.size, digests.pieceBytes()));
    auto path = receiver.receive(t, "m/f.bin", bytes.size(), digestOfBytes(bytes), std::move(told), "send record 4");
    if (path) receiver.pull(t, source.address);
    return path;
  }
};

}  // namespace

TEST_CASE("a receive keeps a record of itself under the data root while it runs, gone once it is released") {
  LeftoverLab lab;
  auto receiver = lab.start();
  receiver->setRates(0, 1e6);
  REQUIRE(lab.send(*receiver, 'a').ok());
  CHECK(records(lab.root) == 1);
  CHECK(fs::exists(lab.root / hnow::agent::kReceiveRecordDir));
  receiver->release(std::string(32, 'a'));
  CHECK(records(lab.root) == 0);
}

TEST_CASE("an agent stopped mid-receive leaves its temp file for the next process, whose receive of the same file into the same path pulls only what it lacked") {
  LeftoverLab lab;
  auto first = lab.start();
  first->setRates(0, 4e6);  // slow enough to stop midway
  REQUIRE(lab.send(*first, 'a').ok());
  for (int i = 0; i < 500 && first->bytesReceived() < (1200 << 10); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  first->keepUnfinishedOnStop();
  first.reset();
  const fs::path temp = tempIn(lab.root / "m");
  REQUIRE(!temp.empty());
  const std::uint64_t held = fs::file_size(temp);
  CHECK(held >= (1200 << 10));
  CHECK(held < lab.bytes.size());

  // The next start keeps it with its record; a temp file without one goes.
  std::ofstream(lab.root / "m" / ".other.hnow-00000000000000aa.part") << "x";
  const auto swept = hnow::agent::sweepLeftovers({lab.root.string()});
  CHECK(swept.receivesKept == 1);
  CHECK(swept.tempFiles == 1);
  CHECK(fs::exists(temp));

  auto second = lab.start();
  CHECK(second->restoreLeftovers() == 1);
  CHECK(second->parked() == 1);
  auto path = lab.send(*second, 'b');
  REQUIRE(path.ok());
  CHECK(second->parked() == 0);
  for (int i = 0; i < 1000 && !(fs::exists(lab.root / "m" / "f.bin") && readWhole(lab.root / "m" / "f.bin") == lab.bytes); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(readWhole(lab.root / "m" / "f.bin") == lab.bytes);
  // Every byte the first process wrote was the source's, in whole chunks
  // checked by the lists it kept: none of them moved again.
  CHECK(second->bytesReceived() == lab.bytes.size() - held);
  second->release(std::string(32, 'b'));
  CHECK(records(lab.root) == 0);
}

TEST_CASE("what an earlier process left that no send takes is dropped with its temp file and record, and a record without its temp file is swept") {
  LeftoverLab lab;
  auto first = lab.start();
  first->setRates(0, 1e6);
  REQUIRE(lab.send(*first, 'a').ok());
  for (int i = 0; i < 300 && first->bytesReceived() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  first->keepUnfinishedOnStop();
  first.reset();
  REQUIRE(!tempIn(lab.root / "m").empty());
  CHECK(hnow::agent::sweepLeftovers({lab.root.string()}).receivesKept == 1);

  auto second = lab.start();
  REQUIRE(second->restoreLeftovers() == 1);
  // Another file into the same path is a receive of its own.
  const std::string other = "other bytes";
  REQUIRE(second->receive(std::string(32, 'c'), "m/f.bin", other.size(), digestOfBytes(other)).ok());
  CHECK(second->parked() == 1);
  second->release(std::string(32, 'c'));
  CHECK(second->dropParked() == 1);
  // The other receive's temp file goes on the data plane's thread, once it has caught up.
  for (int i = 0; i < 100 && !tempIn(lab.root / "m").empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(tempIn(lab.root / "m").empty());
  CHECK(records(lab.root) == 0);

  // A record whose temp file is gone (received, or removed by hand) goes at the next start.
  auto third = lab.start();
  third->setRates(0, 1e6);
  REQUIRE(lab.send(*third, 'd').ok());
  third->keepUnfinishedOnStop();
  third.reset();
  fs::remove(tempIn(lab.root / "m"));
  const auto swept = hnow::agent::sweepLeftovers({lab.root.string()});
  CHECK(swept.receivesKept == 0);
  CHECK(swept.receiveRecords == 2);  // the record and its lists
  CHECK(records(lab.root) == 0);
}
