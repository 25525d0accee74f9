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

// `bytes` as part of one log line: every control byte but tab (a newline
// would forge a line of its own, with its own "<4>" priority for journald),
// DEL and byte of an invalid UTF-8 sequence written as \xNN; '\' kept, so a
// path reads as it is.
std::string oneLine(std::string_view bytes);

// True for text that needs no escaping anywhere it goes: valid UTF-8 without
// control bytes or DEL (what a peer's site label, say, must be).
bool plainText(std::string_view bytes);

}  // namespace hnow
