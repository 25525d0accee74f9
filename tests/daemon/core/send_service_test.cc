// SendService in memory: a manual clock, a source plane that records what
// hnowd serves, agents whose links answer at once; no sockets, no files.
#include "daemon/core/send_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;
using namespace std::chrono_literals;

TEST_CASE("a send serves the file from hnowd, orders every receive, starts the tree and ends when all copies are verified") {
  Lab lab;
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  CHECK(lab.plane.served == std::set<std::string>{std::string(32, 't')});
  REQUIRE(lab.agents.receives.size() == 3);
  for (const auto& [agent, token] : lab.agents.receives) CHECK(token == std::string(32, 't'));
  REQUIRE(first.copies.size() == 3);
  std::vector<std::string> expected;
  for (const auto& c : first.copies)
    expected.push_back(c.node + "<-" + (c.parent == "hnowd" ? std::string("hnowd:7000") : c.parent + ":9000"));
  std::sort(expected.begin(), expected.end());
  std::sort(lab.agents.pulls.begin(), lab.agents.pulls.end());
  CHECK(lab.agents.pulls == expected);
  CHECK(first.predictedS > 0);
  REQUIRE(lab.plane.paced.size() == 1);
  CHECK(lab.plane.paced[0] > 0);

  lab.clock.advance(2s);
  for (const char* agent : {"a1", "a2", "a3"})
    lab.coordinator.reportTransfer(lab.sessions[agent], std::string(32, 't'), lab.done());
  auto status = *lab.service.status(id);
  CHECK(status.finished);
  CHECK(status.elapsedS == doctest::Approx(2.0));
  for (const auto& c : status.copies) CHECK(c.state == CopyStatus::State::kDone);
  CHECK(lab.plane.served.empty());  // released once every copy ended
  CHECK(lab.agents.releases.size() == 3);
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].kind == "send");
  CHECK(ops[0].status == "done");
}

TEST_CASE("each agent is told to pace its uplink a little under its measured capacity while it receives - emulated links are not") {
  Lab lab;
  // a2's uplink measured (no longer emulated); a1 and a3 stay emulated.
  const LinkId up{"a2", LinkDirection::kUp};
  lab.coordinator.links().clearFixed(up);
  lab.coordinator.links().applySurvey({{up, 8e6, true, 0.0, 1, 0.0}}, {up}, false);
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  REQUIRE(lab.agents.orders.size() == 3);
  for (std::size_t i = 0; i < lab.agents.receives.size(); ++i) {
    const double pace = lab.agents.orders[i].uplinkPaceBytesPerSecond;
    if (lab.agents.receives[i].first == "a2") CHECK(pace == doctest::Approx(kUplinkPacing * 8e6));
    else CHECK(pace == 0);
  }
  // While the send runs, readings of a2's uplink are the pacing's.
  CHECK(lab.coordinator.links().paced(up));
  lab.clock.advance(2s);
  for (const char* agent : {"a1", "a2", "a3"})
    lab.coordinator.reportTransfer(lab.sessions[agent], std::string(32, 't'), lab.done());
  CHECK(lab.service.status(answer->first)->finished);
  CHECK_FALSE(lab.coordinator.moving());
  lab.coordinator.pacing().sourceIdle();
  CHECK_FALSE(lab.coordinator.links().paced(up));
}

