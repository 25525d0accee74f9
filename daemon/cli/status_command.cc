#include "cli/status_command.h"

#include <cstdio>
#include <ctime>
#include <sstream>

namespace hnow::cli {

namespace {

std::string mbps(double bytesPerSecond) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", bytesPerSecond * 8 / 1e6);
  return text;
}

}  // namespace

std::string statusTable(const std::vector<RemoteAgent>& agents) {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %-10s %-6s %10s %10s %10s %12s %8s\n", "agent", "site",
                "state", "up Mbit/s", "down Mbit/s", "overhead us", "compute ms/u", "age s");
  out << line;
  for (const RemoteAgent& a : agents) {
    std::string age = "-";
    if (a.ratesAgeSeconds) {
      std::snprintf(line, sizeof line, "%.1f", *a.ratesAgeSeconds);
      age = line;
    }
    std::snprintf(line, sizeof line, "%-16s %-10s %-6s %10s %10s %10.1f %12.3f %8s\n", a.name.c_str(),
                  a.site.c_str(), a.alive ? "alive" : "lost", mbps(a.rates.uplinkBytesPerSecond).c_str(),
                  mbps(a.rates.downlinkBytesPerSecond).c_str(), a.rates.sendOverheadSeconds * 1e6,
                  a.rates.computeSecondsPerUnit * 1e3, age.c_str());
    out << line;
  }
  if (agents.empty()) out << "(no agent has registered)\n";
  return out.str();
}

int runStatusCommand(const StatusOptions& options) {
  int exitCode = 0;
  auto client = connectOrReport(options.configPath, exitCode);
  if (!client) return exitCode;
  auto agents = client->status();
  if (!agents) {
    std::fprintf(stderr, "hnow: status failed: %s\n", agents.error().message.c_str());
    return 1;
  }
  std::string text = options.json ? statusJson(*agents) : statusTable(*agents);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

int runSetRateCommand(const SetRateOptions& options) {
  const RateChange& c = options.change;
  if (c.uplinkMbps <= 0 && c.downlinkMbps <= 0 && c.computeFactor <= 0) {
    std::fprintf(stderr, "hnow: give at least one of --uplink-mbps, --downlink-mbps, --compute-factor\n");
    return 2;
  }
  int exitCode = 0;
  auto client = connectOrReport(options.configPath, exitCode);
  if (!client) return exitCode;
  auto done = client->setEmulatedRates(options.agent, c);
  if (!done) {
    std::fprintf(stderr, "hnow: set-rate failed: %s\n", done.error().message.c_str());
    return 1;
  }
  std::printf("agent %s: new emulated rates sent; it reprobes and reports now\n", options.agent.c_str());
  return 0;
}

namespace {

// UTC, to the second: what a person compares with journald's timestamps.
std::string utc(std::int64_t unixMs) {
  std::time_t t = static_cast<std::time_t>(unixMs / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

std::string opsTable(const std::vector<RemoteOperation>& records) {
  std::ostringstream out;
  char line[192];
  std::snprintf(line, sizeof line, "%6s %-10s %-8s %-20s %-20s %s\n", "id", "kind", "status",
                "started", "finished", "summary");
  out << line;
  for (const RemoteOperation& r : records) {
    std::snprintf(line, sizeof line, "%6lld %-10s %-8s %-20s %-20s ", static_cast<long long>(r.id),
                  r.kind.c_str(), r.status.c_str(), utc(r.startedUnixMs).c_str(),
                  r.finishedUnixMs ? utc(r.finishedUnixMs).c_str() : "-");
    out << line << r.summary << "\n";
  }
  if (records.empty()) out << "(no operation recorded)\n";
  return out.str();
}

int runOpsCommand(const OpsOptions& options) {
  int exitCode = 0;
  auto client = connectOrReport(options.configPath, exitCode);
  if (!client) return exitCode;
  auto records = client->operations(options.limit);
  if (!records) {
    std::fprintf(stderr, "hnow: ops failed: %s\n", records.error().message.c_str());
    return 1;
  }
  std::string text = options.json ? opsJson(*records) : opsTable(*records);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace hnow::cli
