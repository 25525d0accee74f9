#pragma once
// The SHA-256 of one byte range of a file, for hnowd serving a job's share
// as a range of the job's input (daemon/core/send/source_plane.h serveRange):
// read in blocks, never held whole.
#include <cstdint>

#include "base/result.h"
#include "transport/data/data_plane.h"

namespace hnow::transport::data {

// `length` bytes of `fd` from `offset`, read with pread (its own offset is
// left alone); refused when the file ends before them.
Result<Sha256> sha256OfRange(int fd, std::uint64_t offset, std::uint64_t length);

}  // namespace hnow::transport::data
