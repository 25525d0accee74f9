#include "cli/plan_command.h"

#include <iostream>

#include "cli/gantt_svg.h"
#include "cli/plan_output.h"
#include "cli/plan_runner.h"
#include "cli/text_file.h"
#include "conf/plan_request.h"

namespace hnow::cli {

int runPlanCommand(const PlanOptions& options) {
  auto request = conf::loadPlanRequest(options.requestPath);
  if (!request) {
    std::cerr << "hnow plan: " << request.error().text() << "\n";
    return 2;
  }
  auto report = runPlan(request.value());
  if (!report) {
    std::cerr << "hnow plan: " << options.requestPath << ": " << report.error().message << "\n";
    return 2;
  }
  std::cout << (options.json ? planJson(*report) : planTable(*report));
  if (options.svgPath) {
    if (auto written = writeFileAtomically(*options.svgPath, renderGanttSvg(ganttOf(*report))); !written) {
      std::cerr << "hnow plan: " << written.error().message << "\n";
      return 1;
    }
    if (!options.json) std::cout << "\nGantt chart written to " << *options.svgPath << "\n";
  }
  return 0;
}

}  // namespace hnow::cli
