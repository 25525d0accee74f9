// Agents grouped by the files they lack, one bundle per group
// (bundle_groups.h): exact groups, merges that waste little, the cap on
// groups, and every agent in exactly one group with every file it lacks.
#include <doctest/doctest.h>

#include <random>

#include "core/send/bundle_groups.h"

using namespace hnow::daemon;

namespace {

constexpr std::uint64_t kMiB = 1 << 20;

std::vector<bool> lacking(std::size_t entries, std::initializer_list<std::size_t> files) {
  std::vector<bool> out(entries, false);
  for (std::size_t k : files) out[k] = true;
  return out;
}

// Every agent in exactly one group, and its group carries every file it lacks.
void checkCovers(const std::vector<BundleGroup>& groups, const std::vector<std::vector<bool>>& missing) {
  std::vector<int> seen(missing.size(), 0);
  for (const BundleGroup& g : groups)
    for (std::size_t a : g.agents) {
      ++seen[a];
      for (std::size_t k = 0; k < missing[a].size(); ++k)
        if (missing[a][k]) CHECK(g.missing[k]);
    }
  for (int s : seen) CHECK(s == 1);
}

}  // namespace

TEST_CASE("agents lacking the same files form one group whose bundle carries exactly those") {
  const std::vector<std::uint64_t> sizes{0, 10 * kMiB, 20 * kMiB, 30 * kMiB};
  const std::vector<std::vector<bool>> missing(5, lacking(4, {1, 3}));
  const auto groups = groupByMissing(missing, sizes);
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].agents == std::vector<std::size_t>{0, 1, 2, 3, 4});
  CHECK(groups[0].missing == lacking(4, {1, 3}));
  CHECK(groups[0].bytes == 40 * kMiB);
  CHECK(wastedBytes(groups, missing, sizes) == 0);
}

TEST_CASE("an agent that missed last week's files gets a bundle of its own - the others do not receive them") {
  // Files 1-2 changed this week; agent 3 also lacks last week's file 3.
  const std::vector<std::uint64_t> sizes{0, 10 * kMiB, 10 * kMiB, 50 * kMiB};
  std::vector<std::vector<bool>> missing(4, lacking(4, {1, 2}));
  missing[3] = lacking(4, {1, 2, 3});
  const auto groups = groupByMissing(missing, sizes);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].agents == std::vector<std::size_t>{0, 1, 2});
  CHECK(groups[0].bytes == 20 * kMiB);
  CHECK(groups[1].agents == std::vector<std::size_t>{3});
  CHECK(groups[1].bytes == 70 * kMiB);
  CHECK(wastedBytes(groups, missing, sizes) == 0);
  checkCovers(groups, missing);
}

TEST_CASE("groups whose merge wastes under a twentieth of what the agents lack are merged - a larger waste is not") {
  // Agent 1 lacks one 100 KiB file more than agent 0, of 100 MiB each lacks:
  // merged, agent 0 receives 100 KiB for nothing (under 1 MiB and 5%).
  const std::vector<std::uint64_t> sizes{100 * kMiB, 100 << 10, 40 * kMiB};
  std::vector<std::vector<bool>> missing{lacking(3, {0}), lacking(3, {0, 1})};
  auto groups = groupByMissing(missing, sizes);
  REQUIRE(groups.size() == 1);
  CHECK(wastedBytes(groups, missing, sizes) == (100 << 10));
  // A 40 MiB file more is 20% of the 200 MiB they lack: kept apart.
  missing[1] = lacking(3, {0, 2});
  groups = groupByMissing(missing, sizes);
  CHECK(groups.size() == 2);
  checkCovers(groups, missing);
}

TEST_CASE("agents that lack nothing form a group of their own - their bundle carries only the listing") {
  const std::vector<std::uint64_t> sizes{0, 64 * kMiB};
  const std::vector<std::vector<bool>> missing{lacking(2, {}), lacking(2, {1}), lacking(2, {})};
  const auto groups = groupByMissing(missing, sizes);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].agents == std::vector<std::size_t>{0, 2});
  CHECK(groups[0].bytes == 0);
  CHECK(groups[1].agents == std::vector<std::size_t>{1});
}

TEST_CASE("more distinct groups than the cap are merged down to it, least waste first") {
  // Eight agents each lacking its own 10 MiB file, and agent 0 and 1 both
  // lacking a 1 GiB file: those two merge first (least waste), the rest
  // pair up until four groups are left.
  const std::size_t entries = 9;
  std::vector<std::uint64_t> sizes(entries, 10 * kMiB);
  sizes[8] = 1024 * kMiB;
  std::vector<std::vector<bool>> missing;
  for (std::size_t a = 0; a < 8; ++a) missing.push_back(lacking(entries, {a}));
  missing[0][8] = missing[1][8] = true;
  const auto groups = groupByMissing(missing, sizes, 4);
  CHECK(groups.size() == 4);
  checkCovers(groups, missing);
  for (const BundleGroup& g : groups) CHECK_FALSE((g.missing[8] && g.agents.size() > 2));
  CHECK(groupByMissing(missing, sizes, 1).size() == 1);
  // Under a cap of 8, merges that waste under 5% of the 2,128 MiB lacked
  // (20 MiB each) still happen; without the large file (80 MiB lacked) none does.
  CHECK(groupByMissing(missing, sizes, 8).size() < 8);
  sizes[8] = 0;
  CHECK(groupByMissing(missing, sizes, 8).size() == 8);
}

TEST_CASE("random labs: every agent in one group carrying all it lacks, never more groups than the cap") {
  std::mt19937 random(7);
  for (int lab = 0; lab < 200; ++lab) {
    const std::size_t agents = 1 + random() % 12, entries = 1 + random() % 40;
    std::vector<std::uint64_t> sizes(entries);
    for (auto& s : sizes) s = random() % (8 * kMiB);
    std::vector<std::vector<bool>> missing(agents, std::vector<bool>(entries));
    for (auto& m : missing)
      for (std::size_t k = 0; k < entries; ++k) m[k] = random() % 3 == 0;
    const std::size_t cap = 1 + random() % 5;
    const auto groups = groupByMissing(missing, sizes, cap);
    CHECK(groups.size() <= cap);
    CHECK_FALSE(groups.empty());
    checkCovers(groups, missing);
    for (const BundleGroup& g : groups) {
      std::uint64_t bytes = 0;
      for (std::size_t k = 0; k < entries; ++k) bytes += g.missing[k] ? sizes[k] : 0;
      CHECK(g.bytes == bytes);
    }
  }
  CHECK(groupByMissing({}, {1, 2}).empty());
}
