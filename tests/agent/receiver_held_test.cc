// A single file's send asks each agent what it holds (docs/send.md, "A file
// already there" and "Under another path"): the destination itself, and
// the same bytes anywhere under the destination's root, found by size
// first and copied into place on the agent, checked as they are copied.
#include <doctest/doctest.h>
#include <openssl/sha.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "agent/receiver.h"
#include "cli/run_process.h"
#include "transport/data/digest_cache.h"

using hnow::agent::Receiver;
using hnow::agent::RootListings;
using hnow::testing::TempDir;
using hnow::transport::data::DestHolding;
using hnow::transport::data::Sha256;
namespace fs = std::filesystem;

namespace {

Sha256 sha256Of(const std::string& bytes) {
  Sha256 out{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), out.data());
  return out;
}

std::string readWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t entriesIn(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

// Each question with a listing of its own: these cases change the root between questions.
hnow::Result<Receiver::FileHolding> fileHeldNow(const std::vector<std::string>& roots, const std::string& dest,
                                         std::uint64_t size, const std::optional<Sha256>& sha256) {
  RootListings listings;
  return Receiver::fileHeld(roots, dest, size, sha256, listings);
}
hnow::Result<std::string> copyHeldNow(const std::vector<std::string>& roots, const std::string& dest,
                                const std::string& from, std::uint64_t size, const Sha256& sha256) {
  RootListings listings;
  return Receiver::copyHeld(roots, dest, from, size, sha256, listings);
}

struct Root {
  TempDir dir;
  std::vector<std::string> roots{(dir.path / "root").string()};
  const std::string bytes = std::string(3000, 'a') + "course image v1";
  Root() {
    fs::create_directories(dir.path / "root" / "v1");
    std::ofstream(dir.path / "root" / "v1" / "image.iso", std::ios::binary) << bytes;
  }
  fs::path at(const std::string& rel) const { return dir.path / "root" / rel; }
};

}  // namespace

TEST_CASE("without a digest, a file of the size anywhere under dest's root asks hnowd for the digest, and another size does not") {
  Root r;
  auto asked = fileHeldNow(r.roots, "v2/image.iso", r.bytes.size(), std::nullopt);
  REQUIRE(asked);
  CHECK(asked->holding == DestHolding::kSameSize);
  CHECK(asked->heldAt.empty());
  auto other = fileHeldNow(r.roots, "v2/image.iso", r.bytes.size() + 1, std::nullopt);
  REQUIRE(other);
  CHECK(other->holding == DestHolding::kAbsent);
}

TEST_CASE("with the digest, the same bytes under another path are named, and other bytes of the size are not") {
  Root r;
  auto found = fileHeldNow(r.roots, "v2/image.iso", r.bytes.size(), sha256Of(r.bytes));
  REQUIRE(found);
  CHECK(found->holding == DestHolding::kAbsent);
  CHECK(found->heldAt == fs::canonical(r.at("v1/image.iso")).string());
  std::string changed = r.bytes;
  changed.back() = '2';
  auto none = fileHeldNow(r.roots, "v2/image.iso", changed.size(), sha256Of(changed));
  REQUIRE(none);
  CHECK(none->heldAt.empty());
  // At dest itself: held there, nothing named elsewhere.
  auto there = fileHeldNow(r.roots, "v1/image.iso", r.bytes.size(), sha256Of(r.bytes));
  REQUIRE(there);
  CHECK(there->holding == DestHolding::kSame);
  CHECK(there->heldAt.empty());
}

TEST_CASE("a different file at dest is said so, and the same bytes elsewhere are named too for --force") {
  Root r;
  fs::create_directories(r.at("v2"));
  std::ofstream(r.at("v2/image.iso"), std::ios::binary) << "an older, shorter image";
  auto found = fileHeldNow(r.roots, "v2/image.iso", r.bytes.size(), sha256Of(r.bytes));
  REQUIRE(found);
  CHECK(found->holding == DestHolding::kOther);
  CHECK(found->heldAt == fs::canonical(r.at("v1/image.iso")).string());
}

TEST_CASE("a symlink under the root is not followed to find the bytes") {
  Root r;
  TempDir outside;
  std::ofstream(outside.path / "image.iso", std::ios::binary) << r.bytes;
  fs::remove(r.at("v1/image.iso"));
  fs::create_symlink(outside.path, r.at("v1/linked"));
  fs::create_symlink(outside.path / "image.iso", r.at("v1/image.iso"));
  auto asked = fileHeldNow(r.roots, "v2/image.iso", r.bytes.size(), sha256Of(r.bytes));
  REQUIRE(asked);
  CHECK(asked->heldAt.empty());
}

