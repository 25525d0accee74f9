// A child that cannot connect to its parent (behind NAT or a firewall that
// drops inbound connections): hnowd moves it and never sends it, nor any
// other node of the send, back to that parent; the parent's own copy goes
// on (SendOperation, docs/reachability.md), deterministically.
#include <doctest/doctest.h>

#include "daemon/core/send_commands_recorder.h"
#include "core/send/send_operation.h"
#include "core/send/send_tree.h"

using namespace hnow;
using namespace hnow::daemon;

namespace {

using testing::copyOf;
using testing::Relayed;

using Pulls = std::vector<std::string>;

TransferReport unreachable(const std::string& parentAddress) {
  TransferReport r;
  r.state = TransferReport::State::kParentUnreachable;
  r.message = "no answer to the connection within 3 s (a firewall or NAT dropping inbound connections to it?)";
  r.parentAddress = parentAddress;
  return r;
}


}  // namespace

TEST_CASE("a child that cannot connect to its relay moves, with the relay's other children, and none goes back to it") {
  Relayed send;
  send.op.report("b", unreachable("A"));
  CHECK(send.commands.pulls["b"] == Pulls{"A", "H"});
  CHECK(send.commands.pulls["c"] == Pulls{"A", "H"});
  CHECK(send.commands.pulls["d"] == Pulls{"B"});
  CHECK_FALSE(send.op.canServe(1));
  SendStatus s = send.op.status();
  CHECK(copyOf(s, "a").state == CopyStatus::State::kReceiving);  // it pulls from hnowd itself
  for (const ParentChange& change : s.parentChanges)
    CHECK(change.reason.find("unreachable: b cannot connect to a") != std::string::npos);
  CHECK(send.op.takeUnreachable() == std::vector<std::string>{"a"});
  CHECK(send.op.takeUnreachable().empty());  // taken once
  CHECK(send.op.takeRelayFaults().empty());  // not a fault of its bytes

  // c's own report, sent before it moved, changes nothing more.
  send.op.report("c", unreachable("A"));
  CHECK(send.commands.pulls["c"] == Pulls{"A", "H"});
  CHECK(send.op.takeUnreachable().empty());
  // b lost at d's side: d moves to b's nearest standing ancestor, hnowd, never to a.
  send.op.lost("b");
  CHECK(send.commands.pulls["d"] == Pulls{"B", "H"});
}

TEST_CASE("a child that cannot connect to the source is told again twice, then its copy fails saying which port") {
  Relayed send;
  send.op.report("a", unreachable("H"));
  send.op.report("a", unreachable("H"));
  CHECK(send.commands.pulls["a"] == Pulls{"H", "H", "H"});
  CHECK(copyOf(send.op.status(), "a").state == CopyStatus::State::kReceiving);
  send.op.report("a", unreachable("H"));
  const SendStatus s = send.op.status();
  const CopyStatus& a = copyOf(s, "a");
  CHECK(a.state == CopyStatus::State::kFailed);
  CHECK(a.message.find("cannot connect to hnowd's data plane at H") != std::string::npos);
  CHECK(a.message.find("it must accept connections from the agents") != std::string::npos);
  CHECK(send.op.takeUnreachable().empty());  // the source is not planned as a leaf
}
