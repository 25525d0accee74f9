#pragma once
// The capabilities GateServer hands out after a correct proof.
#include <kj/async.h>

#include <memory>
#include <string>

#include "api/coordinator_status.h"
#include "core/coordinator.h"
#include "server/live_roots.h"
#include "server/progress_follow.h"
#include "server/served_outputs.h"
#include "server/status_views.h"
#include "server/trust.h"
#include "server/uploads.h"
#include "transport/agent_control.capnp.h"
#include "transport/auth.h"
#include "transport/agent_session.capnp.h"
#include "transport/client_session.capnp.h"

namespace hnow::daemon {

// Held by one registered agent. Its destruction (the agent dropped it or
// the connection ended) detaches the session from the coordinator.
class AgentSessionServer final : public wire::AgentSession::Server {
 public:
  // `peer` (host:port) the connection it came on, for the logs.
  AgentSessionServer(Coordinator& coordinator, SessionId session, std::string name, std::string peer = "");
  ~AgentSessionServer();

 protected:
  // Every call runs with the agent and its peer as the log's fields (base/log_context.h).
  DispatchCallResult dispatchCall(uint64_t interfaceId, uint16_t methodId,
                                  capnp::CallContext<capnp::AnyPointer, capnp::AnyPointer> context) override;
  kj::Promise<void> heartbeat(HeartbeatContext context) override;
  kj::Promise<void> reportRates(ReportRatesContext context) override;
  kj::Promise<void> ping(PingContext context) override;
  kj::Promise<void> reportTransfer(ReportTransferContext context) override;
  kj::Promise<void> reportCaps(ReportCapsContext context) override;

 private:
  Coordinator& coordinator_;
  SessionId session_;
  std::string name_;
  std::string peer_;
};

// What clients may ask of hnowd besides status; a missing one is refused.
struct Services {
  SendService* sends = nullptr;          // hnow send
  ManifestService* manifests = nullptr;  // hnow send --manifest
  JobService* jobs = nullptr;            // hnow run
  SurveyRunner* surveys = nullptr;       // hnow measure, and status's "surveying"
  OwedSends* owed = nullptr;             // hnow send --until-all, and status's "owed"
  std::string uploadDir;                 // where clients' uploads go; empty: none taken
  LiveRoots sendRoots{};                 // where hnow send may read on hnowd's host (server/send_paths.h)
  SourcePlane* uploadPlane = nullptr;    // receives clients' uploads (server/uploads.h) and serves them
                                         // runs' results (server/served_outputs.h); null: neither
  int dataPort = 0;                      // hnowd's data plane, which clients dial to upload or fetch a result
  kj::Timer* timer = nullptr;            // paces the progress pushed to followers (server/progress_follow.h)
  std::shared_ptr<FollowGauge> following{};  // counts them; null: the session counts its own
  SendsUnderWay* underWay = nullptr;     // sends a restart left, waiting for their agents (hnow cancel)
};

// The operator a client session serves, its rights, and what the agent
// key commands (`hnow agent token|revoke|approve|keys`) work on; those are
// refused where `agents` is null.
struct Operator {
  std::string name;
  bool readOnly = false;  // status, operations and the progress of operations only
  AgentKeys* agents = nullptr;
  SessionCuts* cuts = nullptr;
  const transport::KeyPair* hnowdKey = nullptr;
  const Clock* clock = nullptr;
  KeyHosts* keyHosts = nullptr;  // status shows its flags, `hnow agent ack` clears one
};

class ClientSessionServer final : public wire::ClientSession::Server {
 public:
  // `peer` (host:port) names the client in the logs of its refused requests.
  explicit ClientSessionServer(Coordinator& coordinator, Services services = {}, std::string peer = "",
                               Operator op = {})
      : coordinator_(coordinator), sends_(services.sends), manifests_(services.manifests), jobs_(services.jobs),
        surveys_(services.surveys), owed_(services.owed), sendRoots_(std::move(services.sendRoots)),
        peer_(std::move(peer)), operator_(std::move(op)),
        uploads_(std::make_shared<UploadShelf>(services.uploadDir, services.uploadPlane, transport::freshToken)),
        outputs_(std::make_shared<ServedOutputs>(services.uploadPlane, transport::freshToken)),
        dataPort_(services.dataPort), timer_(services.timer),
        following_(services.following ? std::move(services.following) : std::make_shared<FollowGauge>()),
        underWay_(services.underWay) {}

