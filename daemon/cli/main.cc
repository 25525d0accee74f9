// `hnow`: the command line. The only translation unit that includes CLI11
// (slow to compile); each subcommand's work lives in its own *_command.cc.
#include <CLI/CLI.hpp>

#include "cli/plan_command.h"

int main(int argc, char** argv) {
  CLI::App app{"hnow: plans and moves files and jobs across heterogeneous clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hnow 0.1.0");

  hnow::cli::PlanOptions plan;
  CLI::App* planCommand =
      app.add_subcommand("plan", "Plan an operation offline from a request file and print it");
  planCommand->add_option("request", plan.requestPath, "Request file (TOML), see examples/")
      ->required();
  planCommand->add_flag("--json", plan.json, "Print JSON for scripts instead of a table");
  planCommand->add_option("--svg", plan.svgPath, "Write a Gantt chart of the plan to this SVG file");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (planCommand->parsed()) return hnow::cli::runPlanCommand(plan);
  return 2;
}
