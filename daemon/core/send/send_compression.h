#pragma once
// `hnow send --compress auto|zstd|none` (docs/compression.md): hnowd
// compresses a send's file (or a tree's bundle) once, the compressed file
// moves along the plan as any file does, and every agent expands it after
// receipt. `auto` compresses when the prediction says the link time saved
// pays for compressing at hnowd and expanding at the agents.
#include <cstdint>
#include <functional>
#include <string>

#include "api/send_status.h"
#include "base/result.h"

namespace hnow::daemon {

// What compressing a file would give, from samples of it.
struct CompressionSample {
  double ratio = 1.0;                   // compressed / plain bytes
  double compressBytesPerSecond = 0.0;  // plain bytes compressed per second at hnowd
};

// A file compressed into a scratch file of hnowd's (removed with the send).
struct CompressedSource {
  std::string path;
  std::uint64_t size = 0;       // compressed
  std::uint64_t plainSize = 0;
  std::string plainSha256;      // 32 bytes
  double seconds = 0.0;         // what compressing took
};

// What a send's report says of it (api/send_status.h).
using api::SendCompression;

// Agents expand at about this (one core, zstd level 3, with the SHA-256).
inline constexpr double kExpandBytesPerSecond = 1e9;
// `auto` compresses only when that predicts at least 5% less than plain:
// below that the prediction's error is larger than the gain.
inline constexpr double kCompressGain = 0.95;

bool knownCompressMode(const std::string& mode);  // auto, zstd, none

struct CompressionChoice {
  bool compress = false;
  std::string why;
};

// The decision for a file of `size` bytes whose plain send is predicted to
// take `plainSeconds`; `sample` is null for `none` (nothing sampled);
// `sendSeconds(bytes)` predicts sending that many bytes along the same
// agents. Compressed: sendSeconds(size * ratio) + size / compress rate
// (hnowd, before the first byte moves) + size / kExpandBytesPerSecond (each
// agent, after the last arrives).
CompressionChoice chooseCompression(const std::string& mode, std::uint64_t size, double plainSeconds,
                                    const Result<CompressionSample>* sample,
                                    const std::function<double(std::uint64_t bytes)>& sendSeconds);

}  // namespace hnow::daemon
