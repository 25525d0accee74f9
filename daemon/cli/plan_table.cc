#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cli/number_format.h"
#include "cli/plan_output.h"

namespace hnow::cli {

namespace {

// Wall-clock durations in the unit a person reads best.
std::string duration(double seconds) {
  char buffer[32];
  if (seconds < 1e-3) {
    std::snprintf(buffer, sizeof buffer, "%.0f µs", seconds * 1e6);
  } else if (seconds < 1.0) {
    std::snprintf(buffer, sizeof buffer, "%.1f ms", seconds * 1e3);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.2f s", seconds);
  }
  return buffer;
}

// op = "cluster-broadcast" | "cluster-multicast" (seed 001): the model, the
// bounds behind the lower bound, and when each cluster got the message.
void printTwoLevel(std::ostringstream& out, const TwoLevelDetails& d) {
  out << "  model        " << d.model << " (" << d.variant << "), local " << shortNumber(d.localTime)
      << " s, global " << shortNumber(d.globalTime) << " s";
  if (d.maxGlobal > 0) out << ", max_global " << d.maxGlobal;
  out << "\n  global       " << d.globalTransfers << " transfers\n";
  out << "  bounds       log N " << shortNumber(d.doublingBound) << ", pC " << shortNumber(d.freeLocalBound);
  if (d.model != "postal") out << " (p = " << d.globalSteps << ")";
  out << ", theorem " << shortNumber(d.combinedBound) << "\n\n";
  size_t width = 7;
  for (const auto& c : d.clusters) width = std::max(width, c.name.size());
  char line[512];
  std::snprintf(line, sizeof line, "  %-*s  %6s  %7s  %6s  %10s  %10s\n", static_cast<int>(width),
                "cluster", "size", "members", "degree", "reached", "done");
  out << line;
  auto time = [](double t) { return t < 0 ? std::string("-") : shortNumber(t); };
  for (const auto& c : d.clusters) {
    std::snprintf(line, sizeof line, "  %-*s  %6d  %7d  %6s  %10s  %10s\n", static_cast<int>(width),
                  c.name.c_str(), c.size, c.members,
                  c.degree > 0 ? std::to_string(c.degree).c_str() : "-", time(c.reachedAt).c_str(),
                  time(c.doneAt).c_str());
    out << line;
  }
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
        out << "\n    send    m" << x.message << " to   " << names[x.to] << "  " << shortNumber(x.sendStart) << " - "
            << shortNumber(x.sendEnd);
      else
        out << "\n    receive m" << x.message << " from " << names[x.from] << "  posted " << shortNumber(x.posted)
            << ", " << shortNumber(x.recvStart) << " - " << shortNumber(x.recvEnd);
    }
    out << "\n";
  }
}

// One row per worker in serve order; the transfers would repeat it.
std::string worksharingTable(const PlanReport& report, const WorksharingDetails& ws) {
  std::ostringstream out;
  out << "  work         " << shortNumber(ws.work) << " units (" << ws.goal << " given, result ratio "
      << shortNumber(ws.resultRatio) << ")\n";
  if (ws.fifoRatio)
    out << "  fifo / best  " << shortNumber(*ws.fifoRatio) << "  (Theorem 5 guarantees >= "
        << shortNumber(ws.fifoGuarantee) << ")\n";
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
                  static_cast<int>(width), report.nodeNames[s.node].c_str(), shortNumber(s.units).c_str(),
                  s.serve, s.returns, shortNumber(s.sendStart).c_str(), shortNumber(s.sendEnd).c_str(),
                  shortNumber(s.computeEnd).c_str(), shortNumber(s.returnStart).c_str(), shortNumber(s.returnEnd).c_str());
    out << line;
  }
  return out.str();
}

}  // namespace

std::string planTable(const PlanReport& report) {
  std::ostringstream out;
  out << report.op << " with " << report.algo << " on " << report.nodeNames.size() << " nodes\n";
  out << "  makespan     " << shortNumber(report.makespan) << " s\n";
  if (report.lowerBound) {
    out << "  lower bound  " << shortNumber(*report.lowerBound) << " s";
    if (*report.lowerBound > 0) out << "  (ratio " << shortNumber(report.makespan / *report.lowerBound) << ")";
    out << "\n";
  }
  if (report.provenOptimal) {
    out << "  search       " << report.stats.searchNodes << " nodes in " << duration(report.stats.seconds)
        << (*report.provenOptimal ? ", proven optimal" : ", search limit reached: best found")
        << "\n";
  }
  if (const auto* twoLevel = std::get_if<TwoLevelDetails>(&report.details)) printTwoLevel(out, *twoLevel);
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
                  static_cast<int>(width), report.nodeNames[x.to].c_str(), shortNumber(x.start).c_str(),
                  shortNumber(x.end).c_str());
    out << line;
  }
  if (const auto* multicast = std::get_if<MulticastDetails>(&report.details))
    printMulticastTasks(out, report, *multicast);
  return out.str();
}

}  // namespace hnow::cli
