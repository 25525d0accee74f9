#pragma once
// What a send tells its agents, recorded (SendCommands), and the reports
// agents send back, for the send tests that drive SendOperation and
// StripedSend by hand.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "base/clock.h"
#include "core/send/send_operation.h"

namespace hnow::daemon::testing {

struct RecordingCommands final : SendCommands {
  std::map<std::string, std::vector<std::string>> pulls;  // node -> parent addresses, in order
  void pull(const std::string& node, const std::string& parentAddress) override {
    pulls[node].push_back(parentAddress);
  }
};

// A copy done with `sha` (hex) at /x.
inline TransferReport doneReport(const std::string& sha) {
  TransferReport r;
  r.state = TransferReport::State::kDone;
  r.sha256 = sha;
  r.path = "/x";
  return r;
}

// hnowd -> a -> {b, c}, b -> d.
inline SendTree relayTree() {
  SendTree t;
  t.algo = "test";
  t.parent = {-1, 0, 1, 1, 2};
  t.finish = {0, 1, 2, 2, 3};
  t.predictedSeconds = 3;
  return t;
}

// A send of 1 MiB along relayTree(), started; addresses are the names upper-cased.
struct Relayed {
  ManualClock clock;
  RecordingCommands commands;
  SendOperation op{clock, relayTree(), {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"},
                   {"", "/a", "/b", "/c", "/d"}, 1 << 20, "sha", commands};
  Relayed() { op.start(); }
};

// The copy of `node` in `s` (which must outlive it).
inline const CopyStatus& copyOf(const SendStatus& s, const std::string& node) {
  for (const CopyStatus& c : s.copies)
    if (c.node == node) return c;
  FAIL("no copy of " << node);
  return s.copies.front();
}

}  // namespace hnow::daemon::testing
