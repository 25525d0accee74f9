// The SHA-256 of one byte range of a file (range_digest.h): a job's share
// as hnowd serves it, a range of the job's input.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include "cli/run_process.h"
#include "transport/data/range_digest.h"
#include "transport/data_plane_nodes.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

TEST_CASE("a range's digest is that of its bytes alone, and a range past the file's end is refused") {
  TempDir dir;
  const std::string bytes = randomBytes(3 * (1 << 20) + 12345);  // over several read buffers
  std::ofstream(dir.path / "input", std::ios::binary) << bytes;
  const int fd = ::open((dir.path / "input").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  CHECK(sha256OfRange(fd, 0, bytes.size()).value() == shaOf(bytes));
  CHECK(sha256OfRange(fd, 1000, 2 << 20).value() == shaOf(bytes.substr(1000, 2 << 20)));
  CHECK(sha256OfRange(fd, bytes.size() - 1, 1).value() == shaOf(bytes.substr(bytes.size() - 1)));
  CHECK(sha256OfRange(fd, 7, 0).value() == shaOf(""));
  auto past = sha256OfRange(fd, bytes.size() - 10, 20);
  REQUIRE_FALSE(past);
  CHECK(past.error().message.find("it changed") != std::string::npos);
  ::close(fd);
}
