// An agent's receives parked for a restarted hnowd (Receiver::park): the
// next receive of the same file into the same path adopts the parked one
// (its temp file goes on), another file or path does not, and what no
// send adopted is dropped with its temp file.
#include <doctest/doctest.h>
#include <kj/async-io.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "agent/receiver.h"
#include "agent/receiver_checks.h"
#include "cli/run_process.h"

using hnow::testing::digestOfBytes;
using hnow::testing::leftovers;
using hnow::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// A receiver with one root holding m/; its receives' temp files are counted there.
struct ParkLab {
  TempDir dir;
  fs::path root = dir.path / "root";
  kj::AsyncIoContext io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  std::unique_ptr<hnow::agent::Receiver> receiver;
  ParkLab() {
    fs::create_directories(root / "m");
    receiver = std::make_unique<hnow::agent::Receiver>(std::vector<std::string>{root.string()}, clock,
                                                       hnow::transport::data::DataOptions{});
  }
  hnow::Result<std::string> receive(char token, const std::string& dest, const std::string& bytes) {
    return receiver->receive(std::string(32, token), dest, bytes.size(), digestOfBytes(bytes), {}, "send record 3");
  }
  // The temp files under m/ once the data plane has caught up (it runs on its own thread).
  bool settlesAt(int temps) {
    for (int i = 0; i < 100 && leftovers(root / "m") != temps; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return leftovers(root / "m") == temps;
  }
};

}  // namespace

TEST_CASE("a parked receive is adopted by the next receive of the same file into the same path, and by nothing else") {
  ParkLab lab;
  const std::string path = lab.receive('a', "m/image.bin", "image").value();
  REQUIRE(lab.receive('z', "m/notes.txt", "notes").ok());
  lab.receiver->park({std::string(32, 'a'), std::string(32, 'y')});  // notes.txt's is not among the unfinished
  CHECK(lab.receiver->parked() == 1);
  CHECK(lab.receiver->parks(std::string(32, 'a')));
  CHECK_FALSE(lab.receiver->parks(std::string(32, 'z')));
  CHECK(lab.settlesAt(1));

  // Another file into the same path, and the same file into another path: new receives.
  CHECK(lab.receive('c', "m/image.bin", "image2").ok());
  CHECK_FALSE(lab.receiver->adopted(std::string(32, 'c')));
  lab.receiver->release(std::string(32, 'c'));
  CHECK(lab.receive('d', "m/copy.bin", "image").ok());
  CHECK_FALSE(lab.receiver->adopted(std::string(32, 'd')));
  lab.receiver->release(std::string(32, 'd'));
  CHECK(lab.receiver->parked() == 1);

  auto adopted = lab.receive('b', "m/image.bin", "image");
  REQUIRE(adopted.ok());
  CHECK(*adopted == path);
  CHECK(lab.receiver->adopted(std::string(32, 'b')));
  CHECK(lab.receiver->parked() == 0);
  CHECK_FALSE(lab.receiver->parks(std::string(32, 'a')));
  CHECK(lab.receiver->dropParked() == 0);
  // The parked temp file went on under the new token: the one temp file left.
  CHECK(lab.settlesAt(1));
}

TEST_CASE("parked receives no send adopted are dropped with their temp files") {
  ParkLab lab;
  REQUIRE(lab.receive('a', "m/image.bin", "image").ok());
  lab.receiver->park({std::string(32, 'a')});
  CHECK(lab.settlesAt(1));
  CHECK(lab.receiver->dropParked() == 1);
  CHECK(lab.receiver->parked() == 0);
  CHECK(lab.settlesAt(0));
}

TEST_CASE("a parked striped receive is adopted only by a receive of the same file cut into the same stripes") {
  ParkLab lab;
  const std::string bytes = "0123456789";
  auto orderOf = [&](char token, std::vector<std::uint64_t> cuts) {
    hnow::transport::orders::ReceiveOrder order;
    order.token = std::string(32, token);
    order.dest = "m/striped.bin";
    order.size = bytes.size();
    const auto sha = digestOfBytes(bytes);
    order.sha256.assign(sha.begin(), sha.end());
    cuts.push_back(bytes.size());
    std::uint64_t start = 0;
    for (std::size_t k = 0; k < cuts.size(); ++k) {
      const auto part = digestOfBytes(bytes.substr(start, cuts[k] - start));
      order.stripes.push_back({std::string(31, token) + static_cast<char>('0' + k), start, cuts[k] - start,
                               std::string(part.begin(), part.end())});
      start = cuts[k];
    }
    return order;
  };
  const std::string path = lab.receiver->receiveStriped(orderOf('a', {5})).value();
  // Its transfers report under its stripes' tokens.
  lab.receiver->park({std::string(31, 'a') + "1"});
  CHECK(lab.receiver->parked() == 1);
  CHECK(lab.receiver->parks(std::string(31, 'a') + "0"));  // its other stripe's events are held back too
  CHECK(lab.receiver->receiveStriped(orderOf('b', {4})).ok());  // other stripes: a receive of its own
  CHECK_FALSE(lab.receiver->adopted(std::string(32, 'b')));
  lab.receiver->release(std::string(32, 'b'));
  auto adopted = lab.receiver->receiveStriped(orderOf('c', {5}));
  REQUIRE(adopted.ok());
  CHECK(*adopted == path);
  CHECK(lab.receiver->adopted(std::string(31, 'c') + "0"));
  CHECK(lab.receiver->adopted(std::string(31, 'c') + "1"));
  CHECK(lab.receiver->parked() == 0);
  lab.receiver->release(std::string(32, 'c'));
  CHECK_FALSE(lab.receiver->adopted(std::string(31, 'c') + "1"));
  CHECK(lab.settlesAt(0));
}

TEST_CASE("a parked compressed receive keeps its scratch and output files and is adopted by the same frame into the same path") {
  ParkLab lab;
  const std::string frame = "not really zstd, but its digest";
  auto orderOf = [&](char token) {
    hnow::transport::orders::ReceiveOrder order;
    order.token = std::string(32, token);
    order.dest = "m/log.txt";
    order.size = frame.size();
    const auto sha = digestOfBytes(frame);
    order.sha256.assign(sha.begin(), sha.end());
    order.compressed = true;
    order.plainSize = 100;
    order.plainSha256 = std::string(32, 'p');
    return order;
  };
  const std::string path = lab.receiver->receiveCompressed(orderOf('a')).value();
  REQUIRE(lab.settlesAt(2));  // the frame's scratch file and the output it is expanded into
  lab.receiver->park({std::string(32, 'a')});
  CHECK(lab.receiver->parked() == 1);
  CHECK(lab.settlesAt(2));
  auto adopted = lab.receiver->receiveCompressed(orderOf('b'));
  REQUIRE(adopted.ok());
  CHECK(*adopted == path);
  CHECK(lab.receiver->adopted(std::string(32, 'b')));
  CHECK(lab.settlesAt(2));  // the new order's own files went
  lab.receiver->release(std::string(32, 'b'));
  CHECK(lab.settlesAt(0));
}
