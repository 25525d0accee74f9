#include "api/send_picture_json.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace hnow::api {

namespace {

using Json = nlohmann::json;

// JSON has no infinity: a rate nothing limits is written as not known.
double finite(double x) { return std::isfinite(x) ? x : 0.0; }

Json bottleneckJson(const PictureBottleneck& b) {
  return {{"parent", b.parent}, {"child", b.child}, {"node", b.node}, {"why", b.why}, {"achieved", b.achieved}};
}

Json edgeJson(const PictureEdge& e) {
  Json j{{"parent", e.parent}, {"child", e.child}, {"stripe", e.stripe}, {"planned_bps", finite(e.plannedBytesPerS)},
         {"bytes", e.bytes}, {"from_s", e.fromS}, {"to_s", e.toS}};
  // Unknown stays unknown: null, never 0.
  j["achieved_bps"] = e.achievedBytesPerS ? Json(finite(*e.achievedBytesPerS)) : Json(nullptr);
  return j;
}

// json.at() and get<>() throw on a missing key or a wrong type: the one
// place a picture is read, so the one catch turns that into an error value.
PictureEdge edgeOf(const Json& j) {
  PictureEdge e;
  e.parent = j.at("parent").get<std::string>();
  e.child = j.at("child").get<std::string>();
  e.stripe = j.at("stripe").get<int>();
  e.plannedBytesPerS = j.at("planned_bps").get<double>();
  if (const Json& a = j.at("achieved_bps"); !a.is_null()) e.achievedBytesPerS = a.get<double>();
  e.bytes = j.at("bytes").get<std::uint64_t>();
  e.fromS = j.at("from_s").get<double>();
  e.toS = j.at("to_s").get<double>();
  return e;
}

}  // namespace

std::string sendPictureJson(const SendPicture& p) {
  Json nodes = Json::array(), versions = Json::array();
  for (const PictureNode& n : p.nodes)
    nodes.push_back({{"name", n.name}, {"source", n.source}, {"uplink_bps", finite(n.uplinkBytesPerS)},
                     {"downlink_bps", finite(n.downlinkBytesPerS)}});
  for (const PictureVersion& v : p.versions) {
    Json edges = Json::array();
    for (const PictureEdge& e : v.edges) edges.push_back(edgeJson(e));
    Json version{{"at_s", v.atS}, {"reason", v.reason}, {"edges", std::move(edges)}};
    version["bottleneck"] = v.bottleneck ? bottleneckJson(*v.bottleneck) : Json(nullptr);
    versions.push_back(std::move(version));
  }
  const Json j{{"algo", p.algo},           {"stripes", p.stripes},   {"size", p.size},
               {"predicted_s", finite(p.predictedS)}, {"elapsed_s", finite(p.elapsedS)}, {"finished", p.finished},
               {"nodes", std::move(nodes)}, {"versions", std::move(versions)}};
  // Agent names are the agents' own: bytes that are not UTF-8 are replaced, not thrown on.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<SendPicture> sendPictureFromJson(std::string_view text) {
  try {
    const Json j = Json::parse(text);
    SendPicture p;
    p.algo = j.at("algo").get<std::string>();
    p.stripes = j.at("stripes").get<int>();
    p.size = j.at("size").get<std::uint64_t>();
    p.predictedS = j.at("predicted_s").get<double>();
    p.elapsedS = j.at("elapsed_s").get<double>();
    p.finished = j.at("finished").get<bool>();
    for (const Json& n : j.at("nodes"))
      p.nodes.push_back({n.at("name").get<std::string>(), n.at("source").get<bool>(), n.at("uplink_bps").get<double>(),
                         n.at("downlink_bps").get<double>()});
    for (const Json& v : j.at("versions")) {
      PictureVersion version{v.at("at_s").get<double>(), v.at("reason").get<std::string>(), {}, std::nullopt};
      for (const Json& e : v.at("edges")) version.edges.push_back(edgeOf(e));
      if (const Json& b = v.at("bottleneck"); !b.is_null())
        version.bottleneck = PictureBottleneck{b.at("parent").get<std::string>(), b.at("child").get<std::string>(),
                                               b.at("node").get<std::string>(), b.at("why").get<std::string>(),
                                               b.at("achieved").get<bool>()};
      p.versions.push_back(std::move(version));
    }
    return p;
  } catch (const Json::exception& e) {
    return Error{std::string("a send's picture that cannot be read (") + e.what() +
                 "); the record was written by another hnowd, or altered: send again to draw it"};
  }
}

}  // namespace hnow::api