TEST_CASE("an agent lost before a send is listed as skipped, with when it was last heard - one outside --to is not") {
  Lab lab;
  lab.coordinator.detach(lab.sessions["a3"]);
  lab.coordinator.tick();
  for (int i = 0; i < 90; ++i) {  // the others keep beating
    lab.clock.advance(1s);
    for (const char* agent : {"a1", "a2"}) CHECK(lab.coordinator.heartbeat(lab.sessions[agent]));
    lab.coordinator.tick();
  }
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  CHECK(first.copies.size() == 2);
  REQUIRE(first.skipped.size() == 1);
  CHECK(first.skipped[0].node == "a3");
  CHECK(first.skipped[0].why == "lost, last heard 90 s ago");
  REQUIRE(lab.service.status(id)->skipped.size() == 1);  // and in every later status
  for (const char* agent : {"a1", "a2"})
    lab.coordinator.reportTransfer(lab.sessions[agent], std::string(32, 't'), lab.done());
  CHECK(lab.service.status(id)->finished);
  CHECK(lab.service.status(id)->skipped.size() == 1);
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].summary.find("\"skipped\":1") != std::string::npos);

  SendRequest one = lab.toAll();
  one.to = {"a1"};
  auto named = started(lab, one);
  REQUIRE(named);
  CHECK(named->second.skipped.empty());
  // Named itself, the lost agent refuses the send, saying why.
  one.to = {"a1", "a3"};
  CHECK(refusalOf(lab, one) ==
        "a3 cannot receive now (lost, last heard 90 s ago); leave it out of --to, or wait until it is back (or send "
        "with --until-all)");
}

TEST_CASE("a destination that refuses stops the send before a byte moves, and hnowd stops serving") {
  Lab lab;
  lab.agents.refusing.insert("a2");
  const std::string why = refusalOf(lab, lab.toAll());
  CHECK(why == "refused: a2: '/etc/passwd' is outside this agent's roots");
  CHECK(lab.agents.pulls.empty());
  CHECK(lab.plane.served.empty());
  CHECK(lab.agents.releases.size() == 3);
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "failed");
}

TEST_CASE("a directory is packed into one bundle, sent as its tree to every agent, and each agent's unpack is reported") {
  Lab lab;
  SendRequest request = lab.toAll();
  request.path = "/data/course";
  request.copy.atomic = true;
  // a1 lacks the first file, a3 the second; a2 holds both.
  lab.agents.lacking["a1"]["part one"] = {1};
  lab.agents.lacking["a3"]["part two"] = {1};
  auto answer = started(lab, request);
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  CHECK(lab.agents.asked.size() == 6);  // each agent, each part
  CHECK(lab.plane.sent == std::vector<bool>{false, true, true});  // what some agent lacks
  CHECK(lab.plane.scans.empty());
  CHECK(lab.plane.bundles.size() == 1);
  REQUIRE(lab.agents.orders.size() == 3);
  for (const auto& order : lab.agents.orders) {
    CHECK(order.tree);
    CHECK(order.copy.atomic);
    CHECK(order.size == (64u << 20));
  }
  REQUIRE(first.tree);
  CHECK(first.tree->files == 2);
  CHECK(first.tree->atomic);
  REQUIRE(first.tree->refused.size() == 1);
  CHECK(first.tree->refused[0].path == "out");

  lab.clock.advance(2s);
  for (const char* agent : {"a1", "a2", "a3"}) {
    TransferReport done = lab.done();
    done.tree = TreeOutcome{2, 100, agent == std::string("a2") ? 1u : 0u, 0, {}};
    if (agent == std::string("a3")) done.tree->failed = {{"b", "a directory is in the way"}}, done.tree->failedCount = 1;
    lab.coordinator.reportTransfer(lab.sessions[agent], std::string(32, 't'), done);
  }
  auto status = *lab.service.status(id);
  CHECK(status.finished);
  for (const auto& c : status.copies) {
    REQUIRE(c.tree);
    CHECK(c.tree->files == 2);
    CHECK(c.tree->replaced == (c.node == "a2" ? 1u : 0u));
    CHECK(c.tree->failedCount == (c.node == "a3" ? 1u : 0u));
  }
  CHECK(lab.plane.bundles.empty());  // dropped when the send ended
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].summary.find("\"tree\":{\"entries\":3,\"files\":2") != std::string::npos);
}

