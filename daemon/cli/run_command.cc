#include "cli/run_command.h"

#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "base/bit_rate.h"
#include "cli/cancel_command.h"
#include "cli/coordinator_client.h"
#include "cli/gantt_svg.h"
#include "cli/progress_line.h"
#include "cli/run_output_pull.h"
#include "cli/text_file.h"
#include "conf/run_request.h"

namespace hnow::cli {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", c);
      out += escape;
    } else out += c;
  }
  return out + "\"";
}

std::string number(double x) {
  if (!std::isfinite(x)) return "null";
  char out[32];
  std::snprintf(out, sizeof out, "%.3f", x);
  return out;
}

std::string precise(double x) {
  if (!std::isfinite(x)) return "null";
  char out[32];
  std::snprintf(out, sizeof out, "%.4g", x);
  return out;
}

}  // namespace

std::string runJson(const RunReportView& r) {
  std::string out = "{\"predicted_s\":" + number(r.predictedS) + ",\"actual_s\":" + number(r.elapsedS) +
                    ",\"agents\":[";
  for (std::size_t i = 0; i < r.agents.size(); ++i) {
    const auto& a = r.agents[i];
    out += (i ? "," : "") + std::string("{\"name\":") + quoted(a.name) + ",\"units\":" + std::to_string(a.units) +
           ",\"planned_units\":" + std::to_string(a.plannedUnits) + ",\"compute_s\":" + number(a.computeS) +
           ",\"idle_s\":" + number(a.idleS) + ",\"s_per_unit\":" + precise(a.secondsPerUnit) + ",\"share_units\":[";
    for (std::size_t k = 0; k < a.shareUnits.size(); ++k) out += (k ? "," : "") + std::to_string(a.shareUnits[k]);
    out += "],\"failures\":[";
    for (std::size_t k = 0; k < a.failures.size(); ++k) out += (k ? "," : "") + quoted(a.failures[k]);
    out += "]}";
  }
  out += "],\"reissued\":" + std::to_string(r.reissued) + ",\"checked\":" + std::to_string(r.checked) +
         ",\"plan\":" + quoted(r.algorithm) +
         ",\"rounds\":" + std::to_string(r.rounds) +
         ",\"max_rate_bps\":" + (r.maxRateBytesPerSecond > 0 ? number(r.maxRateBytesPerSecond * 8) : std::string("null")) +
         ",\"reduction\":" + quoted(r.reduction) + ",\"units\":" + std::to_string(r.units) +
         ",\"output\":" + quoted(r.output) + ",\"output_bytes\":" + std::to_string(r.outputSize) + "}\n";
  return out;
}

std::string runTable(const RunReportView& r) {
  std::string out;
  char line[300];
  const std::string by = r.rounds > 1 ? std::to_string(r.rounds) + " rounds on ready times" : r.algorithm;
  std::snprintf(line, sizeof line, "run: %llu units by %s%s%s: predicted %.2f s, actual %.2f s, %u reissued\n",
                static_cast<unsigned long long>(r.units), by.c_str(),
                r.reduction.empty() ? "" : ", reduced along ", r.reduction.c_str(), r.predictedS, r.elapsedS,
                r.reissued);
  out += line;
  if (r.checked > 0) {
    std::snprintf(line, sizeof line, "  %d share(s) checked by a second agent (--replicas adaptive: the others ran on "
                  "agents whose results have agreed with others' before)\n", r.checked);
    out += line;
  }
  if (r.maxRateBytesPerSecond > 0) {
    std::snprintf(line, sizeof line, "  hnowd's links at most %.1f Mbit/s for this run (--max-rate), planned and paced so\n",
                  r.maxRateBytesPerSecond * 8 / 1e6);
    out += line;
  }
  std::snprintf(line, sizeof line, "%-14s %10s %10s %12s %10s %10s\n", "agent", "planned", "units", "ms/unit",
                "compute_s", "idle_s");
  out += line;
  for (const auto& a : r.agents) {
    std::snprintf(line, sizeof line, "%-14s %10llu %10llu %12.4f %10.2f %10.2f\n", a.name.c_str(),
                  static_cast<unsigned long long>(a.plannedUnits), static_cast<unsigned long long>(a.units),
                  a.secondsPerUnit * 1e3, a.computeS, a.idleS);
    out += line;
  }
  // What an agent's [jobs] refused or limited, and what failed: the shares went elsewhere.
  for (const auto& a : r.agents)
    for (const auto& failure : a.failures) out += "  " + a.name + ": " + failure + "\n";
  return out;
}

std::string runGanttSvg(const RunReportView& r) {
  GanttChart chart;
  chart.title = "hnow run by " + r.algorithm + ": planned and actual";
  std::map<std::string, int> rows;
  for (const auto& a : r.agents) {
    rows[a.name] = static_cast<int>(chart.rows.size());
    chart.rows.push_back(a.name + " planned");
    chart.rows.push_back(a.name + " actual");
  }
  for (const auto& b : r.bars) {
    auto it = rows.find(b.row);
    if (it == rows.end()) continue;
    chart.bars.push_back({it->second + (b.kind == "planned" ? 0 : 1), b.start, b.end, b.kind, b.kind});
  }
  chart.makespan = std::max(r.predictedS, r.elapsedS);
  return renderGanttSvg(chart);
}

