#include "base/printable.h"

#include <cstdio>

namespace hnow {

namespace {

// The length of the valid UTF-8 sequence starting at `at` (1 to 4), or 0.
// Overlong forms, surrogates and code points past U+10FFFF are invalid.
std::size_t utf8Length(std::string_view s, std::size_t at) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[at + k]); };
  const unsigned char c = byte(0);
  std::size_t n = 0;
  unsigned min = 0, cp = 0;
  if (c >= 0xc2 && c <= 0xdf) n = 2, min = 0x80, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef) n = 3, min = 0x800, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, min = 0x10000, cp = c & 0x07;
  else return 0;
  if (at + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (byte(k) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

// printable() and oneLine(): what stays as it is differs.
std::string escaped(std::string_view bytes, bool keepBackslashAndTab) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c == '\\' && !keepBackslashAndTab) {
      out += "\\\\";
      ++i;
    } else if ((c >= 0x20 && c < 0x7f) || (c == '\t' && keepBackslashAndTab)) {
      out += static_cast<char>(c);
      ++i;
    } else if (std::size_t n = c >= 0x80 ? utf8Length(bytes, i) : 0; n > 0) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string printable(std::string_view bytes) { return escaped(bytes, false); }

std::string oneLine(std::string_view bytes) { return escaped(bytes, true); }

bool plainText(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f) {
      ++i;
    } else if (std::size_t n = c >= 0x80 ? utf8Length(bytes, i) : 0; n > 0) {
      i += n;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace hnow
