#include "transport/data/chunk_digests.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstring>

#include "transport/data/frame.h"

namespace hnow::transport::data {

std::uint32_t chunksPerPiece(std::uint32_t chunkBytes) {
  return std::max<std::uint32_t>(1, chunkBytes / static_cast<std::uint32_t>(kDigestBytes));
}

std::uint64_t chunkCount(std::uint64_t size, std::uint32_t chunkBytes) {
  return chunkBytes == 0 ? 0 : (size + chunkBytes - 1) / chunkBytes;
}

std::uint64_t pieceCount(std::uint64_t size, std::uint32_t chunkBytes) {
  const std::uint64_t chunks = chunkCount(size, chunkBytes);
  const std::uint64_t per = chunksPerPiece(chunkBytes);
  return (chunks + per - 1) / per;
}

bool digestChunkOk(std::uint32_t chunkBytes) {
  return chunkBytes >= 4096 && chunkBytes <= kChunkBytes && chunkBytes % kDigestBytes == 0;
}

Sha256 sha256Of(std::string_view bytes) {
  Sha256 out{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), out.data());
  return out;
}

namespace {
std::string_view viewOf(const Sha256* digests, std::size_t count) {
  return {reinterpret_cast<const char*>(digests), count * kDigestBytes};
}
}  // namespace

bool ChunkDigests::expect(std::uint32_t chunk, std::uint64_t operationSize, std::string_view pieceDigests) {
  if (!digestChunkOk(chunk)) return false;
  const std::uint64_t count = pieceCount(operationSize, chunk);
  if (pieceDigests.size() != count * kDigestBytes) return false;
  chunkBytes = chunk;
  size = operationSize;
  pieces.assign(count, Sha256{});
  for (std::uint64_t j = 0; j < count; ++j) std::memcpy(pieces[j].data(), pieceDigests.data() + j * kDigestBytes, kDigestBytes);
  chunks.assign(chunkCount(size, chunk), Sha256{});
  listed.assign(count, false);
  return true;
}

std::string ChunkDigests::pieceBytes() const { return std::string(viewOf(pieces.data(), pieces.size())); }

std::string ChunkDigests::listOf(std::uint64_t piece) const {
  const std::uint64_t first = piece * chunksPerPiece(chunkBytes);
  const std::uint64_t last = std::min<std::uint64_t>(chunks.size(), first + chunksPerPiece(chunkBytes));
  return std::string(viewOf(chunks.data() + first, static_cast<std::size_t>(last - first)));
}

bool ChunkDigests::takeList(std::uint64_t offset, std::string_view payload, std::string& why) {
  const std::uint64_t piece = pieceOf(offset);
  if (piece >= pieces.size() || pieceStart(piece) != offset) {
    why = "a list of chunk digests at byte " + std::to_string(offset) + ", where no piece starts";
    return false;
  }
  const std::uint64_t first = piece * chunksPerPiece(chunkBytes);
  const std::uint64_t count = std::min<std::uint64_t>(chunks.size() - first, chunksPerPiece(chunkBytes));
  if (payload.size() != count * kDigestBytes || sha256Of(payload) != pieces[piece]) {
    why = "the chunk digests of the piece at byte " + std::to_string(offset) + " differ from the source's";
    return false;
  }
  std::memcpy(chunks[first].data(), payload.data(), payload.size());
  listed[piece] = true;
  return true;
}

bool ChunkDigests::check(std::uint64_t offset, std::string_view payload, std::string& why) const {
  const std::uint64_t chunk = offset / chunkBytes;
  const std::uint64_t length = std::min<std::uint64_t>(chunkBytes, size - std::min(size, offset));
  if (offset % chunkBytes != 0 || chunk >= chunks.size() || payload.size() != length) {
    why = "a chunk of " + std::to_string(payload.size()) + " bytes at byte " + std::to_string(offset) +
          ", not one of the source's " + std::to_string(chunkBytes) + "-byte chunks";
    return false;
  }
  if (!holdsList(pieceOf(offset))) {
    why = "the chunk at byte " + std::to_string(offset) + " came before its piece's digests";
    return false;
  }
  if (sha256Of(payload) != chunks[chunk]) {
    why = "the chunk at byte " + std::to_string(offset) + " differs from the source's (SHA-256)";
    return false;
  }
  return true;
}

struct ChunkHasher::Context {
  EVP_MD_CTX* sha = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(sha); }
};

ChunkHasher::ChunkHasher(std::uint32_t chunkBytes) : chunkBytes_(chunkBytes), context_(new Context) {
  EVP_DigestInit_ex(context_->sha, EVP_sha256(), nullptr);
}

ChunkHasher::~ChunkHasher() { delete context_; }

void ChunkHasher::update(const char* data, std::size_t size) {
  while (size > 0) {
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(size, chunkBytes_ - inChunk_));
    EVP_DigestUpdate(context_->sha, data, take);
    inChunk_ += take;
    size_ += take;
    data += take;
    size -= take;
    if (inChunk_ == chunkBytes_) {
      Sha256& d = chunks_.emplace_back();
      EVP_DigestFinal_ex(context_->sha, d.data(), nullptr);
      EVP_DigestInit_ex(context_->sha, EVP_sha256(), nullptr);
      inChunk_ = 0;
    }
  }
}

ChunkDigests ChunkHasher::finish() {
  if (inChunk_ > 0) {
    Sha256& d = chunks_.emplace_back();
    EVP_DigestFinal_ex(context_->sha, d.data(), nullptr);
    inChunk_ = 0;
  }
  ChunkDigests out;
  out.chunkBytes = chunkBytes_;
  out.size = size_;
  out.chunks = std::move(chunks_);
  const std::size_t per = chunksPerPiece(chunkBytes_);
  for (std::size_t first = 0; first < out.chunks.size(); first += per)
    out.pieces.push_back(sha256Of(viewOf(out.chunks.data() + first, std::min(per, out.chunks.size() - first))));
  out.listed.assign(out.pieces.size(), true);
  return out;
}

ChunkDigests chunkDigestsOf(std::string_view bytes, std::uint32_t chunkBytes) {
  ChunkHasher hasher(chunkBytes);
  hasher.update(bytes.data(), bytes.size());
  return hasher.finish();
}

}  // namespace hnow::transport::data