TEST_CASE("a tree's scan, pack and hash answer later, off the control thread, and the send starts only when each has") {
  Lab lab;
  lab.plane.deferred = true;
  SendRequest request = lab.toAll();
  request.path = "/data/course";
  lab.agents.lacking["a1"]["part one"] = {1};
  std::optional<Result<std::pair<std::uint64_t, SendStatus>>> answer;
  lab.service.start(request, [&](const Result<std::pair<std::uint64_t, SendStatus>>& a) { answer = a; });
  // The scan is under way: no agent asked yet, the caller not answered.
  CHECK_FALSE(answer);
  CHECK(lab.agents.asked.empty());
  REQUIRE(lab.plane.due.size() == 1);
  lab.plane.answerDue();  // the scan: every agent asked, then the pack is under way
  CHECK(lab.agents.asked.size() == 6);
  CHECK_FALSE(answer);
  CHECK(lab.plane.bundles.empty());
  REQUIRE(lab.plane.due.size() == 1);
  lab.plane.answerDue();  // the pack: the bundle is served, being hashed
  CHECK(lab.plane.bundles.size() == 1);
  CHECK_FALSE(answer);
  CHECK(lab.agents.orders.empty());
  CHECK(lab.plane.served.empty());
  REQUIRE(lab.plane.due.size() == 1);
  lab.plane.answerDue();  // the hash: now every agent is told to receive
  REQUIRE(answer);
  REQUIRE(*answer);
  CHECK(lab.agents.orders.size() == 3);
  CHECK(lab.plane.served.size() == 1);
}

TEST_CASE("a file hnowd cannot hash is refused when the hash answers, and no agent is told to receive") {
  Lab lab;
  lab.plane.deferred = true;
  SendRequest request = lab.toAll();
  std::optional<Result<std::pair<std::uint64_t, SendStatus>>> answer;
  lab.service.start(request, [&](const Result<std::pair<std::uint64_t, SendStatus>>& a) { answer = a; });
  CHECK_FALSE(answer);
  lab.plane.files.clear();  // gone while it was being hashed
  lab.plane.answerDue();
  REQUIRE(answer);
  REQUIRE_FALSE(*answer);
  CHECK(answer->error().message.find("cannot open") != std::string::npos);
  CHECK(lab.agents.orders.empty());
}

TEST_CASE("files an agent has with another mtime are asked about again with digests, and those it holds list their digest") {
  Lab lab;
  SendRequest request = lab.toAll();
  request.path = "/data/course";
  // a1 has both files with another mtime; asked again, it lacks the second.
  lab.agents.sameSize["a1"]["part one"] = {1};
  lab.agents.sameSize["a1"]["part two"] = {1};
  lab.agents.lacking["a1"]["digests of 2"] = {1};
  auto answer = started(lab, request);
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  CHECK(lab.agents.asked.size() == 8);  // each agent each part, then a1 about its two files
  const std::vector<std::string> a1(lab.agents.asked.begin(), lab.agents.asked.begin() + 4);  // answered at once
  CHECK(a1 == std::vector<std::string>{"a1: part one", "a1: part two", "a1: digests of 1", "a1: digests of 2"});
  CHECK(lab.plane.sent == std::vector<bool>{false, false, true});
  CHECK(lab.plane.sentSha256 == std::vector<bool>{false, true, false});
  REQUIRE(first.tree);
  // Every index sent counts: 3 agents x 2 parts of 8 bytes, and a1's two of 12.
  CHECK(first.tree->queryBytes == 3 * 16 + 24);
  (void)id;
}

