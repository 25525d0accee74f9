#pragma once
// hnowd's own data plane as its services see it when hnowd is the source:
// it serves a file of its own under a token to the agents that pull it,
// paced at hnowd's uplink. The server implements it over the real data
// plane (server/data_source_plane.h), tests with a recorder.
#include <cstdint>
#include <string>

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
  virtual void release(const std::string& token) = 0;
  // hnowd's uplink paced at `bytesPerSecond` (0: not paced).
  virtual void paceUplink(double bytesPerSecond) = 0;
};

}  // namespace hnow::daemon
