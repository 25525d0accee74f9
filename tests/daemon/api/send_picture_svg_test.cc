// A send's picture drawn as SVG: well-formed XML whatever the agents are
// called, the bottleneck marked, unknown rates drawn as unknown, a tree
// per replan, a striped send's stripes side by side; and the tree layout.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "api/picture_layout.h"
#include "api/picture_text.h"
#include "api/send_picture_svg.h"

using namespace hnow;
using namespace hnow::api;

namespace {

// hnowd -> a -> {b, c}: a -> c the slowest, b's rate not known yet.
SendPicture treePicture() {
  SendPicture p;
  p.algo = "pipelined";
  p.size = 64000000;
  p.predictedS = 2.5;
  p.elapsedS = 2.71513;
  p.finished = true;
  p.nodes = {{"hnowd", true, 50e6, 0}, {"a", false, 40e6, 100e6}, {"b", false, 10e6, 100e6}, {"c", false, 10e6, 20e6}};
  PictureVersion plan{0.0, "plan", {}, std::nullopt};
  plan.edges = {{"hnowd", "a", 0, 50e6, 48e6, 64000000, 0, 1.3},
                {"a", "b", 0, 20e6, std::nullopt, 0, 0, 0},
                {"a", "c", 0, 20e6, 9e6, 64000000, 0, 2.7}};
  plan.bottleneck = PictureBottleneck{"a", "c", "", "slowest on the way to c", true};
  p.versions = {plan};
  return p;
}

// Tags opened and closed in order, every '<' a tag and every '&' an entity:
// the well-formedness a browser needs, checked without a parser.
bool tagsBalance(const std::string& xml) {
  std::vector<std::string> open;
  for (std::size_t i = 0; i < xml.size(); ++i) {
    if (xml[i] == '&') {
      const auto end = xml.find(';', i);
      const std::string entity = end == std::string::npos ? "" : xml.substr(i, end - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&apos;")
        return false;
    }
    if (xml[i] != '<') continue;
    const auto end = xml.find('>', i);
    if (end == std::string::npos) return false;
    std::string tag = xml.substr(i + 1, end - i - 1);
    i = end;
    if (tag.back() == '/') continue;
    const std::string name = tag.substr(tag[0] == '/' ? 1 : 0, tag.find_first_of(" \n") - (tag[0] == '/' ? 1 : 0));
    if (tag[0] != '/') {
      open.push_back(name);
    } else {
      if (open.empty() || open.back() != name) return false;
      open.pop_back();
    }
  }
  return open.empty();
}

// xmllint's verdict when it is installed (Debian's libxml2-utils); true without it.
bool xmllintAccepts(const std::string& xml) {
  if (!std::filesystem::exists("/usr/bin/xmllint")) {
    MESSAGE("xmllint not installed: well-formedness checked by the tag check alone");
    return true;
  }
  const auto path = std::filesystem::temp_directory_path() / ("hnow-picture-" + std::to_string(::getpid()) + ".svg");
  std::ofstream(path) << xml;
  const int status = std::system(("/usr/bin/xmllint --noout " + path.string() + " 2>/dev/null").c_str());
  std::filesystem::remove(path);
  return status == 0;
}

}  // namespace

TEST_CASE("send picture SVG: well-formed XML with agents named in markup, quotes, control bytes and bytes that are not UTF-8") {
  SendPicture p = treePicture();
  const std::string hostile = "<script>alert(\"x\")</script>&'\x01\xff\xfe";
  p.nodes[2].name = hostile;
  p.versions[0].edges[1].child = hostile;
  p.versions[0].reason = hostile;
  const std::string svg = renderSendPicture(p);
  CHECK(svg.find("<script>") == std::string::npos);
  CHECK(svg.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&apos;???") != std::string::npos);
  CHECK(tagsBalance(svg));
  CHECK(xmllintAccepts(svg));
}

TEST_CASE("send picture SVG: nodes with measured rates, edges with planned and achieved rates for people, the bottleneck in red") {
  const std::string svg = renderSendPicture(treePicture());
  CHECK(svg.find("took 2.72 s (predicted 2.50 s)") != std::string::npos);
  CHECK(svg.find("send of 64 MB to 3 agent(s), pipelined tree") != std::string::npos);
  CHECK(svg.find("↓100 MB/s ↑40 MB/s") != std::string::npos);
  CHECK(svg.find("plan 50 MB/s") != std::string::npos);
  CHECK(svg.find("got 48 MB/s") != std::string::npos);
  CHECK(svg.find("got 9.0 MB/s") != std::string::npos);
  // Only a -> c is the bottleneck edge, and the caption says why.
  const auto marked = svg.find("class=\"edge bottleneck\"><title>a → c");
  CHECK(marked != std::string::npos);
  CHECK(svg.find("class=\"edge bottleneck\"", marked + 1) == std::string::npos);
  CHECK(svg.find("bottleneck (achieved): slowest on the way to c") != std::string::npos);
  // A node bottleneck is drawn on the node.
  SendPicture planned = treePicture();
  planned.versions[0].bottleneck = PictureBottleneck{"hnowd", "a", "hnowd", "hnowd's uplink", false};
  CHECK(renderSendPicture(planned).find("class=\"node bottleneck\"><title>hnowd</title>") != std::string::npos);
}

TEST_CASE("send picture SVG: an edge under a slower one is planned at what reaches its parent, not drawn as falling short") {
  // hnowd -> a at 2 MB/s feeds a, whose share to b is 5 MB/s: b can get only 2.
  SendPicture p;
  p.algo = "pipelined";
  p.size = 32000000;
  p.elapsedS = 10;
  p.nodes = {{"hnowd", true, 2e6, 0}, {"a", false, 10e6, 10e6}, {"b", false, 10e6, 10e6}};
  PictureVersion plan{0.0, "plan", {}, std::nullopt};
  plan.edges = {{"hnowd", "a", 0, 2e6, 2e6, 20000000, 0, 0}, {"a", "b", 0, 5e6, 1.95e6, 19500000, 0, 0}};
  p.versions = {plan};
  const auto edgeTo = [](const std::string& svg, const std::string& title) {
    const auto at = svg.find("<title>" + title);
    return at == std::string::npos ? std::string() : svg.substr(at, svg.find("</g>", at) - at);
  };
  const std::string piped = edgeTo(renderSendPicture(p), "a → b");
  REQUIRE(!piped.empty());
  CHECK(piped.find("plan 2.0 MB/s") != std::string::npos);
  CHECK(piped.find("planned 5.0 MB/s for this link, fed at 2.0 MB/s from above") != std::string::npos);
  CHECK(piped.find("stroke=\"#2e8b57\"") != std::string::npos);  // 1.95 of 2: green
  // Whatever model planned the tree, relays forward bytes as they arrive.
  p.algo = "fnf";
  CHECK(edgeTo(renderSendPicture(p), "a → b") == piped);
  // Fed fast enough, an edge that falls short of its own plan is drawn so.
  p.versions[0].edges[0].plannedBytesPerS = 8e6;
  const std::string short_ = edgeTo(renderSendPicture(p), "a → b");
  CHECK(short_.find("plan 5.0 MB/s") != std::string::npos);
  CHECK(short_.find("fed at") == std::string::npos);
  CHECK(short_.find("stroke=\"#c03a2b\"") != std::string::npos);  // 1.95 of 5: red
}

TEST_CASE("send picture SVG: an edge whose achieved rate is not known is drawn dashed with ?, never as 0 or the plan") {
  const std::string svg = renderSendPicture(treePicture());
  const auto unknown = svg.find("class=\"edge unknown\"><title>a → b");
  REQUIRE(unknown != std::string::npos);
  const std::string edge = svg.substr(unknown, svg.find("</g>", unknown) - unknown);
  CHECK(edge.find("stroke-dasharray") != std::string::npos);
  CHECK(edge.find("got ?") != std::string::npos);
  CHECK(edge.find("got 0") == std::string::npos);
  CHECK(edge.find("got 20 MB/s") == std::string::npos);
}

TEST_CASE("send picture SVG: each replan is a tree of its own below the plan, titled with when and why") {
  SendPicture p = treePicture();
  PictureVersion replan = p.versions[0];
  replan.atS = 1.5;
  replan.reason = "drift: a uplink 40 -> 4 MB/s";
  replan.edges[2].parent = "hnowd";
  p.versions.push_back(replan);
  const std::string svg = renderSendPicture(p);
  CHECK(svg.find("the plan (tree 1)") != std::string::npos);
  CHECK(svg.find("tree 2 from 1.50 s: drift: a uplink 40 -&gt; 4 MB/s") != std::string::npos);
  std::size_t versions = 0;
  for (auto at = svg.find("class=\"version\""); at != std::string::npos; at = svg.find("class=\"version\"", at + 1))
    ++versions;
  CHECK(versions == 2);
}

TEST_CASE("send picture SVG: a striped send draws one tree per stripe, a tree send none") {
  SendPicture p = treePicture();
  p.algo = "striped";
  p.stripes = 3;
  auto& edges = p.versions[0].edges;
  for (int k = 1; k < 3; ++k) {
    edges.push_back({"hnowd", "b", k, 5e6, 4e6, 10, 0, 1});
    edges.push_back({"b", "a", k, 5e6, 4e6, 10, 0, 1});
    edges.push_back({"b", "c", k, 5e6, 4e6, 10, 0, 1});
  }
  const std::string striped = renderSendPicture(p);
  CHECK(striped.find("striped in 3 stripes") != std::string::npos);
  for (const char* label : {">stripe 1<", ">stripe 2<", ">stripe 3<"}) CHECK(striped.find(label) != std::string::npos);
  CHECK(striped.find("<title>b → a, stripe 2:") != std::string::npos);
  CHECK(tagsBalance(striped));
  CHECK(xmllintAccepts(striped));
  CHECK(renderSendPicture(treePicture()).find(">stripe 1<") == std::string::npos);
}

TEST_CASE("picture layout: rows by depth, leaves one slot apart in order, each parent over the middle of its children") {
  // 0 -> {1, 2}, 1 -> {3, 4}, 2 -> 5; 6 out of the tree.
  const TreeLayout layout = layOutTree({-1, 0, 0, 1, 1, 2, -1}, 0);
  CHECK(layout.depth == std::vector<int>{0, 1, 1, 2, 2, 2, -1});
  CHECK(layout.slots == 3);
  CHECK(layout.depths == 3);
  CHECK(layout.slot[3] == 0.0);
  CHECK(layout.slot[4] == 1.0);
  CHECK(layout.slot[5] == 2.0);
  CHECK(layout.slot[1] == 0.5);
  CHECK(layout.slot[2] == 2.0);
  CHECK(layout.slot[0] == 1.25);
  CHECK(layout.slot[6] == -1.0);
  // Parents that go round in a circle, or out of range, are left out.
  const TreeLayout circle = layOutTree({-1, 2, 1, 9}, 0);
  CHECK(circle.depth == std::vector<int>{0, -1, -1, -1});
  CHECK(circle.slots == 1);
}

TEST_CASE("picture text: seconds, rates and sizes as people read them") {
  CHECK(secondsText(2.71513) == "2.72 s");
  CHECK(secondsText(31.44) == "31.4 s");
  CHECK(rateText(94.2e6) == "94 MB/s");
  CHECK(rateText(9.42e6) == "9.4 MB/s");
  CHECK(rateText(940e3) == "940 kB/s");
  CHECK(sizeText(64e6) == "64 MB");
  CHECK(shortened("agent-with-a-long-name", 8) == "agent-wi…");
  CHECK(shortened("short", 8) == "short");
}