TEST_CASE("a tree refused by a destination drops its scan before packing, and --atomic or --delete of a file is refused") {
  Lab lab;
  lab.agents.refusing.insert("a1");
  SendRequest request = lab.toAll();
  request.path = "/data/course";
  CHECK(refusalOf(lab, request).find("refused: a1: ") == 0);
  CHECK(lab.plane.scans.empty());
  CHECK(lab.plane.bundles.empty());
  CHECK(lab.plane.served.empty());
  CHECK(lab.agents.orders.empty());

  lab.agents.refusing.clear();
  lab.agents.lacking["a2"]["part one"] = {0};  // a directory named as a missing file
  CHECK(refusalOf(lab, request).find("refused: a2: named entry 0 of a part of the index as a missing file") == 0);
  CHECK(lab.plane.scans.empty());
  lab.agents.lacking.clear();
  lab.agents.refusing.insert("a1");
  lab.agents.asked.clear();

  SendRequest file = lab.toAll();
  file.copy.atomic = true;
  lab.agents.orders.clear();
  CHECK(refusalOf(lab, file).find("--atomic is for a directory's tree") == 0);
  file.copy.atomic = false;
  file.copy.deleteOthers = true;
  CHECK(refusalOf(lab, file).find("--delete is for a directory's tree") == 0);
  CHECK(lab.agents.orders.empty());
  CHECK(lab.agents.asked.empty());
}

TEST_CASE("a file hnowd cannot serve, or an unknown algorithm, is refused before any agent is asked") {
  Lab lab;
  SendRequest missing = lab.toAll();
  missing.path = "/data/none.iso";
  CHECK(refusalOf(lab, missing) == "cannot open /data/none.iso: No such file or directory");
  SendRequest unknown = lab.toAll();
  unknown.algo = "fastest";
  CHECK(refusalOf(lab, unknown) == "unknown --algo fastest");
  CHECK(lab.agents.receives.empty());
  CHECK(lab.plane.served.empty());
}

TEST_CASE("a striped send serves each stripe under its own token, orders receives that cover the file, and ends when every stripe is done") {
  Lab lab(2e6, 5e7);  // uplinks well under hnowd's 12.5 MB/s and the downlinks: one tree idles them
  SendRequest request = lab.toAll();
  request.algo = "striped";
  auto answer = started(lab, request);
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  const std::vector<StripeCut>& cuts = lab.plane.cuts;
  REQUIRE(cuts.size() >= 2);
  REQUIRE(first.stripeOffsets.size() == cuts.size() + 1);
  std::uint64_t next = 0;
  for (std::size_t k = 0; k < cuts.size(); ++k) {
    CHECK(cuts[k].offset == next);
    CHECK(cuts[k].offset == first.stripeOffsets[k]);
    CHECK(cuts[k].token != std::string(32, 't'));  // the file's token names it whole
    next += cuts[k].length;
  }
  CHECK(next == 64u << 20);
  // Each agent is told the stripes with their digests, and pulls each once.
  REQUIRE(lab.agents.orders.size() == 3);
  for (const auto& order : lab.agents.orders) {
    CHECK(order.token == std::string(32, 't'));
    REQUIRE(order.stripes.size() == cuts.size());
    for (std::size_t k = 0; k < cuts.size(); ++k) {
      CHECK(order.stripes[k].token == cuts[k].token);
      CHECK(order.stripes[k].length == cuts[k].length);
      CHECK(order.stripes[k].sha256 == std::string(32, cuts[k].token.back()));
    }
  }
  CHECK(lab.agents.pulledTokens.size() == 3 * cuts.size());
  for (const auto& copy : first.copies) CHECK(copy.stripeParents.size() == cuts.size());

  // a1 done with every stripe but the last: not finished yet.
  auto stripeDone = [&](std::size_t k) {
    TransferReport r;
    r.state = TransferReport::State::kDone;
    r.bytes = cuts[k].length;
    r.path = "/srv/x";
    const std::string digest(32, cuts[k].token.back());
    r.sha256 = hnow::hexOf(reinterpret_cast<const unsigned char*>(digest.data()), 32);
    return r;
  };
  lab.clock.advance(3s);
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
    lab.coordinator.reportTransfer(lab.sessions["a1"], cuts[k].token, stripeDone(k));
  auto partial = *lab.service.status(id);
  CHECK_FALSE(partial.finished);
  CHECK(partial.copies[0].state == CopyStatus::State::kReceiving);
  std::uint64_t held = 0;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) held += cuts[k].length;
  CHECK(partial.copies[0].bytes == held);
  // a2 reports its last stripe with another stripe's digest: its copy fails.
  TransferReport wrong = stripeDone(0);
  wrong.bytes = cuts.back().length;
  lab.coordinator.reportTransfer(lab.sessions["a2"], cuts.back().token, wrong);
  CHECK(lab.service.status(id)->copies[1].state == CopyStatus::State::kFailed);
  // The rest done: finished, the file whole at a1 and a3, every token released.
  lab.coordinator.reportTransfer(lab.sessions["a1"], cuts.back().token, stripeDone(cuts.size() - 1));
  for (std::size_t k = 0; k < cuts.size(); ++k)
    lab.coordinator.reportTransfer(lab.sessions["a3"], cuts[k].token, stripeDone(k));
  auto status = *lab.service.status(id);
  CHECK(status.finished);
  CHECK(status.algo == "striped");
  CHECK(status.copies[0].state == CopyStatus::State::kDone);
  std::string whole;  // the file's digest as hnowd took it, not a stripe's
  for (int i = 0; i < 32; ++i) whole += "68";
  CHECK(status.copies[0].sha256 == whole);
  CHECK(status.copies[0].bytes == 64u << 20);
  CHECK(status.copies[2].state == CopyStatus::State::kDone);
  CHECK(lab.plane.served.empty());
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "failed");  // a2's copy failed
  CHECK(ops[0].summary.find("\"stripes\":" + std::to_string(cuts.size())) != std::string::npos);
}

