// A whole file compressed and expanded (transport/data/zstd_file.h), in
// memory files (memfd): what round-trips, what a receiver refuses.
#include <doctest/doctest.h>
#include <openssl/sha.h>
#include <sys/mman.h>
#include <unistd.h>

#include <random>
#include <string>

#include "transport/data/zstd_file.h"
#include "transport/tree_fixture.h"

using namespace hnow;
using namespace hnow::transport::data;

namespace {

// A file in memory, closed by the destructor.
struct MemFile {
  int fd = ::memfd_create("zstd-test", MFD_CLOEXEC);
  MemFile() = default;
  explicit MemFile(const std::string& bytes) {
    REQUIRE(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }
  ~MemFile() { ::close(fd); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  std::string bytes() const { return hnow::testing::readAll(fd); }
};

std::string randomBytes(std::size_t n, unsigned seed = 1) {
  std::mt19937_64 random(seed);
  std::string out(n, '\0');
  for (auto& c : out) c = static_cast<char>(random());
  return out;
}

// Log lines: what `--compress` is for.
std::string textBytes(std::size_t n) {
  std::string out;
  std::mt19937 random(7);
  for (int line = 0; out.size() < n; ++line)
    out += "2024-05-0" + std::to_string(line % 9 + 1) + " 12:00:" + std::to_string(line % 60) +
           " agent-" + std::to_string(random() % 40) + " received chunk " + std::to_string(line) + " of course.iso\n";
  out.resize(n);
  return out;
}

Sha256 shaOf(const std::string& bytes) {
  Sha256 out{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), out.data());
  return out;
}

// `plain` compressed into a memory file; what compressFile said.
CompressedFile compressInto(const std::string& plain, MemFile& out) {
  MemFile in(plain);
  auto compressed = compressFile(in.fd, plain.size(), out.fd);
  REQUIRE_MESSAGE(compressed.ok(), compressed.error().message);
  return *compressed;
}

std::string expandError(const std::string& compressed, std::uint64_t plainSize, const Sha256& sha) {
  MemFile in(compressed), out;
  auto expanded = decompressFile(in.fd, out.fd, plainSize, sha);
  return expanded ? "" : expanded.error().message;
}

}  // namespace

TEST_CASE("a file compressed and expanded comes back byte for byte, with its size and SHA-256 taken in the same pass") {
  // 4 MiB: the last block fills zstd's output buffer exactly as the frame ends.
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{5'000'000}, std::size_t{4 << 20}}) {
    CAPTURE(size);
    const std::string plain = textBytes(size);
    MemFile packed;
    const CompressedFile c = compressInto(plain, packed);
    CHECK(c.plainSize == size);
    CHECK(c.compressedSize == packed.bytes().size());
    CHECK(c.plainSha256 == shaOf(plain));
    MemFile in(packed.bytes()), out;
    auto expanded = decompressFile(in.fd, out.fd, size, c.plainSha256);
    REQUIRE_MESSAGE(expanded.ok(), expanded.error().message);
    CHECK(out.bytes() == plain);
  }
}

TEST_CASE("text compresses to a small fraction and random bytes do not compress, in the samples as in the whole file") {
  const std::string text = textBytes(12 << 20), noise = randomBytes(12 << 20);
  MemFile textFile(text), noiseFile(noise), textPacked, noisePacked;
  auto textSample = sampleRatio(textFile.fd, text.size());
  auto noiseSample = sampleRatio(noiseFile.fd, noise.size());
  REQUIRE(textSample.ok());
  REQUIRE(noiseSample.ok());
  CHECK(textSample->sampledBytes == 4u << 20);  // four samples of 1 MiB
  CHECK(textSample->ratio < 0.25);
  CHECK(noiseSample->ratio > 0.99);
  CHECK(noiseSample->ratio < 1.01);
  CHECK(textSample->bytesPerSecond > 1e6);
  CHECK(compressInto(text, textPacked).compressedSize < text.size() / 4);
  CHECK(compressInto(noise, noisePacked).compressedSize > noise.size() * 99 / 100);
  // A small file is sampled whole; an empty one has nothing to gain.
  MemFile small(text.substr(0, 1000)), empty;
  CHECK(sampleRatio(small.fd, 1000)->sampledBytes == 1000);
  CHECK(sampleRatio(empty.fd, 0)->ratio == 1.0);
}

