// `hnow run`'s request parts that come from the command line and are cut
// by hnowd (conf/run_request.h): --split, the cut of an input into units,
// and the command line split into words. Input: the split spec, '\n', the
// command line, '\n', the input to cut.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "conf/run_request.h"
#include "fuzz/fuzz_check.h"

namespace {

// The text up to the next '\n' (all of it when there is none); `rest` moves past it.
std::string_view takeLine(std::string_view& rest) {
  const std::size_t end = rest.find('\n');
  std::string_view line = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const std::string_view split = takeLine(rest);
  const std::string_view command = takeLine(rest);
  const std::string_view input = rest;

  auto spec = hnow::conf::parseSplitSpec(split);
  if (!spec.ok()) {
    HNOW_FUZZ_CHECK(!spec.error().message.empty(), "a refused --split says why");
  } else {
    auto offsets = hnow::conf::unitOffsets(input, spec.value());
    HNOW_FUZZ_CHECK(!offsets.empty() && offsets.front() == 0 && offsets.back() == input.size(),
                    "units cover the input from 0 to its end");
    for (std::size_t i = 1; i < offsets.size(); ++i)
      HNOW_FUZZ_CHECK(offsets[i - 1] < offsets[i], "every unit holds at least one byte");
    if (input.empty()) HNOW_FUZZ_CHECK(offsets.size() == 1, "an empty input has no units");
  }

  for (bool shell : {false, true}) {
    auto argv = hnow::conf::commandArgv(command, shell);
    if (!argv.ok()) {
      HNOW_FUZZ_CHECK(!argv.error().message.empty(), "a refused command says why");
      continue;
    }
    if (shell) HNOW_FUZZ_CHECK(argv->size() == 3 && (*argv)[2] == command, "--shell runs it as typed");
    else HNOW_FUZZ_CHECK(!argv->empty(), "a command has a program");
  }
  return 0;
}
