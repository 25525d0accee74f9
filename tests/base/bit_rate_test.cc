#include <doctest/doctest.h>

#include "base/bit_rate.h"

using hnow::parseBitRate;

TEST_CASE("a bit rate with k, M or G is read in bytes per second") {
  CHECK(*parseBitRate("100M") == doctest::Approx(12.5e6));
  CHECK(*parseBitRate("100m") == doctest::Approx(12.5e6));
  CHECK(*parseBitRate("1.5G") == doctest::Approx(187.5e6));
  CHECK(*parseBitRate("800k") == doctest::Approx(100e3));
  CHECK(*parseBitRate("800kbps") == doctest::Approx(100e3));
  CHECK(*parseBitRate("100 Mbit/s") == doctest::Approx(12.5e6));
}

TEST_CASE("a bit rate without a unit, with an unknown unit or not above 0 is refused with the way to write it") {
  for (const char* bad : {"100", "", "M", "0M", "-5M", "100T", "100MB", "100 Mbytes", "nanM", "infM"}) {
    auto rate = parseBitRate(bad);
    CHECK_FALSE(rate.ok());
    if (!rate.ok()) CHECK(rate.error().message.find("e.g. 100M") != std::string::npos);
  }
}
