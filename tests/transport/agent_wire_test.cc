// Every field of hnowd's data-carrying orders to an agent, and of a job
// task's answer, survives the wire; what the agent must not accept (a short
// token or digest, no command) is refused.
#include <doctest/doctest.h>

#include <capnp/message.h>

#include <cmath>

#include "transport/agent_wire.h"

using hnow::Error;
using namespace hnow::transport;
using namespace hnow::transport::orders;

TEST_CASE("a receive order survives hnowd's writing and the agent's reading - a short token or digest is refused") {
  const ReceiveOrder order{std::string(32, 't'), "in/image.iso", 123456789, std::string(32, 's'), {}, 0, 11.5e6};
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::ReceiveOrder>();
  toWire(order, out);
  auto back = receiveOrderFromWire(out.asReader());
  REQUIRE(back);
  CHECK(back->token == order.token);
  CHECK(back->dest == order.dest);
  CHECK(back->size == order.size);
  CHECK(back->sha256 == order.sha256);
  CHECK(back->uplinkPaceBytesPerSecond == 11.5e6);
  toWire(ReceiveOrder{"short", "x", 1, std::string(32, 's'), {}, 0}, out);
  CHECK(receiveOrderFromWire(out.asReader()).error().message == "an operation token is 32 bytes");
  toWire(ReceiveOrder{std::string(32, 't'), "x", 1, "short", {}, 0}, out);
  CHECK(receiveOrderFromWire(out.asReader()).error().message == "a SHA-256 is 32 bytes");
  for (double pace : {-1.0, std::nan(""), HUGE_VAL}) {
    toWire(ReceiveOrder{std::string(32, 't'), "x", 1, std::string(32, 's'), {}, 0, pace}, out);
    CHECK(receiveOrderFromWire(out.asReader()).error().message == "an uplink pace is a finite rate, 0 or more");
  }
}

TEST_CASE("a receive order names its operation for the agent's messages, cut at 200 bytes, never refused for it") {
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::ReceiveOrder>();
  ReceiveOrder order{std::string(32, 't'), "in/x", 1, std::string(32, 's'), {}, 0};
  order.operation = "send record 12";
  toWire(order, out);
  auto back = receiveOrderFromWire(out.asReader());
  REQUIRE(back);
  CHECK(back->operation == "send record 12");
  order.operation = "manifest record 4, item at " + std::string(300, 'm');
  toWire(order, out);
  back = receiveOrderFromWire(out.asReader());
  REQUIRE(back);
  CHECK(back->operation == order.operation.substr(0, 200));
}

TEST_CASE("a tree's receive order keeps that it is a tree and whether it is atomic - atomic without a tree is refused") {
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::ReceiveOrder>();
  toWire(ReceiveOrder{std::string(32, 't'), "courses/c1", 4096, std::string(32, 's'), {}, 0, 0.0, true, {true}}, out);
  auto back = receiveOrderFromWire(out.asReader());
  REQUIRE(back);
  CHECK(back->tree);
  CHECK(back->copy.atomic);
  CHECK_FALSE(back->copy.deleteOthers);
  toWire(ReceiveOrder{std::string(32, 't'), "in/f", 4096, std::string(32, 's'), {}, 0, 0.0, false, {true}}, out);
  CHECK(receiveOrderFromWire(out.asReader()).error().message == "only a tree is published atomically");
}

TEST_CASE("a receive order's copy options come back whole - --delete of a tree published at once is refused") {
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::ReceiveOrder>();
  ReceiveOrder order{std::string(32, 't'), "courses/c1", 4096, std::string(32, 's'), {}, 0, 0.0, true};
  order.copy.deleteOthers = true;
  toWire(order, out);
  auto back = receiveOrderFromWire(out.asReader());
  REQUIRE(back);
  CHECK_FALSE(back->copy.atomic);
  CHECK(back->copy.deleteOthers);
  order.copy.atomic = true;
  toWire(order, out);
  CHECK(receiveOrderFromWire(out.asReader()).error().message ==
        "only a tree published file by file removes what it does not name");
}

TEST_CASE("a compressed receive order keeps the plain size and SHA-256 - a plain digest that is not 32 bytes is refused") {
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::ReceiveOrder>();
  ReceiveOrder order{std::string(32, 't'), "in/log.txt", 4096, std::string(32, 's'), {}, 0};
  order.compressed = true;
  order.plainSize = 1 << 30;
  order.plainSha256 = std::string(32, 'p');
  toWire(order, out);
  auto back = receiveOrderFromWire(out.asReader());
  REQUIRE(back);
  CHECK(back->compressed);
  CHECK(back->plainSize == 1u << 30);
  CHECK(back->plainSha256 == order.plainSha256);
  CHECK(back->size == 4096);
  order.tree = true;  // a tree's bundle may go compressed too
  toWire(order, out);
  REQUIRE(receiveOrderFromWire(out.asReader()));
  CHECK(receiveOrderFromWire(out.asReader())->tree);
  order.plainSha256 = "short";
  toWire(order, out);
  CHECK(receiveOrderFromWire(out.asReader()).error().message == "a compressed file's plain SHA-256 is 32 bytes");
  // Not compressed: the plain fields are not read.
  order.compressed = false;
  toWire(order, out);
  REQUIRE(receiveOrderFromWire(out.asReader()));
  CHECK(receiveOrderFromWire(out.asReader())->plainSha256.empty());
}

