// Which agents others can connect to (core/links/reachability.h): checked once
// per data address, learnt from a child that could not connect, and
// applied to plans as leaves.
#include <doctest/doctest.h>

#include "core/links/reachability.h"

using namespace hnow;
using namespace hnow::daemon;

TEST_CASE("an agent is checked once per data address, and one hnowd cannot connect to is a leaf until it moves") {
  Reachability reach;
  CHECK(reach.reachable("a1"));  // not known: taken as reachable
  CHECK(reach.needsCheck("a1", "10.0.0.2:4000"));
  CHECK_FALSE(reach.needsCheck("a1", "10.0.0.2:4000"));  // asked again at the same address: no
  reach.checked("a1", "10.0.0.2:4000", Error{"no answer within 3 s"});
  CHECK_FALSE(reach.reachable("a1"));
  const ReachabilityView view = reach.view("a1");
  CHECK_FALSE(view.reachable);
  CHECK(view.note ==
        "hnowd cannot connect to its data plane at 10.0.0.2:4000: no answer within 3 s; planned as a leaf, it "
        "pulls from others");
  std::vector<TreeNode> nodes(3);
  nodes[0].name = nodes[2].name = "a1";
  nodes[1].name = "a2";
  reach.planLeaves(nodes);
  CHECK(nodes[0].relays);  // the plan's source sends whatever
  CHECK(nodes[1].relays);
  CHECK_FALSE(nodes[2].relays);
  // It registers from another address (a new port, a new network): checked anew.
  CHECK(reach.needsCheck("a1", "10.0.0.2:4100"));
  CHECK(reach.reachable("a1"));
  // A check of the old address answering late is ignored.
  reach.checked("a1", "10.0.0.2:4000", Error{"no answer within 3 s"});
  CHECK(reach.reachable("a1"));
  reach.checked("a1", "10.0.0.2:4100", Result<void>{});
  CHECK(reach.reachable("a1"));
  CHECK(reach.view("a1").note.empty());
}

TEST_CASE("a child that cannot connect makes its parent unreachable, once news") {
  Reachability reach;
  CHECK(reach.needsCheck("a2", "10.0.0.3:4000"));
  reach.checked("a2", "10.0.0.3:4000", Result<void>{});  // hnowd could: a firewall allowing hnowd alone
  CHECK(reach.refusedBy("a2", "a3", "no answer to the connection within 3 s"));
  CHECK_FALSE(reach.refusedBy("a2", "a4", "no answer to the connection within 3 s"));  // known already
  CHECK_FALSE(reach.reachable("a2"));
  CHECK(reach.view("a2").note ==
        "a3 cannot connect to its data plane at 10.0.0.3:4000: no answer to the connection within 3 s; planned as "
        "a leaf, it pulls from others");
  reach.forget("a2");
  CHECK(reach.reachable("a2"));
}
