#include "base/bit_rate.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace hnow {

Result<double> parseBitRate(std::string_view text) {
  const std::string s(text);
  const auto fail = [&](const std::string& why) {
    return Result<double>::failure("rate '" + s + "': " + why +
                                   " (write a number with k, M or G bits per second, e.g. 100M = 100 Mbit/s)");
  };
  const char* begin = s.c_str();
  char* rest = nullptr;
  const double number = std::strtod(begin, &rest);
  if (rest == begin || !std::isfinite(number)) return fail("no number");
  if (number <= 0) return fail("must be more than 0");
  std::string unit;
  for (const char* p = rest; *p; ++p)
    if (*p != ' ') unit += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
  if (unit.empty()) return fail("no unit");
  double scale = 0;
  switch (unit[0]) {
    case 'k': scale = 1e3; break;
    case 'm': scale = 1e6; break;
    case 'g': scale = 1e9; break;
    default: return fail("unknown unit '" + unit + "'");
  }
  const std::string tail = unit.substr(1);
  if (!tail.empty() && tail != "bit/s" && tail != "bps" && tail != "bit")
    return fail("unknown unit '" + unit + "'");
  return number * scale / 8;
}

}  // namespace hnow
