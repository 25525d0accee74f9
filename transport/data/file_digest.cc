#include "transport/data/file_digest.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

namespace hnow::transport::data {

Result<Sha256> sha256OfFile(int fd) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr);
  std::vector<char> buffer(1 << 20);
  off_t offset = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buffer.data(), buffer.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read: ") + std::strerror(errno)};
    if (n == 0) break;
    EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(n));
    offset += n;
  }
  Sha256 digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest.data(), &length);
  return digest;
}

}  // namespace hnow::transport::data