 protected:
  // Every call runs with the client's peer as the log's field (base/log_context.h).
  DispatchCallResult dispatchCall(uint64_t interfaceId, uint16_t methodId,
                                  capnp::CallContext<capnp::AnyPointer, capnp::AnyPointer> context) override;
  // server/coordinator_session.cc, with setEmulatedRates, forgetAgent and operations.
  kj::Promise<void> status(StatusContext context) override;
  kj::Promise<void> setEmulatedRates(SetEmulatedRatesContext context) override;
  kj::Promise<void> forgetAgent(ForgetAgentContext context) override;
  // A file of the client's: does hnowd see it, else its upload.
  kj::Promise<void> sees(SeesContext context) override;
  kj::Promise<void> seesTree(SeesTreeContext context) override;
  kj::Promise<void> keptHeld(KeptHeldContext context) override;
  // server/upload_session.cc.
  kj::Promise<void> upload(UploadContext context) override;
  kj::Promise<void> uploaded(UploadedContext context) override;
  // server/operations_rpc.cc.
  kj::Promise<void> operations(OperationsContext context) override;
  kj::Promise<void> locate(LocateContext context) override;
  kj::Promise<void> send(SendContext context) override;
  // server/manifest_session.cc.
  kj::Promise<void> sendManifest(SendManifestContext context) override;
  // server/job_rpc.cc, with the run's result served on the data plane.
  kj::Promise<void> run(RunContext context) override;
  kj::Promise<void> grantOutput(GrantOutputContext context) override;
  // server/progress_session.cc: progress pushed to the client's listener.
  kj::Promise<void> followSend(FollowSendContext context) override;
  kj::Promise<void> followManifest(FollowManifestContext context) override;
  kj::Promise<void> followRun(FollowRunContext context) override;
  // server/link_rpc.cc.
  kj::Promise<void> measure(MeasureContext context) override;
  // server/agent_keys_rpc.cc.
  kj::Promise<void> agentToken(AgentTokenContext context) override;
  kj::Promise<void> revokeAgent(RevokeAgentContext context) override;
  kj::Promise<void> acknowledgeAgent(AcknowledgeAgentContext context) override;
  kj::Promise<void> approveAgent(ApproveAgentContext context) override;
  kj::Promise<void> agentKeys(AgentKeysContext context) override;
  // server/cancel_rpc.cc.
  kj::Promise<void> cancel(CancelContext context) override;

 private:
  // Where status and ops read from (server/status_views.h).
  StatusSources sources() const;
  // A read-only operator is refused `what` ("start a send"), logged.
  void requireFull(const char* what) const;
  // The copies hnowd keeps of clients' directories and files are each operator's own:
  // one operator can neither ask what another's copy holds nor send from it.
  std::string keptKey(const std::string& clientKey) const {
    return clientKey.empty() ? clientKey : operator_.name + '\n' + clientKey;
  }
  // Does hnowd keep the client's file from its last upload, as `sees` asks (upload_session.cc)?
  bool keptFileHeld(wire::ClientSession::SeesParams::Reader params) const;

  Coordinator& coordinator_;
  SendService* sends_;
  ManifestService* manifests_;
  JobService* jobs_;
  SurveyRunner* surveys_;
  OwedSends* owed_;
  LiveRoots sendRoots_;
  std::string peer_;
  Operator operator_;
  std::shared_ptr<UploadShelf> uploads_;
  std::shared_ptr<ServedOutputs> outputs_;
  int dataPort_;
  kj::Timer* timer_;
  std::shared_ptr<FollowGauge> following_;
  SendsUnderWay* underWay_;
};

// Commands to an agent over its AgentControl capability; calls run in `tasks`.
std::unique_ptr<AgentLink> makeRpcAgentLink(wire::AgentControl::Client control, kj::TaskSet& tasks,
                                            std::string name);

}  // namespace hnow::daemon
