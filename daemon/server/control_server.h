#pragma once
// Accepts control connections and gives each its own Gate. Lives on the kj
// (control) thread; destroying it closes every connection.
#include <kj/async-io.h>
#include <kj/compat/tls.h>
#include <kj/timer.h>

#include <cstddef>

#include "core/coordinator.h"
#include "server/sessions.h"
#include "server/trust.h"
#include "transport/auth.h"

namespace hnow::daemon {

// What a peer that has not logged in may hold: it costs a socket and a
// Gate, so a flood of idle connections must not exhaust hnowd.
struct ConnectionLimits {
  std::size_t maxUnauthenticated = 64;  // more are closed as they arrive
  kj::Duration loginTimeout = 10 * kj::SECONDS;  // TLS handshake included
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
  std::size_t unauthenticatedCount() const { return unauthenticated_; }

 private:
  void taskFailed(kj::Exception&& exception) override;
  void serve(kj::Own<kj::AsyncIoStream> stream);
  kj::Promise<void> serveSecured(kj::Own<kj::AsyncIoStream> stream, std::string peer,
                                 kj::TimePoint deadline, kj::Own<void> counted);

  Coordinator& coordinator_;
  const Trust& trust_;
  kj::Timer& timer_;
  ConnectionLimits limits_;
  kj::TlsContext* tls_;
  std::size_t unauthenticated_ = 0;
  std::size_t refused_ = 0;
  Services services_;
  // Declared after what connections borrow, so connections close first.
  kj::TaskSet tasks_;
  kj::TaskSet connections_;
};

}  // namespace hnow::daemon
