#pragma once
// hnow-agent's control-plane life on the kj thread: connect to hnowd, check
// that it holds the key we trust, log in, then heartbeat and probe until the
// connection ends; then reconnect with backoff, forever. hnowd restarting is
// routine: the agent re-registers on its own.
#include <kj/async-io.h>
#include <kj/compat/tls.h>
#include <kj/timer.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/bandwidth_limits.h"
#include "base/clock.h"
#include "conf/runtime_config.h"
#include "agent/agent_credentials.h"
#include "transport/agent_session.capnp.h"
#include "transport/agent_wire.h"
#include "transport/data/data_plane.h"
#include "transport/data/tree_bundle.h"
#include "transport/off_thread.h"

namespace hnow::agent {
class Receiver;
class JobRunner;
}

namespace hnow::agent {

// The rates this agent emulates now; hnowd may change them (set-rate).
struct Emulation {
  double uplinkMbps = 0.0;  // 0: not limited
  double downlinkMbps = 0.0;
  double computeFactor = 1.0;
};

class AgentRuntime {
 public:
  // `tls`, when given, wraps the connection to hnowd (config_.tls.serverName
  // is the name its certificate must carry); it must outlive the runtime.
  AgentRuntime(const conf::AgentConfig& config, AgentCredentials& credentials,
               kj::Network& network, kj::Timer& timer, const hnow::Clock& clock,
               kj::TlsContext* tls = nullptr);
  ~AgentRuntime();

  // Never resolves; drop it to stop.
  kj::Promise<void> run();

  // A restarted hnowd said which job files it still counts on (keepJobFiles).
  void jobsClaimed() { holdingJobs_ = nullptr; }
  // Called by hnowd's commands (AgentControl): a change wakes the probe.
  void setEmulation(double uplinkMbps, double downlinkMbps, double computeFactor);
  void requestProbe();
  const Emulation& emulation() const { return emulation_; }
  // A receive's paces for this agent's uplink and downlink (ReceiveOrder),
  // 0 and 0 when it is released: the data plane is paced at the slowest of
  // the live ones, the emulated rates and the caps in force.
  void paceReceive(const std::string& token, double uplinkBytesPerSecond, double downlinkBytesPerSecond);
  // The bandwidth caps in force now ([limits] at the local time).
  const CapsInForce& caps() const { return caps_; }
  // Called after every successful login (main tells systemd READY=1).
  void onRegistered(std::function<void()> callback) { onRegistered_ = std::move(callback); }
  // The data plane; exists once the first connection to hnowd
  // showed which local address to listen on.
  Receiver& receiver() { return *receiver_; }
  // `hnow run`'s shares; exists with the data plane.
  JobRunner* jobs() { return jobs_.get(); }  // null without a data root
  // A transfer hnowd released: its last event goes too.
  void forgetReport(const std::string& token) { lastReports_.erase(token); }
  // Progress of the order's transfers (its stripes') goes to hnowd at most
  // every order.progressEveryMs (ReceiveOrder).
  void spaceProgress(const transport::orders::ReceiveOrder& order);
  // Reads of the destinations that take seconds (AgentControl treeHeld, fileHeld).
  transport::OffThread& offThread() { return offThread_; }

