#pragma once
// `hnow send FILE` from wherever the operator is: what hnowd does not see at
// the client's path is uploaded before the send starts.
#include <cstdint>
#include <string>

#include "base/result.h"
#include "cli/coordinator_client.h"

namespace hnow::cli {

// `-` (standard input) and a file or directory hnowd does not see at the
// same path (another machine) are streamed to hnowd first; `request`'s
// upload is then set (api::SendRequest::upload, uploadIsTree, uploadKey,
// uploadStamp), left 0 when hnowd reads FILE itself (its own machine, a
// shared filesystem) or holds the same file from its last upload (then
// uploadKey names that copy).
Result<void> uploadIfUnseen(CoordinatorClient& client, const std::string& file, api::SendRequest& request);

}  // namespace hnow::cli
