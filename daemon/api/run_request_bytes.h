#pragma once
// A run's request as bytes (its RunRequest message, packed; made in
// run_wire.cc, where Cap'n Proto is), for what hnowd
// keeps of a queued job in state.db: the queue survives a restart, and a
// request written by one build is read by the next (Cap'n Proto's rules for
// adding fields). The state store keeps them as an opaque blob.
#include <string>

#include "api/run.h"
#include "base/result.h"

namespace hnow::api {

std::string encodeRunRequest(const RunRequest& request);
// Why the bytes are not a request: damaged, or from another program.
Result<RunRequest> decodeRunRequest(const std::string& bytes);

}  // namespace hnow::api
