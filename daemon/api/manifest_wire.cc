#include "api/manifest_wire.h"

#include <kj/debug.h>

#include <cmath>

#include "api/send_status_wire.h"

namespace hnow::api {

void toWire(const ManifestRequest& r, wire::ManifestRequest::Builder out) {
  out.setAlgo(r.algo);
  out.setNoReplan(!r.replan);
  out.setMaxRateBytesPerS(r.maxRateBytesPerSecond);
  auto items = out.initItems(static_cast<unsigned>(r.items.size()));
  for (std::size_t i = 0; i < r.items.size(); ++i) {
    auto w = items[static_cast<unsigned>(i)];
    w.setSource(r.items[i].source);
    w.setFile(r.items[i].file);
    w.setDest(r.items[i].dest);
    auto to = w.initTo(static_cast<unsigned>(r.items[i].to.size()));
    for (std::size_t t = 0; t < r.items[i].to.size(); ++t) to.set(static_cast<unsigned>(t), r.items[i].to[t]);
    w.setWhere(r.items[i].where);
  }
}

ManifestRequest manifestRequestFromWire(wire::ManifestRequest::Reader in) {
  ManifestRequest request;
  request.algo = in.getAlgo();
  if (request.algo.empty()) request.algo = "auto";
  request.replan = !in.getNoReplan();
  request.maxRateBytesPerSecond = in.getMaxRateBytesPerS();
  KJ_REQUIRE(std::isfinite(request.maxRateBytesPerSecond) && request.maxRateBytesPerSecond >= 0,
             "a manifest's max rate must be finite and not negative");
  for (auto item : in.getItems()) {
    ManifestItemRequest r;
    r.source = item.getSource();
    r.file = item.getFile();
    r.dest = item.getDest();
    for (auto t : item.getTo()) r.to.emplace_back(t);
    r.where = item.getWhere();
    if (r.where.empty()) r.where = "#" + std::to_string(request.items.size() + 1);
    request.items.push_back(std::move(r));
  }
  return request;
}

void toWire(const ManifestStatus& s, wire::ManifestReport::Builder out) {
  out.setFinished(s.finished);
  out.setAlgo(s.algo);
  out.setPredictedS(s.predictedS);
  out.setElapsedS(s.elapsedS);
  out.setReplans(s.replans);
  out.setSequentialS(s.sequentialS);
  out.setLowerBoundS(s.lowerBoundS);
  auto items = out.initItems(static_cast<unsigned>(s.items.size()));
  for (std::size_t i = 0; i < s.items.size(); ++i) {
    auto w = items[static_cast<unsigned>(i)];
    w.setSource(s.items[i].source);
    w.setFile(s.items[i].file);
    w.setDest(s.items[i].dest);
    toWire(s.items[i].send, w.initReport());
  }
  toWire(s.considered, out.initConsidered(static_cast<unsigned>(s.considered.size())));
  out.setRecord(s.record);
  out.setCancelledBy(s.cancelledBy);
}

ManifestStatus manifestStatusFromWire(wire::ManifestReport::Reader in) {
  ManifestStatus s;
  s.finished = in.getFinished();
  s.algo = in.getAlgo();
  s.predictedS = in.getPredictedS();
  s.elapsedS = in.getElapsedS();
  s.replans = in.getReplans();
  s.sequentialS = in.getSequentialS();
  s.lowerBoundS = in.getLowerBoundS();
  for (auto item : in.getItems())
    s.items.push_back({item.getSource(), item.getFile(), item.getDest(), sendStatusFromWire(item.getReport())});
  s.considered = planOptionsFromWire(in.getConsidered());
  s.record = in.getRecord();
  s.cancelledBy = in.getCancelledBy();
  return s;
}

}  // namespace hnow::api