TEST_CASE("copyHeld writes dest from the file named, published whole with no temp file left") {
  Root r;
  const std::string from = fs::canonical(r.at("v1/image.iso")).string();
  auto copied = copyHeldNow(r.roots, "v2/image.iso", from, r.bytes.size(), sha256Of(r.bytes));
  REQUIRE_MESSAGE(copied, copied.error().message);
  CHECK(*copied == fs::canonical(r.at("v2")).string() + "/image.iso");
  CHECK(readWhole(r.at("v2/image.iso")) == r.bytes);
  CHECK(entriesIn(r.at("v2")) == 1);
  CHECK(readWhole(r.at("v1/image.iso")) == r.bytes);  // the source stays
}

TEST_CASE("a file that changed since hnowd asked fails the copy: dest untouched, no temp file left") {
  Root r;
  fs::create_directories(r.at("v2"));
  std::ofstream(r.at("v2/image.iso"), std::ios::binary) << "the file --force replaces";
  const std::string from = fs::canonical(r.at("v1/image.iso")).string();
  std::string changed = r.bytes;
  changed[10] = 'b';
  std::ofstream(r.at("v1/image.iso"), std::ios::binary) << changed;  // same size, other bytes
  auto copied = copyHeldNow(r.roots, "v2/image.iso", from, r.bytes.size(), sha256Of(r.bytes));
  REQUIRE_FALSE(copied);
  CHECK(copied.error().message.find("its bytes are no longer those of the file sent now") != std::string::npos);
  CHECK(readWhole(r.at("v2/image.iso")) == "the file --force replaces");
  CHECK(entriesIn(r.at("v2")) == 1);

  std::ofstream(r.at("v1/image.iso"), std::ios::binary) << r.bytes << "and more";  // grew
  copied = copyHeldNow(r.roots, "v2/image.iso", from, r.bytes.size(), sha256Of(r.bytes));
  REQUIRE_FALSE(copied);
  CHECK(copied.error().message.find("longer") != std::string::npos);
  std::ofstream(r.at("v1/image.iso"), std::ios::binary) << "short";  // shrank
  copied = copyHeldNow(r.roots, "v2/image.iso", from, r.bytes.size(), sha256Of(r.bytes));
  REQUIRE_FALSE(copied);
  CHECK(copied.error().message.find("shorter") != std::string::npos);
  CHECK(entriesIn(r.at("v2")) == 1);
}

TEST_CASE("copyHeld refuses a source outside the roots, through a symlink, or not a regular file") {
  Root r;
  TempDir outside;
  std::ofstream(outside.path / "secret", std::ios::binary) << r.bytes;
  auto refused = copyHeldNow(r.roots, "v2/image.iso", (outside.path / "secret").string(), r.bytes.size(),
                                    sha256Of(r.bytes));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("is outside this agent's roots") != std::string::npos);
  fs::create_symlink(outside.path / "secret", r.at("v1/link.iso"));
  refused = copyHeldNow(r.roots, "v2/image.iso", r.at("v1/link.iso").string(), r.bytes.size(),
                               sha256Of(r.bytes));
  REQUIRE_FALSE(refused);
  REQUIRE(::mkfifo(r.at("v1/fifo").c_str(), 0600) == 0);
  refused = copyHeldNow(r.roots, "v2/image.iso", r.at("v1/fifo").string(), r.bytes.size(), sha256Of(r.bytes));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("not a regular file") != std::string::npos);
  CHECK_FALSE(fs::exists(r.at("v2/image.iso")));
}

TEST_CASE("the questions about one send share one listing of the root - until something is published there") {
  Root r;
  RootListings listings;
  auto first = Receiver::fileHeld(r.roots, "v2/image.iso", r.bytes.size() + 5, std::nullopt, listings);
  REQUIRE(first);
  CHECK(first->holding == DestHolding::kAbsent);
  // A file of that size appears: the kept listing (taken at the first question) does not list it yet.
  fs::create_directories(r.at("v3"));
  std::ofstream(r.at("v3/other.iso"), std::ios::binary) << r.bytes << "12345";
  auto kept = Receiver::fileHeld(r.roots, "v2/image.iso", r.bytes.size() + 5, std::nullopt, listings);
  REQUIRE(kept);
  CHECK(kept->holding == DestHolding::kAbsent);
  // Once hnow wrote under the roots, the next question lists them again.
  listings.published();
  auto again = Receiver::fileHeld(r.roots, "v2/image.iso", r.bytes.size() + 5, std::nullopt, listings);
  REQUIRE(again);
  CHECK(again->holding == DestHolding::kSameSize);
  // A copy it makes counts as written.
  auto copied = Receiver::copyHeld(r.roots, "v4/image.iso", r.at("v1/image.iso").string(), r.bytes.size(),
                                   sha256Of(r.bytes), listings);
  REQUIRE(copied);
  std::ofstream(r.at("v3/third.iso"), std::ios::binary) << r.bytes << "1234567";
  auto afterCopy = Receiver::fileHeld(r.roots, "v2/image.iso", r.bytes.size() + 7, std::nullopt, listings);
  REQUIRE(afterCopy);
  CHECK(afterCopy->holding == DestHolding::kSameSize);
}
