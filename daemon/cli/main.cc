// `hnow`: the command line. The only translation unit that includes CLI11
// (slow to compile); each subcommand's work lives in its own *_command.cc.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "cli/agent_keys_command.h"
#include "cli/cancel_command.h"
#include "cli/demo_command.h"
#include "cli/local_command.h"
#include "cli/plan_command.h"
#include "cli/manifest_command.h"
#include "cli/ops_command.h"
#include "cli/run_command.h"
#include "cli/send_command.h"
#include "cli/status_command.h"
#include "planner/algorithms.h"
#include "transport/daemon_main.h"

namespace {

// Every subcommand's options, filled by CLI11, and the subcommands parsed.
struct CommandLine {
  std::string clientConfig = hnow::cli::kDefaultClientConfig;
  hnow::cli::PlanOptions plan;
  hnow::cli::StatusOptions status;
  hnow::cli::MeasureOptions measure;
  hnow::cli::SetRateOptions setRate;
  hnow::cli::OpsOptions ops;
  hnow::cli::LocalUpOptions localUp;
  hnow::cli::LocalDownOptions localDown;
  hnow::cli::SendOptions send;
  hnow::cli::ManifestOptions manifest;  // several files from several agents, planned jointly
  hnow::cli::DemoOptions demo;
  hnow::cli::RunOptions run;
  CLI::App* planCommand = nullptr;
  CLI::App* statusCommand = nullptr;
  CLI::App* measureCommand = nullptr;
  CLI::App* setRateCommand = nullptr;
  CLI::App* forgetCommand = nullptr;
  std::string forgetAgent;
  // Keys and agent identities (docs/security.md).
  CLI::App* keyNewCommand = nullptr;
  std::string keyPath;
  CLI::App* tokenCommand = nullptr;
  CLI::App* revokeCommand = nullptr;
  CLI::App* approveCommand = nullptr;
  hnow::cli::ApproveChoice approve;
  CLI::App* ackCommand = nullptr;
  CLI::App* keysCommand = nullptr;
  std::string keyAgent;
  double tokenTtlSeconds = 24 * 3600.0;
  hnow::cli::TokenBatch tokenBatch;
  CLI::App* opsCommand = nullptr;
  hnow::cli::OpsRecordOptions opsRecord;  // ops wait | show | output ID
  CLI::App* opsWaitCommand = nullptr;
  CLI::App* opsShowCommand = nullptr;
  CLI::App* opsOutputCommand = nullptr;
  CLI::App* cancelCommand = nullptr;
  std::uint64_t cancelRecord = 0;
  CLI::App* upCommand = nullptr;
  CLI::App* downCommand = nullptr;
  CLI::App* sendCommand = nullptr;
  CLI::App* demoCommand = nullptr;
  CLI::App* runCommand = nullptr;
};

void addPlan(CLI::App& app, CommandLine& c) {
  c.planCommand =
      app.add_subcommand("plan", "Plan an operation offline from a request file and print it");
  c.planCommand->add_option("request", c.plan.requestPath, "Request file (TOML), see examples/")
      ->required();
  c.planCommand->add_flag("--json", c.plan.json, "Print JSON for scripts instead of a table");
  c.planCommand->add_option("--svg", c.plan.svgPath, "Write a Gantt chart of the plan to this SVG file");
}

void addClientCommands(CLI::App& app, CommandLine& c) {
  // hnowd's client commands: `hnow --config DIR/client.toml status` (the
  // option may also follow the subcommand).
  app.add_option("--config", c.clientConfig, "Client config naming hnowd, its key and the operator's key")
      ->envname("HNOW_CONFIG");
  app.fallthrough();

  c.statusCommand = app.add_subcommand(
      "status", "Show every agent hnowd knows, with its rates and how each link was measured");
  c.statusCommand->add_flag("--json", c.status.json, "Print JSON for scripts");

  c.measureCommand = app.add_subcommand(
      "measure", "Measure link capacities now (several peers at once into each link), then show them");
  c.measureCommand->add_option("nodes", c.measure.nodes, "Agents to measure (hnowd: hnowd's own links); default: all");
  c.measureCommand->add_flag("--json", c.measure.json, "Print the status JSON afterwards");
  c.measureCommand->add_option("--timeout-s", c.measure.timeoutSeconds, "Give up after this many seconds (default 600)")
      ->check(CLI::Range(1.0, 86400.0));

  c.cancelCommand = app.add_subcommand(
      "cancel", "Stop a send under way: every agent stops and removes its partial copy (docs/send.md, \"Cancelling\")");
  c.cancelCommand->add_option("id", c.cancelRecord, "The operation's id, as `hnow ops` lists it")->required();

  CLI::App* agentCommand = app.add_subcommand("agent", "Commands to one agent through hnowd");
  agentCommand->require_subcommand(1);
  c.setRateCommand =
      agentCommand->add_subcommand("set-rate", "Change an agent's emulated rates live (tests drift)");
  c.setRateCommand->add_option("name", c.setRate.agent, "Agent name")->required();
  c.setRateCommand->add_option("--uplink-mbps", c.setRate.change.uplinkMbps, "Emulated uplink, Mbit/s")
      ->check(CLI::PositiveNumber);
  c.setRateCommand->add_option("--downlink-mbps", c.setRate.change.downlinkMbps, "Emulated downlink, Mbit/s")
      ->check(CLI::PositiveNumber);
  c.setRateCommand->add_option("--compute-factor", c.setRate.change.computeFactor,
                             "Job work takes this many times longer (>= 1)")
      ->check(CLI::Range(1.0, 1000.0));

  c.forgetCommand = agentCommand->add_subcommand(
      "forget", "Remove a machine gone for good: its record, rates and links (it must not be connected)");
  c.forgetCommand->add_option("name", c.forgetAgent, "Agent name")->required();

  c.tokenCommand = agentCommand->add_subcommand(
      "token", "Make a single-use enrollment token for a new agent (hnow-agent enroll TOKEN_FILE)");
  c.tokenCommand->add_option("--name", c.keyAgent, "The agent name it enrolls (default: any free name)");
  c.tokenCommand->add_option("--ttl-s", c.tokenTtlSeconds, "Seconds it holds (default 86400, at most 7 days)")
      ->check(CLI::Range(1.0, 7 * 24 * 3600.0));
  c.tokenCommand->add_option("--count", c.tokenBatch.count, "How many tokens, each for any free name (a room's PCs)")
      ->check(CLI::Range(1, 1000));
  c.tokenCommand->add_option("--out", c.tokenBatch.dir,
                             "Write each token to a file of its own in DIR (mode 0600; DIR made 0700) "
                             "for hnow-agent enroll, not to stdout");
  c.revokeCommand = agentCommand->add_subcommand(
      "revoke", "Cut an agent off at once: its sessions closed, its key refused from now on");
  c.revokeCommand->add_option("name", c.keyAgent, "Agent name")->required();
  c.approveCommand = agentCommand->add_subcommand(
      "approve", "Enroll the keys pending agents asked with, each shown first (see agent keys)");
  c.approveCommand->add_option("names", c.approve.names, "Agent names");
  c.approveCommand->add_flag("--all", c.approve.all, "Every pending agent (asks first at a terminal)");
  c.approveCommand->add_flag("--yes,-y", c.approve.yes, "Do not ask (needed with --all when not at a terminal)");
  c.ackCommand = agentCommand->add_subcommand(
      "ack", "Clear the flag of an agent whose key logs in from two hosts by turns, once both are known to be its");
  c.ackCommand->add_option("name", c.keyAgent, "Agent name")->required();
  c.keysCommand = agentCommand->add_subcommand("keys", "List agents' keys: enrolled, pending approval, revoked");

  CLI::App* keyCommand = app.add_subcommand("key", "Keys of operators (and agents set up by hand)");
  keyCommand->require_subcommand(1);
  c.keyNewCommand = keyCommand->add_subcommand("new", "Write a fresh key pair to FILE (mode 0600; its directory made 0700 when missing), print its public key");
  c.keyNewCommand->add_option("file", c.keyPath, "Where to write the private key")->required();

  c.opsCommand =
      app.add_subcommand("ops", "List the operations hnowd recorded, newest first");
  c.opsCommand->add_flag("--json", c.ops.json, "Print JSON for scripts");
  c.opsCommand->add_option("--limit", c.ops.limit, "How many records (default 20)")
      ->check(CLI::Range(1, 1000));
  c.opsCommand->require_subcommand(0, 1);
  c.opsWaitCommand = c.opsCommand->add_subcommand(
      "wait", "Follow operation ID to its end with its progress line; exit as it did (0 done, 1 failed, 3 cancelled)");
  c.opsShowCommand = c.opsCommand->add_subcommand(
      "show", "One operation: per-agent shares or copies, reissues, replans, predicted and actual");
  c.opsOutputCommand = c.opsCommand->add_subcommand("output", "Fetch a finished run's result kept at hnowd");
  for (CLI::App* sub : {c.opsWaitCommand, c.opsShowCommand, c.opsOutputCommand})
    sub->add_option("id", c.opsRecord.record, "The operation's id, as `hnow ops` lists it")->required();
  c.opsShowCommand->add_flag("--json", c.opsRecord.json, "Print JSON for scripts");
  c.opsShowCommand->add_option("--svg", c.opsRecord.svgPath,
                               "A send: write its picture to this SVG file (its trees, planned and achieved rates, "
                               "the bottleneck, the replans), also long after it ended");
  c.opsOutputCommand->add_option("--output", c.opsRecord.output, "Write the result to this file (default: stdout)");
}

void addLocal(CLI::App& app, CommandLine& c) {
  CLI::App* localCommand = app.add_subcommand("local", "A whole cluster on this machine (no root)");
  localCommand->require_subcommand(1);
  c.upCommand = localCommand->add_subcommand(
      "up", "Start hnowd and N agents on 127.0.0.1; returns once all are registered");
  c.upCommand->add_option("--dir", c.localUp.dir, "Directory for configs, pids, logs")->required();
  c.upCommand->add_option("--agents", c.localUp.agents, "Number of agents")->check(CLI::Range(1, 256));
  c.upCommand->add_option("--uplink-mbps", c.localUp.uplinkMbps,
                        "Emulated uplink per agent, comma-separated (default: a three-class lab)")
      ->delimiter(',');
  c.upCommand->add_option("--downlink-mbps", c.localUp.downlinkMbps,
                        "Emulated downlink per agent, comma-separated (default: the uplink)")
      ->delimiter(',');
  c.upCommand->add_option("--sites", c.localUp.sites, "Site label per agent, comma-separated")->delimiter(',');
  c.upCommand->add_option("--source-uplink-mbps", c.localUp.sourceUplinkMbps,
                        "hnowd's uplink as the source of sends (its uplink_mbps)");
  c.upCommand->add_option("--drift-dwell-s", c.localUp.driftDwellSeconds,
                        "How long a rate must stay changed before hnowd calls it drift (its drift_dwell_s)");
  c.upCommand->add_option("--max-uplink-mbps", c.localUp.maxUplinkMbps,
                          "Each agent's [limits] max_uplink_mbps, comma-separated (0: no cap)")
      ->delimiter(',');
  c.upCommand->add_flag("--measure-links", c.localUp.measureLinks,
                      "Measure the emulated links with hnowd's surveys instead of taking them as told");
  c.upCommand->add_flag("--web", c.localUp.web, "Turn on hnowd's web view and /metrics on 127.0.0.1 (docs/web-view.md)");
  c.downCommand = localCommand->add_subcommand("down", "Stop every process of a local cluster");
  c.downCommand->add_option("--dir", c.localDown.dir, "The directory given to local up")->required();
}

void addSend(CLI::App& app, CommandLine& c) {
  c.sendCommand = app.add_subcommand(
      "send", "Put a file on every agent (or a group) along a planned tree, pipelined and verified");
  c.sendCommand->add_option("file", c.send.file,
                            "The file (uploaded to hnowd first if it does not see it at that path; - : standard "
                            "input) or directory (read by hnowd); a directory's tree goes whole: files, empty "
                            "directories, modes, mtimes, symlinks inside it");
  c.sendCommand->add_option("--dest", c.send.request.dest, "Destination on each agent; relative: under its data root");
  c.sendCommand->add_option("--manifest", c.manifest.manifestPath,
                          "Send the [[item]]s of this TOML file together instead of FILE (see docs/manifest.md)");
  c.sendCommand->add_option("--to", c.send.request.to, "all, a site, or agent names (comma-separated)")->delimiter(',');
  c.sendCommand->add_option("--algo", c.send.request.algo,
                          "Plan: " + hnow::planner::algorithmChoices(hnow::planner::kSendUse) + "; with --manifest: " +
                              hnow::planner::algorithmChoices(hnow::planner::kManifestUse))
      ->check(CLI::IsMember(hnow::planner::algorithmNames(hnow::planner::kSendUse | hnow::planner::kManifestUse)));
  c.sendCommand->add_flag("--json", c.send.json, "Print JSON for scripts");
  c.sendCommand->add_flag_callback("--no-replan", [&c] { c.send.request.replan = false; },
                                   "Keep the first tree when rates drift (for comparison)");
  c.sendCommand->add_flag("--atomic", c.send.request.copy.atomic,
                          "FILE is a directory: publish its whole tree on each agent at once (staged beside "
                          "--dest, then one rename), not file by file");
  c.sendCommand->add_flag("--delete", c.send.request.copy.deleteOthers,
                          "FILE is a directory: on each agent, remove what --dest holds that the tree does not "
                          "name (never outside --dest)");
  c.sendCommand->add_option("--svg,--gantt", c.send.svgPath,
                            "Write the send's picture to this SVG file: its tree or stripes, each link's planned "
                            "and achieved rate, the bottleneck, each replan (with --manifest: planned and actual "
                            "bars per item)");
  c.sendCommand->add_option("--compress", c.send.request.compress,
                            "auto (default): zstd when the prediction says it pays; zstd: always; none: never "
                            "(docs/compression.md)")
      ->check(CLI::IsMember({"auto", "zstd", "none"}));
  c.sendCommand->add_flag("--until-all", c.send.request.untilAll,
                          "Agents that are off or fail stay owed the send: hnowd sends FILE or DIR (as it is "
                          "then) to each when it is connected again, once, across restarts (docs/until-all.md)");
  c.sendCommand->add_flag("--force", c.send.request.force,
                          "FILE: replace a different file already at --dest (without it the send is refused "
                          "and nothing moves; an agent that holds the same bytes there gets nothing either way)");
  c.sendCommand->add_flag("--detach", c.send.detach,
                          "Print the operation's id once started and leave; `hnow ops wait|show ID` later");
  c.sendCommand->add_option("--max-rate", c.send.maxRate,
                            "Use at most RATE of every link the send (or manifest) uses, in bits/s with k, M or "
                            "G: 100M = 100 Mbit/s (planned and paced so; docs/bandwidth-limits.md)");
}

void addDemo(CLI::App& app, CommandLine& c) {
  c.demoCommand = app.add_subcommand(
      "demo", "Start a local 8-agent lab, send a file with auto and the baselines, compare, stop");
  c.demoCommand->add_option("--agents", c.demo.agents, "Number of agents (default 8)")->check(CLI::Range(1, 64));
  c.demoCommand->add_option("--size", c.demo.size, "Bytes to send (default 256 MiB)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  c.demoCommand->add_flag("--json", c.demo.json, "Print {\"runs\": [...]} for scripts");
  c.demoCommand->add_option("--svg,--gantt", c.demo.svgPath,
                            "Where to write the picture of the auto run's send (hnow-demo.svg)");
}

void addRun(CLI::App& app, CommandLine& c) {
  c.runCommand = app.add_subcommand(
      "run", "Run a command over a big input on the agents: shares planned by link and speed, results combined");
  c.runCommand->add_option("--input", c.run.input, "The input, read by hnowd (give a path it can read)")->required();
  c.runCommand->add_option("--split", c.run.split, "Work units: lines | bytes:N | records:SEP (default lines)");
  c.runCommand->add_option("--cmd", c.run.command, "The command each agent runs on its share (stdin to stdout)")
      ->required();
  c.runCommand->add_flag("--shell", c.run.shell, "Run --cmd and --reduce through /bin/sh -c");
  c.runCommand->add_option("--to", c.run.to, "all, a site, or agent names (comma-separated)")->delimiter(',');
  c.runCommand->add_option("--order", c.run.order, "Serve/return protocol: fifo | lifo | auto")
      ->check(CLI::IsMember({"fifo", "lifo", "auto"}));
  c.runCommand->add_flag("--concat", c.run.concat, "Write the results in input order");
  c.runCommand->add_option("--reduce", c.run.reduce, "Combine two results by running this on their concatenation");
  c.runCommand->add_option("--output", c.run.output, "Where hnowd writes the result (default: stdout)");
  c.runCommand->add_flag("--json", c.run.json, "Print the report as JSON on stdout");
  c.runCommand->add_option("--gantt", c.run.ganttPath, "Write planned and actual bars to this SVG file");
  c.runCommand->add_option("--slack", c.run.slack, "A share is reissued after slack x its predicted time (default 2)")
      ->check(CLI::PositiveNumber);
  c.runCommand->add_option("--strategy", c.run.strategy,
                         "plan (default); the baselines equal (same units each) or self (blocks to idle agents)")
      ->check(CLI::IsMember({"plan", "equal", "self"}));
  c.runCommand
      ->add_option_function<std::string>(
          "--replicas",
          [&c](const std::string& v) {
            c.run.adaptiveReplicas = v == "adaptive";
            if (!c.run.adaptiveReplicas) c.run.replicas = std::stoi(v);
          },
          "1-3: run each share on this many agents and compare the results (untrusted volunteers); adaptive: "
          "a second agent checks the shares of agents not yet trusted, and a tenth of the others")
      ->check(CLI::IsMember({"1", "2", "3", "adaptive"}));
  c.runCommand->add_option("--rounds", c.run.rounds,
                         "auto (default) or 1-100: serve the work in rounds, each planned when the agents are "
                         "about to be free, on what was measured (drift, lost agents); 1: one-shot");
  c.runCommand->add_option("--max-rate", c.run.maxRate,
                           "Use at most RATE of hnowd's uplink (the shares) and downlink (the results), in bits/s "
                           "with k, M or G: 100M = 100 Mbit/s (planned and paced so; docs/bandwidth-limits.md)");
  c.runCommand->add_flag("--detach", c.run.detach,
                         "Print the operation's id once queued and leave; `hnow ops wait|show|output ID` later");
  c.runCommand->add_option("--priority", c.run.priority,
                           "Among queued jobs that want a same agent, a higher priority starts first (default 0; "
                           "docs/jobs.md, \"Queue\")")
      ->check(CLI::Range(-1000, 1000));
  c.runCommand->add_option("--block", c.run.blockBytes, "Block size in bytes for --strategy self (default 1 MiB)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 34));
}

int dispatch(CommandLine& c) {
  if (c.planCommand->parsed()) return hnow::cli::runPlanCommand(c.plan);
  if (c.demoCommand->parsed()) return hnow::cli::runDemo(c.demo);
  c.status.configPath = c.setRate.configPath = c.ops.configPath = c.send.configPath = c.run.configPath = c.clientConfig;
  c.measure.configPath = c.clientConfig;
  if (c.measureCommand->parsed()) return hnow::cli::runMeasureCommand(c.measure);
  if (c.runCommand->parsed()) return hnow::cli::runRunCommand(c.run);
  if (c.sendCommand->parsed() && !c.manifest.manifestPath.empty()) {
    if (!c.send.file.empty() || !c.send.request.dest.empty() || !c.send.request.to.empty()) {
      std::fprintf(stderr, "hnow: --manifest names its files, destinations and targets; drop FILE, --dest and --to\n");
      return 2;
    }
    c.manifest.configPath = c.clientConfig;
    c.manifest.request.algo = c.send.request.algo;
    c.manifest.json = c.send.json;
    c.manifest.ganttPath = c.send.svgPath;
    c.manifest.request.replan = c.send.request.replan;
    if (c.sendCommand->count("--compress") > 0) {
      std::fprintf(stderr, "hnow: --compress is for one FILE or DIR; a manifest's items go as they are\n");
      return 2;
    }
    if (c.send.request.untilAll) {
      std::fprintf(stderr, "hnow: --until-all is for one FILE or DIR; a manifest's items are sent once, to "
                           "the agents connected now\n");
      return 2;
    }
    if (c.send.request.force) {
      std::fprintf(stderr, "hnow: --force is for one FILE; a manifest's items replace what their destinations hold\n");
      return 2;
    }
    c.manifest.detach = c.send.detach;
    auto maxRate = hnow::cli::sendMaxRate(c.send);
    if (!maxRate) {
      std::fprintf(stderr, "hnow: %s\n", maxRate.error().message.c_str());
      return 2;
    }
    c.manifest.request.maxRateBytesPerSecond = *maxRate;
    return hnow::cli::runManifestCommand(c.manifest);
  }
  if (c.sendCommand->parsed()) return hnow::cli::runSendCommand(c.send);
  if (c.statusCommand->parsed()) return hnow::cli::runStatusCommand(c.status);
  if (c.setRateCommand->parsed()) return hnow::cli::runSetRateCommand(c.setRate);
  if (c.forgetCommand->parsed()) return hnow::cli::runForgetCommand(c.clientConfig, c.forgetAgent);
  if (c.keyNewCommand->parsed()) return hnow::cli::runKeyNewCommand(c.keyPath);
  if (c.tokenCommand->parsed())
    return hnow::cli::runAgentTokenCommand(c.clientConfig, c.keyAgent, c.tokenTtlSeconds, c.tokenBatch);
  if (c.revokeCommand->parsed()) return hnow::cli::runAgentRevokeCommand(c.clientConfig, c.keyAgent);
  if (c.approveCommand->parsed()) return hnow::cli::runAgentApproveCommand(c.clientConfig, c.approve);
  if (c.ackCommand->parsed()) return hnow::cli::runAgentAckCommand(c.clientConfig, c.keyAgent);
  if (c.keysCommand->parsed()) return hnow::cli::runAgentKeysCommand(c.clientConfig);
  c.opsRecord.configPath = c.clientConfig;
  if (c.opsWaitCommand->parsed()) return hnow::cli::runOpsWait(c.opsRecord);
  if (c.opsShowCommand->parsed()) return hnow::cli::runOpsShow(c.opsRecord);
  if (c.opsOutputCommand->parsed()) return hnow::cli::runOpsOutput(c.opsRecord);
  if (c.opsCommand->parsed()) return hnow::cli::runOpsCommand(c.ops);
  if (c.cancelCommand->parsed()) return hnow::cli::runCancelCommand(c.clientConfig, c.cancelRecord);
  if (c.upCommand->parsed()) return hnow::cli::runLocalUp(c.localUp);
  if (c.downCommand->parsed()) return hnow::cli::runLocalDown(c.localDown);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hnow: plans and moves files and jobs across heterogeneous clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("hnow ") + hnow::transport::hnowVersion());
  CommandLine c;
  addPlan(app, c);
  addClientCommands(app, c);
  addLocal(app, c);
  addSend(app, c);
  addDemo(app, c);
  addRun(app, c);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return dispatch(c);
}
