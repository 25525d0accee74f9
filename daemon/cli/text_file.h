#pragma once
#include <string>

namespace hnow::cli {

// Writes beside the target and renames into place, so a reader never sees a
// half-written file. Returns an error message, empty on success.
std::string writeFileAtomically(const std::string& path, const std::string& contents);

}  // namespace hnow::cli
