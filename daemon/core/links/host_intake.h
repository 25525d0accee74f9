#pragma once
// Agents that share a machine share its CPU and memory (docs/host-intake.md).
// Every byte an agent takes in costs its machine a receive, a check of the
// chunk's SHA-256, a write and, at a relay, a send: 256 agents on one 2-core
// machine together take in a few hundred MB/s, far less than their links
// add up to, and a plan on their links alone promised sends 1.3 to 1.9
// times faster than they ran. No end link explains such flows: each runs
// with room at both ends. So, as a trunk is read from the flows that cross
// it (trunk_verdict.h), a machine's intake is read from the flows into its
// agents: when every one of them had room at both ends (or waited for its
// sender's own data), the machine held them, and their sum is what it can
// take in. It lives in the link book as the downlink of a pseudo-node
// "host:KEY" (base/host_key.h), which no agent name can take, so state.db
// keeps it. Plans then share it among the send's agents on that machine
// (fairShareLevel) and the bound counts it. Pure: values in, values out.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/links/link_verdict.h"

namespace hnow::daemon {

// The link book's name for a machine's intake (its kDown).
LinkId hostIntakeLink(const std::string& host);

// One copy of a finished send on a machine shared with other agents.
struct HostCopy {
  std::string host;
  std::uint64_t bytes = 0;  // what it took in
  double heldS = 0.0;       // since the send started, when every byte was in; 0: not
  double plannedS = 0.0;    // when its plan said it would be
};

// A finished send's reading of each machine that took two of its copies or
// more, every one of them whole: the bytes they took in over the time the
// last of them took. Saturated when that time is more than `headroom` over
// what the plan predicted for them (the latest of their planned finishes):
// the plan knew their links and the machine's intake as known then, so
// something it did not know held them all, and they share only the
// machine. Otherwise the machine took in at least that much (a bound; one
// no higher than a known intake changes nothing). Averaged over the whole
// send, slow start and slow end included, as the next send will run. A
// send planned under `minPlannedS` says nothing: its time is the
// connections' set-up and TCP's ramp as much as the machine (an 8 MiB send
// planned at 0.3 s takes 0.6 on an idle machine).
std::vector<LinkReading> hostIntakeOfSend(const std::vector<HostCopy>& copies, double headroom = 0.15,
                                          double minPlannedS = 5.0);

// The most each of flows wanting `wants` gets when they share `capacity`
// as TCP and the scheduler do, max-min fairly: the level L with
// sum(min(want, L)) = capacity; +infinity when they all fit.
double fairShareLevel(std::span<const double> wants, double capacity);

}  // namespace hnow::daemon
