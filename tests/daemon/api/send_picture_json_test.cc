// A send's picture as JSON, the form its record keeps: read back whole,
// an unknown rate stays unknown, and text that is not a picture is an
// error that says so.
#include <doctest/doctest.h>

#include <limits>

#include "api/send_picture_json.h"

using namespace hnow;
using namespace hnow::api;

TEST_CASE("send picture JSON: read back as written, an unknown achieved rate as null, infinite rates as not known") {
  SendPicture p;
  p.algo = "striped";
  p.stripes = 2;
  p.size = 1234567;
  p.predictedS = 1.5;
  p.elapsedS = 1.75;
  p.finished = true;
  p.nodes = {{"hnowd", true, std::numeric_limits<double>::infinity(), 0}, {"a\"<b>", false, 1e6, 2e6}};
  PictureVersion v{0.5, "drift: a", {}, PictureBottleneck{"hnowd", "a\"<b>", "a\"<b>", "its downlink", true}};
  v.edges = {{"hnowd", "a\"<b>", 1, 5e5, std::nullopt, 0, 0.5, 0}, {"hnowd", "a\"<b>", 0, 5e5, 4e5, 600000, 0, 1.5}};
  p.versions = {v};
  const std::string json = sendPictureJson(p);
  CHECK(json.find("\"achieved_bps\":null") != std::string::npos);
  auto back = sendPictureFromJson(json);
  REQUIRE(back);
  CHECK(back->algo == "striped");
  CHECK(back->stripes == 2);
  CHECK(back->size == 1234567);
  CHECK(back->finished);
  CHECK(back->nodes[0].uplinkBytesPerS == 0.0);  // infinity: not known
  CHECK(back->nodes[1].name == "a\"<b>");
  REQUIRE(back->versions.size() == 1);
  CHECK(back->versions[0].atS == doctest::Approx(0.5));
  CHECK(back->versions[0].reason == "drift: a");
  REQUIRE(back->versions[0].edges.size() == 2);
  CHECK_FALSE(back->versions[0].edges[0].achievedBytesPerS);
  CHECK(back->versions[0].edges[0].stripe == 1);
  CHECK(*back->versions[0].edges[1].achievedBytesPerS == doctest::Approx(4e5));
  CHECK(back->versions[0].edges[1].bytes == 600000);
  CHECK(back->versions[0].edges[1].toS == doctest::Approx(1.5));
  REQUIRE(back->versions[0].bottleneck);
  CHECK(back->versions[0].bottleneck->node == "a\"<b>");
  CHECK(back->versions[0].bottleneck->achieved);
}

TEST_CASE("send picture JSON: text that is not a picture is an error saying what to do, never a throw") {
  for (const char* bad : {"", "{", "[]", "{\"algo\": 3}", "{\"algo\":\"x\",\"stripes\":0}"}) {
    auto p = sendPictureFromJson(bad);
    REQUIRE_FALSE(p);
    CHECK(p.error().message.find("send again to draw it") != std::string::npos);
  }
}
