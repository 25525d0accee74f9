#include "cli/manifest_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli/cancel_command.h"
#include "cli/coordinator_client.h"
#include "cli/gantt_svg.h"
#include "cli/text_file.h"
#include "conf/manifest.h"

namespace hnow::cli {

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
// No byte moving anywhere for this long: the manifest is stuck, stop waiting.
constexpr auto kStallLimit = 30s;

std::string mib(double bytes) {
  char out[32];
  std::snprintf(out, sizeof out, "%.1f MiB", bytes / (1024.0 * 1024.0));
  return out;
}

std::uint64_t bytesMoved(const api::ManifestStatus& s) {
  std::uint64_t bytes = 0;
  for (const auto& item : s.items)
    for (const auto& c : item.send.copies) bytes += c.bytes;
  return bytes;
}

std::uint64_t bytesWanted(const api::ManifestStatus& s) {
  std::uint64_t bytes = 0;
  for (const auto& item : s.items) bytes += item.send.size * item.send.copies.size();
  return bytes;
}

}  // namespace

std::string manifestTable(const api::ManifestStatus& s) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "sent %zu items along %s: predicted %.2f s, actual %.2f s (one after another: predicted %.2f s)\n",
                s.items.size(), s.algo.c_str(), s.predictedS, s.elapsedS, s.sequentialS);
  out += line;
  for (const auto& o : s.considered) {
    std::snprintf(line, sizeof line, "  weighed %-12s %-20s predicted %8.2f s\n", o.algo.c_str(), o.mode.c_str(),
                  o.predictedSeconds);
    out += line;
  }
  std::snprintf(line, sizeof line, "  seed 004 lower bound (store-and-forward) %.2f s; replans %u\n", s.lowerBoundS,
                s.replans);
  out += line;
  std::size_t ok = 0, copies = 0;
  for (std::size_t k = 0; k < s.items.size(); ++k) {
    const auto& item = s.items[k];
    std::snprintf(line, sizeof line, "item %zu: %s:%s -> %s (%s)\n", k + 1, item.source.c_str(), item.file.c_str(),
                  item.dest.c_str(), mib(static_cast<double>(item.send.size)).c_str());
    out += line;
    std::snprintf(line, sizeof line, "  %-12s %-12s %10s %10s  %s\n", "node", "parent", "planned_s", "finished_s",
                  "path");
    out += line;
    for (const auto& c : item.send.copies) {
      const bool done = c.state == api::CopyStatus::State::kDone;
      char finished[32] = "-";
      if (done) std::snprintf(finished, sizeof finished, "%.2f", c.finishedS);
      std::snprintf(line, sizeof line, "  %-12s %-12s %10.2f %10s  %s\n", c.node.c_str(), c.parent.c_str(),
                    c.plannedS, finished, done ? c.path.c_str() : ("FAILED: " + c.message).c_str());
      out += line;
      ok += done;
      ++copies;
    }
    // Agents the item was for that could not take part: said, never passed over.
    for (const auto& k : item.send.skipped) out += "  skipped: " + k.node + " (" + k.why + ")\n";
  }
  std::snprintf(line, sizeof line, "%zu of %zu copies verified\n", ok, copies);
  out += line;
  return out;
}

std::string manifestGanttSvg(const api::ManifestStatus& s) {
  GanttChart chart;
  chart.title = "hnow send --manifest along " + s.algo + ": planned and actual";
  for (std::size_t k = 0; k < s.items.size(); ++k) {
    const auto& item = s.items[k];
    const std::string name = "#" + std::to_string(k + 1) + " " + item.file;
    for (const auto& c : item.send.copies) {
      const int row = static_cast<int>(chart.rows.size());
      chart.rows.push_back(name + " " + c.node + " planned");
      chart.rows.push_back(name + " " + c.node + " actual");
      chart.bars.push_back({row, 0.0, c.plannedS, "planned", "from " + c.parent});
      if (c.state == api::CopyStatus::State::kDone)
        chart.bars.push_back({row + 1, 0.0, c.finishedS, "actual", "from " + c.parent});
    }
  }
  chart.makespan = std::max(s.predictedS, s.elapsedS);
  return renderGanttSvg(chart);
}

int runManifestCommand(const ManifestOptions& options) {
  auto manifest = conf::loadManifest(options.manifestPath);
  if (!manifest) {
    std::fprintf(stderr, "hnow: %s\n", manifest.error().text().c_str());
    return 2;
  }
  int exitCode = 0;
  auto client = connectOrReport(options.configPath, exitCode);
  if (!client) return exitCode;
  api::ManifestRequest request = options.request;
  for (const auto& item : manifest->items)
    request.items.push_back({item.source, item.file, item.dest, item.to, item.where});
  auto started = client->startManifest(request);
  if (!started) {
    std::fprintf(stderr, "hnow: %s\n", started.error().message.c_str());
    return 1;
  }
  const std::uint64_t id = started.value().first;
  api::ManifestStatus status = started.value().second;
  if (options.detach) return reportDetached("manifest", status.record, status.finished ? "ended" : "started");
  auto lastMove = Clock::now(), lastLine = Clock::now();
  std::uint64_t lastBytes = 0;
  bool gaveUp = false;
  // Each report hnowd pushes, and the final one (none when it ended at once).
  auto follow = [&](const api::ManifestStatus& now) {
    const std::uint64_t bytes = bytesMoved(now);
    if (bytes != lastBytes) lastMove = Clock::now(), lastBytes = bytes;
    if (Clock::now() - lastLine >= 1s) {  // progress on stderr, so --json on stdout stays clean
      lastLine = Clock::now();
      const double wanted = static_cast<double>(std::max<std::uint64_t>(bytesWanted(now), 1));
      std::fprintf(stderr, "%5.1f s  %3.0f%%  (predicted %.1f s)\n", now.elapsedS,
                   100.0 * static_cast<double>(bytes) / wanted, now.predictedS);
    }
    gaveUp = !now.finished && Clock::now() - lastMove > kStallLimit;
    return !gaveUp;
  };
  auto followed =
      status.finished ? Reply<api::ManifestStatus>(status) : client->followManifest(id, follow, status.record);
  if (gaveUp) {
    std::fprintf(stderr, "hnow: no progress for %lld s; giving up (hnowd keeps the operation)\n",
                 static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(kStallLimit).count()));
    return 1;
  }
  if (!followed)
    return reportLostHnowd("sending a manifest", "manifest", "their partial copies", "Send it again",
                           followed.error().message);
  status = std::move(followed.value());
  if (!status.cancelledBy.empty()) {
    std::fprintf(stderr, "hnow: manifest %llu cancelled by %s\n", static_cast<unsigned long long>(status.record),
                 status.cancelledBy.c_str());
    return client->interrupted() ? kInterruptedExit : kCancelledExit;
  }
  std::fputs((options.json ? manifestJson(status) : manifestTable(status)).c_str(), stdout);
  if (!options.ganttPath.empty()) {
    if (auto written = writeFileAtomically(options.ganttPath, manifestGanttSvg(status)); !written)
      std::fprintf(stderr, "hnow: %s\n", written.error().message.c_str());
  }
  for (const auto& item : status.items)
    for (const auto& c : item.send.copies)
      if (c.state != api::CopyStatus::State::kDone) return 1;
  return 0;
}

}  // namespace hnow::cli
