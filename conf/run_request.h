#pragma once
// `hnow run`: how an input is cut into work units and how a
// command line becomes an argv. Pure: strings in, values or a clear error
// out, so both the CLI (early refusal) and hnowd (the cut itself) use them.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace hnow::conf {

// --split lines | bytes:N | records:SEP. A unit is the smallest piece a
// share is made of (seed 002's divisible load, §II: work is measured in
// units of equal cost).
struct SplitSpec {
  enum class Kind { kLines, kBytes, kRecords };
  Kind kind = Kind::kLines;
  std::uint64_t bytes = 0;  // kBytes: unit size
  std::string separator;    // kRecords: a unit ends right after it (escapes \n \t \0 \\ decoded)
};

Result<SplitSpec> parseSplitSpec(std::string_view text);

// The byte offset where each unit starts, plus the input size at the end:
// units = offsets.size() - 1. A unit ends after a '\n' (lines), after N
// bytes (bytes:N) or after the separator (records); a last unit without its
// terminator is a unit too. An empty input has no units. The rules
// themselves are UnitSplitter's (unit_index.h), which cuts an input fed in blocks.
std::vector<std::uint64_t> unitOffsets(std::string_view input, const SplitSpec& spec);

// A command line split into words like a POSIX shell would, without running
// one: blanks separate words, '...' is literal, "..." keeps blanks and
// honours \" \\ \$ \`, a backslash outside quotes escapes the next
// character. Anything a shell would expand ($, `, *, ?, |, ;, <, >, & and
// so on, unquoted) is refused with a hint to pass --shell, because without
// a shell it would silently mean something else.
Result<std::vector<std::string>> splitCommandLine(std::string_view command);

// The argv for `command`: /bin/sh -c COMMAND with `shell`, else the words.
Result<std::vector<std::string>> commandArgv(std::string_view command, bool shell);

}  // namespace hnow::conf
