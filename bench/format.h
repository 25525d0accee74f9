#pragma once
// Number formatting for the markdown tables and a tiny --key=value parser
// shared by the bench programs.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace hnow::bench {

// Counts: plain integers while exact, then 3 significant digits.
inline std::string count(double x) {
  char buf[64];
  if (x < 1e15) std::snprintf(buf, sizeof buf, "%.0f", x);
  else std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// Durations in the unit that keeps 3 significant digits readable.
inline std::string duration(double seconds) {
  char buf[64];
  if (seconds < 1e-3) std::snprintf(buf, sizeof buf, "%.3g µs", seconds * 1e6);
  else if (seconds < 1.0) std::snprintf(buf, sizeof buf, "%.3g ms", seconds * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3g s", seconds);
  return buf;
}

inline std::string fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

inline std::string percent(double fraction, int decimals) { return fixed(100 * fraction, decimals) + "%"; }

// Accepts --name=VALUE for `name`; leaves `value` alone otherwise.
inline bool option(const char* arg, const char* name, long long& value) {
  const size_t len = std::strlen(name);
  if (std::strncmp(arg, "--", 2) != 0 || std::strncmp(arg + 2, name, len) != 0 || arg[2 + len] != '=')
    return false;
  value = std::atoll(arg + 3 + len);
  return true;
}

}  // namespace hnow::bench
