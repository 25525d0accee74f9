#pragma once
// Bytes as lowercase hex digits: digests in reports and file names, tokens
// in job paths.
#include <cstddef>
#include <string>

namespace hnow {

std::string hexOf(const unsigned char* bytes, std::size_t size);
// The bytes of lowercase `hex` into `out`: false unless it is exactly 2 x
// `size` lowercase hex digits.
bool bytesOfHex(const std::string& hex, unsigned char* out, std::size_t size);

}  // namespace hnow
