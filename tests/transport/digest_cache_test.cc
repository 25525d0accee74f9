// Digests remembered by inode and stamps (digest_cache.h), on files in /tmp.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "transport/data/digest_cache.h"
#include "transport/data/file_digest.h"
#include "transport/tree_fixture.h"

using namespace hnow::transport::data;

namespace {

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

hnow::Result<Sha256> digestOf(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto d = rememberedSha256(fd);
  ::close(fd);
  return d;
}

}  // namespace

TEST_CASE("a file read once is not read again while its size, mtime and ctime stay - a write, even of the same size, is seen") {
  forgetDigests();
  hnow::testing::Scratch dir;
  const std::string path = dir / "image.bin";
  write(path, std::string(300000, 'a'));
  // Changed less than a second ago: a tick of its timestamps may hide a write, so it is read each time.
  const auto fresh = digestReads();
  REQUIRE(digestOf(path));
  REQUIRE(digestOf(path));
  CHECK(digestReads() - fresh == 2);

  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  auto first = digestOf(path);
  REQUIRE(first);
  const auto before = digestReads();
  auto again = digestOf(path);
  REQUIRE(again);
  CHECK(*again == *first);
  CHECK(digestReads() == before);  // remembered
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  auto served = hashedFile(fd, path);  // what a source serves by
  REQUIRE(served);
  CHECK(served->sha256 == *first);
  ::close(served->fd);
  CHECK(digestReads() == before);

  // Other bytes of the same size: its ctime moved, so it is read again.
  write(path, std::string(300000, 'b'));
  auto changed = digestOf(path);
  REQUIRE(changed);
  CHECK(*changed != *first);
  CHECK(digestReads() == before + 1);
  fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  CHECK(sha256OfFile(fd).value() == *changed);
  ::close(fd);
}

TEST_CASE("a source's chunk digests are remembered with its digest - the next send of the same file reads it no more, a write is seen") {
  forgetDigests();
  hnow::testing::Scratch dir;
  const std::string path = dir / "served.bin";
  std::string bytes(200000, 'c');
  bytes[150000] = 'x';
  write(path, bytes);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  auto served = [&]() {
    auto hashed = hashedFile(::open(path.c_str(), O_RDONLY | O_CLOEXEC), path, 8192);
    REQUIRE(hashed);
    ::close(hashed->fd);
    return std::move(hashed).value();
  };
  const HashedFile first = served();
  CHECK(first.digests.pieces == chunkDigestsOf(bytes, 8192).pieces);
  CHECK(first.digests.chunks.size() == 25);
  const auto before = digestReads();
  const HashedFile again = served();
  CHECK(digestReads() == before);  // remembered
  CHECK(again.digests.chunks == first.digests.chunks);
  CHECK(again.sha256 == first.sha256);
  // The plain digest was remembered by the same read.
  CHECK(digestOf(path).value() == first.sha256);
  CHECK(digestReads() == before);
  // Cut in other chunks, it is read again.
  auto other = hashedFile(::open(path.c_str(), O_RDONLY | O_CLOEXEC), path, 4096);
  REQUIRE(other);
  ::close(other->fd);
  CHECK(other->digests.chunks.size() == 49);
  CHECK(digestReads() == before + 1);
  bytes[150000] = 'y';
  write(path, bytes);
  const HashedFile changed = served();
  CHECK(changed.digests.chunks[18] != first.digests.chunks[18]);
  CHECK(changed.digests.chunks[0] == first.digests.chunks[0]);
}
