// ClientSession's manifest methods: capnp readers to plain values
// and back; the work is ManifestService's.
#include "api/manifest_wire.h"
#include "core/manifest/manifest_service.h"
#include "core/send/send_service.h"
#include "server/sessions.h"
#include "transport/pending_answer.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

kj::Promise<void> ClientSessionServer::sendManifest(SendManifestContext context) {
  requireFull("start a send");
  if (!manifests_) transport::refuse("this hnowd cannot send manifests");
  ManifestRequest request = api::manifestRequestFromWire(context.getParams().getRequest());
  using Started = std::pair<std::uint64_t, ManifestStatus>;
  auto pending = transport::pendingAnswer<Started>();
  manifests_->start(std::move(request), pending.answer);
  return pending.promise.then([context](kj::Own<Started> started) mutable {
    auto results = context.getResults();
    results.setOperation(started->first);
    api::toWire(started->second, results.initReport());
  });
}

}  // namespace hnow::daemon
