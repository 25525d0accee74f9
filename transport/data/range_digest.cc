#include "transport/data/range_digest.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "transport/data/file_digest.h"

namespace hnow::transport::data {

Result<Sha256> sha256OfRange(int fd, std::uint64_t offset, std::uint64_t length) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr);
  std::vector<char> buffer(readBufferBytes(length));
  for (std::uint64_t done = 0; done < length;) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), length - done));
    const ssize_t n = ::pread(fd, buffer.data(), want, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read: ") + std::strerror(errno)};
    if (n == 0)
      return Error{"the file ends at byte " + std::to_string(offset + done) + ", inside the range of " +
                   std::to_string(length) + " bytes from " + std::to_string(offset) + " (it changed)"};
    EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(n));
    done += static_cast<std::uint64_t>(n);
  }
  Sha256 out{};
  unsigned int size = 0;
  EVP_DigestFinal_ex(context.get(), out.data(), &size);
  return out;
}

}  // namespace hnow::transport::data
