#pragma once
// systemd's notify protocol (sd_notify(3)) for hnowd and hnow-agent, which
// run as Type=notify units (dist/*.service). Outside systemd (no
// NOTIFY_SOCKET) every call does nothing.
#include <kj/async.h>
#include <kj/timer.h>

#include <string>

namespace hnow::transport {

// READY=1 with a STATUS= line: hnowd once it listens, an agent once registered.
void notifyReady(const std::string& status);
// STOPPING=1: sent on SIGTERM before draining.
void notifyStopping();

// While WATCHDOG_USEC is set for this process, sends WATCHDOG=1 at half
// that interval from the caller's event loop, so a wedged loop (not just a
// dead process) is restarted. Never resolves; ready-made NEVER_DONE when
// the watchdog is off.
kj::Promise<void> feedWatchdog(kj::Timer& timer);

}  // namespace hnow::transport
