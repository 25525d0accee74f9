#pragma once
// A client's bytes handed to hnowd over hnowd's data plane, not the control
// session (docs/tree-send.md, "From the client's machine").
#include <cstdint>

#include "base/result.h"
#include "cli/coordinator_client.h"

namespace hnow::cli {

// The regular file open at `fd` (read with pread from offset 0; the
// descriptor stays the caller's) granted an upload over the control
// session, then offered on hnowd's data port under the grant's ticket and
// hashed meanwhile; answers the upload's id once hnowd holds it whole and
// its digest is the client's.
Result<std::uint64_t> offerUpload(CoordinatorClient& client, int fd);

// An empty temp file, already unlinked (gone with its descriptor, whatever
// happens): its descriptor, or why not.
Result<int> unlinkedTempFile();

// Standard input copied into an unlinked temp file (the data plane serves
// a file of known size and SHA-256, and resumes from an offset): its
// descriptor, or why not.
Result<int> spoolStandardInput();

}  // namespace hnow::cli
