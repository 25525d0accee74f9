#pragma once
// `hnow run` without --output: the result hnowd kept, brought to the client
// over hnowd's data plane, not the control session. hnowd grants it over
// the authenticated session (a token handed to this session alone, the
// result's SHA-256 and its pieces' digests); the client dials hnowd's data
// port and pulls it as an agent pulls a send's file: each chunk checked
// before it is written, the whole SHA-256 before it is taken
// (docs/jobs.md, "The result").
#include <cstdint>
#include <cstdio>

#include "base/result.h"
#include "cli/coordinator_client.h"

namespace hnow::cli {

// The finished run `id`'s result written to `out` once it arrived whole and
// checked (held meanwhile in a temp file, removed after); or why not.
Result<void> pullRunOutput(CoordinatorClient& client, std::uint64_t id, std::FILE* out);

}  // namespace hnow::cli
