#pragma once
// The tree a file is pushed along, from the rate table: the adapter between
// planner/ (broadcast_choice.h) and the data plane. Node 0 is the source
// (hnowd), 1..n the agents. The data plane always relays chunks as they
// arrive (it has no store-and-forward mode), so every plan, the seeds' FNF
// and LCF included, runs as its tree pipelined and is predicted that way;
// `considered` keeps the predictions `auto` chose by.
#include <cstdint>
#include <string>
#include <vector>

#include "api/send_status.h"
#include "base/result.h"
#include "planner/node_rates.h"
#include "planner/site_links.h"

namespace hnow::daemon {

struct TreeNode {
  std::string name;
  std::string site;
  planner::NodeRates rates;
  // False: it receives its copy but relays nothing (a relay suspect,
  // relay_suspects.h, or a relay caught altering bytes in a running send).
  // Plans take it with no uplink (plannedRates), which every algorithm reads
  // as "cannot send": it gets no children. A plan's source sends whatever
  // this says (a manifest item's source agent serves its own file).
  bool relays = true;
  // Its room's trunk as measured (trunk_survey.h); 0 in a direction: not
  // measured (siteLinksOf takes the fastest port in the room instead);
  // infinity: nothing limits it (agents that pace their own links).
  planner::Trunk roomTrunk{};
  // Its machine (base/host_key.h), when it shares one with other agents,
  // and what that machine takes in together (core/links/host_intake.h): 0 when
  // not known. Plans share it among the send's agents there (plannedRates).
  std::string host{};
  double hostIntakeBytesPerSecond = 0.0;
};

// The rates plans take for `nodes`: [0], the source, as given; a node that
// may not relay with no uplink; the agents on a machine whose intake is
// known with their downlinks capped at their max-min fair share of it
// (fairShareLevel): what each gets while they all take data in at once.
std::vector<planner::NodeRates> plannedRates(const std::vector<TreeNode>& nodes);

// The least time the machines allow: the most, over machines with a known
// intake, of |destinations there| x bytes / intake; 0 when none is known.
double hostIntakeBound(const std::vector<TreeNode>& nodes, double bytes);

// One plan `auto` weighed, for the report.
using api::PlanOption;

struct SendTree {
  std::string algo;            // the algorithm used ("auto" resolved: "pipelined", "fnf", "lcf")
  std::vector<int> parent;     // parent[0] = -1
  std::vector<double> finish;  // predicted finish per node, seconds
  double predictedSeconds = 0.0;  // the tree run pipelined
  // auto: the store-and-forward candidate and the pipelined tree, in that
  // order; another algo: its own plan only.
  std::vector<PlanOption> considered;
  double fluidBoundSeconds = 0.0;  // the fluid lower bound for this send
  // Links taken at a lower bound (never filled by a probe), as the report
  // names them: "agent-3 downlink >= 192.0 Mbit/s".
  std::vector<std::string> rateBounds;
  // A striped plan (algo "striped", planner/striped/striped_plan.h): stripe
  // k is bytes [stripeOffsets[k], stripeOffsets[k + 1]) pushed along
  // stripeParents[k] (`parent` is stripe 0's). Empty for one tree.
  std::vector<std::vector<int>> stripeParents;
  std::vector<std::uint64_t> stripeOffsets;
  std::uint32_t stripeChunkBytes = 0;  // what the stripes are relayed in
  double boundSeconds = 0.0;  // Kumar & Ross's minimum distribution time
  std::string why;            // auto: why this plan won
  bool striped() const { return !stripeParents.empty(); }
};

// auto|tree|striped|fnf|optimal|lcf|binomial|chain|flat
bool knownSendAlgo(const std::string& algo);

// The rooms of `nodes` for the planner: one per site label when the agents
// carry two or more, hnowd in a room of its own, each agents' room behind
// its trunk as measured, or taken at the fastest port in the room until it
// is (`measuredOnly`: left unlimited, as the bound takes it).
planner::SiteLinks siteLinksOf(const std::vector<TreeNode>& nodes, bool measuredOnly = false);

// Sets the trunk of every agent of `room` (nodes[1..]); false when none is in it.
bool setRoomTrunk(std::vector<TreeNode>& nodes, const std::string& room, const planner::Trunk& trunk);

// `nodes[0]` is the source; its uplink is what it will be paced at. `auto`:
// planner::chooseBroadcastPlan, the faster of store-and-forward (FNF, or LCF
// when the agents carry two or more site labels) and the max-bottleneck
// pipelined tree; then, with `weighStriped` and the agents in one site, the
// striped plan if it predicts at least kStripedGain less (its stripes cost connections,
// digests and reports the model leaves out); with rooms, every plan is
// predicted with their trunks, and the striped plan enters each room once
// per stripe. `striped`: the striped plan. `tree`: auto's choice among single
// trees, never striped. Another algo: its tree, with both
// predictions in `considered`.
inline constexpr double kStripedGain = 0.05;
// The smallest chunk a striped plan may relay its stripes in: a stripe's
// chunk crosses each hop at R/S, so many stripes fill their pipelines too
// slowly in the data plane's 128 KiB; on volunteers' links of a few Mbit/s
// a 32 KiB chunk to each of nine children takes seconds a hop. But every
// chunk costs a frame, a hash, an acknowledgement and a wakeup at both
// ends: no node should carry more than kMaxChunksPerSecond of them, so the
// floor rises with the fastest link (32 KiB at 400 Mbit/s).
inline constexpr std::uint32_t kStripeMinChunkBytes = 8 * 1024;
inline constexpr double kMaxChunksPerSecond = 2000;
// Replans and manifests run one tree per file and leave `weighStriped` off.
Result<SendTree> planSendTree(const std::string& algo, const std::vector<TreeNode>& nodes,
                              std::uint64_t size, std::uint32_t chunkBytes, bool weighStriped = false);

}  // namespace hnow::daemon
