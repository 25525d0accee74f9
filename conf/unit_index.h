#pragma once
// A job's input cut into work units (run_request.h SplitSpec) without
// holding it: the bytes go through a splitter block by block, and the index
// keeps only a mark every kMarkStrideBytes (the unit starting there), so
// its memory grows with the input's size / 64 KiB, not with its units (a
// 4 GiB input of 100-byte lines has 43 million). Where any unit starts is
// read again from the mark before it: at most 64 KiB plus a byte.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "conf/run_request.h"

namespace hnow::conf {

// The split rules, fed the input in order in blocks of any size: what
// unitOffsets gives for the whole input, the starts appended block by block.
class UnitSplitter {
 public:
  // Fed from byte `at` of the input, which must be a unit's start.
  explicit UnitSplitter(const SplitSpec& spec, std::uint64_t at = 0);
  // The next bytes: the offset of each unit starting in them appended to `starts`.
  void feed(std::string_view block, std::vector<std::uint64_t>& starts);
  std::uint64_t fed() const { return at_; }

 private:
  SplitSpec spec_;
  std::uint64_t at_ = 0;
  bool startDue_ = true;       // the next byte starts a unit
  std::uint64_t inUnit_ = 0;   // bytes:N, the current unit's bytes so far
  std::size_t matched_ = 0;    // records, the separator's bytes matched so far
  std::vector<std::size_t> fallback_;  // records, Knuth-Morris-Pratt's failure function of the separator
};

// `length` bytes of the input from `offset` (fewer only at its end), or why not.
using ReadAt = std::function<Result<std::string>(std::uint64_t offset, std::size_t length)>;

class UnitIndex {
 public:
  static constexpr std::uint64_t kMarkStrideBytes = 64 * 1024;
  UnitIndex() = default;
  // The `size` bytes given by `read`, in blocks of `blockBytes`, cut by
  // `spec`; refused when the input ends before `size` (it changed).
  static Result<UnitIndex> scan(const SplitSpec& spec, std::uint64_t size, const ReadAt& read,
                                std::size_t blockBytes = 1 << 20);
  std::uint64_t units() const { return units_; }
  std::uint64_t size() const { return size_; }
  // Where unit `unit` starts (units(): the size), `read` the same input.
  Result<std::uint64_t> start(std::uint64_t unit, const ReadAt& read) const;
  // How many units start before byte `at`.
  Result<std::uint64_t> unitsBefore(std::uint64_t at, const ReadAt& read) const;

 private:
  struct Mark {
    std::uint64_t unit = 0, offset = 0;
  };
  // The starts of the units from mark `mark`'s on, before byte `until`.
  Result<std::vector<std::uint64_t>> startsAfter(std::size_t mark, std::uint64_t until, const ReadAt& read) const;
  SplitSpec spec_;
  std::vector<Mark> marks_;  // ascending, the first unit's first
  std::uint64_t units_ = 0, size_ = 0;
};

}  // namespace hnow::conf
