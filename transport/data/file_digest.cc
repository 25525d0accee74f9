#include "transport/data/file_digest.h"

#include "transport/data/digest_cache.h"

#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace hnow::transport::data {

std::size_t readBufferBytes(std::uint64_t size) {
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(size, 4096, 1 << 20));
}

Result<Sha256> sha256OfFile(int fd) {
  auto digests = digestsOfFile(fd, 0);
  if (!digests) return digests.error();
  return digests->whole;
}

Result<FileDigests> digestsOfFile(int fd, std::uint32_t chunkBytes) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr);
  std::optional<ChunkHasher> chunks;
  if (chunkBytes > 0) chunks.emplace(chunkBytes);
  struct stat info {};
  // One byte more than the size: the read that finds the end needs no second round.
  std::vector<char> buffer(readBufferBytes(::fstat(fd, &info) == 0 ? static_cast<std::uint64_t>(info.st_size) + 1 : 1 << 20));
  off_t offset = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buffer.data(), buffer.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read: ") + std::strerror(errno)};
    if (n == 0) break;
    EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(n));
    if (chunks) chunks->update(buffer.data(), static_cast<std::size_t>(n));
    offset += n;
  }
  FileDigests out;
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), out.whole.data(), &length);
  if (chunks) out.chunks = chunks->finish();
  return out;
}

Result<RangeDigests> sha256OfRanges(int fd, const std::vector<std::uint64_t>& ends, std::uint32_t chunkBytes) {
  using Context = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;
  auto fresh = []() {
    Context c(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    EVP_DigestInit_ex(c.get(), EVP_sha256(), nullptr);
    return c;
  };
  auto digestOf = [](Context& c) {
    Sha256 d{};
    unsigned int length = 0;
    EVP_DigestFinal_ex(c.get(), d.data(), &length);
    return d;
  };
  Context whole = fresh(), range = fresh();
  RangeDigests out;
  std::optional<ChunkHasher> chunks;
  if (chunkBytes > 0) chunks.emplace(chunkBytes);
  std::vector<char> buffer(1 << 20);
  std::uint64_t offset = 0;
  std::size_t k = 0;
  while (k < ends.size()) {
    // Up to the end of the current range, so no read spans two.
    const std::uint64_t want = std::min<std::uint64_t>(buffer.size(), ends[k] - offset);
    ssize_t n = want == 0 ? 0 : ::pread(fd, buffer.data(), want, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read: ") + std::strerror(errno)};
    if (n == 0 && want > 0) return Error{"the file ends at byte " + std::to_string(offset) + ", before its ranges do"};
    EVP_DigestUpdate(whole.get(), buffer.data(), static_cast<std::size_t>(n));
    EVP_DigestUpdate(range.get(), buffer.data(), static_cast<std::size_t>(n));
    if (chunks) chunks->update(buffer.data(), static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
    if (offset == ends[k]) {
      out.ranges.push_back(digestOf(range));
      range = fresh();
      if (chunks) {
        out.rangeChunks.push_back(chunks->finish());
        chunks.emplace(chunkBytes);
      }
      ++k;
    }
  }
  out.whole = digestOf(whole);
  return out;
}

Result<HashedFile> hashedFile(int fd, const std::string& path, std::uint32_t chunkBytes) {
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return Error{path + " is not a regular file"};
  }
  if (chunkBytes > 0) {
    auto digests = rememberedDigests(fd, chunkBytes);
    if (!digests) {
      ::close(fd);
      return Error{path + ": " + digests.error().message};
    }
    return HashedFile{fd, static_cast<std::uint64_t>(info.st_size), digests->whole, std::move(digests->chunks)};
  }
  auto digest = rememberedSha256(fd);
  if (!digest) {
    ::close(fd);
    return Error{path + ": " + digest.error().message};
  }
  return HashedFile{fd, static_cast<std::uint64_t>(info.st_size), digest.value(), {}};
}

}  // namespace hnow::transport::data
