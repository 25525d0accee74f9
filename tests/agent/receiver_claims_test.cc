// An agent holds each destination for the receive writing it
// (agent/dest_claims.h): a second receive into the same file - however its
// path is spelled - is refused, naming the first, and leaves nothing
// behind; the destination is free again once the first ends (done, failed
// or released) and for the same receive ordered twice.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <kj/async-io.h>
#include <openssl/sha.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "agent/dest_claims.h"
#include "agent/receiver.h"
#include "agent/receiver_checks.h"
#include "cli/run_process.h"

using hnow::testing::TempDir;
using hnow::testing::digestOfBytes;
using hnow::testing::leftovers;
using namespace hnow::transport::data;
namespace fs = std::filesystem;

namespace {

// Why a receive was refused ("" when it was not).
std::string refusalOf(const hnow::Result<std::string>& received) { return received ? "" : received.error().message; }

}  // namespace

TEST_CASE("DestClaims: one destination by directory and name, the same token again is no conflict, release frees it") {
  TempDir dir;
  fs::create_directories(dir.path / "m");
  const int a = ::open((dir.path / "m").c_str(), O_PATH | O_DIRECTORY);
  const int b = ::open((dir.path / "m" / ".").c_str(), O_PATH | O_DIRECTORY);
  hnow::agent::DestClaims claims;
  const std::string first(32, 'a'), second(32, 'b');
  REQUIRE(claims.claim(a, "same.bin", {first, "send record 7", "/srv/m/same.bin", 10}, {"stripe-1", "stripe-2"}));
  CHECK(claims.claim(a, "same.bin", {first, "send record 7", "/srv/m/same.bin", 10}));  // a repeated order
  auto refused = claims.claim(b, "same.bin", {second, "send record 8", "/srv/m/./same.bin", 12});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message ==
        "/srv/m/same.bin is being received already by send record 7 (token 61616161..., 10 bytes): two receives at "
        "once would leave only the one renamed last, while each reported its own copy verified; wait for that one "
        "to end (hnow status, hnow ops) or choose another --dest");
  CHECK(claims.claim(b, "other.bin", {second, "send record 8", "/srv/m/other.bin", 12}));
  claims.release("stripe-2");  // a transfer of the first ended it
  CHECK(claims.claim(b, "same.bin", {std::string(32, 'c'), "", "/srv/m/same.bin", 1}));
  CHECK(claims.size() == 2);
  claims.clear();
  CHECK(claims.size() == 0);
  ::close(a);
  ::close(b);
}

TEST_CASE("a second receive into a destination another receive holds is refused naming it, whatever its spelling") {
  TempDir dir;
  const fs::path root = dir.path / "root";
  fs::create_directories(root / "m");
  auto io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  hnow::agent::Receiver receiver({root.string()}, clock, {});
  const std::string first(32, 'f');
  const std::string path = receiver.receive(first, "m/same.bin", 5, digestOfBytes("first"), {}, "send record 3").value();
  for (const std::string& dest : {std::string("m/same.bin"), std::string("m/./same.bin"), std::string("m//same.bin"),
                                  (root / "m" / "same.bin").string()}) {
    CAPTURE(dest);
    const std::string why =
        refusalOf(receiver.receive(std::string(32, 's'), dest, 6, digestOfBytes("second"), {}, "send record 4"));
    CHECK(why.find(path + " is being received already by send record 3 (token 66666666..., 5 bytes)") !=
          std::string::npos);
    hnow::transport::orders::ReceiveOrder tree{std::string(32, 't'), dest, 100, std::string(32, 'x'), {}, 0};
    tree.tree = true;
    tree.operation = "send record 5";
    CHECK(refusalOf(receiver.receiveTree(tree)).find("send record 3") != std::string::npos);
    hnow::transport::orders::ReceiveOrder striped{std::string(32, 'r'), dest, 6, std::string(32, 'x'), {}, 0};
    striped.stripes = {{std::string(32, '1'), 0, 3, std::string(32, 'y')}, {std::string(32, '2'), 3, 3, std::string(32, 'z')}};
    CHECK(refusalOf(receiver.receiveStriped(striped)).find("send record 3") != std::string::npos);
  }
  CHECK(leftovers(root / "m") == 1);  // the first receive's temp file only
  CHECK(receiver.claimCopy("m/same.bin").error().message.find("send record 3") != std::string::npos);
  // Once the first is released, the next one may write there.
  receiver.release(first);
  CHECK(refusalOf(receiver.receive(std::string(32, 's'), "m/same.bin", 6, digestOfBytes("second"), {}, "")).empty());
  // A copy from another path holds it too, until its handle goes.
  receiver.release(std::string(32, 's'));
  {
    auto copying = receiver.claimCopy("m/same.bin");
    REQUIRE(copying);
    CHECK(refusalOf(receiver.receive(first, "m/same.bin", 5, digestOfBytes("first"), {}, ""))
              .find("a copy from another path of this agent") != std::string::npos);
  }
  CHECK(refusalOf(receiver.receive(first, "m/same.bin", 5, digestOfBytes("first"), {}, "")).empty());
  receiver.releaseAll();
}

TEST_CASE("a receive that ends on its own frees its destination before hnowd releases it") {
  TempDir dir;
  const fs::path root = dir.path / "root";
  fs::create_directories(root / "in");
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
  const std::string bytes = "the first file's bytes";
  const fs::path file = dir.path / "source.bin";
  {
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    REQUIRE(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    ::close(fd);
  }
  const std::string token(32, 'd');
  source.addSource(token, ::open(file.c_str(), O_RDONLY), bytes.size());
  auto paf = kj::newPromiseAndFulfiller<void>();
  waiting = kj::mv(paf.fulfiller);
  REQUIRE(receiver.receive(token, "in/x.bin", bytes.size(), digestOfBytes(bytes), {}, "send record 1"));
  receiver.pull(token, "127.0.0.1:" + std::to_string(port.value()));
  paf.promise.exclusiveJoin(io.provider->getTimer().afterDelay(20 * kj::SECONDS)).wait(io.waitScope);
  waiting.reset();
  REQUIRE(ended);
  CHECK(ended->kind == TransferEvent::Kind::kDone);
  // Not released by hnowd yet (it still relays the file to others): the destination is free all the same.
  CHECK(refusalOf(receiver.receive(std::string(32, 'e'), "in/x.bin", 3, digestOfBytes("abc"), {}, "")).empty());
  receiver.releaseAll();
  source.release(token);
}
