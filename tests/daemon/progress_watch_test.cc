// Issue 7: noticing a slowed link from progress reports (progress_watch.h),
// and a send asking the ends of that link to probe, with a manual clock.
#include <doctest/doctest.h>

#include <map>

#include "core/progress_watch.h"
#include "core/send_operation.h"

using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t MiB = 1 << 20;

// Node 1 receives from node `parent` for 3 s at `rate` bytes/s, reported
// every 100 ms; the parent holds `lead` more. Returns every node asked for.
std::vector<int> feed(ProgressWatch& watch, TimePoint& now, double rate, int parent, std::uint64_t lead) {
  std::vector<int> asked;
  double bytes = 0;
  for (int step = 0; step < 30; ++step) {
    now += 100ms;
    bytes += rate * 0.1;
    auto held = static_cast<std::uint64_t>(bytes);
    for (int n : watch.observe(now, 1, held, parent, held + lead)) asked.push_back(n);
  }
  return asked;
}

}  // namespace

TEST_CASE("progress watch: a copy at a tenth of its planned rate while its parent is ahead asks both ends to probe") {
  ProgressWatch watch(3);
  TimePoint now{};
  watch.expect(now, {0, 10e6, 10e6});
  auto asked = feed(watch, now, 1e6, 2, 20 * MiB);
  CHECK(asked == std::vector<int>{2, 1});  // once each, within probeEvery
}

TEST_CASE("progress watch: a copy on plan, or waiting for a parent that is not ahead, asks nothing") {
  ProgressWatch watch(3);
  TimePoint now{};
  watch.expect(now, {0, 10e6, 10e6});
  CHECK(feed(watch, now, 9e6, 2, 20 * MiB).empty());  // on plan
  watch.expect(now, {0, 10e6, 10e6});
  CHECK(feed(watch, now, 1e6, 2, 1 * MiB).empty());   // slow because its parent is
}

TEST_CASE("progress watch: the source is never asked, and a node is asked again only after probeEvery") {
  ProgressWatch watch(2, ProgressWatchOptions{1500ms, 0.5, 6 * MiB, 10s});
  TimePoint now{};
  watch.expect(now, {0, 10e6});
  CHECK(feed(watch, now, 1e6, 0, 100 * MiB) == std::vector<int>{1});
  CHECK(feed(watch, now, 1e6, 0, 100 * MiB).empty());  // 3 s later: too soon
  now += 10s;
  CHECK(feed(watch, now, 1e6, 0, 100 * MiB) == std::vector<int>{1});
}

TEST_CASE("progress watch: no verdict before a whole window of samples") {
  ProgressWatch watch(2);
  TimePoint now{};
  watch.expect(now, {0, 10e6});
  for (int step = 0; step < 14; ++step) {
    now += 100ms;
    CHECK(watch.observe(now, 1, 0, 0, 100 * MiB).empty());
  }
}

namespace {

struct ProbingCommands final : SendCommands {
  void pull(const std::string&, const std::string&) override {}
  void probe(const std::string& node) override { probes.push_back(node); }
  std::vector<std::string> probes;
};

}  // namespace

TEST_CASE("a send whose relay's children lag far behind it asks the relay and the children to probe") {
  ManualClock clock;
  ProbingCommands commands;
  // hnowd -> a -> {b, c}; predicted 10 s for 100 MB: 10 MB/s each.
  SendTree tree;
  tree.algo = "pipelined";
  tree.parent = {-1, 0, 1, 1};
  tree.finish = {0, 10, 10, 10};
  tree.predictedSeconds = 10;
  const std::uint64_t size = 100'000'000;
  SendOperation send(clock, tree, {"hnowd", "a", "b", "c"}, {"h:1", "a:1", "b:1", "c:1"}, {"", "", "", ""}, size,
                     "", commands);
  ReplanSettings settings;
  settings.nodes = {{"hnowd", "", {10e6, 10e6}}, {"a", "", {20e6, 20e6}}, {"b", "", {5e6, 20e6}},
                    {"c", "", {5e6, 20e6}}};
  send.setReplanning(settings);
  send.start();
  // a receives on plan; b and c at a tenth of it.
  for (int step = 1; step <= 30; ++step) {
    clock.advance(100ms);
    TransferReport r;
    r.bytes = static_cast<std::uint64_t>(step * 1e6);
    send.report("a", r);
    r.bytes = static_cast<std::uint64_t>(step * 1e5);
    send.report("b", r);
    send.report("c", r);
  }
  std::map<std::string, int> asked;
  for (const auto& n : commands.probes) ++asked[n];
  CHECK(asked == std::map<std::string, int>{{"a", 1}, {"b", 1}, {"c", 1}});
  CHECK(send.status().probesAsked == 3);

  SUBCASE("with --no-replan nothing is probed") {
    ProbingCommands quiet;
    SendOperation off(clock, tree, {"hnowd", "a", "b", "c"}, {"h:1", "a:1", "b:1", "c:1"}, {"", "", "", ""}, size,
                      "", quiet);
    settings.enabled = false;
    off.setReplanning(settings);
    off.start();
    for (int step = 1; step <= 30; ++step) {
      clock.advance(100ms);
      TransferReport r;
      r.bytes = static_cast<std::uint64_t>(step * 1e6);
      off.report("a", r);
      r.bytes = static_cast<std::uint64_t>(step * 1e5);
      off.report("b", r);
    }
    CHECK(quiet.probes.empty());
  }
}
