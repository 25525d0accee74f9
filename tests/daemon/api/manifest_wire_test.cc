// Every field of `hnow send --manifest`'s request survives the CLI's writing
// and hnowd's reading (the report's test is beside the send report's, which
// it holds per item: send_status_wire_test.cc).
#include <doctest/doctest.h>

#include <capnp/message.h>

#include <kj/exception.h>

#include "api/manifest_wire.h"

using namespace hnow::api;

TEST_CASE("a manifest request survives the CLI's writing and hnowd's reading, item by item") {
  ManifestRequest sent;
  sent.algo = "wrp";
  sent.replan = false;
  sent.maxRateBytesPerSecond = 2.5e6;
  sent.items = {{"agent-1", "a.bin", "in/a.bin", {"rack-b"}, "M.toml:3:1"},
                {"agent-2", "b.bin", "in/b.bin", {"agent-3", "agent-4"}, "M.toml:8:1"}};
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::ManifestRequest>();
  toWire(sent, out);
  const ManifestRequest back = manifestRequestFromWire(out.asReader());
  CHECK(back.algo == sent.algo);
  CHECK(back.replan == sent.replan);
  CHECK(back.maxRateBytesPerSecond == sent.maxRateBytesPerSecond);
  REQUIRE(back.items.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(back.items[i].source == sent.items[i].source);
    CHECK(back.items[i].file == sent.items[i].file);
    CHECK(back.items[i].dest == sent.items[i].dest);
    CHECK(back.items[i].to == sent.items[i].to);
    CHECK(back.items[i].where == sent.items[i].where);
  }
}

TEST_CASE("a manifest request's items without a place are named by their position, and algo defaults to auto") {
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::ManifestRequest>();
  auto items = out.initItems(2);
  items[0].setWhere("M.toml:1:1");
  const ManifestRequest back = manifestRequestFromWire(out.asReader());
  CHECK(back.algo == "auto");
  REQUIRE(back.items.size() == 2);
  CHECK(back.items[0].where == "M.toml:1:1");
  CHECK(back.items[1].where == "#2");
}

TEST_CASE("a manifest request whose max rate is negative is refused") {
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::ManifestRequest>();
  out.setMaxRateBytesPerS(-5);
  CHECK_THROWS_AS(manifestRequestFromWire(out.asReader()), kj::Exception);
}