TEST_CASE("a striped send: a relay lost moves its children in every stripe to their nearest ancestor, hnowd at worst") {
  Lab lab(2e6, 5e7);
  SendRequest request = lab.toAll();
  request.algo = "striped";
  request.replan = false;  // the moves a loss makes by itself, without a re-share of what is left
  auto answer = started(lab, request);
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  // The agent feeding the most children over all stripes.
  std::map<std::string, int> children;
  for (const auto& copy : first.copies)
    for (const auto& parent : copy.stripeParents) ++children[parent];
  children.erase("hnowd");
  REQUIRE_FALSE(children.empty());
  std::string relay = children.begin()->first;
  for (const auto& [node, n] : children)
    if (n > children[relay]) relay = node;
  lab.agents.pulls.clear();
  lab.coordinator.detach(lab.sessions[relay]);
  auto status = *lab.service.status(id);
  std::size_t moved = 0;
  for (const auto& copy : status.copies) {
    if (copy.node == relay) {
      CHECK(copy.state == CopyStatus::State::kFailed);
      continue;
    }
    for (const auto& parent : copy.stripeParents) CHECK(parent != relay);
  }
  for (const auto& pull : lab.agents.pulls) moved += pull.find("<-") != std::string::npos;
  CHECK(moved == static_cast<std::size_t>(children[relay]));
  CHECK(status.parentChanges.size() == static_cast<std::size_t>(children[relay]));
  for (const auto& change : status.parentChanges) CHECK(change.reason.rfind("stripe ", 0) == 0);
}

TEST_CASE("an agent whose destination holds the same bytes gets nothing: left out of the plan, listed as held, and counted as delivered") {
  Lab lab;
  lab.agents.holding["a2"] = AgentLink::DestHolding::kSame;
  std::vector<std::string> delivered;
  lab.service.onEnded([&](const SendEnd& end) { delivered = end.delivered; });
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  // Every agent is asked by size; only a2, which has a file of that size, again with the digest.
  CHECK(lab.agents.heldAsked == std::vector<std::string>{"a1: size", "a2: size", "a3: size", "a2: digest"});
  CHECK(lab.plane.hashes == 1);
  REQUIRE(lab.agents.receives.size() == 2);
  for (const auto& [agent, token] : lab.agents.receives) CHECK(agent != "a2");
  CHECK(first.held == std::vector<std::string>{"a2"});
  CHECK(first.replaced.empty());
  REQUIRE(first.copies.size() == 2);
  for (const char* agent : {"a1", "a3"})
    lab.coordinator.reportTransfer(lab.sessions[agent], std::string(32, 't'), lab.done());
  auto status = *lab.service.status(id);
  CHECK(status.finished);
  CHECK(status.held == std::vector<std::string>{"a2"});
  std::sort(delivered.begin(), delivered.end());
  CHECK(delivered == std::vector<std::string>{"a1", "a2", "a3"});
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "done");
  CHECK(ops[0].summary.find("\"held\":[\"a2\"]") != std::string::npos);
}

