#pragma once
// hnowd's config read again on SIGHUP (`systemctl reload hnowd`), without
// stopping what runs: the operators, the [send] and [run] roots and the
// log level take effect at once; a key that only a restart can apply (the
// listen address, the data directory, hnowd's key...) is named in a
// warning. A config that does not load changes nothing: the error is
// logged with its line, and hnowd runs on as it was.
//
// An operator removed from [[operators]], or whose key or rights changed,
// loses the sessions it has open (SessionCuts): a reload is how an
// administrator takes access back, and an open `hnow ops wait` must not
// outlive it. Operations it started run on: they are the lab's, not the
// session's.
#include <kj/async-unix.h>

#include <string>
#include <vector>

#include "base/result.h"
#include "conf/runtime_config.h"
#include "server/live_roots.h"
#include "server/trust.h"

namespace hnow::daemon {

struct Reloadable {
  Trust& trust;             // its operators, and the cuts of their sessions
  LiveRoots sendRoots;      // shared with the sessions and SendService
  LiveRoots runRoots;       // shared with JobService's files
  conf::CoordinatorConfig running;  // what is in force: compared with the file at each reload
};

// What a reload did, a line each, as it logs them.
struct ReloadOutcome {
  std::vector<std::string> applied;   // "operators: 2 (1 read-only); 1 session(s) closed of ..."
  std::vector<std::string> deferred;  // keys that changed but wait for a restart
};

// Applies `fresh` (the config just read) to what runs; refuses it whole
// when one of its operator keys does not parse.
Result<ReloadOutcome> applyReload(Reloadable& target, const conf::CoordinatorConfig& fresh);

// Reads `configPath` again at every SIGHUP and applies it, logging what it
// did; never ends. SIGHUP must have been captured (kj::UnixEventPort::captureSignal).
kj::Promise<void> reloadOnHangup(kj::UnixEventPort& port, Reloadable& target, std::string configPath);

}  // namespace hnow::daemon
