#pragma once
#include <optional>
#include <string>

namespace hnow::cli {

struct PlanOptions {
  std::string requestPath;
  bool json = false;
  std::optional<std::string> svgPath;
};

// `hnow plan`: 0 on success, 2 for a bad request, 1 when output cannot be written.
int runPlanCommand(const PlanOptions& options);

}  // namespace hnow::cli
