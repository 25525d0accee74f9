#include <doctest/doctest.h>

#include <algorithm>

#include "base/hex.h"

TEST_CASE("hex digits are lowercase, two per byte, high nibble first") {
  const unsigned char bytes[] = {0x00, 0x0f, 0xa5, 0xff};
  CHECK(hnow::hexOf(bytes, sizeof bytes) == "000fa5ff");
  CHECK(hnow::hexOf(bytes, 0).empty());
}

TEST_CASE("hex digits read back to their bytes, and a wrong length or digit is refused") {
  const unsigned char bytes[] = {0x00, 0x0f, 0xa5, 0xff};
  unsigned char back[4] = {};
  CHECK(hnow::bytesOfHex(hnow::hexOf(bytes, sizeof bytes), back, sizeof back));
  CHECK(std::equal(bytes, bytes + 4, back));
  CHECK_FALSE(hnow::bytesOfHex("000fa5f", back, sizeof back));
  CHECK_FALSE(hnow::bytesOfHex("000fa5fg", back, sizeof back));
  CHECK_FALSE(hnow::bytesOfHex("000FA5FF", back, sizeof back));
}
