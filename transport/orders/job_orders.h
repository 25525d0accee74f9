#pragma once
// hnowd's orders to an agent for `hnow run` (agent/job_runner.h) and the
// agent's answer: the one definition daemon/core writes and reads,
// transport/agent_wire.h carries (agent_control.capnp JobInput, JobTask,
// JobResult) and agent/ carries out. Tokens are 32 bytes, digests raw.
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace hnow::transport::orders {

// A file the agent fetches into its job area (a share, a partial result).
struct JobFileOrder {
  std::string token;  // 32 bytes
  std::uint64_t size = 0;
  std::string sha256;  // 32 bytes
  std::string source;  // host:port of the data plane serving it
};

struct JobTaskOrder {
  std::vector<std::string> inputs;  // tokens of files the agent holds, on stdin in this order
  std::vector<std::string> argv;
  std::string resultToken;  // 32 bytes
  bool shell = false;       // argv is /bin/sh -c COMMAND: the agent's [jobs] shell decides
  std::uint64_t run = 0;    // for the agent's log
};

// What the agent answered: the command ran, and succeeded unless `ended`
// holds the Error saying how it failed (its exit code, a signal, no result).
struct JobTaskAnswer {
  int exitCode = -1;
  Result<void> ended;
  std::uint64_t size = 0;
  std::string sha256;
  double computeS = 0.0;  // including the emulated slow-down (compute factor)
  double runS = 0.0;      // the command's own wall time
  // Its [jobs] does not allow the command (nothing ran), or one of its
  // limits ended it: another agent may run it.
  bool refused = false;
  bool limited = false;
  bool succeeded() const { return ended.ok(); }
};

}  // namespace hnow::transport::orders