namespace {

// What hnowd is asked for, or why the options cannot make a run.
Result<api::RunRequest> runRequestOf(const RunOptions& options) {
  if (options.input.empty() || options.command.empty()) return Error{"run needs --input FILE and --cmd 'CMD'"};
  if (options.concat == !options.reduce.empty()) return Error{"run needs exactly one of --concat and --reduce 'CMD'"};
  auto split = conf::parseSplitSpec(options.split);
  if (!split) return split.error();
  auto argv = conf::commandArgv(options.command, options.shell);
  if (!argv) return Error{"--cmd: " + argv.error().message};
  api::RunRequest request;
  if (!options.reduce.empty()) {
    auto parsed = conf::commandArgv(options.reduce, options.shell);
    if (!parsed) return Error{"--reduce: " + parsed.error().message};
    request.reduceArgv = parsed.value();
  }
  if (options.rounds != "auto") {
    int n = 0;
    auto [end, problem] = std::from_chars(options.rounds.data(), options.rounds.data() + options.rounds.size(), n);
    if (problem != std::errc() || end != options.rounds.data() + options.rounds.size() || n < 1 || n > 100)
      return Error{"--rounds '" + options.rounds + "': use auto or a number from 1 to 100"};
    request.rounds = n;
  }
  if (!options.maxRate.empty()) {
    auto rate = parseBitRate(options.maxRate);
    if (!rate) return Error{"--max-rate: " + rate.error().message};
    request.maxRateBytesPerSecond = *rate;
  }
  std::error_code error;
  request.input = std::filesystem::absolute(options.input, error).string();
  request.split = options.split;
  request.argv = argv.value();
  request.command = options.command;
  request.to = options.to;
  request.order = options.order;
  request.output = options.output.empty() ? "" : std::filesystem::absolute(options.output, error).string();
  request.slack = options.slack;
  request.strategy = options.strategy;
  request.blockBytes = options.blockBytes;
  request.replicas = options.adaptiveReplicas ? 2 : options.replicas;
  request.adaptiveReplicas = options.adaptiveReplicas;
  request.shell = options.shell;
  request.priority = options.priority;
  return request;
}

}  // namespace

// The span of the run's units/s: units are accepted a share at a time, so
// a rate over a few seconds would swing between 0 and a share's burst.
static constexpr double kRunRateWindowS = 10.0;

// Follows the run until it ends, its progress line on a terminal (cleared
// at the end: the table says how it went); the last report.
Result<RunReportView> followRunOnTerminal(CoordinatorClient& client, std::uint64_t id, std::uint64_t record) {
  ProgressLine line = ProgressLine::onStderr();
  RateWindow rate(kRunRateWindowS);
  const auto start = std::chrono::steady_clock::now();
  auto report = client.followRun(id, [&](const RunReportView& now) {
    const double at = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rate.add(at, static_cast<double>(runUnitsDone(now)));
    line.draw(runProgressText(now, rate.perSecond()));
    return true;
  }, record);
  line.clear();
  return report;
}


int reportLostHnowdRunning(std::uint64_t record, const std::string& why) {
  const auto id = static_cast<unsigned long long>(record);
  std::fprintf(stderr,
               "hnow: lost hnowd while running: %s\n"
               "hnow: hnowd keeps run %llu: when it is back it resumes it, keeping every share it accepted "
               "(`hnow ops wait %llu` follows it); a --reduce run is interrupted instead: run it again then\n",
               why.c_str(), id, id);
  return 1;
}

int runRunCommand(const RunOptions& options) {
  auto request = runRequestOf(options);
  if (!request) {
    std::fprintf(stderr, "hnow: %s\n", request.error().message.c_str());
    return 2;
  }
  int exitCode = 0;
  auto client = connectOrReport(options.configPath, exitCode);
  if (!client) return exitCode;
  auto started = client->startRun(request.value());
  if (!started) {
    std::fprintf(stderr, "hnow: %s\n", started.error().message.c_str());
    return 1;
  }
  const std::uint64_t record = started->record;
  if (options.detach)
    return reportDetached("run", record, "queued",
                          options.output.empty() ? ", `hnow ops output ID --output FILE` fetches its result" : "");
  auto report = followRunOnTerminal(*client, started->operation, record);
  if (!report) return reportLostHnowdRunning(record, report.error().message);
  if (!report->cancelledBy.empty()) {
    std::fprintf(stderr, "hnow: run %llu cancelled by %s\n", static_cast<unsigned long long>(report->record),
                 report->cancelledBy.c_str());
    return client->interrupted() ? kInterruptedExit : kCancelledExit;
  }
  if (!report->error.empty()) {
    std::fprintf(stderr, "hnow: run failed: %s\n", report->error.c_str());
    return 1;
  }
  if (options.output.empty() && !options.json) {
    if (auto copied = pullRunOutput(*client, started->operation, stdout); !copied) {
      std::fprintf(stderr, "hnow: %s\n", copied.error().message.c_str());
      return 1;
    }
  }
  if (options.json) std::fputs(runJson(*report).c_str(), stdout);
  else std::fputs(runTable(*report).c_str(), stderr);
  if (!options.ganttPath.empty()) {
    if (auto written = writeFileAtomically(options.ganttPath, runGanttSvg(*report)); !written)
      std::fprintf(stderr, "hnow: %s\n", written.error().message.c_str());
  }
  return 0;
}

}  // namespace hnow::cli
