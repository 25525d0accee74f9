#pragma once
// A file name as a person can read it in a report, a log line or JSON:
// names may hold any byte but '/' and NUL (newlines, invalid UTF-8), and
// printed raw they would break the line or the JSON they go into.
#include <string>
#include <string_view>

namespace hnow {

// `bytes` with valid, printable UTF-8 kept; every control byte, DEL and
// byte of an invalid UTF-8 sequence written as \xNN, and '\' as "\\", so
// distinct names stay distinct.
std::string printable(std::string_view bytes);

}  // namespace hnow
