// hnowd's side of a striped send, deterministically: one SendOperation per
// stripe, re-shared on drift and on a loss.
#include <doctest/doctest.h>

#include <map>

#include "base/clock.h"
#include "daemon/core/send_commands_recorder.h"
#include "core/send/striped_send.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {

using testing::RecordingCommands;

// hnowd 50 MB/s up; 8 agents with fast downlinks and mixed uplinks: the
// uplink-bound lab, where the striped plan gives every agent children.
struct StripedLab {
  ManualClock clock;
  std::vector<TreeNode> nodes{{"hnowd", "", {50e6, 50e6}}};
  std::vector<std::string> names{"hnowd"}, addresses{"H"}, paths{""};
  SendTree tree;
  std::vector<StripeSource> sources;
  std::vector<RecordingCommands> commands;
  std::unique_ptr<StripedSend> send;
  static constexpr std::uint64_t kSize = 128 << 20;

  std::uint64_t size;
  // `scale` multiplies every rate (0.01: volunteers at 4/1/0.5 Mbit/s up).
  // `rooms`: agents 1-4 in room "one", 5-8 in room "two".
  explicit StripedLab(bool replan = true, std::uint64_t bytes = kSize, double scale = 1.0, bool rooms = false)
      : size(bytes) {
    nodes[0].rates = {50e6 * scale, 50e6 * scale};
    for (int i = 1; i <= 8; ++i) {
      nodes.push_back({"n" + std::to_string(i), rooms && i > 4 ? "two" : "one",
                       {(i <= 2 ? 50e6 : i <= 5 ? 12.5e6 : 6e6) * scale, 50e6 * scale}});
      names.push_back(nodes.back().name);
      addresses.push_back("A" + std::to_string(i));
      paths.push_back("/p");
    }
    auto planned = planSendTree("striped", nodes, size, 128 << 10);
    REQUIRE(planned);
    tree = *planned;
    REQUIRE(tree.stripeParents.size() >= 2);
    commands.resize(tree.stripeParents.size());
    std::vector<SendCommands*> each;
    for (std::size_t k = 0; k + 1 < tree.stripeOffsets.size(); ++k) {
      sources.push_back({"token" + std::to_string(k), tree.stripeOffsets[k],
                         tree.stripeOffsets[k + 1] - tree.stripeOffsets[k], "sha" + std::to_string(k)});
      each.push_back(&commands[k]);
    }
    ReplanSettings settings;
    settings.enabled = replan;
    settings.nodes = nodes;
    settings.chunkBytes = 128 << 10;
    send = std::make_unique<StripedSend>(clock, tree, names, addresses, paths, size, "whole", sources, each, settings);
    send->start();
  }
  // Children of `node` over every stripe, as the send stands now.
  int childrenOf(const std::string& node) const {
    int n = 0;
    for (const CopyStatus& c : send->status().copies)
      for (const std::string& p : c.stripeParents) n += p == node;
    return n;
  }
  // Every agent holds `fraction` of each stripe.
  void progress(double fraction) {
    for (std::size_t k = 0; k < sources.size(); ++k)
      for (std::size_t i = 1; i < names.size(); ++i) {
        TransferReport r;
        r.bytes = static_cast<std::uint64_t>(static_cast<double>(sources[k].length) * fraction);
        send->report(names[i], sources[k].token, r);
      }
  }
};

// The agent feeding the most children over all stripes.
std::string busiest(const StripedLab& lab) {
  std::string best;
  for (std::size_t i = 1; i < lab.names.size(); ++i)
    if (best.empty() || lab.childrenOf(lab.names[i]) > lab.childrenOf(best)) best = lab.names[i];
  return best;
}

}  // namespace

