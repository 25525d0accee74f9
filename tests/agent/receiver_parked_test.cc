// An agent's receives parked for a restarted hnowd (Receiver::park): the
// next receive of the same file into the same path adopts the parked one
// (its temp file goes on), another file or path does not, and what no
// send adopted is dropped with its temp file.
#include <doctest/doctest.h>
#include <kj/async-io.h>
#include <openssl/sha.h>

#include <filesystem>
#include <thread>
#include <string>

#include "agent/receiver.h"
#include "cli/run_process.h"

using hnow::testing::TempDir;
using namespace hnow::transport::data;
namespace fs = std::filesystem;

namespace {

Sha256 digestOf(const std::string& bytes) {
  Sha256 out{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), out.data());
  return out;
}

// The temp files of receives under `dir`.
int temps(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string().find(".hnow-") != std::string::npos;
  return n;
}

}  // namespace

TEST_CASE("a parked receive is adopted by the next receive of the same file into the same path, and by nothing else") {
  TempDir dir;
  const fs::path root = dir.path / "root";
  fs::create_directories(root / "m");
  auto io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  hnow::agent::Receiver receiver({root.string()}, clock, {});
  const std::string before(32, 'a'), after(32, 'b'), other(32, 'c'), elsewhere(32, 'd');
  const std::string path = receiver.receive(before, "m/image.bin", 5, digestOf("image"), {}, "send record 3").value();
  REQUIRE(receiver.receive(std::string(32, 'z'), "m/notes.txt", 5, digestOf("notes"), {}, "").ok());
  receiver.park({before, std::string(32, 'z') + "x"});  // notes.txt's is not among the unfinished
  CHECK(receiver.parked() == 1);

  // Another file into the same path, and the same file into another path: new receives.
  CHECK(receiver.receive(other, "m/image.bin", 6, digestOf("image2"), {}, "send record 4").ok());
  CHECK_FALSE(receiver.adopted(other));
  receiver.release(other);
  CHECK(receiver.receive(elsewhere, "m/copy.bin", 5, digestOf("image"), {}, "send record 4").ok());
  CHECK_FALSE(receiver.adopted(elsewhere));
  CHECK(receiver.parked() == 1);

  auto adopted = receiver.receive(after, "m/image.bin", 5, digestOf("image"), {}, "send record 3");
  REQUIRE(adopted.ok());
  CHECK(*adopted == path);
  CHECK(receiver.adopted(after));
  CHECK(receiver.parked() == 0);
  receiver.release(elsewhere);
  receiver.dropParked();
  // The parked temp file went on under `after`: one temp file for image.bin, the one it adopted.
  for (int i = 0; i < 100 && temps(root / "m") != 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(temps(root / "m") == 1);
}

TEST_CASE("parked receives no send adopted are dropped with their temp files") {
  TempDir dir;
  const fs::path root = dir.path / "root";
  fs::create_directories(root / "m");
  auto io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  hnow::agent::Receiver receiver({root.string()}, clock, {});
  const std::string token(32, 'a');
  REQUIRE(receiver.receive(token, "m/image.bin", 5, digestOf("image"), {}, "").ok());
  receiver.park({token});
  CHECK(temps(root / "m") == 1);
  CHECK(receiver.dropParked() == 1);
  CHECK(receiver.parked() == 0);
  for (int i = 0; i < 100 && temps(root / "m") != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(temps(root / "m") == 0);
}
