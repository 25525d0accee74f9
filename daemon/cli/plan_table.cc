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

// op = "multicast": what each node does, in order (seed 004 §3.1's task lists).
void printMulticastTasks(std::ostringstream& out, const PlanReport& report, const MulticastDetails& details) {
  const auto& names = report.nodeNames;
  out << "\n  task lists (m<k> = [[message]] #k, 0-based; a receive waits from 'posted' until its message arrives)\n";
  for (size_t v = 0; v < names.size(); ++v) {
    out << "  " << names[v] << ":";
    if (details.plan.taskLists[v].empty()) out << " idle";
    for (const auto& task : details.plan.taskLists[v]) {
      const auto& x = details.plan.transfers[task.transfer];
      if (task.send)
        out << "\n    send    m" << x.message << " to   " << names[x.to] << "  " << number(x.sendStart) << " - "
            << number(x.sendEnd);
      else
        out << "\n    receive m" << x.message << " from " << names[x.from] << "  posted " << number(x.posted)
            << ", " << number(x.recvStart) << " - " << number(x.recvEnd);
    }
    out << "\n";
  }
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
  if (const auto* multicast = std::get_if<MulticastDetails>(&report.details))
    printMulticastTasks(out, report, *multicast);
  return out.str();
}

}  // namespace hnow::cli
