#pragma once
// `hnow local up|down`: a whole cluster on this machine, without root.
// Layout of DIR (all written by `up`):
//   secret                 a fresh random secret (mode 0600)
//   hnowd.toml             listen pinned to the port the OS chose, so a
//                          restarted hnowd comes back where agents look
//   hnowd/                 hnowd's data directory (hnowd.address)
//   agents/<name>.toml     one config per agent; agents/<name>/ its data
//   client.toml            what `hnow --config DIR/client.toml` needs
//   pids/<name>.pid        every process started; `down` stops them
//   logs/<name>.log        each process's stderr
#include <string>
#include <vector>

#include "base/result.h"

namespace hnow::cli {

struct LocalUpOptions {
  std::string dir;
  int agents = 4;
  // One rate per agent (or one for all); empty: a three-class lab.
  std::vector<double> uplinkMbps;
  // One per agent (or one for all); empty: equal to the uplink.
  std::vector<double> downlinkMbps;
  // One site label per agent (or one for all); empty: the lab's rooms, or
  // "local" when rates are given.
  std::vector<std::string> sites;
  // hnowd's uplink as a send's source (its `uplink_mbps`); 0: not set.
  double sourceUplinkMbps = 0;
  // hnowd's `drift_dwell_s` (tests and benches of replanning); < 0: its default.
  double driftDwellSeconds = -1;
  // hnowd's [survey] emulated_links: the paced links are measured by surveys.
  bool measureLinks = false;
  // Each agent's [limits] max_uplink_mbps (one per agent, or one for all);
  // empty or 0: no cap (docs/bandwidth-limits.md).
  std::vector<double> maxUplinkMbps;
  // hnowd's [web] on 127.0.0.1, port chosen by the OS (docs/web-view.md).
  bool web = false;
};

// Checks the agent count and the per-agent lists.
Result<void> checkLocalUp(const LocalUpOptions& options);

struct LocalDownOptions {
  std::string dir;
};

// 0 once every agent has registered and reported rates; 1 otherwise (and
// then nothing it started is left running); 2 for bad options.
int runLocalUp(const LocalUpOptions& options);
// 0 when every process of the cluster is gone.
int runLocalDown(const LocalDownOptions& options);

}  // namespace hnow::cli