TEST_CASE("compressing a file that is not the size it was measured at is refused: it changed") {
  const std::string plain = textBytes(300'000);
  MemFile in(plain), out;
  auto shorter = compressFile(in.fd, plain.size() + 10, out.fd);
  REQUIRE_FALSE(shorter.ok());
  CHECK(shorter.error().message.find("it changed") != std::string::npos);
  auto longer = compressFile(in.fd, plain.size() - 10, out.fd);
  REQUIRE_FALSE(longer.ok());
  CHECK(longer.error().message.find("longer than") != std::string::npos);
}

TEST_CASE("a truncated, corrupt or empty compressed file is refused with what is wrong") {
  const std::string plain = textBytes(2'000'000);
  MemFile packed;
  const CompressedFile c = compressInto(plain, packed);
  const std::string bytes = packed.bytes();
  CHECK(expandError(bytes.substr(0, bytes.size() / 2), plain.size(), c.plainSha256).find("truncated") !=
        std::string::npos);
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x40;
  CHECK_FALSE(expandError(flipped, plain.size(), c.plainSha256).empty());
  CHECK(expandError(randomBytes(4096), plain.size(), c.plainSha256).find("not valid zstd") != std::string::npos);
  CHECK(expandError("", plain.size(), c.plainSha256) == "the compressed file is empty");
}

TEST_CASE("an expansion whose SHA-256 or size differs from the source's is refused, and one past the size stops there") {
  const std::string plain = textBytes(1'000'000);
  MemFile packed;
  const CompressedFile c = compressInto(plain, packed);
  Sha256 wrong = c.plainSha256;
  wrong[0] ^= 1;
  CHECK(expandError(packed.bytes(), plain.size(), wrong) == "the expanded file's SHA-256 differs from the source's");
  CHECK(expandError(packed.bytes(), plain.size() + 1, c.plainSha256).find("the expanded file is 1000000 bytes") == 0);
  // Told a smaller size, the receiver stops writing once past it.
  MemFile in(packed.bytes()), out;
  auto expanded = decompressFile(in.fd, out.fd, 1000, c.plainSha256);
  REQUIRE_FALSE(expanded.ok());
  CHECK(expanded.error().message == "the compressed file expands past the source's 1000 bytes");
  CHECK(out.bytes().size() <= 1000);
}

TEST_CASE("a compressed file expanded in steps as it lands gives the same bytes, and a corrupt step is kept as the error") {
  const std::string plain = textBytes(3'000'000) + randomBytes(1'000'000);
  MemFile packed;
  const CompressedFile c = compressInto(plain, packed);
  const std::string frame = packed.bytes();
  // The frame lands in pieces of odd sizes; each step expands what landed.
  MemFile landing, out;
  FileExpansion expansion(out.fd, plain.size(), c.plainSha256);
  std::uint64_t landed = 0, producedBefore = 0;
  for (std::size_t piece = 1; landed < frame.size(); piece = piece * 7 + 4093) {
    const std::size_t take = std::min<std::size_t>(piece, frame.size() - landed);
    REQUIRE(::pwrite(landing.fd, frame.data() + landed, take, static_cast<off_t>(landed)) ==
            static_cast<ssize_t>(take));
    landed += take;
    auto fed = expansion.feed(landing.fd, landed);
    REQUIRE_MESSAGE(fed.ok(), fed.error().message);
    CHECK(expansion.produced() >= producedBefore);
    CHECK(out.bytes() == plain.substr(0, expansion.produced()));  // only bytes that are final
    producedBefore = expansion.produced();
  }
  CHECK(expansion.produced() > 0);
  auto finished = expansion.finish(landing.fd);
  REQUIRE_MESSAGE(finished.ok(), finished.error().message);
  CHECK(out.bytes() == plain);

  // A byte flipped in the frame fails the step that reads it, and every call after.
  std::string bad = frame;
  bad[bad.size() / 2] ^= 0x40;
  MemFile corrupt(bad), out2;
  FileExpansion broken(out2.fd, plain.size(), c.plainSha256);
  auto fed = broken.feed(corrupt.fd, bad.size());
  auto again = fed ? broken.finish(corrupt.fd) : broken.feed(corrupt.fd, bad.size());
  REQUIRE_FALSE(again.ok());
  CHECK_FALSE(broken.finish(corrupt.fd).ok());
}
