#pragma once
// Bytes as lowercase hex digits: digests in reports and file names, tokens
// in job paths.
#include <cstddef>
#include <string>

namespace hnow {

std::string hexOf(const unsigned char* bytes, std::size_t size);

}  // namespace hnow