TEST_CASE("a striped send re-shares its stripes when a busy relay's uplink drops tenfold: its children move away") {
  StripedLab lab;
  lab.clock.advance(1s);
  lab.progress(0.2);
  const std::string relay = busiest(lab);
  const int before = lab.childrenOf(relay);
  REQUIRE(before >= 2);
  planner::NodeRates slowed = lab.nodes[static_cast<std::size_t>(std::stoi(relay.substr(1)))].rates;
  slowed.uplinkBytesPerSecond /= 10;
  CHECK(lab.send->ratesChanged(relay, slowed, "drift: " + relay + " uplink"));
  const SendStatus s = lab.send->status();
  CHECK(s.replans == 1);
  CHECK(s.replannedPredictedS > 1.0);
  CHECK(lab.childrenOf(relay) < before);
  CHECK(lab.send->replanNote().find("re-shared") != std::string::npos);
  // Every move is a pull to the new parent's address, logged with its stripe.
  std::size_t pulls = 0;
  for (const auto& c : lab.commands)
    for (const auto& [node, parents] : c.pulls) pulls += parents.size();
  CHECK(pulls == 8 * lab.sources.size() + s.parentChanges.size());
  for (const ParentChange& change : s.parentChanges) CHECK(change.reason.rfind("stripe ", 0) == 0);
}

TEST_CASE("a striped send keeps its stripes on a drift that changes little, and with replanning off") {
  StripedLab lab;
  const std::string relay = busiest(lab);
  planner::NodeRates nudged = lab.nodes[static_cast<std::size_t>(std::stoi(relay.substr(1)))].rates;
  nudged.uplinkBytesPerSecond *= 0.97;
  CHECK_FALSE(lab.send->ratesChanged(relay, nudged, "drift"));
  CHECK(lab.send->status().replans == 0);
  CHECK(lab.send->replanNote().find("gain below the threshold") != std::string::npos);

  StripedLab off(false);
  planner::NodeRates slowed = nudged;
  slowed.uplinkBytesPerSecond /= 10;
  CHECK_FALSE(off.send->ratesChanged(relay, slowed, "drift"));
  CHECK(off.send->status().parentChanges.empty());
  CHECK_FALSE(off.send->status().replanning);
}

TEST_CASE("a striped send that loses a relay re-shares over the agents left, none pulling from the lost one") {
  StripedLab lab;
  lab.clock.advance(1s);
  lab.progress(0.5);
  const std::string relay = busiest(lab);
  lab.send->lost(relay);
  const SendStatus s = lab.send->status();
  for (const CopyStatus& c : s.copies) {
    if (c.node == relay) {
      CHECK(c.state == CopyStatus::State::kFailed);
      continue;
    }
    for (const std::string& p : c.stripeParents) CHECK(p != relay);
  }
  CHECK(lab.send->replanNote().find(relay + " lost") != std::string::npos);
  // Every agent standing done with every stripe: the send is over.
  for (std::size_t k = 0; k < lab.sources.size(); ++k)
    for (std::size_t i = 1; i < lab.names.size(); ++i) {
      if (lab.names[i] == relay) continue;  // a report from it would bring it back
      TransferReport r;
      r.state = TransferReport::State::kDone;
      r.bytes = lab.sources[k].length;
      r.sha256 = lab.sources[k].sha256Hex;
      lab.send->report(lab.names[i], lab.sources[k].token, r);
    }
  // The lost relay may still report again within 5 s of its loss.
  lab.clock.advance(5s);
  CHECK(lab.send->finished());
  std::size_t done = 0;
  for (const CopyStatus& c : lab.send->status().copies) done += c.state == CopyStatus::State::kDone;
  CHECK(done == 7);
}

