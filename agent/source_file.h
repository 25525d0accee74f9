#pragma once
// Where an item of a manifest is read from: an agent serves a file of its own.
// The confinement rules are the receive's (agent/dest_path.h,
// docs/architecture.md "Integrity and security defaults"): a relative path is
// under the data root, an absolute one must lie inside a root, `..` is
// refused, and every directory and the file itself are opened with O_NOFOLLOW,
// so no symlink leads outside the root.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "transport/data/chunk_digests.h"

namespace hnow::agent {

struct SourceFile {
  int fd = -1;  // owned by the caller
  std::uint64_t size = 0;
  std::array<unsigned char, 32> sha256{};
  // Served in these chunks, each checked by every receiver against its
  // digest (transport/data/chunk_digests.h): the source is this agent.
  transport::data::ChunkDigests digests{};
};

// The opened, hashed file, or the reason it is refused.
Result<SourceFile> openSourceFile(const std::vector<std::string>& roots, const std::string& file);

}  // namespace hnow::agent
