#include <doctest/doctest.h>

#include "base/hex.h"

TEST_CASE("hex digits are lowercase, two per byte, high nibble first") {
  const unsigned char bytes[] = {0x00, 0x0f, 0xa5, 0xff};
  CHECK(hnow::hexOf(bytes, sizeof bytes) == "000fa5ff");
  CHECK(hnow::hexOf(bytes, 0).empty());
}
