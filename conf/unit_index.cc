#include "conf/unit_index.h"

#include <algorithm>
#include <cstring>

namespace hnow::conf {

UnitSplitter::UnitSplitter(const SplitSpec& spec, std::uint64_t at) : spec_(spec), at_(at) {
  if (spec_.kind != SplitSpec::Kind::kRecords) return;
  // Knuth, Morris and Pratt, "Fast pattern matching in strings", 1977: a
  // separator split over two blocks is still found, and the first one from
  // the unit's start (as std::string_view::find) ends the unit.
  const std::string& sep = spec_.separator;
  fallback_.assign(sep.size(), 0);
  for (std::size_t i = 1, k = 0; i < sep.size(); ++i) {
    while (k > 0 && sep[i] != sep[k]) k = fallback_[k - 1];
    if (sep[i] == sep[k]) ++k;
    fallback_[i] = k;
  }
}

void UnitSplitter::feed(std::string_view block, std::vector<std::uint64_t>& starts) {
  const std::size_t n = block.size();
  std::size_t i = 0;
  while (i < n) {
    if (startDue_) {
      starts.push_back(at_ + i);
      startDue_ = false;
      inUnit_ = 0;
      matched_ = 0;
    }
    switch (spec_.kind) {
      case SplitSpec::Kind::kLines: {
        const void* end = std::memchr(block.data() + i, '\n', n - i);
        i = end ? static_cast<std::size_t>(static_cast<const char*>(end) - block.data()) + 1 : n;
        startDue_ = end != nullptr;
        break;
      }
      case SplitSpec::Kind::kBytes: {
        const std::uint64_t take = std::min<std::uint64_t>(n - i, spec_.bytes - inUnit_);
        i += take;
        inUnit_ += take;
        startDue_ = inUnit_ == spec_.bytes;
        break;
      }
      case SplitSpec::Kind::kRecords: {
        const std::string& sep = spec_.separator;
        while (i < n && !startDue_) {
          const char c = block[i++];
          while (matched_ > 0 && sep[matched_] != c) matched_ = fallback_[matched_ - 1];
          if (sep[matched_] == c) ++matched_;
          startDue_ = matched_ == sep.size();
        }
        break;
      }
    }
  }
  at_ += n;
}

std::vector<std::uint64_t> unitOffsets(std::string_view input, const SplitSpec& spec) {
  std::vector<std::uint64_t> offsets;
  UnitSplitter splitter(spec);
  splitter.feed(input, offsets);
  offsets.push_back(input.size());
  return offsets;
}

Result<UnitIndex> UnitIndex::scan(const SplitSpec& spec, std::uint64_t size, const ReadAt& read,
                                  std::size_t blockBytes) {
  UnitIndex index;
  index.spec_ = spec;
  index.size_ = size;
  UnitSplitter splitter(spec);
  std::vector<std::uint64_t> starts;
  for (std::uint64_t at = 0; at < size;) {
    auto block = read(at, static_cast<std::size_t>(std::min<std::uint64_t>(blockBytes, size - at)));
    if (!block) return block.error();
    if (block->empty())
      return Error{"the input ended at byte " + std::to_string(at) + " of " + std::to_string(size) +
                   " while it was cut into units; keep it unchanged while the job runs"};
    starts.clear();
    splitter.feed(*block, starts);
    for (std::uint64_t s : starts) {
      if (index.marks_.empty() || s >= index.marks_.back().offset + kMarkStrideBytes)
        index.marks_.push_back({index.units_, s});
      ++index.units_;
    }
    at += block->size();
  }
  return index;
}

Result<std::vector<std::uint64_t>> UnitIndex::startsAfter(std::size_t mark, std::uint64_t until,
                                                          const ReadAt& read) const {
  std::vector<std::uint64_t> starts;
  UnitSplitter splitter(spec_, marks_[mark].offset);
  while (splitter.fed() < until) {
    auto block = read(splitter.fed(), static_cast<std::size_t>(until - splitter.fed()));
    if (!block) return block.error();
    if (block->empty()) break;
    splitter.feed(*block, starts);
  }
  return starts;
}

Result<std::uint64_t> UnitIndex::start(std::uint64_t unit, const ReadAt& read) const {
  if (unit >= units_) return size_;
  // The last mark at or before `unit`: the units up to the next mark start
  // less than a stride after it.
  auto after = std::upper_bound(marks_.begin(), marks_.end(), unit,
                                [](std::uint64_t u, const Mark& m) { return u < m.unit; });
  const auto mark = static_cast<std::size_t>(after - marks_.begin()) - 1;
  if (marks_[mark].unit == unit) return marks_[mark].offset;
  auto starts = startsAfter(mark, std::min(size_, marks_[mark].offset + kMarkStrideBytes), read);
  if (!starts) return starts.error();
  const std::uint64_t k = unit - marks_[mark].unit;
  if (k >= starts->size())
    return Error{"unit " + std::to_string(unit) + " of the input is not where its scan found it (the input "
                 "changed); keep it unchanged while the job runs"};
  return (*starts)[k];
}

Result<std::uint64_t> UnitIndex::unitsBefore(std::uint64_t at, const ReadAt& read) const {
  if (at >= size_) return units_;
  if (at == 0 || marks_.empty()) return 0;
  auto after = std::lower_bound(marks_.begin(), marks_.end(), at,
                                [](const Mark& m, std::uint64_t offset) { return m.offset < offset; });
  const auto mark = static_cast<std::size_t>(after - marks_.begin()) - 1;  // its offset is below `at`
  auto starts = startsAfter(mark, std::min(at, marks_[mark].offset + kMarkStrideBytes), read);
  if (!starts) return starts.error();
  return marks_[mark].unit + starts->size();
}

}  // namespace hnow::conf
