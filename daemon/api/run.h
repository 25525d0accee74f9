#pragma once
// `hnow run` as the CLI asks for it and as hnowd reports it
// (transport/run.capnp RunRequest, RunReport): plain values, put on the
// wire by run_wire.h on both sides; hnowd's JobService takes the request.
#include <cstdint>
#include <string>
#include <vector>

namespace hnow::api {

struct RunRequest {
  std::string input;  // on hnowd's machine
  std::string split = "lines";
  std::vector<std::string> argv;
  std::string command;  // as typed: reports and the calibration cache key
  std::vector<std::string> to;
  std::string order = "auto";
  std::vector<std::string> reduceArgv;  // empty: concat
  std::string output;                   // "": kept at hnowd for the client (cli/run_output_pull.h)
  double slack = 0.0;                   // 0: the default
  // The bench's baselines: "plan" (seed 002, the default), "equal" (the same
  // units for everyone) or "self" (self-scheduling of fixed blocks of
  // `blockBytes`, as GNU parallel --pipe does).
  std::string strategy = "plan";
  std::uint64_t blockBytes = 1 << 20;
  int replicas = 1;  // each share on this many agents, results compared
  // --replicas adaptive: a second agent checks a share unless its agent is
  // trusted (hnowd's core/trust/host_trust.h), and a random tenth of those.
  bool adaptiveReplicas = false;
  // Shares go out in this many rounds, each planned when the agents are
  // about to be free, on what was measured and drifted (hnowd's core/jobs/job_rounds.h);
  // 0: auto (as many as start-up costs allow, 1 for --order fifo|lifo).
  int rounds = 0;
  // --max-rate: hnowd's uplink (the shares) and downlink (the results) at
  // most this, bytes/s, planned and paced so; 0: none.
  double maxRateBytesPerSecond = 0.0;
  // argv and reduceArgv are /bin/sh -c COMMAND (--shell): an agent's
  // [jobs] shell decides whether it runs them.
  bool shell = false;
  // --priority: among queued jobs that want a same agent, the higher one
  // starts first, then the earlier (hnowd's core/jobs/job_queue.h).
  int priority = 0;
};

struct RunAgentStatus {
  std::string name;
  std::uint64_t units = 0;
  std::uint64_t plannedUnits = 0;
  double computeS = 0.0;
  double idleS = 0.0;
  double secondsPerUnit = 0.0;
  std::vector<std::uint64_t> shareUnits;  // units planned for it in each round (0: none that round)
  // Why its attempts failed or it was left out: a refusal of its [jobs], a limit, an exit status.
  std::vector<std::string> failures{};
};

struct RunBar {
  std::string row;
  std::string kind;  // serve | compute | return | reduce | planned
  double start = 0.0;
  double end = 0.0;
};

struct RunStatus {
  bool finished = false;
  std::string error;
  std::string phase = "calibrating";
  std::string algorithm;
  std::string reduction;
  double predictedS = 0.0;
  double elapsedS = 0.0;  // from the end of calibration (the planned part)
  std::vector<RunAgentStatus> agents;
  int reissued = 0;
  std::uint64_t units = 0;
  std::uint64_t outputSize = 0;
  std::string output;
  std::vector<RunBar> bars;
  int rounds = 0;  // planned (1: one-shot)
  double maxRateBytesPerSecond = 0.0;  // the run's --max-rate; 0: none
  int checked = 0;  // --replicas adaptive: shares a second agent checked
  std::uint64_t record = 0;  // its operation record (`hnow ops`, `hnow cancel`); 0: none
  std::string cancelledBy{};  // the operator who cancelled it; "" not cancelled
  // Agents at work on it now: calibrating, or with a share being served to
  // them, computed or returned (the progress line's "agents working").
  int agentsWorking = 0;
  std::string waiting{};      // phase "queued": why it waits for agents
  int priority = 0;           // its --priority
  // A job hnowd resumed after a restart: the units whose results it had
  // accepted before (not in any agent's `units`).
  std::uint64_t unitsKept = 0;
};

}  // namespace hnow::api
