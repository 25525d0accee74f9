// A job's input cut in blocks and indexed by marks (conf/unit_index.h):
// the same units as the rules say for the whole input at once.
#include <doctest/doctest.h>

#include <random>

#include "conf/unit_index.h"

using namespace hnow::conf;

namespace {

// The rules as run_request.h states them, over the whole input with find.
std::vector<std::uint64_t> findOffsets(std::string_view input, const SplitSpec& spec) {
  std::vector<std::uint64_t> offsets;
  std::uint64_t at = 0;
  while (at < input.size()) {
    offsets.push_back(at);
    if (spec.kind == SplitSpec::Kind::kBytes) {
      at = std::min<std::uint64_t>(input.size(), at + spec.bytes);
    } else {
      const std::string sep = spec.kind == SplitSpec::Kind::kLines ? "\n" : spec.separator;
      auto end = input.find(sep, at);
      at = end == std::string_view::npos ? input.size() : end + sep.size();
    }
  }
  offsets.push_back(input.size());
  return offsets;
}

// Random bytes over a small alphabet, so that separators and their
// prefixes come often.
std::string randomInput(std::mt19937& random, std::size_t size, const std::string& alphabet) {
  std::string out(size, '\0');
  for (char& c : out) c = alphabet[random() % alphabet.size()];
  return out;
}

ReadAt readerOf(const std::string& input, int* reads = nullptr) {
  return [&input, reads](std::uint64_t offset, std::size_t length) -> hnow::Result<std::string> {
    if (reads) ++*reads;
    if (offset >= input.size()) return std::string();
    return input.substr(offset, length);
  };
}

const char* const kSpecs[] = {"lines", "bytes:1", "bytes:7", "records:aba", "records:aa", "records:\\n--\\n", "records:b"};

}  // namespace

TEST_CASE("fed in blocks of any size, the splitter cuts the units find cuts over the whole input") {
  std::mt19937 random(7);
  for (const char* text : kSpecs) {
    const SplitSpec spec = parseSplitSpec(text).value();
    for (int trial = 0; trial < 20; ++trial) {
      const std::string input = randomInput(random, random() % 300, "ab\n-");
      const auto expected = findOffsets(input, spec);
      CHECK(unitOffsets(input, spec) == expected);
      for (std::size_t block : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{64}}) {
        UnitSplitter splitter(spec);
        std::vector<std::uint64_t> starts;
        for (std::size_t at = 0; at < input.size(); at += block)
          splitter.feed(std::string_view(input).substr(at, block), starts);
        starts.push_back(input.size());
        INFO(text, " in blocks of ", block, ": ", input);
        CHECK(starts == expected);
      }
    }
  }
}

TEST_CASE("a separator that overlaps itself ends the unit at its first whole occurrence") {
  const SplitSpec spec = parseSplitSpec("records:aa").value();
  CHECK(unitOffsets("aaa", spec) == std::vector<std::uint64_t>{0, 2, 3});
  const SplitSpec aba = parseSplitSpec("records:aba").value();
  CHECK(unitOffsets("ababa", aba) == std::vector<std::uint64_t>{0, 3, 5});
}

TEST_CASE("the index gives every unit's start and the units before any byte, as the whole cut does") {
  std::mt19937 random(11);
  for (const char* text : {"lines", "bytes:3", "records:aba"}) {
    const SplitSpec spec = parseSplitSpec(text).value();
    // Over several strides, with short units and some very long ones.
    std::string input = randomInput(random, 3 * UnitIndex::kMarkStrideBytes, "ab\n");
    input += std::string(2 * UnitIndex::kMarkStrideBytes, 'c') + "\n" + randomInput(random, 5000, "ab\n");
    const auto offsets = findOffsets(input, spec);
    auto index = UnitIndex::scan(spec, input.size(), readerOf(input), 4096);
    REQUIRE(index);
    INFO(text);
    CHECK(index->units() == offsets.size() - 1);
    CHECK(index->size() == input.size());
    for (std::uint64_t unit = 0; unit < offsets.size(); unit += 1 + random() % 97)
      CHECK(index->start(unit, readerOf(input)).value() == offsets[unit]);
    CHECK(index->start(index->units(), readerOf(input)).value() == input.size());
    for (std::uint64_t at : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{16384}, std::uint64_t{100000},
                             std::uint64_t{4 * UnitIndex::kMarkStrideBytes}, std::uint64_t{input.size() - 1}}) {
      const auto before = static_cast<std::uint64_t>(std::lower_bound(offsets.begin(), offsets.end() - 1, at) - offsets.begin());
      CHECK(index->unitsBefore(at, readerOf(input)).value() == before);
    }
  }
}

TEST_CASE("a unit's start is read again from the mark before it, not from the input's start") {
  std::string input;
  for (int i = 0; i < 40000; ++i) input += "line " + std::to_string(i) + "\n";
  const SplitSpec spec = parseSplitSpec("lines").value();
  auto index = UnitIndex::scan(spec, input.size(), readerOf(input));
  REQUIRE(index);
  int reads = 0;
  std::string reread;
  auto counting = [&](std::uint64_t offset, std::size_t length) -> hnow::Result<std::string> {
    ++reads;
    reread += input.substr(offset, length);
    return input.substr(offset, length);
  };
  CHECK(index->start(39000, counting).value() == findOffsets(input, spec)[39000]);
  CHECK(reads >= 1);
  CHECK(reread.size() <= UnitIndex::kMarkStrideBytes);
}

TEST_CASE("an input shorter than it was said to be is refused, and an empty one has no unit") {
  const SplitSpec spec = parseSplitSpec("lines").value();
  const std::string input = "a\nb\n";
  auto shorter = UnitIndex::scan(spec, 10, readerOf(input));
  REQUIRE_FALSE(shorter);
  CHECK(shorter.error().message.find("unchanged") != std::string::npos);
  auto empty = UnitIndex::scan(spec, 0, readerOf(input));
  REQUIRE(empty);
  CHECK(empty->units() == 0);
  CHECK(empty->start(0, readerOf(input)).value() == 0);
}
