#pragma once
// JobActions for JobRun tests: every call a JobRun makes, in order.
#include <string>
#include <utility>
#include <vector>

#include "core/jobs/job_run.h"

namespace hnow::testing {

struct JobRecorder final : daemon::JobActions {
  std::vector<std::string> log;
  void serve(int a) override { log.push_back("serve " + std::to_string(a)); }
  void compute(int a) override { log.push_back("compute " + std::to_string(a)); }
  void collect(int a) override { log.push_back("collect " + std::to_string(a)); }
  void drop(int a) override { log.push_back("drop " + std::to_string(a)); }
  std::vector<std::string> take() { return std::exchange(log, {}); }
};

}  // namespace hnow::testing