 private:
  // One connection's life; resolves or fails when it ends.
  kj::Promise<void> connectOnce();
  kj::Promise<void> serve(kj::Own<kj::AsyncIoStream> stream);
  kj::Promise<void> probeWakeup();
  kj::Promise<void> heartbeats(wire::AgentSession::Client session);
  kj::Promise<void> probes(wire::AgentSession::Client session);
  // Evaluates [limits] now, paces by them and tells hnowd; again at every
  // change of the schedule while connected.
  kj::Promise<void> capsSchedule(wire::AgentSession::Client session);
  void evaluateCaps();
  // Starts the data plane on the address this agent reaches hnowd from.
  void startDataPlane(kj::AsyncIoStream& controlStream);
  // Logged in to another hnowd process than before (a restarted one knows
  // none of them): every transfer goes, temp files and served files with it.
  void forgetTransfers();
  // Job files and running commands go: hnowd reached again gave a lost
  // agent's shares to others, another hnowd knows none of them, and a
  // restarted one that has not claimed them in time (kHoldJobs) has no use
  // for them. Until then they stay while hnowd is away, for a restarted
  // hnowd (the same key) to collect. Transfers go on too: data moves
  // between agents without hnowd, and the same hnowd, reached again, resumes
  // a lost agent's copy from what it holds (docs/reachability.md).
  void forgetJobs();
  // Job files kept for hnowd (kHoldJobs at most) until it claims them.
  void holdJobs();
  void reportTransfer(const transport::data::TransferEvent& event, const transport::data::UnpackedTree* unpacked);
  // Sends a transfer's last event to hnowd; `forget` in the answer releases it.
  void sendReport(const std::string& token);
  // hnowd restarted (the same key), or is away past kKeepTransfers: its
  // next send of a file resumes the receives of files (whole, striped,
  // compressed, a tree's bundle) still under way here from the bytes they
  // hold (Receiver::park), for at most kHoldPartials; every other transfer
  // goes. transfer_reports.cc.
  void parkTransfers();
  // Partial receives parked or left by an earlier process: dropped after kHoldPartials unless a send takes them.
  void holdPartials();
  static constexpr hnow::Duration kHoldPartials = std::chrono::minutes(10);
  // Back at the same hnowd: each held transfer's last event again, so that
  // a copy counted lost meanwhile resumes and one whose send ended is released.
  void reportAgain();
  void applyRates();

  const conf::AgentConfig& config_;
  AgentCredentials& credentials_;
  kj::Network& network_;
  kj::Timer& timer_;
  const hnow::Clock& clock_;
  kj::TlsContext* tls_;
  Emulation emulation_;
  std::map<std::string, double> paces_;  // live receives' uplink paces, bytes/s
  std::map<std::string, double> downPaces_;  // ...and downlink paces
  CapsInForce caps_;
  hnow::Duration backoff_;
  std::optional<kj::Own<kj::PromiseFulfiller<void>>> wakeProbe_;
  bool probeRequested_ = false;  // asked for while a probe was running
  std::function<void()> onRegistered_;
  std::unique_ptr<Receiver> receiver_;
  std::unique_ptr<JobRunner> jobs_;  // destroyed before receiver_ (declared after it)
  transport::OffThread offThread_;   // its work copies what it reads: no order with the others
  std::string dataAddress_;
  std::string dataHost_;  // the address it listens on: the control connection's own
  std::optional<wire::AgentSession::Client> session_;  // while logged in
  // The hnowd instance of the last login (0: none yet), and the last event
  // of each transfer it has not released.
  std::uint64_t coordinatorInstance_ = 0;
  // The hnowd (its key) whose job files this agent holds, and the timer
  // that drops them while hnowd is away or, restarted, has not claimed them.
  std::optional<transport::PublicKey> jobsHeldFor_;
  kj::Promise<void> holdingJobs_ = nullptr;
  kj::Promise<void> holdingPartials_ = nullptr;  // drops the parked receives no send resumed
  struct LastReport {
    transport::data::TransferEvent event;
    std::optional<transport::data::UnpackedTree> unpacked;
    hnow::TimePoint sentAt{};    // when progress went last
    hnow::Duration every{};      // progress at most this often; 0: each event
  };
  std::map<std::string, LastReport> lastReports_;
  // While logged out: forgets the transfers if hnowd is not back in time.
  kj::Promise<void> keepingTransfers_ = nullptr;
  // False once destroyed: an answer to a report may come after that.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  transport::PublicKey coordinatorKey_{};  // the key hnowd proved on this connection
  kj::Promise<void> reporting_ = nullptr;
};

}  // namespace hnow::agent
