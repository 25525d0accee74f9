// Every field of `hnow send`'s request survives the CLI's writing and
// hnowd's reading: each is set to a value other than its default, so a field
// one side forgets fails here.
#include <doctest/doctest.h>

#include <capnp/message.h>

#include <cmath>

#include <kj/exception.h>

#include "api/send_request_wire.h"

using namespace hnow::api;

TEST_CASE("a send request survives the CLI's writing and hnowd's reading, field by field") {
  SendRequest sent;
  sent.path = "/srv/images/disk.img";
  sent.dest = "in/disk.img";
  sent.to = {"rack-a", "agent-7"};
  sent.algo = "striped";
  sent.replan = false;
  sent.copy.atomic = true;
  sent.copy.deleteOthers = true;
  sent.compress = "zstd";
  sent.untilAll = true;
  sent.maxRateBytesPerSecond = 12.5e6;
  sent.force = true;
  sent.upload = 42;
  sent.uploadIsTree = true;
  sent.uploadKey = "tree-key";
  sent.uploadStamp = {3 << 20, 1'700'000'000'123'456'789, 1'700'000'001'000'000'007, 424242};
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::SendRequest>();
  toWire(sent, out);
  const SendRequest back = sendRequestFromWire(out.asReader());
  CHECK(back.path == sent.path);
  CHECK(back.dest == sent.dest);
  CHECK(back.to == sent.to);
  CHECK(back.algo == sent.algo);
  CHECK(back.replan == sent.replan);
  CHECK(back.copy.atomic == sent.copy.atomic);
  CHECK(back.copy.deleteOthers == sent.copy.deleteOthers);
  CHECK(back.compress == sent.compress);
  CHECK(back.untilAll == sent.untilAll);
  CHECK(back.maxRateBytesPerSecond == sent.maxRateBytesPerSecond);
  CHECK(back.force == sent.force);
  CHECK(back.upload == sent.upload);
  CHECK(back.uploadIsTree == sent.uploadIsTree);
  CHECK(back.uploadKey == sent.uploadKey);
  CHECK(back.uploadStamp == sent.uploadStamp);
}

TEST_CASE("a send request without algo or compress reads as auto, and replans unless told not to") {
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::SendRequest>();
  out.setPath("/srv/a");
  const SendRequest back = sendRequestFromWire(out.asReader());
  CHECK(back.algo == "auto");
  CHECK(back.compress == "auto");
  CHECK(back.replan);
}

TEST_CASE("a send request whose max rate is negative or not finite is refused") {
  for (double rate : {-1.0, std::nan(""), HUGE_VAL}) {
    capnp::MallocMessageBuilder message;
    auto out = message.initRoot<hnow::wire::SendRequest>();
    out.setMaxRateBytesPerS(rate);
    CHECK_THROWS_AS(sendRequestFromWire(out.asReader()), kj::Exception);
  }
}
