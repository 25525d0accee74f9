#include "transport/data/zstd_file.h"

#include <openssl/evp.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

namespace hnow::transport::data {

namespace {

constexpr std::size_t kBufferBytes = 1 << 20;

using Digest = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

Digest freshDigest() {
  Digest d(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(d.get(), EVP_sha256(), nullptr);
  return d;
}

Sha256 digestOf(Digest& d) {
  Sha256 out{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(d.get(), out.data(), &length);
  return out;
}

// n bytes at `offset`, fewer only at the end of the file; -1 with errno.
ssize_t readAt(int fd, char* into, std::size_t n, std::uint64_t offset) {
  for (;;) {
    const ssize_t got = ::pread(fd, into, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    return got;
  }
}

Result<void> writeAll(int fd, const char* bytes, std::size_t n) {
  for (std::size_t done = 0; done < n;) {
    const ssize_t wrote = ::write(fd, bytes + done, n - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) return Error{std::string("cannot write: ") + std::strerror(errno)};
    done += static_cast<std::size_t>(wrote);
  }
  return {};
}

std::string zstdError(std::size_t code) { return ZSTD_getErrorName(code); }

}  // namespace

Result<CompressedFile> compressFile(int inFd, std::uint64_t size, int outFd, int level) {
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!cctx) return Error{"cannot start zstd: out of memory"};
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
  // zstd's own checksum of the content: a frame damaged at rest is caught
  // while it expands, before the SHA-256 at its end.
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
  // Two workers where libzstd was built with threads (Debian's is): hnowd
  // compresses before the first byte moves, so its time is the send's.
  const ZSTD_bounds workers = ZSTD_cParam_getBounds(ZSTD_c_nbWorkers);
  if (!ZSTD_isError(workers.error) && workers.upperBound >= 2)
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_nbWorkers, 2);
  // The size in the frame header: a receiver knows it before it expands,
  // and zstd refuses to end the frame at any other size.
  ZSTD_CCtx_setPledgedSrcSize(cctx.get(), size);

  std::vector<char> in(kBufferBytes), out(ZSTD_CStreamOutSize());
  Digest digest = freshDigest();
  CompressedFile result;
  std::uint64_t offset = 0;
  bool ended = false;
  while (!ended) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(in.size(), size - offset));
    const ssize_t got = want == 0 ? 0 : readAt(inFd, in.data(), want, offset);
    if (got < 0) return Error{std::string("cannot read: ") + std::strerror(errno)};
    if (got == 0 && want > 0)
      return Error{"the file ends at byte " + std::to_string(offset) + ", not " + std::to_string(size) +
                   ": it changed while it was compressed"};
    EVP_DigestUpdate(digest.get(), in.data(), static_cast<std::size_t>(got));
    offset += static_cast<std::uint64_t>(got);
    const ZSTD_EndDirective mode = offset == size ? ZSTD_e_end : ZSTD_e_continue;
    ZSTD_inBuffer input{in.data(), static_cast<std::size_t>(got), 0};
    for (;;) {
      ZSTD_outBuffer output{out.data(), out.size(), 0};
      const std::size_t left = ZSTD_compressStream2(cctx.get(), &output, &input, mode);
      if (ZSTD_isError(left)) return Error{"zstd cannot compress: " + zstdError(left)};
      if (auto wrote = writeAll(outFd, out.data(), output.pos); !wrote) return wrote.error();
      result.compressedSize += output.pos;
      if (mode == ZSTD_e_end ? left == 0 : input.pos == input.size) break;
    }
    ended = mode == ZSTD_e_end;
  }
  char extra = 0;
  if (readAt(inFd, &extra, 1, size) > 0)
    return Error{"the file is longer than " + std::to_string(size) + " bytes: it changed while it was compressed"};
  result.plainSize = size;
  result.plainSha256 = digestOf(digest);
  return result;
}

struct FileExpansion::State {
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx{ZSTD_createDCtx(), ZSTD_freeDCtx};
  Digest digest = freshDigest();
  std::vector<char> in, out;
};

FileExpansion::FileExpansion(int outFd, std::uint64_t plainSize, const Sha256& plainSha256)
    : state_(std::make_unique<State>()), outFd_(outFd), plainSize_(plainSize), plainSha256_(plainSha256) {
  // A frame that asks for a larger window is refused, not obeyed: what a
  // hostile relay's bytes can make an agent allocate stays bounded.
  if (state_->dctx) ZSTD_DCtx_setParameter(state_->dctx.get(), ZSTD_d_windowLogMax, kZstdWindowLogMax);
  state_->in.resize(kBufferBytes);
  state_->out.resize(ZSTD_DStreamOutSize());
}

