// `hnow`: the command line. The only translation unit that includes CLI11
// (slow to compile); each subcommand's work lives in its own *_command.cc.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/demo_command.h"
#include "cli/local_command.h"
#include "cli/plan_command.h"
#include "cli/manifest_command.h"
#include "cli/run_command.h"
#include "cli/send_command.h"
#include "cli/status_command.h"

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

  // hnowd's client commands: `hnow --config DIR/client.toml status` (the
  // option may also follow the subcommand).
  std::string clientConfig = hnow::cli::kDefaultClientConfig;
  app.add_option("--config", clientConfig, "Client config naming hnowd and the secret file")
      ->envname("HNOW_CONFIG");
  app.fallthrough();

  hnow::cli::StatusOptions status;
  CLI::App* statusCommand = app.add_subcommand(
      "status", "Show every agent hnowd knows, with its rates and how each link was measured");
  statusCommand->add_flag("--json", status.json, "Print JSON for scripts");

  hnow::cli::MeasureOptions measure;
  CLI::App* measureCommand = app.add_subcommand(
      "measure", "Measure link capacities now (several peers at once into each link), then show them");
  measureCommand->add_option("nodes", measure.nodes, "Agents to measure (hnowd: hnowd's own links); default: all");
  measureCommand->add_flag("--json", measure.json, "Print the status JSON afterwards");
  measureCommand->add_option("--timeout-s", measure.timeoutSeconds, "Give up after this many seconds (default 600)")
      ->check(CLI::Range(1.0, 86400.0));

  hnow::cli::SetRateOptions setRate;
  CLI::App* agentCommand = app.add_subcommand("agent", "Commands to one agent through hnowd");
  agentCommand->require_subcommand(1);
  CLI::App* setRateCommand =
      agentCommand->add_subcommand("set-rate", "Change an agent's emulated rates live (tests drift)");
  setRateCommand->add_option("name", setRate.agent, "Agent name")->required();
  setRateCommand->add_option("--uplink-mbps", setRate.change.uplinkMbps, "Emulated uplink, Mbit/s")
      ->check(CLI::PositiveNumber);
  setRateCommand->add_option("--downlink-mbps", setRate.change.downlinkMbps, "Emulated downlink, Mbit/s")
      ->check(CLI::PositiveNumber);
  setRateCommand->add_option("--compute-factor", setRate.change.computeFactor,
                             "Job work takes this many times longer (>= 1)")
      ->check(CLI::Range(1.0, 1000.0));

  hnow::cli::OpsOptions ops;
  CLI::App* opsCommand =
      app.add_subcommand("ops", "List the operations hnowd recorded, newest first");
  opsCommand->add_flag("--json", ops.json, "Print JSON for scripts");
  opsCommand->add_option("--limit", ops.limit, "How many records (default 20)")
      ->check(CLI::Range(1, 1000));

  hnow::cli::LocalUpOptions localUp;
  hnow::cli::LocalDownOptions localDown;
  CLI::App* localCommand = app.add_subcommand("local", "A whole cluster on this machine (no root)");
  localCommand->require_subcommand(1);
  CLI::App* upCommand = localCommand->add_subcommand(
      "up", "Start hnowd and N agents on 127.0.0.1; returns once all are registered");
  upCommand->add_option("--dir", localUp.dir, "Directory for configs, pids, logs")->required();
  upCommand->add_option("--agents", localUp.agents, "Number of agents")->check(CLI::Range(1, 64));
  upCommand->add_option("--uplink-mbps", localUp.uplinkMbps,
                        "Emulated uplink per agent, comma-separated (default: a three-class lab)")
      ->delimiter(',');
  upCommand->add_option("--downlink-mbps", localUp.downlinkMbps,
                        "Emulated downlink per agent, comma-separated (default: the uplink)")
      ->delimiter(',');
  upCommand->add_option("--sites", localUp.sites, "Site label per agent, comma-separated")->delimiter(',');
  upCommand->add_option("--source-uplink-mbps", localUp.sourceUplinkMbps,
                        "hnowd's uplink as the source of sends (its uplink_mbps)");
  upCommand->add_option("--drift-dwell-s", localUp.driftDwellSeconds,
                        "How long a rate must stay changed before hnowd calls it drift (its drift_dwell_s)");
  upCommand->add_flag("--measure-links", localUp.measureLinks,
                      "Measure the emulated links with hnowd's surveys instead of taking them as told");
  CLI::App* downCommand = localCommand->add_subcommand("down", "Stop every process of a local cluster");
  downCommand->add_option("--dir", localDown.dir, "The directory given to local up")->required();

  hnow::cli::SendOptions send;
  CLI::App* sendCommand = app.add_subcommand(
      "send", "Put a file on every agent (or a group) along a planned tree, pipelined and verified");
  sendCommand->add_option("file", send.file, "The file, read by hnowd (give a path it can read)");
  sendCommand->add_option("--dest", send.dest, "Destination on each agent; relative: under its data root");
  hnow::cli::ManifestOptions manifest;  // several files from several agents, planned jointly
  sendCommand->add_option("--manifest", manifest.manifestPath,
                          "Send the [[item]]s of this TOML file together instead of FILE (see docs/manifest.md)");
  sendCommand->add_option("--to", send.to, "all, a site, or agent names (comma-separated)")->delimiter(',');
  sendCommand->add_option("--algo", send.algo,
                          "Tree: auto|fnf|optimal|lcf|binomial|chain|flat; with --manifest: "
                          "auto|fef|ecf|wr|eaf|rr|rrs|ecfp|wrp|eafp|rrp|rrsp|independent|residual")
      ->check(CLI::IsMember({"auto", "fnf", "optimal", "lcf", "binomial", "chain", "flat", "fef", "ecf", "wr", "eaf",
                             "rr", "rrs", "ecfp", "wrp", "eafp", "rrp", "rrsp", "independent", "residual"}));
  sendCommand->add_flag("--json", send.json, "Print JSON for scripts");
  sendCommand->add_flag("--no-replan", send.noReplan, "Keep the first tree when rates drift (for comparison)");
  sendCommand->add_option("--gantt", send.ganttPath, "Write planned and actual bars to this SVG file");

  hnow::cli::DemoOptions demo;
  CLI::App* demoCommand = app.add_subcommand(
      "demo", "Start a local 8-agent lab, send a file with auto and the baselines, compare, stop");
  demoCommand->add_option("--agents", demo.agents, "Number of agents (default 8)")->check(CLI::Range(1, 64));
  demoCommand->add_option("--size", demo.size, "Bytes to send (default 256 MiB)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  demoCommand->add_flag("--json", demo.json, "Print {\"runs\": [...]} for scripts");
  demoCommand->add_option("--gantt", demo.ganttPath, "Where to write the auto run's Gantt chart (hnow-demo.svg)");

  hnow::cli::RunOptions run;
  CLI::App* runCommand = app.add_subcommand(
      "run", "Run a command over a big input on the agents: shares planned by link and speed, results combined");
  runCommand->add_option("--input", run.input, "The input, read by hnowd (give a path it can read)")->required();
  runCommand->add_option("--split", run.split, "Work units: lines | bytes:N | records:SEP (default lines)");
  runCommand->add_option("--cmd", run.command, "The command each agent runs on its share (stdin to stdout)")
      ->required();
  runCommand->add_flag("--shell", run.shell, "Run --cmd and --reduce through /bin/sh -c");
  runCommand->add_option("--to", run.to, "all, a site, or agent names (comma-separated)")->delimiter(',');
  runCommand->add_option("--order", run.order, "Serve/return protocol: fifo | lifo | auto")
      ->check(CLI::IsMember({"fifo", "lifo", "auto"}));
  runCommand->add_flag("--concat", run.concat, "Write the results in input order");
  runCommand->add_option("--reduce", run.reduce, "Combine two results by running this on their concatenation");
  runCommand->add_option("--output", run.output, "Where hnowd writes the result (default: stdout)");
  runCommand->add_flag("--json", run.json, "Print the report as JSON on stdout");
  runCommand->add_option("--gantt", run.ganttPath, "Write planned and actual bars to this SVG file");
  runCommand->add_option("--slack", run.slack, "A share is reissued after slack x its predicted time (default 2)")
      ->check(CLI::PositiveNumber);
  runCommand->add_option("--strategy", run.strategy,
                         "plan (default); the baselines equal (same units each) or self (blocks to idle agents)")
      ->check(CLI::IsMember({"plan", "equal", "self"}));
  runCommand->add_option("--replicas", run.replicas,
                         "Run each share on this many agents and compare the results (untrusted volunteers)")
      ->check(CLI::Range(1, 3));
  runCommand->add_option("--rounds", run.rounds,
                         "auto (default) or 1-100: serve the work in rounds, each planned when the agents are "
                         "about to be free, on what was measured (drift, lost agents); 1: one-shot");
  runCommand->add_option("--block", run.blockBytes, "Block size in bytes for --strategy self (default 1 MiB)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 34));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (planCommand->parsed()) return hnow::cli::runPlanCommand(plan);
  if (demoCommand->parsed()) return hnow::cli::runDemo(demo);
  status.configPath = setRate.configPath = ops.configPath = send.configPath = run.configPath = clientConfig;
  measure.configPath = clientConfig;
  if (measureCommand->parsed()) return hnow::cli::runMeasureCommand(measure);
  if (runCommand->parsed()) return hnow::cli::runRunCommand(run);
  if (sendCommand->parsed() && !manifest.manifestPath.empty()) {
    if (!send.file.empty() || !send.dest.empty() || !send.to.empty()) {
      std::fprintf(stderr, "hnow: --manifest names its files, destinations and targets; drop FILE, --dest and --to\n");
      return 2;
    }
    manifest.configPath = clientConfig;
    manifest.algo = send.algo;
    manifest.json = send.json;
    manifest.ganttPath = send.ganttPath;
    manifest.noReplan = send.noReplan;
    return hnow::cli::runManifestCommand(manifest);
  }
  if (sendCommand->parsed()) return hnow::cli::runSendCommand(send);
  if (statusCommand->parsed()) return hnow::cli::runStatusCommand(status);
  if (setRateCommand->parsed()) return hnow::cli::runSetRateCommand(setRate);
  if (opsCommand->parsed()) return hnow::cli::runOpsCommand(ops);
  if (upCommand->parsed()) return hnow::cli::runLocalUp(localUp);
  if (downCommand->parsed()) return hnow::cli::runLocalDown(localDown);
  return 2;
}
