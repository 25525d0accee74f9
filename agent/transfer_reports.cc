// The agent's transfer reports to hnowd: each data plane event of a send's
// receive (progress, done with what a tree's unpack published, failed, a
// lost parent, a parent whose bytes the source's digests refute), over the
// session; a job file's events go to the job runner instead.
#include <algorithm>

#include "agent/agent_runtime.h"
#include "agent/job_runner.h"
#include "base/printable.h"

namespace hnow::agent {

namespace {

// What an unpack published, as hnowd's report carries it: the first
// problems listed (names made printable), the rest counted.
void treeToWire(const transport::data::UnpackedTree& t, wire::TreeOutcome::Builder out) {
  out.setFiles(t.files);
  out.setBytes(t.bytes);
  out.setReplaced(t.replaced);
  out.setHeld(t.held);
  out.setDeleted(t.deleted);
  out.setCopied(t.copied);
  out.setFailedCount(t.failed.size());
  auto failed = out.initFailed(static_cast<unsigned>(std::min<std::size_t>(t.failed.size(), wire::MAX_PATH_PROBLEMS)));
  for (unsigned i = 0; i < failed.size(); ++i) {
    failed[i].setPath(printable(t.failed[i].path));
    failed[i].setWhy(printable(t.failed[i].why));
  }
}

}  // namespace

void AgentRuntime::reportTransfer(const transport::data::TransferEvent& e, const transport::data::UnpackedTree* unpacked) {
  if (jobs_ && jobs_->onTransfer(e)) return;  // a job file's: answered by fetchJobFile
  // Without a session the report is dropped: hnowd counts this agent lost anyway.
  if (!session_) return;
  auto request = session_->reportTransferRequest();
  auto out = request.initReport();
  out.setToken(capnp::Data::Reader(reinterpret_cast<const kj::byte*>(e.token.data()), e.token.size()));
  using Kind = transport::data::TransferEvent::Kind;
  switch (e.kind) {
    case Kind::kProgress: out.setState(wire::TransferState::PROGRESS); break;
    case Kind::kDone: out.setState(wire::TransferState::DONE); break;
    case Kind::kFailed: out.setState(wire::TransferState::FAILED); break;
    case Kind::kParentLost: out.setState(wire::TransferState::PARENT_LOST); break;
    case Kind::kParentCorrupt: out.setState(wire::TransferState::PARENT_CORRUPT); break;
  }
  out.setBytes(e.bytes);
  out.setCorruptChunks(e.corruptChunks);
  out.setMessage(e.message);
  out.setPath(e.path);
  out.setSha256(e.sha256Hex);
  out.setParentAddress(e.parent);
  if (unpacked && e.kind == Kind::kDone) treeToWire(*unpacked, out.initTree());
  request.send().ignoreResult().detach([](kj::Exception&&) {});
}

}  // namespace hnow::agent
