#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cli/plan_output.h"

namespace hnow::cli {

namespace {

std::string number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

// One row per worker in serve order; the transfers would repeat it.
std::string worksharingTable(const PlanReport& report, const WorksharingDetails& ws) {
  std::ostringstream out;
  out << "  work         " << number(ws.work) << " units (" << ws.goal << " given, result ratio "
      << number(ws.resultRatio) << ")\n";
  if (ws.fifoRatio)
    out << "  fifo / best  " << number(*ws.fifoRatio) << "  (Theorem 5 guarantees >= "
        << number(ws.fifoGuarantee) << ")\n";
  if (!ws.leftOut.empty()) {
    out << "  left out    ";
    for (int node : ws.leftOut) out << " " << report.nodeNames[node];
    out << "  (Proposition 1: they would lower the work done)\n";
  }
  size_t width = 6;
  for (const auto& name : report.nodeNames) width = std::max(width, name.size());
  char line[512];
  std::snprintf(line, sizeof line, "\n  %-*s  %10s  %5s  %6s  %10s  %10s  %10s  %10s  %10s\n",
                static_cast<int>(width), "worker", "units", "serve", "return", "send", "received",
                "computed", "return", "returned");
  out << line;
  for (const WorksharingShare& s : ws.allocations) {
    std::snprintf(line, sizeof line, "  %-*s  %10s  %5d  %6d  %10s  %10s  %10s  %10s  %10s\n",
                  static_cast<int>(width), report.nodeNames[s.node].c_str(), number(s.units).c_str(),
                  s.serve, s.returns, number(s.sendStart).c_str(), number(s.sendEnd).c_str(),
                  number(s.computeEnd).c_str(), number(s.returnStart).c_str(), number(s.returnEnd).c_str());
    out << line;
  }
  return out.str();
}

}  // namespace

std::string planTable(const PlanReport& report) {
  std::ostringstream out;
  out << report.op << " with " << report.algo << " on " << report.nodeNames.size() << " nodes\n";
  out << "  makespan     " << number(report.makespan) << " s\n";
  if (report.lowerBound) {
    out << "  lower bound  " << number(*report.lowerBound) << " s";
    if (*report.lowerBound > 0) out << "  (ratio " << number(report.makespan / *report.lowerBound) << ")";
    out << "\n";
  }
  if (report.provenOptimal) {
    out << "  search       " << report.stats.searchNodes << " nodes in " << number(report.stats.seconds)
        << " s" << (*report.provenOptimal ? ", proven optimal" : ", search limit reached: best found")
        << "\n";
  }
  if (const auto* ws = std::get_if<WorksharingDetails>(&report.details)) return out.str() + worksharingTable(report, *ws);
  size_t width = 4;
  for (const auto& name : report.nodeNames) width = std::max(width, name.size());
  out << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %4s  %-*s  %-*s  %10s  %10s\n", "#", static_cast<int>(width),
                "from", static_cast<int>(width), "to", "start", "end");
  out << line;
  int index = 0;
  for (const auto& x : report.transfers) {
    std::snprintf(line, sizeof line, "  %4d  %-*s  %-*s  %10s  %10s\n", ++index,
                  static_cast<int>(width), report.nodeNames[x.from].c_str(),
                  static_cast<int>(width), report.nodeNames[x.to].c_str(), number(x.start).c_str(),
                  number(x.end).c_str());
    out << line;
  }
  return out.str();
}

}  // namespace hnow::cli
