// `hnow run` splitting and command lines (conf/run_request.h).
#include <doctest/doctest.h>

#include "conf/run_request.h"

using namespace hnow::conf;

namespace {
std::vector<std::string> unitsOf(std::string_view input, const SplitSpec& spec) {
  auto offsets = unitOffsets(input, spec);
  std::vector<std::string> units;
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
    units.emplace_back(input.substr(offsets[i], offsets[i + 1] - offsets[i]));
  return units;
}
}  // namespace

TEST_CASE("lines: each unit ends after its newline - a last line without one is a unit") {
  SplitSpec spec = parseSplitSpec("lines").value();
  CHECK(unitsOf("a\nbb\n\nc", spec) == std::vector<std::string>{"a\n", "bb\n", "\n", "c"});
  CHECK(unitsOf("a\n", spec) == std::vector<std::string>{"a\n"});
  CHECK(unitOffsets("", spec) == std::vector<std::uint64_t>{0});
}

TEST_CASE("bytes:N cuts fixed-size units, the last one shorter") {
  auto spec = parseSplitSpec("bytes:3");
  REQUIRE(spec);
  CHECK(spec->bytes == 3);
  CHECK(unitsOf("abcdefgh", *spec) == std::vector<std::string>{"abc", "def", "gh"});
}

TEST_CASE("records:SEP ends a unit after each separator, escapes decoded") {
  auto spec = parseSplitSpec("records:\\n--\\n");
  REQUIRE(spec);
  CHECK(spec->separator == "\n--\n");
  CHECK(unitsOf("a\n--\nb\n--\nc", *spec) == std::vector<std::string>{"a\n--\n", "b\n--\n", "c"});
  auto nul = parseSplitSpec("records:\\0");
  REQUIRE(nul);
  CHECK(unitsOf(std::string_view("x\0yy\0", 5), *nul) == std::vector<std::string>{std::string("x\0", 2), std::string("yy\0", 3)});
}

TEST_CASE("units tile the input: concatenated they give it back") {
  const std::string input = "one\ntwo\nthree\nfour\nfive";
  for (const char* text : {"lines", "bytes:1", "bytes:7", "bytes:1000", "records:e"}) {
    std::string joined;
    for (const auto& u : unitsOf(input, parseSplitSpec(text).value())) joined += u;
    CHECK(joined == input);
  }
}

TEST_CASE("a bad split spec is refused with what to write instead") {
  for (const char* bad : {"words", "bytes:", "bytes:0", "bytes:-3", "bytes:12k", "records:", "records:\\q", "Lines"}) {
    auto spec = parseSplitSpec(bad);
    REQUIRE_FALSE(spec);
    CHECK(spec.error().message.find("--split") != std::string::npos);
  }
  CHECK(parseSplitSpec("records:\\").error().message.find("backslash") != std::string::npos);
}

TEST_CASE("a command line splits into words like sh, without running one") {
  CHECK(splitCommandLine("tr a-z A-Z").value() == std::vector<std::string>{"tr", "a-z", "A-Z"});
  CHECK(splitCommandLine("awk '{s+=$1} END {print s}'").value() ==
        std::vector<std::string>{"awk", "{s+=$1} END {print s}"});
  CHECK(splitCommandLine("  grep  -c \"a b\" x\\ y ").value() == std::vector<std::string>{"grep", "-c", "a b", "x y"});
  CHECK(splitCommandLine("echo \"say \\\"hi\\\"\"").value() == std::vector<std::string>{"echo", "say \"hi\""});
  CHECK(splitCommandLine("printf ''").value() == std::vector<std::string>{"printf", ""});
}

TEST_CASE("what only a shell understands is refused without --shell, accepted with it") {
  for (const char* needsShell : {"sort | uniq", "wc -l > out", "echo $HOME", "ls *.txt", "a; b", "echo \"$x\""}) {
    auto words = splitCommandLine(needsShell);
    REQUIRE_FALSE(words);
    CHECK(words.error().message.find("--shell") != std::string::npos);
    auto argv = commandArgv(needsShell, true);
    REQUIRE(argv);
    CHECK(argv.value() == std::vector<std::string>{"/bin/sh", "-c", needsShell});
  }
  CHECK_FALSE(splitCommandLine("echo 'open"));
  CHECK_FALSE(splitCommandLine("echo \"open"));
  CHECK_FALSE(splitCommandLine("   "));
  CHECK_FALSE(commandArgv("  ", true));
}
