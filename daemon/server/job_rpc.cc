// `hnow run` on the wire: ClientSession's run calls to JobService and back,
// and the run's result served to the client on hnowd's data plane.
#include <algorithm>

#include "api/run_wire.h"
#include "core/jobs/job_service.h"
#include "server/sessions.h"
#include "transport/pending_answer.h"
#include "transport/rpc_errors.h"
#include "transport/wire_bytes.h"

namespace hnow::daemon {

kj::Promise<void> ClientSessionServer::run(RunContext context) {
  requireFull("start a run");
  if (!jobs_) transport::refuse("this hnowd cannot run jobs");
  RunRequest request = api::runRequestFromWire(context.getParams().getRequest());
  // What the client left empty takes hnowd's default.
  if (request.order.empty()) request.order = "auto";
  request.replicas = std::max<int>(1, request.replicas);
  if (request.blockBytes == 0) request.blockBytes = RunRequest{}.blockBytes;
  auto started = jobs_->start(std::move(request), peer_);
  if (!started) transport::refuse(started.error().message);
  context.getResults().setOperation(*started);
  if (auto status = jobs_->status(*started)) context.getResults().setRecord(status->record);
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::grantOutput(GrantOutputContext context) {
  requireFull("read a run's output");
  if (!jobs_) transport::refuse("this hnowd cannot run jobs");
  auto path = jobs_->outputPath(context.getParams().getOperation());
  if (!path) transport::refuse(path.error().message);
  auto pending = transport::pendingAnswer<ServedOutputs::Grant>();
  outputs_->serve(*path, pending.answer);
  return pending.promise.then([context, port = dataPort_](kj::Own<ServedOutputs::Grant> grant) mutable {
    const ServedOutputs::Grant& g = *grant;
    auto results = context.getResults();
    results.setToken(transport::dataOf(g.token));
    results.setSize(g.file.size);
    results.setSha256(transport::dataOf(g.file.sha256));
    results.setDigestChunkBytes(g.file.digestChunkBytes);
    results.setPieceDigests(transport::dataOf(g.file.pieceDigests));
    results.setDataPort(static_cast<std::uint16_t>(port));
  });
}

}  // namespace hnow::daemon
