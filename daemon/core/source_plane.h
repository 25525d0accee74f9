#pragma once
// hnowd's own data plane as its services see it: it serves files of its
// own under a token to the agents that pull them, paced at hnowd's uplink
// (a send's file, a job's shares), and pulls files from agents (a job's
// results). The server implements it over the real data plane
// (server/data_source_plane.h), tests with a recorder.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace hnow::daemon {

struct SourceFile {
  std::uint64_t size = 0;
  std::string sha256;     // 32 bytes
  std::string sha256Hex;  // the same, as 64 hex digits
};

class SourcePlane {
 public:
  virtual ~SourcePlane() = default;
  // The file at `path` opened, hashed and served under `token` until
  // released; its size and digest, or why it cannot be served.
  virtual Result<SourceFile> serveFile(const std::string& token, const std::string& path) = 0;
  // `bytes` written to `path` (a file of hnowd's own) and served under
  // `token`: a job's share.
  virtual Result<SourceFile> serveBytes(const std::string& token, const std::string& path, std::string_view bytes) = 0;
  // `size` bytes under `token` pulled from the data plane at `from` into
  // `path` (written beside it, renamed once whole and matching `sha256`,
  // 32 bytes); `done` once, later, on the caller's thread, with the path or
  // why not.
  using Received = std::function<void(const Result<std::string>& path)>;
  virtual void receiveFile(const std::string& token, std::uint64_t size, const std::string& sha256,
                           const std::string& path, const std::string& from, Received done) = 0;
  // Stops serving or receiving `token`; a receive still under way never answers.
  virtual void release(const std::string& token) = 0;
  // hnowd's uplink paced at `bytesPerSecond` (0: not paced).
  virtual void paceUplink(double bytesPerSecond) = 0;
};

}  // namespace hnow::daemon
