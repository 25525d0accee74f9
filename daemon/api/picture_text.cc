#include "api/picture_text.h"

#include <cmath>
#include <cstdio>

namespace hnow::api {

namespace {

// Two or three significant digits, no exponent: 940, 94, 9.4, 0.94.
std::string digits(double x) {
  char out[32];
  std::snprintf(out, sizeof out, x >= 100 ? "%.0f" : x >= 10 ? "%.0f" : x >= 1 ? "%.1f" : "%.2f", x);
  return out;
}

std::string decimal(double x, const char* const (&units)[5], const char* suffix) {
  int u = 0;
  while (std::abs(x) >= 1000 && u < 4) {
    x /= 1000;
    ++u;
  }
  return digits(x) + " " + units[u] + suffix;
}

// The length of the UTF-8 sequence starting at s[i], 0 when it is not one.
std::size_t sequenceAt(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (length == 0 || i + length > s.size()) return 0;
  for (std::size_t k = 1; k < length; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  return length;
}

}  // namespace

std::string secondsText(double s) {
  if (!std::isfinite(s)) return "∞ s";
  char out[32];
  std::snprintf(out, sizeof out, s < 10 ? "%.2f s" : s < 100 ? "%.1f s" : "%.0f s", s);
  return out;
}

std::string rateText(double bytesPerSecond) {
  static const char* const units[5] = {"B", "kB", "MB", "GB", "TB"};
  return decimal(bytesPerSecond, units, "/s");
}

std::string sizeText(double bytes) {
  static const char* const units[5] = {"B", "kB", "MB", "GB", "TB"};
  return decimal(bytes, units, "");
}

std::string xmlText(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = sequenceAt(text, i);
    const char c = text[i];
    if (length == 0 || (length == 1 && static_cast<unsigned char>(c) < 0x20 && c != '\t')) {
      out += '?';  // not UTF-8, or a control character XML 1.0 forbids
      ++i;
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

std::string shortened(const std::string& text, std::size_t chars) {
  std::size_t i = 0, count = 0;
  while (i < text.size() && count < chars) {
    const std::size_t length = sequenceAt(text, i);
    i += length == 0 ? 1 : length;
    ++count;
  }
  return i >= text.size() ? text : text.substr(0, i) + "…";
}

}  // namespace hnow::api
