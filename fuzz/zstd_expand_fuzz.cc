// A compressed file as an agent expands it (transport/data/zstd_file.h)
// after a relay sent it: arbitrary bytes must expand to exactly the plain
// size and SHA-256 hnowd announced, or give one error that says what is
// wrong; never a crash, a write past the announced size, or an allocation
// past the window limit. The first 4 bytes are the plain size (little
// endian, at most 4 MiB), the next 32 its SHA-256, the rest the file.
#include <openssl/sha.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "transport/data/zstd_file.h"

using namespace hnow::transport::data;

namespace {

std::string contentsOf(int fd) {
  std::string out;
  char buffer[65536];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n <= 0) return out;
    out.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 36) return 0;
  std::uint64_t plainSize = 0;
  for (int i = 3; i >= 0; --i) plainSize = (plainSize << 8) | data[i];
  plainSize &= (std::uint64_t{1} << 22) - 1;
  Sha256 expected{};
  for (std::size_t i = 0; i < 32; ++i) expected[i] = data[4 + i];
  const int in = ::memfd_create("compressed", MFD_CLOEXEC), out = ::memfd_create("expanded", MFD_CLOEXEC);
  HNOW_FUZZ_CHECK(in >= 0 && out >= 0, "memfd_create works");
  HNOW_FUZZ_CHECK(::write(in, data + 36, size - 36) == static_cast<ssize_t>(size - 36), "the input is written");
  auto expanded = decompressFile(in, out, plainSize, expected);
  const std::string written = contentsOf(out);
  ::close(in);
  ::close(out);
  HNOW_FUZZ_CHECK(written.size() <= plainSize, "nothing is written past the announced size");
  if (!expanded.ok()) {
    HNOW_FUZZ_CHECK(!expanded.error().message.empty(), "an error says what is wrong");
    return 0;
  }
  Sha256 got{};
  SHA256(reinterpret_cast<const unsigned char*>(written.data()), written.size(), got.data());
  HNOW_FUZZ_CHECK(written.size() == plainSize, "an expansion that succeeded has the announced size");
  HNOW_FUZZ_CHECK(got == expected, "an expansion that succeeded has the announced SHA-256");
  return 0;
}
