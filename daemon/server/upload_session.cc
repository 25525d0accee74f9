// A client's upload over its session (docs/tree-send.md, "From the
// client's machine"): the control call grants the transfer, and another
// answers when it is whole and matches the client's SHA-256; the bytes go
// over the data plane (server/uploads.h).
#include <spdlog/spdlog.h>

#include "core/send/send_service.h"
#include "server/sessions.h"
#include "transport/pending_answer.h"
#include "transport/rpc_errors.h"
#include "transport/wire_bytes.h"

namespace hnow::daemon {

kj::Promise<void> ClientSessionServer::upload(UploadContext context) {
  requireFull("upload to hnowd");
  if (!sends_) transport::refuse("this hnowd cannot send files");
  auto grant = uploads_->begin(context.getParams().getSize());
  if (!grant) {
    spdlog::warn("refused an upload from {}: {}", peer_, grant.error().message);
    transport::refuse(grant.error().message);
  }
  auto results = context.getResults();
  results.setId(grant->id);
  results.setToken(transport::dataOf(grant->token));
  results.setTicket(transport::dataOf(grant->ticket));
  results.setDataPort(static_cast<std::uint16_t>(dataPort_));
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::uploaded(UploadedContext context) {
  auto pending = transport::pendingAnswer<std::uint64_t>();
  auto params = context.getParams();
  const auto sha = params.getSha256();
  uploads_->whenWhole(params.getId(), transport::stringOf(sha), pending.answer);
  return pending.promise.then(
      [context](kj::Own<std::uint64_t> size) mutable { context.getResults().setSize(*size); });
}

bool ClientSessionServer::keptFileHeld(wire::ClientSession::SeesParams::Reader params) const {
  if (!sends_ || params.getKey().size() == 0 || !params.hasStamp()) return false;
  const auto stamp = params.getStamp();
  return sends_->holdsKeptFile(keptKey(params.getKey()),
                               {stamp.getSize(), stamp.getMtimeNs(), stamp.getCtimeNs(), stamp.getInode()});
}

}  // namespace hnow::daemon
