// ClientSession's manifest methods: capnp readers to plain values
// and back; the work is ManifestService's.
#include "core/manifest_service.h"
#include "core/send_service.h"
#include "server/sessions.h"
#include "wire/operation_wire.h"
#include "transport/pending_answer.h"
#include "transport/rpc_errors.h"

#include <kj/debug.h>

#include <cmath>

namespace hnow::daemon {

kj::Promise<void> ClientSessionServer::sendManifest(SendManifestContext context) {
  requireFull("start a send");
  if (!manifests_) transport::refuse("this hnowd cannot send manifests");
  auto in = context.getParams().getRequest();
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
  using Started = std::pair<std::uint64_t, ManifestStatus>;
  auto pending = transport::pendingAnswer<Started>();
  manifests_->start(std::move(request), pending.answer);
  return pending.promise.then([context](kj::Own<Started> started) mutable {
    auto results = context.getResults();
    results.setOperation(started->first);
    toWire(started->second, results.initReport());
  });
}

kj::Promise<void> ClientSessionServer::manifestProgress(ManifestProgressContext context) {
  if (!manifests_) transport::refuse("this hnowd cannot send manifests");
  auto status = manifests_->status(context.getParams().getOperation());
  if (!status) transport::refuse("no such manifest operation");
  toWire(*status, context.getResults().initReport());
  return kj::READY_NOW;
}

}  // namespace hnow::daemon