namespace {

// In `lab`, a node whose parent in one stripe is a slow agent receives that
// stripe at half the pace of every other copy; returns the node and stripe
// once every other copy holds everything.
std::pair<std::string, std::size_t> lagOneStripe(StripedLab& lab) {
  int node = -1;
  std::size_t lagging = 0;
  for (std::size_t k = 0; k < lab.tree.stripeParents.size() && node < 0; ++k)
    for (std::size_t i = 1; i < lab.names.size(); ++i) {
      const int p = lab.tree.stripeParents[k][i];
      if (p > 0 && lab.nodes[static_cast<std::size_t>(p)].rates.uplinkBytesPerSecond <
                       0.4 * lab.nodes[0].rates.uplinkBytesPerSecond) {
        node = static_cast<int>(i), lagging = k;
        break;
      }
    }
  REQUIRE(node > 0);
  lab.clock.advance(5s);
  for (int step = 1; step <= 20; ++step)
    for (std::size_t i = 1; i < lab.names.size(); ++i)
      for (std::size_t k = 0; k < lab.sources.size(); ++k) {
        const double pace = static_cast<int>(i) == node && k == lagging ? 0.5 : 1.0;
        TransferReport r;
        r.bytes = static_cast<std::uint64_t>(static_cast<double>(lab.sources[k].length) * step / 20 * pace);
        lab.send->report(lab.names[i], lab.sources[k].token, r);
      }
  return {lab.names[static_cast<std::size_t>(node)], lagging};
}

}  // namespace

TEST_CASE("end game: half a stripe of a few MiB left moves on volunteers' links, not on fast ones where it takes ms") {
  // 8 MiB in stripes of about a MiB: half of one left is well under a MiB.
  StripedLab slow(false, 8 << 20, 0.01);  // 4/1/0.5 Mbit/s up: seconds left
  const auto [slowNode, slowStripe] = lagOneStripe(slow);
  TransferReport r;
  r.bytes = slow.sources[slowStripe].length / 2 + 1;
  slow.send->report(slowNode, slow.sources[slowStripe].token, r);
  REQUIRE(slow.send->status().parentChanges.size() == 1);
  CHECK(slow.send->status().parentChanges[0].node == slowNode);
  StripedLab fast(false, 8 << 20, 1.0);  // 400/100/50 Mbit/s up: milliseconds left
  const auto [fastNode, fastStripe] = lagOneStripe(fast);
  r.bytes = fast.sources[fastStripe].length / 2 + 1;
  fast.send->report(fastNode, fast.sources[fastStripe].token, r);
  CHECK(fast.send->status().parentChanges.empty());
}

namespace {

// A node whose parent in some stripe is a slow agent (in `room` when not
// empty) reports that stripe at half the pace of everything else, until
// the others hold every stripe; returns the node (-1 none) and the stripe.
std::pair<int, std::size_t> lagBehindSlowRelay(StripedLab& lab, const std::string& room = "") {
  int node = -1;
  std::size_t lagging = 0;
  for (std::size_t k = 0; k < lab.tree.stripeParents.size() && node < 0; ++k)
    for (std::size_t i = 1; i < lab.names.size(); ++i) {
      const int p = lab.tree.stripeParents[k][i];
      if (p > 0 && lab.nodes[static_cast<std::size_t>(p)].rates.uplinkBytesPerSecond < 20e6 &&
          (room.empty() || (lab.nodes[i].site == room && lab.nodes[static_cast<std::size_t>(p)].site == room))) {
        node = static_cast<int>(i), lagging = k;
        break;
      }
    }
  if (node < 0) return {node, lagging};
  const std::string name = lab.names[static_cast<std::size_t>(node)];
  lab.clock.advance(5s);
  // Every copy of every stripe grows in steps of 5%, but the node's copy of
  // its lagging stripe at half that pace.
  auto report = [&](const std::string& who, std::size_t k, std::uint64_t bytes) {
    TransferReport r;
    r.bytes = bytes;
    lab.send->report(who, lab.sources[k].token, r);
  };
  for (int step = 1; step <= 20; ++step)
    for (std::size_t i = 1; i < lab.names.size(); ++i)
      for (std::size_t k = 0; k < lab.sources.size(); ++k) {
        const double pace = static_cast<int>(i) == node && k == lagging ? 0.5 : 1.0;
        report(lab.names[i], k, static_cast<std::uint64_t>(static_cast<double>(lab.sources[k].length) * step / 20 * pace));
      }
  // Its next report, once the others hold every stripe and feed nobody.
  report(name, lagging, lab.sources[lagging].length / 2 + 1);
  return {node, lagging};
}

}  // namespace

