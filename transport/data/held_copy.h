#pragma once
// A single file an agent holds under another path (docs/send.md, "Under
// another path"): its destination is written from the copy on the agent's
// own disk instead of the network. The bytes are checked against the
// file's SHA-256 as they are copied, so a file that changed since hnowd
// asked is caught before anything is published.
#include <cstdint>

#include "base/result.h"
#include "transport/data/data_plane.h"

namespace hnow::transport::data {

// Copies `inFd` (from offset 0, its own offset left alone) into `outFd`
// (from its offset 0); fails when it holds more or fewer than `size` bytes,
// or bytes whose SHA-256 is not `sha256`.
Result<void> copyChecked(int inFd, std::uint64_t size, const Sha256& sha256, int outFd);

}  // namespace hnow::transport::data
