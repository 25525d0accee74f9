// The tree index's zstd frame (tree_bundle.h): one frame that declares its
// content size, so an agent knows what it allocates before it expands a
// byte, and refuses more than kMaxTreeIndexBytes (a bomb) unexpanded.
#include <zstd.h>

#include <algorithm>
#include <memory>
#include <string>

#include "transport/data/tree_bundle.h"
#include "transport/data/zstd_file.h"

namespace hnow::transport::data {

std::string compressTreeIndex(std::string_view plain) {
  std::string out(ZSTD_compressBound(plain.size()), '\0');
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!cctx) throw std::bad_alloc();
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, kZstdLevel);
  // One-shot compression writes the content size into the frame's header.
  const std::size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), plain.data(), plain.size());
  // Only a full output buffer fails, and compressBound rules that out.
  if (ZSTD_isError(n)) throw std::bad_alloc();
  out.resize(n);
  return out;
}

Result<std::string> expandTreeIndex(std::string_view bytes) {
  const std::string damaged = "; the bundle is damaged or was not written by hnow";
  const std::size_t frame = ZSTD_findFrameCompressedSize(bytes.data(), bytes.size());
  if (ZSTD_isError(frame))
    return Error{std::string("the tree index is not a whole zstd frame (") + ZSTD_getErrorName(frame) + ")" + damaged};
  if (!std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(frame), bytes.end(), [](char c) { return c == 0; }))
    return Error{"the tree index has " + std::to_string(bytes.size() - frame) +
                 " bytes after its frame that are not zeros" + damaged};
  const unsigned long long size = ZSTD_getFrameContentSize(bytes.data(), frame);
  if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR)
    return Error{"the tree index's frame does not say its size" + damaged};
  if (size > kMaxTreeIndexBytes)
    return Error{"the tree index's frame would expand to " + std::to_string(size) + " bytes, more than " +
                 std::to_string(kMaxTreeIndexBytes) + damaged};
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!dctx) return Error{"cannot start zstd: out of memory"};
  ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_windowLogMax, kZstdWindowLogMax);
  std::string plain(static_cast<std::size_t>(size), '\0');
  // The declared size is the output's room: a frame that expands past it fails here.
  const std::size_t n = ZSTD_decompressDCtx(dctx.get(), plain.data(), plain.size(), bytes.data(), frame);
  if (ZSTD_isError(n)) return Error{std::string("the tree index does not expand: ") + ZSTD_getErrorName(n) + damaged};
  if (n != plain.size())
    return Error{"the tree index expands to " + std::to_string(n) + " bytes, not the " + std::to_string(size) +
                 " its frame declares" + damaged};
  return plain;
}

}  // namespace hnow::transport::data
