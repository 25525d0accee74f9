#pragma once
// hnowd's commands to this agent (agent_control.capnp AgentControl): the RPC
// boundary of the agent. The methods read the call, ask the agent's logic
// (Receiver, JobRunner, AgentRuntime), which answers a Result, and only
// here an Error becomes the failed call (transport/rpc_errors.h). By
// concern: rates and probes (agent_control.cc), receives and what a
// destination holds (agent_control_receives.cc), `hnow run`'s shares
// (agent_control_jobs.cc).
#include <kj/async.h>

#include <functional>
#include <memory>
#include <string>

#include "agent/agent_runtime.h"
#include "transport/data/data_plane.h"

namespace hnow::agent {

class JobRunner;

class AgentControlServer final : public wire::AgentControl::Server {
 public:
  explicit AgentControlServer(AgentRuntime& runtime) : runtime_(runtime) {}

 protected:
  kj::Promise<void> setEmulatedRates(SetEmulatedRatesContext context) override;
  kj::Promise<void> probeNow(ProbeNowContext) override;
  kj::Promise<void> probeLinks(ProbeLinksContext context) override;

  kj::Promise<void> receive(ReceiveContext context) override;
  kj::Promise<void> pull(PullContext context) override;
  kj::Promise<void> release(ReleaseContext context) override;
  // This agent is the source of a manifest item.
  kj::Promise<void> serveFile(ServeFileContext context) override;
  // Only what changed: which files of a tree's index this agent lacks.
  kj::Promise<void> treeHeld(TreeHeldContext context) override;
  // A single file's send: what its destination already holds.
  kj::Promise<void> fileHeld(FileHeldContext context) override;
  // A single file's send: write dest from the same bytes under another path here.
  kj::Promise<void> copyHeld(CopyHeldContext context) override;

  // `hnow run`'s shares and results (agent/job_runner.h).
  kj::Promise<void> fetchJobFile(FetchJobFileContext context) override;
  kj::Promise<void> runJobTask(RunJobTaskContext context) override;
  kj::Promise<void> offerFile(OfferFileContext context) override;
  kj::Promise<void> dropJobFiles(DropJobFilesContext context) override;
  // A restarted hnowd: a task its earlier process started, and what it still counts on.
  kj::Promise<void> awaitJobTask(AwaitJobTaskContext context) override;
  kj::Promise<void> keepJobFiles(KeepJobFilesContext context) override;
  kj::Promise<void> heldJobTasks(HeldJobTasksContext context) override;

 private:
  // `work` on a thread of its own (it reads files: seconds for large ones),
  // its answer back on the kj thread, which keeps heartbeats and relays going.
  template <typename T>
  kj::Promise<kj::Own<T>> offThread(std::function<T()> work) {
    auto paf = kj::newPromiseAndFulfiller<kj::Own<T>>();
    auto fulfiller = std::make_shared<kj::Own<kj::PromiseFulfiller<kj::Own<T>>>>(kj::mv(paf.fulfiller));
    runtime_.offThread().run<T>(std::move(work),
                                [fulfiller](T& answer) { (*fulfiller)->fulfill(kj::heap<T>(std::move(answer))); });
    return kj::mv(paf.promise);
  }
  // The job runner, or why this agent runs no jobs.
  Result<JobRunner*> jobs();
  static std::string tokenOf(capnp::Data::Reader data) {
    return std::string(reinterpret_cast<const char*>(data.begin()), data.size());
  }
  // A 32-byte digest (checked by the codec) as the data plane holds it.
  static transport::data::Sha256 digestOf(const std::string& sha256) {
    transport::data::Sha256 sha{};
    std::copy(sha256.begin(), sha256.end(), sha.begin());
    return sha;
  }

  AgentRuntime& runtime_;
};

}  // namespace hnow::agent
