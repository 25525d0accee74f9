#pragma once
// `hnow send FILE` from wherever the operator is: what hnowd does not see at
// the client's path is uploaded before the send starts.
#include <cstdint>
#include <string>

#include "base/result.h"
#include "cli/coordinator_client.h"

namespace hnow::cli {

// `-` (standard input) and a file or directory hnowd does not see at the
// same path (another machine) are streamed to hnowd first; the upload's id,
// or 0 when hnowd reads FILE itself (its own machine, a shared
// filesystem). `tree`: the upload is a directory's bundle; `treeKey` then
// names hnowd's kept copy it holds only the missing files of ("": the
// whole tree).
Result<std::uint64_t> uploadIfUnseen(CoordinatorClient& client, const std::string& file, bool& tree,
                                     std::string& treeKey);

}  // namespace hnow::cli