TEST_CASE("end game: a node whose stripe from a slow relay lags its others moves, once, to a fast holder of that stripe") {
  StripedLab lab(false);  // no re-sharing: only the end game moves anyone
  const auto [node, lagging] = lagBehindSlowRelay(lab);
  REQUIRE(node > 0);
  const std::string name = lab.names[static_cast<std::size_t>(node)];
  SendStatus s = lab.send->status();
  REQUIRE(s.parentChanges.size() == 1);  // nobody else moved
  const ParentChange& change = s.parentChanges[0];
  CHECK(change.node == name);
  CHECK(change.reason.rfind("stripe " + std::to_string(lagging + 1) + ": end game", 0) == 0);
  // To a holder of the whole stripe with a fast uplink (hnowd and the 50 MB/s agents).
  CHECK((change.newParent == "hnowd" || change.newParent == "n1" || change.newParent == "n2"));
  REQUIRE(lab.commands[lagging].pulls[name].size() == 2);  // its first parent, then the new one
  // Once per node and stripe.
  TransferReport r;
  r.bytes = lab.sources[lagging].length / 2 + 2;
  lab.send->report(name, lab.sources[lagging].token, r);
  CHECK(lab.send->status().parentChanges.size() == 1);
}

TEST_CASE("end game across rooms: a node fed inside its room never moves to a holder outside it, however fast") {
  StripedLab lab(false, StripedLab::kSize, 1.0, true);
  const auto [node, lagging] = lagBehindSlowRelay(lab, "two");
  REQUIRE(node > 0);
  // hnowd and n1, n2 (room one) hold the stripe at 50 MB/s: not candidates.
  for (const ParentChange& change : lab.send->status().parentChanges) {
    CHECK(change.newParent != "hnowd");
    CHECK(change.newParent != "n1");
    CHECK(change.newParent != "n2");
  }
}

TEST_CASE("end game: stripes that progress together move nobody") {
  StripedLab lab(false);
  lab.clock.advance(5s);
  lab.progress(0.5);
  lab.progress(0.7);
  CHECK(lab.send->status().parentChanges.empty());
}

TEST_CASE("a striped copy tells when it held each stripe, and is held itself once it holds them all") {
  StripedLab lab;
  lab.clock.advance(2s);
  TransferReport whole;
  whole.bytes = lab.sources[0].length;
  lab.send->report("n3", lab.sources[0].token, whole);  // stripe 1 in at 2 s
  lab.clock.advance(3s);
  lab.progress(0.5);
  auto copyOf = [&lab](const std::string& node) {
    for (const CopyStatus& c : lab.send->status().copies)
      if (c.node == node) return c;
    FAIL("no copy of " << node);
    return CopyStatus{};
  };
  CopyStatus n3 = copyOf("n3");
  REQUIRE(n3.stripeHeldS.size() == lab.sources.size());
  CHECK(n3.stripeHeldS[0] == doctest::Approx(2.0));
  for (std::size_t k = 1; k < n3.stripeHeldS.size(); ++k) CHECK(n3.stripeHeldS[k] == 0.0);
  CHECK(n3.heldS == 0.0);
  lab.clock.advance(4s);
  lab.progress(1.0);  // every stripe in at 9 s
  n3 = copyOf("n3");
  CHECK(n3.stripeHeldS[0] == doctest::Approx(2.0));
  CHECK(n3.stripeHeldS[1] == doctest::Approx(9.0));
  CHECK(n3.heldS == doctest::Approx(9.0));
  CHECK(copyOf("n4").stripeHeldS[0] == doctest::Approx(9.0));
}