TEST_CASE("a different file at the destination refuses the send before the file is served or any agent ordered, and --force replaces it and says so") {
  Lab lab;
  lab.agents.holding["a1"] = AgentLink::DestHolding::kOther;  // another size: known without a digest
  CHECK(refusalOf(lab, lab.toAll()) ==
        "a1 holds a different file at in/image.iso; nothing was sent. Send with --force to replace it, or choose "
        "another --dest");
  CHECK(lab.plane.hashes == 0);
  CHECK(lab.plane.served.empty());
  CHECK(lab.agents.receives.empty());
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "failed");
  CHECK(ops[0].summary.find("a1 holds a different file") != std::string::npos);

  lab.agents.holding["a3"] = AgentLink::DestHolding::kSameSize;  // other bytes of the same size: found by digest
  CHECK(refusalOf(lab, lab.toAll()).find("a1, a3 hold a different file at in/image.iso") == 0);
  CHECK(lab.plane.hashes == 1);
  CHECK(lab.agents.receives.empty());

  SendRequest forced = lab.toAll();
  forced.force = true;
  auto answer = started(lab, forced);
  REQUIRE(answer);
  CHECK(lab.agents.receives.size() == 3);
  CHECK(answer->second.replaced == std::vector<std::string>{"a1", "a3"});
  CHECK(answer->second.held.empty());
  ops = lab.coordinator.operations(1).value();
  CHECK(ops[0].summary.find("\"replaced\":[\"a1\",\"a3\"]") != std::string::npos);
}

TEST_CASE("a file every agent holds already finishes at once: nothing served or ordered, a record that says so, every agent delivered") {
  Lab lab;
  for (const char* agent : {"a1", "a2", "a3"}) lab.agents.holding[agent] = AgentLink::DestHolding::kSame;
  std::vector<std::string> delivered;
  lab.service.onEnded([&](const SendEnd& end) { delivered = end.delivered; });
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const SendStatus& s = answer->second;
  CHECK(s.finished);
  CHECK(s.copies.empty());
  CHECK(s.held == std::vector<std::string>{"a1", "a2", "a3"});
  CHECK(s.size == 64u << 20);
  CHECK(lab.plane.served.empty());
  CHECK(lab.agents.receives.empty());
  CHECK(delivered == std::vector<std::string>{"a1", "a2", "a3"});
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "done");
  CHECK(ops[0].summary.find("\"held\":[\"a1\",\"a2\",\"a3\"]") != std::string::npos);
  CHECK(ops[0].summary.find("\"agents\":0") != std::string::npos);

  // --force is a file's: a directory's tree replaces what it names anyway.
  SendRequest tree{"/data/course", "course", {"all"}, "auto", true};
  tree.force = true;
  CHECK(refusalOf(lab, tree).find("--force is for a file") == 0);
}

TEST_CASE("a destination refused while hnowd asks what it holds stops the send before the file is served, and is recorded") {
  Lab lab;
  lab.agents.refusingToTell.insert("a2");
  CHECK(refusalOf(lab, lab.toAll()) == "refused: a2: '/etc/passwd' is outside this agent's roots");
  CHECK(lab.plane.served.empty());
  CHECK(lab.agents.receives.empty());
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "failed");
}

