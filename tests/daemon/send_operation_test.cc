#include <doctest/doctest.h>

#include <map>

#include "core/send_operation.h"
#include "core/send_tree.h"

using namespace hnow::daemon;

namespace {

struct RecordingCommands final : SendCommands {
  std::map<std::string, std::vector<std::string>> pulls;  // node -> parent addresses, in order
  void pull(const std::string& node, const std::string& parentAddress) override {
    pulls[node].push_back(parentAddress);
  }
};

// hnowd -> a -> b -> c, and hnowd -> d.
SendTree chain() {
  SendTree t;
  t.algo = "test";
  t.parent = {-1, 0, 1, 2, 0};
  t.finish = {0, 1, 2, 3, 1};
  t.predictedSeconds = 3;
  return t;
}

TransferReport done(const std::string& sha) {
  TransferReport r;
  r.state = TransferReport::State::kDone;
  r.sha256 = sha;
  r.path = "/x";
  return r;
}

}  // namespace

TEST_CASE("a lost relay's child pulls from the nearest living ancestor and the relay is listed failed") {
  ManualClock clock;
  RecordingCommands commands;
  SendOperation op(clock, chain(), {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"},
                   {"", "/a", "/b", "/c", "/d"}, 100, "sha", commands);
  op.start();
  CHECK(commands.pulls["c"] == std::vector<std::string>{"B"});
  op.lost("b");
  CHECK(commands.pulls["c"] == std::vector<std::string>{"B", "A"});
  op.lost("a");  // c's parent is now a: it goes to the source
  CHECK(commands.pulls["c"].back() == "H");
  CHECK_FALSE(op.finished());
  clock.advance(std::chrono::seconds(2));
  op.report("c", done("sha"));
  op.report("d", done("sha"));
  CHECK(op.finished());
  auto s = op.status();
  CHECK(s.elapsedS == doctest::Approx(2.0));
  CHECK(s.copies[0].state == CopyStatus::State::kFailed);
  CHECK(s.copies[0].message == "agent lost");
  CHECK(s.copies[2].parent == "hnowd");
  CHECK(s.copies[2].finishedS == doctest::Approx(2.0));
}

TEST_CASE("a copy reported with another SHA-256 is failed, and a finished node's loss keeps its copy") {
  ManualClock clock;
  RecordingCommands commands;
  SendOperation op(clock, chain(), {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"},
                   {"", "/a", "/b", "/c", "/d"}, 100, "sha", commands);
  op.start();
  op.report("d", done("other"));
  CHECK(op.status().copies[3].state == CopyStatus::State::kFailed);
  op.report("a", done("sha"));
  op.lost("a");  // finished, then gone: b must pull elsewhere, a's copy stays done
  CHECK(commands.pulls["b"].back() == "H");
  CHECK(op.status().copies[0].state == CopyStatus::State::kDone);
}

TEST_CASE("tree adapter: each algorithm gives a tree rooted at the source; auto picks the smallest prediction") {
  std::vector<TreeNode> nodes{{"hnowd", "", {50e6, 50e6}}};
  for (int i = 0; i < 6; ++i)
    nodes.push_back({"n" + std::to_string(i), i < 3 ? "s1" : "s2", {i % 2 ? 3e6 : 50e6, i % 2 ? 3e6 : 50e6}});
  double best = 1e300;
  for (const char* algo : {"fnf", "optimal", "lcf", "binomial", "chain", "flat"}) {
    SendTree t = planSendTree(algo, nodes, 64 << 20, 128 << 10);
    REQUIRE(t.parent.size() == nodes.size());
    CHECK(t.parent[0] == -1);
    for (std::size_t v = 1; v < nodes.size(); ++v) {  // every node reaches the source
      int hops = 0;
      for (int u = static_cast<int>(v); u != 0 && hops <= 7; u = t.parent[static_cast<std::size_t>(u)]) ++hops;
      CHECK(hops <= 6);
    }
    if (std::string(algo) != "optimal") best = std::min(best, t.predictedSeconds);
  }
  SendTree chosen = planSendTree("auto", nodes, 64 << 20, 128 << 10);
  CHECK(chosen.predictedSeconds == doctest::Approx(best));
  // A 3 MB/s node bounds everything below it: size / 3 MB/s at least.
  CHECK(chosen.predictedSeconds >= (64 << 20) / 3e6);
}

TEST_CASE("pipelined prediction: children share the parent's uplink; depth adds one chunk time per hop") {
  std::vector<TreeNode> nodes{{"s", "", {10e6, 10e6}}, {"a", "", {10e6, 10e6}}, {"b", "", {10e6, 10e6}}};
  auto flat = predictPipelined({-1, 0, 0}, nodes, 10'000'000, 100'000);
  CHECK(flat[1] == doctest::Approx(100'000 / 5e6 + 2.0));  // 5 MB/s each
  auto chain = predictPipelined({-1, 0, 1}, nodes, 10'000'000, 100'000);
  CHECK(chain[2] == doctest::Approx(0.02 + 1.0));  // two hops of 0.01 s, then 10 MB/s
}