FileExpansion::~FileExpansion() = default;

Result<void> FileExpansion::feed(int inFd, std::uint64_t upTo) {
  if (failed_) return *failed_;
  auto fail = [&](std::string message) -> Result<void> {
    failed_ = Error{std::move(message)};
    return *failed_;
  };
  if (!state_->dctx) return fail("cannot start zstd: out of memory");
  std::vector<char>& in = state_->in;
  std::vector<char>& out = state_->out;
  while (consumed_ < upTo) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(in.size(), upTo - consumed_));
    const ssize_t got = readAt(inFd, in.data(), want, consumed_);
    if (got < 0) return fail(std::string("cannot read the compressed file: ") + std::strerror(errno));
    if (got == 0) break;
    consumed_ += static_cast<std::uint64_t>(got);
    ZSTD_inBuffer input{in.data(), static_cast<std::size_t>(got), 0};
    ZSTD_outBuffer output{};
    do {
      output = {out.data(), out.size(), 0};
      pending_ = ZSTD_decompressStream(state_->dctx.get(), &output, &input);
      if (ZSTD_isError(pending_))
        return fail("the compressed file is not valid zstd (at byte " +
                    std::to_string(consumed_ - static_cast<std::uint64_t>(got) + input.pos) + "): " +
                    zstdError(pending_));
      if (output.pos > plainSize_ - produced_)
        return fail("the compressed file expands past the source's " + std::to_string(plainSize_) + " bytes");
      EVP_DigestUpdate(state_->digest.get(), out.data(), output.pos);
      if (auto wrote = writeAll(outFd_, out.data(), output.pos); !wrote) return fail(wrote.error().message);
      produced_ += output.pos;
      // A full output buffer may leave bytes inside zstd: ask again, unless
      // the frame ended (0) exactly there: another call would start the next.
    } while (input.pos < input.size || (output.pos == output.size && pending_ != 0));
  }
  return {};
}

Result<void> FileExpansion::finish(int inFd) {
  if (auto fed = feed(inFd, UINT64_MAX); !fed) return fed;
  if (consumed_ == 0) return Error{"the compressed file is empty"};
  if (pending_ != 0) return Error{"the compressed file ends inside a zstd frame: it is truncated"};
  if (produced_ != plainSize_)
    return Error{"the expanded file is " + std::to_string(produced_) + " bytes, the source's " +
                 std::to_string(plainSize_)};
  if (digestOf(state_->digest) != plainSha256_) return Error{"the expanded file's SHA-256 differs from the source's"};
  return {};
}

Result<void> decompressFile(int inFd, int outFd, std::uint64_t plainSize, const Sha256& plainSha256) {
  return FileExpansion(outFd, plainSize, plainSha256).finish(inFd);
}

Result<CompressionSample> sampleRatio(int fd, std::uint64_t size) {
  constexpr std::uint64_t kPiece = 1 << 20;
  std::vector<std::uint64_t> starts;
  if (size <= 4 * kPiece) {
    for (std::uint64_t at = 0; at < size; at += kPiece) starts.push_back(at);
  } else {
    starts = {0, size / 3, 2 * size / 3, size - kPiece};
  }
  CompressionSample sample;
  if (starts.empty()) return sample;  // an empty file: nothing to gain or lose
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!cctx) return Error{"cannot start zstd: out of memory"};
  std::vector<char> plain(kPiece), packed(ZSTD_compressBound(kPiece));
  std::uint64_t compressed = 0;
  std::chrono::steady_clock::duration spent{};
  for (const std::uint64_t at : starts) {
    const std::size_t want = static_cast<std::size_t>(std::min(kPiece, size - at));
    const ssize_t got = readAt(fd, plain.data(), want, at);
    if (got < 0) return Error{std::string("cannot read: ") + std::strerror(errno)};
    if (static_cast<std::size_t>(got) != want)
      return Error{"the file ends before byte " + std::to_string(at + want) + ": it changed"};
    const auto began = std::chrono::steady_clock::now();
    const std::size_t n =
        ZSTD_compressCCtx(cctx.get(), packed.data(), packed.size(), plain.data(), want, kZstdLevel);
    spent += std::chrono::steady_clock::now() - began;
    if (ZSTD_isError(n)) return Error{"zstd cannot compress: " + zstdError(n)};
    compressed += n;
    sample.sampledBytes += want;
  }
  sample.ratio = static_cast<double>(compressed) / static_cast<double>(sample.sampledBytes);
  const double seconds = std::max(std::chrono::duration<double>(spent).count(), 1e-6);
  sample.bytesPerSecond = static_cast<double>(sample.sampledBytes) / seconds;
  return sample;
}

}  // namespace hnow::transport::data