TEST_CASE("an agent holding the file's bytes under another path writes --dest from there: left out of the plan, listed as copied, delivered") {
  Lab lab;
  lab.agents.heldElsewhere["a2"] = "/srv/a2/old/image.iso";
  std::vector<std::string> delivered;
  lab.service.onEnded([&](const SendEnd& end) { delivered = end.delivered; });
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  // A file of that size elsewhere under a2's root makes hnowd ask a2 again with the digest.
  CHECK(lab.agents.heldAsked == std::vector<std::string>{"a1: size", "a2: size", "a3: size", "a2: digest"});
  CHECK(lab.agents.copiedHeld == std::vector<std::string>{"a2: /srv/a2/old/image.iso -> in/image.iso"});
  REQUIRE(lab.agents.receives.size() == 2);
  for (const auto& [agent, token] : lab.agents.receives) CHECK(agent != "a2");
  CHECK(first.held == std::vector<std::string>{"a2"});
  REQUIRE(first.copiedHere.size() == 1);
  CHECK(first.copiedHere[0].agent == "a2");
  CHECK(first.copiedHere[0].path == "/srv/a2/old/image.iso");
  for (const char* agent : {"a1", "a3"})
    lab.coordinator.reportTransfer(lab.sessions[agent], std::string(32, 't'), lab.done());
  auto status = *lab.service.status(id);
  CHECK(status.finished);
  CHECK(status.copiedHere.size() == 1);
  std::sort(delivered.begin(), delivered.end());
  CHECK(delivered == std::vector<std::string>{"a1", "a2", "a3"});
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].summary.find("\"copied_here\":[{\"agent\":\"a2\",\"from\":\"/srv/a2/old/image.iso\"}]") !=
        std::string::npos);
}

TEST_CASE("a copy under another path that fails on the agent leaves it in the plan: it is sent the file as any other") {
  Lab lab;
  lab.agents.heldElsewhere["a3"] = "/srv/a3/old/image.iso";
  lab.agents.failingCopy.insert("a3");
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  CHECK(lab.agents.copiedHeld.size() == 1);
  CHECK(lab.agents.receives.size() == 3);
  CHECK(answer->second.held.empty());
  CHECK(answer->second.copiedHere.empty());
}

TEST_CASE("a different file at --dest refuses the send before any copy under another path is made, and with --force the copy replaces it") {
  Lab lab;
  lab.agents.holding["a1"] = AgentLink::DestHolding::kOther;
  lab.agents.heldElsewhere["a1"] = "/srv/a1/old/image.iso";
  CHECK(refusalOf(lab, lab.toAll()).find("a1 holds a different file at in/image.iso") == 0);
  CHECK(lab.agents.copiedHeld.empty());
  CHECK(lab.agents.receives.empty());

  SendRequest forced = lab.toAll();
  forced.force = true;
  auto answer = started(lab, forced);
  REQUIRE(answer);
  CHECK(lab.agents.copiedHeld == std::vector<std::string>{"a1: /srv/a1/old/image.iso -> in/image.iso"});
  CHECK(answer->second.replaced == std::vector<std::string>{"a1"});
  CHECK(answer->second.copiedHere.size() == 1);
  CHECK(lab.agents.receives.size() == 2);
}

TEST_CASE("every agent holding the file, one of them under another path only, finishes at once and the record lists the copy") {
  Lab lab;
  for (const char* agent : {"a1", "a3"}) lab.agents.holding[agent] = AgentLink::DestHolding::kSame;
  lab.agents.heldElsewhere["a2"] = "/srv/a2/v1/image.iso";
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  CHECK(answer->second.finished);
  CHECK(answer->second.held.size() == 3);
  CHECK(answer->second.copiedHere.size() == 1);
  CHECK(lab.plane.served.empty());
  CHECK(lab.agents.receives.empty());
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "done");
  CHECK(ops[0].summary.find("\"copied_here\":[{\"agent\":\"a2\"") != std::string::npos);
}
