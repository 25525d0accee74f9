#include "cli/status_command.h"

#include <cstdio>
#include <sstream>

namespace hnow::cli {

namespace {

// Loads client.toml and logs in; prints the problem and sets `exitCode` on failure.
std::unique_ptr<CoordinatorClient> connectOrReport(const std::string& configPath, int& exitCode) {
  auto config = conf::loadClientConfig(configPath);
  if (!config) {
    std::fprintf(stderr, "hnow: %s\n", config.error().text().c_str());
    exitCode = 2;
    return nullptr;
  }
  auto client = CoordinatorClient::connect(*config);
  if (!client) {
    std::fprintf(stderr, "hnow: %s\n", client.error().message.c_str());
    exitCode = 1;
    return nullptr;
  }
  return std::move(client.value());
}

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

}  // namespace hnow::cli
