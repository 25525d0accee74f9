// Every field of `hnow run`'s request and report survives one side's
// writing and the other's reading: each is set to a value other than its
// default, so a field one side forgets fails here.
#include <doctest/doctest.h>

#include <capnp/message.h>

#include "api/run_request_bytes.h"
#include "api/run_wire.h"

using namespace hnow::api;

TEST_CASE("a run request survives the CLI's writing and hnowd's reading, field by field") {
  RunRequest r;
  r.input = "/data/words.txt";
  r.split = "records:;";
  r.argv = {"wc", "-l"};
  r.command = "wc -l";
  r.to = {"lab-a", "agent-7"};
  r.order = "lifo";
  r.reduceArgv = {"awk", "{s+=$1} END {print s}"};
  r.output = "/data/count.txt";
  r.slack = 3.5;
  r.strategy = "self";
  r.blockBytes = 65536;
  r.replicas = 3;
  r.rounds = 7;
  r.maxRateBytesPerSecond = 2.5e6;
  r.shell = true;
  r.adaptiveReplicas = true;
  r.priority = -12;
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::RunRequest>();
  toWire(r, out);
  const RunRequest back = runRequestFromWire(out.asReader());
  CHECK(back.priority == -12);
  // As state.db keeps a queued job's: the same request back from its bytes.
  auto decoded = decodeRunRequest(encodeRunRequest(r));
  REQUIRE(decoded.ok());
  CHECK(decoded->argv == r.argv);
  CHECK(decoded->to == r.to);
  CHECK(decoded->priority == -12);
  CHECK(decoded->reduceArgv == r.reduceArgv);
  CHECK_FALSE(decodeRunRequest(std::string("\xff\xff\xff", 3)).ok());
  CHECK(back.input == r.input);
  CHECK(back.split == r.split);
  CHECK(back.argv == r.argv);
  CHECK(back.command == r.command);
  CHECK(back.to == r.to);
  CHECK(back.order == r.order);
  CHECK(back.reduceArgv == r.reduceArgv);
  CHECK(back.output == r.output);
  CHECK(back.slack == r.slack);
  CHECK(back.strategy == r.strategy);
  CHECK(back.blockBytes == r.blockBytes);
  CHECK(back.replicas == r.replicas);
  CHECK(back.rounds == r.rounds);
  CHECK(back.maxRateBytesPerSecond == r.maxRateBytesPerSecond);
  CHECK(back.shell);
  CHECK(back.adaptiveReplicas);
}

TEST_CASE("a run report survives hnowd's writing and the CLI's reading, field by field") {
  RunStatus s;
  s.finished = true;
  s.error = "calibrating on agent-2: exit status 1";
  s.phase = "failed";
  s.algorithm = "rounds";
  s.reduction = "snf";
  s.predictedS = 5.25;
  s.elapsedS = 6.5;
  s.agents = {{"agent-1", 40, 42, 3.25, 0.5, 0.0125, {20, 0, 22}, {}},
              {"agent-2", 7, 8, 1.5, 2.75, 0.25, {8}, {"left out: /usr/bin/tr is not in [jobs] allow (\"/usr/bin/wc\")"}}};
  s.reissued = 2;
  s.units = 47;
  s.outputSize = 123456789012ull;
  s.output = "/var/lib/hnow/jobs/run-3.out";
  s.bars = {{"agent-1", "serve", 0.0, 0.5}, {"agent-2", "reduce", 4.0, 4.75}};
  s.rounds = 3;
  s.maxRateBytesPerSecond = 1.25e6;
  s.checked = 7;
  s.record = 12;
  s.cancelledBy = "alice";
  s.agentsWorking = 5;
  s.waiting = "its agents run run 4";
  s.priority = 9;
  s.unitsKept = 1234;
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::RunReport>();
  toWire(s, out);
  const RunStatus back = runStatusFromWire(out.asReader());
  CHECK(back.finished == s.finished);
  CHECK(back.error == s.error);
  CHECK(back.phase == s.phase);
  CHECK(back.algorithm == s.algorithm);
  CHECK(back.reduction == s.reduction);
  CHECK(back.predictedS == s.predictedS);
  CHECK(back.elapsedS == s.elapsedS);
  REQUIRE(back.agents.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(back.agents[i].name == s.agents[i].name);
    CHECK(back.agents[i].units == s.agents[i].units);
    CHECK(back.agents[i].plannedUnits == s.agents[i].plannedUnits);
    CHECK(back.agents[i].computeS == s.agents[i].computeS);
    CHECK(back.agents[i].idleS == s.agents[i].idleS);
    CHECK(back.agents[i].secondsPerUnit == s.agents[i].secondsPerUnit);
    CHECK(back.agents[i].shareUnits == s.agents[i].shareUnits);
    CHECK(back.agents[i].failures == s.agents[i].failures);
  }
  CHECK(back.reissued == s.reissued);
  CHECK(back.units == s.units);
  CHECK(back.outputSize == s.outputSize);
  CHECK(back.output == s.output);
  REQUIRE(back.bars.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(back.bars[i].row == s.bars[i].row);
    CHECK(back.bars[i].kind == s.bars[i].kind);
    CHECK(back.bars[i].start == s.bars[i].start);
    CHECK(back.bars[i].end == s.bars[i].end);
  }
  CHECK(back.rounds == s.rounds);
  CHECK(back.maxRateBytesPerSecond == s.maxRateBytesPerSecond);
  CHECK(back.checked == 7);
  CHECK(back.record == 12);
  CHECK(back.cancelledBy == "alice");
  CHECK(back.agentsWorking == 5);
  CHECK(back.waiting == "its agents run run 4");
  CHECK(back.priority == 9);
  CHECK(back.unitsKept == 1234);
}
