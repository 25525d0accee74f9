#pragma once
#include <string>

#include "base/result.h"

namespace hnow::cli {

// Writes beside the target and renames into place, so a reader never sees a
// half-written file.
Result<void> writeFileAtomically(const std::string& path, const std::string& contents);

}  // namespace hnow::cli
