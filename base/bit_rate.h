#pragma once
// A rate as people write it on a command line: "100M" is 100 Mbit/s.
#include <string_view>

#include "base/result.h"

namespace hnow {

// A number > 0 with a unit of bits per second: k, M or G (case does not
// matter), optionally followed by "bit/s" or "bps" ("100M", "1.5G",
// "800kbps", "100 Mbit/s"). A bare number is refused: bits or bytes would
// be a guess. Returns bytes per second.
Result<double> parseBitRate(std::string_view text);

}  // namespace hnow
