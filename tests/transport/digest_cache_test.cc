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
