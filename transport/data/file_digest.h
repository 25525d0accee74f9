#pragma once
// The SHA-256 of a whole file (DESIGN.md "Integrity and security defaults":
// checked before the rename into place), for whoever serves a file: hnowd
// as a send's source, an agent as a manifest item's.
#include <string>

#include "base/result.h"
#include "transport/data/data_plane.h"

namespace hnow::transport::data {

// Reads `fd` from offset 0 with pread (its own offset is left alone); the
// digest, or why the file could not be read.
Result<Sha256> sha256OfFile(int fd);

}  // namespace hnow::transport::data
