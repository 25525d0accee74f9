#include "base/hex.h"

namespace hnow {

std::string hexOf(const unsigned char* bytes, std::size_t size) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (std::size_t i = 0; i < size; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

}  // namespace hnow
