// `hnow run` on the wire: ClientSession's run calls to JobService and back.
#include <algorithm>

#include "api/run_wire.h"
#include "core/jobs/job_service.h"
#include "server/sessions.h"
#include "transport/rpc_errors.h"

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
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::runProgress(RunProgressContext context) {
  if (!jobs_) transport::refuse("this hnowd cannot run jobs");
  auto s = jobs_->status(context.getParams().getOperation());
  if (!s) transport::refuse("no such run");
  api::toWire(*s, context.getResults().initReport());
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::runOutput(RunOutputContext context) {
  requireFull("read a run's output");
  if (!jobs_) transport::refuse("this hnowd cannot run jobs");
  auto params = context.getParams();
  auto output = jobs_->output(params.getOperation(), params.getOffset(), 1 << 20);
  if (!output) transport::refuse(output.error().message);
  const std::string& bytes = *output;
  context.getResults().setData(capnp::Data::Reader(reinterpret_cast<const kj::byte*>(bytes.data()), bytes.size()));
  return kj::READY_NOW;
}

}  // namespace hnow::daemon
