// An agent receiving a compressed file (docs/compression.md) from a real
// data plane on 127.0.0.1: expanded beside its destination and renamed into
// place only when its plain size and SHA-256 match; otherwise the copy
// fails with why and nothing of it stays, neither at the destination nor
// beside it.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <kj/async-io.h>
#include <openssl/sha.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "agent/receiver.h"
#include "agent/receiver_checks.h"
#include "cli/run_process.h"
#include "transport/data/file_digest.h"
#include "transport/data/zstd_file.h"

using hnow::testing::TempDir;
using hnow::testing::leftovers;
using namespace hnow::transport::data;
namespace fs = std::filesystem;

namespace {

std::string textOf(std::size_t n) {
  std::string out;
  for (int line = 0; out.size() < n; ++line) out += "line " + std::to_string(line) + " of a log hnow sends\n";
  out.resize(n);
  return out;
}

}  // namespace

TEST_CASE("a compressed file is expanded and renamed into place when it matches, and fails leaving nothing when its plain digest differs") {
  TempDir dir;
  const fs::path root = dir.path / "root", plainPath = dir.path / "plain.txt", packedPath = dir.path / "plain.zst";
  fs::create_directories(root / "in");
  const std::string plain = textOf(700'000);
  {
    const int fd = ::open(plainPath.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    REQUIRE(::write(fd, plain.data(), plain.size()) == static_cast<ssize_t>(plain.size()));
    ::close(fd);
  }
  const int plainFd = ::open(plainPath.c_str(), O_RDONLY);
  const int packedFd = ::open(packedPath.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  auto compressed = compressFile(plainFd, plain.size(), packedFd);
  ::close(plainFd);
  REQUIRE(compressed.ok());
  auto packedSha = sha256OfFile(packedFd);
  ::close(packedFd);
  REQUIRE(packedSha.ok());

  auto io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  DataPlane source(clock, [](TransferEvent) {});
  auto port = source.listen("127.0.0.1");
  REQUIRE(port.ok());
  hnow::agent::Receiver receiver({root.string()}, clock, {});
  REQUIRE(receiver.listen("127.0.0.1"));
  std::optional<kj::Own<kj::PromiseFulfiller<void>>> waiting;
  std::optional<TransferEvent> ended;
  auto forwarding = receiver
                        .forwardEvents([&](const TransferEvent& e, const UnpackedTree*) {
                          if (e.kind != TransferEvent::Kind::kDone && e.kind != TransferEvent::Kind::kFailed) return;
                          ended = e;
                          if (waiting) (*waiting)->fulfill();
                        })
                        .eagerlyEvaluate(nullptr);

  for (const bool matches : {true, false}) {
    CAPTURE(matches);
    const std::string token(32, matches ? 'm' : 'w');
    source.addSource(token, ::open(packedPath.c_str(), O_RDONLY), compressed->compressedSize);
    hnow::transport::orders::ReceiveOrder order{token, "in/log.txt", compressed->compressedSize,
                                        std::string(reinterpret_cast<const char*>(packedSha->data()), 32), {}, 0};
    order.compressed = true;
    order.plainSize = plain.size();
    order.plainSha256.assign(reinterpret_cast<const char*>(compressed->plainSha256.data()), 32);
    if (!matches) order.plainSha256[0] ^= 1;
    ended.reset();
    auto paf = kj::newPromiseAndFulfiller<void>();
    waiting = kj::mv(paf.fulfiller);
    const std::string path = receiver.receiveCompressed(order).value();
    CHECK(path == fs::canonical(root / "in").string() + "/log.txt");
    receiver.pull(token, "127.0.0.1:" + std::to_string(port.value()));
    paf.promise.exclusiveJoin(io.provider->getTimer().afterDelay(20 * kj::SECONDS)).wait(io.waitScope);
    waiting.reset();
    REQUIRE(ended);
    if (matches) {
      CHECK(ended->kind == TransferEvent::Kind::kDone);
      CHECK(ended->path == path);
      // The digest reported is the compressed file's: what hnowd served and checks.
      CHECK(ended->sha256Hex.size() == 64);
      CHECK(hnow::testing::readWhole(path) == plain);
    } else {
      CHECK(ended->kind == TransferEvent::Kind::kFailed);
      CHECK(ended->message.find("the expanded file's SHA-256 differs from the source's") != std::string::npos);
      CHECK(hnow::testing::readWhole(path) == plain);  // the earlier copy, untouched
    }
    CHECK(leftovers(root / "in") == 0);
    receiver.release(token);
    source.release(token);
  }
}