TEST_CASE("a striped receive order keeps its stripes - stripes that do not cover the file in order are refused") {
  ReceiveOrder order{std::string(32, 't'), "in/image.iso", 1000, std::string(32, 's'), {}, 32768};
  order.stripes = {{std::string(32, 'a'), 0, 600, std::string(32, '1')},
                   {std::string(32, 'b'), 600, 400, std::string(32, '2')}};
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::ReceiveOrder>();
  toWire(order, out);
  auto back = receiveOrderFromWire(out.asReader());
  REQUIRE(back);
  REQUIRE(back->stripes.size() == 2);
  CHECK(back->stripes[1].token == order.stripes[1].token);
  CHECK(back->stripes[1].offset == 600);
  CHECK(back->stripes[1].length == 400);
  CHECK(back->stripes[1].sha256 == order.stripes[1].sha256);
  CHECK(back->stripeChunkBytes == 32768);

  auto refused = [&](ReceiveOrder bad) {
    capnp::MallocMessageBuilder m;
    auto o = m.initRoot<hnow::wire::ReceiveOrder>();
    toWire(bad, o);
    auto read = receiveOrderFromWire(o.asReader());
    return read ? std::string() : read.error().message;
  };
  ReceiveOrder gap = order;
  gap.stripes[1].offset = 601;
  CHECK(refused(gap).find("cover the file in order") != std::string::npos);
  ReceiveOrder overlap = order;
  overlap.stripes[1].offset = 500;
  CHECK(refused(overlap).find("cover the file in order") != std::string::npos);
  ReceiveOrder past = order;
  past.stripes[1].length = 401;
  CHECK(refused(past).find("cover the file in order") != std::string::npos);
  ReceiveOrder shortOf = order;
  shortOf.stripes[1].length = 399;
  CHECK(refused(shortOf) == "the stripes end before the file does");
  ReceiveOrder empty = order;
  empty.stripes[1].length = 0;
  CHECK(refused(empty).find("cover the file in order") != std::string::npos);
  ReceiveOrder shared = order;
  shared.stripes[1].token = shared.stripes[0].token;
  CHECK(refused(shared) == "two stripes share a token");
  ReceiveOrder fileToken = order;
  fileToken.stripes[0].token = order.token;
  CHECK(refused(fileToken) == "a stripe's token is the file's");
  ReceiveOrder badDigest = order;
  badDigest.stripes[0].sha256 = "short";
  CHECK(refused(badDigest) == "a SHA-256 is 32 bytes");
  ReceiveOrder tiny = order;
  tiny.stripeChunkBytes = 1024;
  CHECK(refused(tiny) == "a stripe's chunk is 4 KiB to 128 KiB");
  ReceiveOrder huge = order;
  huge.stripeChunkBytes = 256 * 1024;
  CHECK(refused(huge) == "a stripe's chunk is 4 KiB to 128 KiB");
  ReceiveOrder many = order;
  many.size = 100;
  many.stripes.clear();
  for (int k = 0; k < 65; ++k)
    many.stripes.push_back({std::string(31, 'x') + static_cast<char>(k), static_cast<std::uint64_t>(k), 1,
                            std::string(32, '1')});
  CHECK(refused(many) == "a file comes in at most 64 stripes");
}

TEST_CASE("a job file order survives the wire - a short token is refused") {
  const JobFileOrder order{std::string(32, 'f'), 4096, std::string(32, 'h'), "10.0.0.1:7101"};
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::JobInput>();
  toWire(order, out);
  auto back = jobFileFromWire(out.asReader());
  REQUIRE(back);
  CHECK(back->token == order.token);
  CHECK(back->size == order.size);
  CHECK(back->sha256 == order.sha256);
  CHECK(back->source == order.source);
  toWire(JobFileOrder{"", 1, std::string(32, 'h'), "x"}, out);
  CHECK_FALSE(jobFileFromWire(out.asReader()));
}

TEST_CASE("a job task and its answer survive the wire - a task without a command is refused") {
  const JobTaskOrder task{{std::string(32, 'a'), std::string(32, 'b')}, {"sort", "-n"}, std::string(32, 'r')};
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::JobTask>();
  toWire(task, out);
  auto back = jobTaskFromWire(out.asReader());
  REQUIRE(back);
  CHECK(back->inputs == task.inputs);
  CHECK(back->argv == task.argv);
  CHECK(back->resultToken == task.resultToken);
  toWire(JobTaskOrder{{}, {}, std::string(32, 'r')}, out);
  CHECK(jobTaskFromWire(out.asReader()).error().message == "the command is empty");

  const JobTaskAnswer answer{2, Error{"'sort' exited with status 2: sort: invalid option"}, 77, std::string(32, 'd'),
                             1.25, 0.5};
  auto result = message.initRoot<hnow::wire::JobResult>();
  toWire(answer, result);
  const JobTaskAnswer read = jobTaskAnswerFromWire(result.asReader());
  CHECK(read.exitCode == answer.exitCode);
  REQUIRE_FALSE(read.ended.ok());
  CHECK(read.ended.error().message == answer.ended.error().message);
  CHECK(read.size == answer.size);
  CHECK(read.sha256 == answer.sha256);
  CHECK(read.computeS == answer.computeS);
  CHECK(read.runS == answer.runS);
}

TEST_CASE("a job task's success survives the wire as no error") {
  capnp::MallocMessageBuilder message;
  auto result = message.initRoot<hnow::wire::JobResult>();
  toWire(JobTaskAnswer{0, {}, 5, std::string(32, 'd'), 0.5, 0.5}, result);
  CHECK(result.asReader().getError().size() == 0);
  const JobTaskAnswer read = jobTaskAnswerFromWire(result.asReader());
  CHECK(read.succeeded());
  CHECK(read.size == 5);
}