TEST_CASE("a relay caught altering one stripe's bytes is barred in every stripe - its children in each move and its own copy completes") {
  StripedLab lab;
  lab.clock.advance(1s);
  lab.progress(0.3);
  const std::string relay = busiest(lab);
  REQUIRE(lab.childrenOf(relay) >= 2);
  const int r = std::stoi(relay.substr(1));
  // A child of the relay in some stripe catches it.
  std::size_t stripe = 0;
  std::string child;
  for (std::size_t k = 0; k < lab.tree.stripeParents.size() && child.empty(); ++k)
    for (std::size_t i = 1; i < lab.names.size(); ++i)
      if (lab.tree.stripeParents[k][i] == r) {
        stripe = k, child = lab.names[i];
        break;
      }
  REQUIRE_FALSE(child.empty());
  TransferReport corrupt;
  corrupt.state = TransferReport::State::kParentCorrupt;
  corrupt.bytes = static_cast<std::uint64_t>(static_cast<double>(lab.sources[stripe].length) * 0.3);
  corrupt.message = "a chunk differs from the source's (SHA-256)";
  lab.send->report(child, lab.sources[stripe].token, corrupt);
  CHECK(lab.childrenOf(relay) == 0);
  SendStatus s = lab.send->status();
  for (const CopyStatus& c : s.copies) {
    for (const std::string& p : c.stripeParents) CHECK(p != relay);
    if (c.node == relay) CHECK(c.state == CopyStatus::State::kReceiving);
  }
  bool inOtherStripe = false;
  for (const ParentChange& change : s.parentChanges)
    inOtherStripe = inOtherStripe ||
                    change.reason.find("corrupt: " + relay + " relayed bytes that differ from the source's in stripe " +
                                       std::to_string(stripe + 1)) != std::string::npos;
  CHECK(inOtherStripe);
  const std::vector<RelayFault> faults = lab.send->takeRelayFaults();
  REQUIRE(faults.size() == 1);
  CHECK(faults[0].relay == relay);
  CHECK(faults[0].reporter == child);
  CHECK(lab.send->takeRelayFaults().empty());
  // Every copy completes, the barred relay's too.
  for (std::size_t k = 0; k < lab.sources.size(); ++k)
    for (std::size_t i = 1; i < lab.names.size(); ++i) {
      TransferReport d;
      d.state = TransferReport::State::kDone;
      d.bytes = lab.sources[k].length;
      d.sha256 = lab.sources[k].sha256Hex;
      lab.send->report(lab.names[i], lab.sources[k].token, d);
    }
  CHECK(lab.send->finished());
  for (const CopyStatus& c : lab.send->status().copies) CHECK(c.state == CopyStatus::State::kDone);
}

TEST_CASE("a striped send told of a room's trunk predicts its stripes through it - they already enter the room once each, so they are kept - and one outside its rooms is left alone") {
  StripedLab lab(true, StripedLab::kSize, 1.0, true);
  lab.clock.advance(1s);
  lab.progress(0.2);
  // No agent is in room "far": nothing to re-plan.
  CHECK_FALSE(lab.send->trunkChanged("far", {1e6, 1e6}, "trunk into room far"));
  CHECK(lab.send->replanNote().empty());
  // Room "two"'s trunk at a tenth of hnowd's uplink holds every stripe into
  // it: the stripes as planned cross it once each, and a re-share gains nothing.
  CHECK_FALSE(lab.send->trunkChanged("two", {5e6, 5e6}, "trunk into room two: 400.0 -> 40.0 Mbit/s"));
  CHECK(lab.send->status().replans == 0);
  const std::string note = lab.send->replanNote();
  REQUIRE(note.find("trunk into room two: 400.0 -> 40.0 Mbit/s: kept ") == 0);
  // 80% of 128 MiB left through 5 MB/s: about 21 s, kept and re-shared alike.
  const double kept = std::stod(note.substr(note.find("kept ") + 5));
  CHECK(kept >= 0.8 * static_cast<double>(lab.size) / 5e6);
  CHECK(kept <= 1.2 * 0.8 * static_cast<double>(lab.size) / 5e6);
  // Each stripe enters room "two" once.
  const SendStatus s = lab.send->status();
  std::map<std::string, std::string> roomOf;
  for (const TreeNode& n : lab.nodes) roomOf[n.name] = n.site;
  for (std::size_t k = 0; k < lab.sources.size(); ++k) {
    int entries = 0;
    for (const CopyStatus& c : s.copies)
      if (roomOf[c.node] == "two" && roomOf[c.stripeParents[k]] != "two") ++entries;
    CHECK(entries == 1);
  }
}
