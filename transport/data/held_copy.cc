#include "transport/data/held_copy.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "transport/data/file_digest.h"

namespace hnow::transport::data {

namespace {

Result<void> writeAll(int fd, const char* data, std::size_t length, off_t offset) {
  while (length > 0) {
    const ssize_t n = ::pwrite(fd, data, length, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot write: ") + std::strerror(errno)};
    data += n;
    length -= static_cast<std::size_t>(n);
    offset += n;
  }
  return {};
}

}  // namespace

Result<void> copyChecked(int inFd, std::uint64_t size, const Sha256& sha256, int outFd) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr);
  std::vector<char> buffer(readBufferBytes(size + 1));
  std::uint64_t offset = 0;
  for (;;) {
    const ssize_t n = ::pread(inFd, buffer.data(), buffer.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read it: ") + std::strerror(errno)};
    if (n == 0) break;
    // One byte past `size` is enough to know the file grew: nothing more is copied.
    if (offset + static_cast<std::uint64_t>(n) > size) return Error{"it is longer than the file sent now"};
    EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(n));
    if (auto written = writeAll(outFd, buffer.data(), static_cast<std::size_t>(n), static_cast<off_t>(offset)); !written)
      return written;
    offset += static_cast<std::uint64_t>(n);
  }
  if (offset != size) return Error{"it is shorter than the file sent now"};
  Sha256 digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest.data(), &length);
  if (digest != sha256) return Error{"its bytes are no longer those of the file sent now"};
  return {};
}

}  // namespace hnow::transport::data
