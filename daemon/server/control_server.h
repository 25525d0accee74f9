#pragma once
// Accepts control connections and gives each its own Gate. Lives on the kj
// (control) thread; destroying it closes every connection.
#include <kj/async-io.h>
#include <kj/compat/tls.h>
#include <kj/timer.h>

#include <cstddef>
#include <map>
#include <optional>

#include "base/peer_rate.h"
#include "base/peer_slots.h"
#include "core/coordinator.h"
#include "server/sessions.h"
#include "server/trust.h"
#include "transport/auth.h"

namespace hnow::daemon {

// What a peer that has not logged in may hold: it costs a socket and a
// Gate, so a flood of idle connections must not exhaust hnowd, nor one
// address's flood lock the others out (base/peer_slots.h).
struct ConnectionLimits {
  std::size_t maxUnauthenticated = 64;  // more are closed as they arrive
  kj::Duration loginTimeout = 10 * kj::SECONDS;  // TLS handshake included
  // An address's share of them once all are taken (base/peer_slots.h).
  std::size_t maxUnauthenticatedPerHost = 8;
  // hnowd signs each challenge's nonce: at most this many a second from one
  // address (a burst of twice that), so a peer that has proven nothing
  // cannot keep hnowd busy signing. An Ed25519 signature takes some 25 us:
  // 400 a second is 1% of a core, and a lab of 256 agents on one address
  // (`hnow local up`, or one NAT) logging in again at once, as after hnowd
  // was too busy to answer their heartbeats, pass in its burst of 800.
  double challengesPerSecondPerHost = 400.0;
};

class ControlServer final : private kj::TaskSet::ErrorHandler {
 public:
  // `tls`, when given, wraps every accepted connection (mutual TLS: the
  // context verifies client certificates); it must outlive the server.
  // `services` serve what clients ask for; a missing one is refused.
  ControlServer(Coordinator& coordinator, const Trust& trust, kj::Timer& timer,
                ConnectionLimits limits, kj::TlsContext* tls = nullptr, Services services = {});

  // Never resolves unless accepting fails; drop it to stop listening.
  kj::Promise<void> listen(kj::ConnectionReceiver& receiver);
  // Runs detached work (commands to agents); failures are logged.
  kj::TaskSet& tasks() { return tasks_; }
  std::size_t unauthenticatedCount() const { return slots_.held(); }

 private:
  void taskFailed(kj::Exception&& exception) override;
  void serve(kj::Own<kj::AsyncIoStream> stream);
  kj::Promise<void> serveSecured(kj::Own<kj::AsyncIoStream> stream, std::string peer,
                                 kj::TimePoint deadline, kj::Own<void> counted, kj::Promise<void> evicted);
  // A slot for a connection from `peer`, closing another's to make room;
  // none when refused (logged).
  std::optional<PeerSlots::Ticket> takeSlot(const std::string& peer, kj::Own<kj::PromiseFulfiller<void>> evict);
  // One more challenge signed for `host` now, within its budget (logged when not).
  bool mayChallenge(const std::string& host);

  Coordinator& coordinator_;
  const Trust& trust_;
  kj::Timer& timer_;
  ConnectionLimits limits_;
  kj::TlsContext* tls_;
  PeerSlots slots_;
  // Fulfilled to close a connection still waiting to log in, by its slot.
  std::map<PeerSlots::Ticket, kj::Own<kj::PromiseFulfiller<void>>> evictors_;
  std::size_t refused_ = 0;
  std::size_t evictions_ = 0;
  PeerRate challenges_;
  std::size_t refusedChallenges_ = 0;
  Services services_;
  // Declared after what connections borrow, so connections close first.
  kj::TaskSet tasks_;
  kj::TaskSet connections_;
};

}  // namespace hnow::daemon
