#pragma once
// How the CLI prints numbers and measures how long planning took: one place,
// so the table, the JSON and the charts agree.
#include <chrono>
#include <cstdio>
#include <string>

namespace hnow::cli {

// Up to six significant digits, no trailing zeros: 4, 2.5, 1.23457e+06.
inline std::string shortNumber(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

// A byte count in binary units, one decimal: "1.5 MiB".
inline std::string bytesText(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char out[32];
  std::snprintf(out, sizeof out, "%.1f %s", b, units[u]);
  return out;
}

// Wall-clock time since construction, for the "seconds" a plan reports.
class Stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace hnow::cli
