// The demo's reading of `hnow send --json` and its own output; the one demo
// file that includes nlohmann/json (slow to compile).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/demo_command.h"

namespace hnow::cli {

bool readSendReport(const std::string& text, DemoRun& run, std::vector<std::string>& paths) {
  auto report = nlohmann::json::parse(text, nullptr, false);
  if (report.is_discarded() || !report.is_object() || !report.contains("copies")) return false;
  run.plan = report.value("algo", "");
  run.predictedS = report["predicted_s"].is_number() ? report["predicted_s"].get<double>() : -1;
  run.actualS = report.value("actual_s", 0.0);
  for (const auto& copy : report["copies"]) paths.push_back(copy.value("path", ""));
  if (report.contains("considered"))
    for (const auto& o : report["considered"]) {
      char part[96];
      std::snprintf(part, sizeof part, "%s%s %s %.1f s", run.weighed.empty() ? "" : ", ",
                    o.value("algo", "").c_str(), o.value("mode", "").c_str(),
                    o["predicted_s"].is_number() ? o["predicted_s"].get<double>() : -1.0);
      run.weighed += part;
    }
  return true;
}

std::string demoJson(const std::vector<DemoRun>& runs) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const DemoRun& r : runs) {
    nlohmann::ordered_json run{{"algo", r.algo},          {"plan", r.plan},         {"predicted_s", r.predictedS},
                               {"actual_s", r.actualS},   {"verified", r.verified}, {"expected", r.expected}};
    if (!r.error.empty()) run["error"] = r.error;
    list.push_back(std::move(run));
  }
  nlohmann::ordered_json root;
  root["runs"] = std::move(list);
  return root.dump(2) + "\n";
}

std::string demoTable(const std::vector<DemoRun>& runs, std::uint64_t size, int agents) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%.1f MiB to %d agents\n\n", static_cast<double>(size) / (1 << 20), agents);
  out += line;
  std::snprintf(line, sizeof line, "%-9s %-10s %12s %10s %9s %8s\n", "algo", "tree", "predicted_s", "actual_s",
                "verified", "vs auto");
  out += line;
  const double autoActual = !runs.empty() && runs[0].algo == "auto" ? runs[0].actualS : 0;
  for (const DemoRun& r : runs) {
    char ratio[16] = "-";
    if (autoActual > 0 && r.error.empty()) std::snprintf(ratio, sizeof ratio, "%.2fx", r.actualS / autoActual);
    std::snprintf(line, sizeof line, "%-9s %-10s %12.2f %10.2f %5d/%-3d %8s%s\n", r.algo.c_str(), r.plan.c_str(),
                  r.predictedS, r.actualS, r.verified, r.expected, ratio,
                  r.error.empty() ? "" : ("  FAILED: " + r.error).c_str());
    out += line;
  }
  if (!runs.empty() && !runs[0].weighed.empty()) out += "\nauto weighed: " + runs[0].weighed + "\n";
  out += "(vs auto: each run's actual time over auto's; the data plane relays every tree pipelined)\n";
  return out;
}

}  // namespace hnow::cli
