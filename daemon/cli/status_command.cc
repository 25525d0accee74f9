#include "cli/status_command.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "api/relay_faults.h"
#include "base/printable.h"
#include "cli/ops_summary.h"

namespace hnow::cli {

namespace {

// "95.6 probe 12s ±2%", ">= 440.0 bound 12s", "-" before it is measured;
// other traffic on it now: "+ other 150.0".
std::string linkCell(const api::LinkRate& l) {
  if (l.method == "unknown") return "- (not measured yet)";
  char text[96];
  std::snprintf(text, sizeof text, "%s%.1f %s %.0fs", l.method == "bound" ? ">= " : "", l.bytesPerSecond * 8 / 1e6,
                l.method.c_str(), l.ageSeconds);
  std::string cell = text;
  if (l.samples > 1) {
    std::snprintf(text, sizeof text, " ±%.0f%%", l.spread * 50);
    cell += text;
  }
  if (l.otherTraffic > 0) {
    std::snprintf(text, sizeof text, " + other %.1f", l.otherTraffic * 8 / 1e6);
    cell += text;
  }
  if (l.told > 0) cell += " !";  // belied: see the note under the table
  return cell;
}

// "up 20.0 (08:00-18:00 weekdays: 20%), down none".
std::string capsCell(const api::CapInForce& up, const api::CapInForce& down) {
  auto one = [](const api::CapInForce& c) {
    if (c.bytesPerSecond <= 0) return std::string("none");
    char text[64];
    std::snprintf(text, sizeof text, "%.1f", c.bytesPerSecond * 8 / 1e6);
    return std::string(text) + " (" + c.by + ")";
  };
  return "up " + one(up) + ", down " + one(down);
}

// A name or site for a cell of the table: escaped, and cut at 64 bytes (on
// a character's boundary) with "..." so a row always fits its line.
std::string shown(const std::string& text) {
  constexpr std::size_t kMost = 64;
  std::string out = printable(text);
  if (out.size() <= kMost) return out;
  std::size_t cut = kMost;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) --cut;
  return out.substr(0, cut) + "...";
}

}  // namespace

std::string relayFaultsNote(const api::AgentStatus& agent) {
  const int n = agent.relayFaults;
  const std::string times = n == 1 ? "once" : std::to_string(n) + " times";
  return shown(agent.name) + ": relayed bytes that differ from the source's " + times +
         (n >= api::kSuspectFaults ? "; planned as a leaf (relays nothing)"
                                      : "; planned as a leaf from " + std::to_string(api::kSuspectFaults) + " times on");
}

// Names, sites and paths come from agents and operators: each is escaped
// (base/printable.h), so a newline or a terminal escape in one cannot break
// the table or forge a line of it.
std::string keyHostsNote(const api::AgentStatus& agent) {
  char ago[32];
  std::snprintf(ago, sizeof ago, "%.0f s", agent.keyHostsAgeSeconds);
  const std::string name = shown(agent.name);
  return name + ": its key logs in from " + shown(agent.keyHosts[0]) + " and from " + shown(agent.keyHosts[1]) +
         " by turns (" + std::to_string(agent.keyHostsChanges) + " changes of host, the latest " + ago +
         " ago): used on two machines? If one is not " + name + "'s, hnow agent revoke " + name +
         " (and enroll it anew); if both are, hnow agent ack " + name;
}

std::string statusTable(const api::CoordinatorStatus& status) {
  std::ostringstream out;
  char line[320];
  std::snprintf(line, sizeof line, "%-16s %-10s %-6s %-32s %-32s %11s %12s %6s\n", "node", "site", "state",
                "uplink Mbit/s (how, age)", "downlink Mbit/s (how, age)", "overhead us", "compute ms/u", "age s");
  out << line;
  std::snprintf(line, sizeof line, "%-16s %-10s %-6s %-32s %-32s\n", "hnowd", "-",
                status.surveying ? "survey" : "-", linkCell(status.uplink).c_str(), linkCell(status.downlink).c_str());
  out << line;
  for (const api::AgentStatus& a : status.agents) {
    std::string age = "-";
    if (a.ratesAgeSeconds) {
      std::snprintf(line, sizeof line, "%.1f", *a.ratesAgeSeconds);
      age = line;
    }
    std::snprintf(line, sizeof line, "%-16s %-10s %-6s %-32s %-32s %11.1f %12.3f %6s\n", shown(a.name).c_str(),
                  shown(a.site).c_str(), a.alive ? "alive" : "lost", linkCell(a.uplink).c_str(),
                  linkCell(a.downlink).c_str(),
                  a.rates.sendOverheadSeconds * 1e6, a.rates.computeSecondsPerUnit * 1e3, age.c_str());
    out << line;
  }
  if (status.agents.empty()) out << "(no agent has registered)\n";
  // Rooms behind trunks (docs/rooms.md): how they were found, each trunk per direction.
  if (!status.rooms.empty()) {
    out << "\nrooms (found by " << status.rooms.front().foundBy << "), trunk Mbit/s (how, age):\n";
    std::snprintf(line, sizeof line, "%-16s %-7s %-34s %-34s\n", "room", "agents", "into the room", "out of it");
    out << line;
    for (const api::RoomStatus& r : status.rooms) {
      auto trunkCell = [](const api::LinkRate& l) {
        return l.method == "unknown" ? std::string("- (planned at its fastest port)") : linkCell(l);
      };
      std::snprintf(line, sizeof line, "%-16s %-7d %-34s %-34s\n", shown(r.name).c_str(), r.agents,
                    trunkCell(r.in).c_str(), trunkCell(r.out).c_str());
      out << line;
    }
  }
  // Machines that run several agents (docs/host-intake.md).
  for (const api::HostStatus& h : status.hosts) {
    const std::string intake = h.intake.method == "unknown"
                                   ? std::string("not known yet (learnt from the first send that fills it)")
                                   : linkCell(h.intake);
    out << "machine " << shown(h.key) << ": " << h.agents << " agents; they take in together " << intake << "\n";
  }
  // An agent whose transfers belie the rate it tells (docs/security.md "Rates that lie").
  for (const api::AgentStatus& a : status.agents)
    for (const auto& [link, name] : {std::pair{&a.uplink, "uplink"}, std::pair{&a.downlink, "downlink"}})
      if (link->told > 0) {
        std::snprintf(line, sizeof line,
                      "! %s: its %s achieves %.1f Mbit/s, not the %.1f it reports; planned with what it achieves\n",
                      shown(a.name).c_str(), name, link->bytesPerSecond * 8 / 1e6, link->told * 8 / 1e6);
        out << line;
      }
  // An agent caught relaying bytes that differ from the source's (docs/security.md).
  for (const api::AgentStatus& a : status.agents)
    if (a.relayFaults > 0) out << "! " << relayFaultsNote(a) << "\n";
  // An agent behind NAT or a firewall (docs/reachability.md).
  for (const api::AgentStatus& a : status.agents)
    if (!a.unreachable.empty()) out << "! " << a.name << ": unreachable: " << a.unreachable << "\n";
  // An agent whose key logs in from two hosts by turns: a copied key? (docs/security.md)
  for (const api::AgentStatus& a : status.agents)
    if (a.keyHosts.size() == 2) out << "! " << keyHostsNote(a) << "\n";
  for (const api::OwedSend& o : status.owed) {
    std::string names;
    for (const std::string& n : o.agents) names += (names.empty() ? "" : ", ") + printable(n);
    const std::time_t since = static_cast<std::time_t>(o.sinceUnixMs / 1000);
    char when[32] = "?";
    if (std::tm local{}; localtime_r(&since, &local)) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M", &local);
    out << "owed since " << when << " (send record " << o.record << ", --until-all): " << printable(o.path) << " -> "
        << printable(o.dest)
        << " to " << names << (o.sending ? " (sending now)" : " (when connected again)") << "\n";
  }
  // Sends a restart of hnowd left, waiting for their agents before they run again (docs/send.md).
  for (const api::WaitingSend& w : status.waiting) {
    std::string away;
    for (const std::string& n : w.away) away += (away.empty() ? "" : ", ") + printable(n);
    std::snprintf(line, sizeof line, "%.0f", std::ceil(w.secondsLeft));
    out << "runs again after hnowd's restart (send record " << w.record << "): " << printable(w.path) << " -> "
        << printable(w.dest) << " to " << w.agents.size() << " agent(s), "
        << (away.empty() ? std::string("all back") : "waiting for " + away + " at most " + line + " s more") << "\n";
  }
  // The caps in force (docs/bandwidth-limits.md): what plans and pacing take of each link.
  out << "\ncaps in force, Mbit/s (what set them):\n";
  std::snprintf(line, sizeof line, "%-16s %s\n", "hnowd", capsCell(status.uplinkCap, status.downlinkCap).c_str());
  out << line;
  for (const api::AgentStatus& a : status.agents) {
    std::snprintf(line, sizeof line, "%-16s %s\n", shown(a.name).c_str(),
                  capsCell(a.uplinkCap, a.downlinkCap).c_str());
    out << line;
  }
  return out.str();
}

namespace {

int printStatus(CoordinatorClient& client, bool json) {
  auto status = client.status();
  if (!status) {
    std::fprintf(stderr, "hnow: status failed: %s\n", status.error().message.c_str());
    return 1;
  }
  std::string text = json ? statusJson(*status) : statusTable(*status);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

int runStatusCommand(const StatusOptions& options) {
  int exitCode = 0;
  auto client = connectOrReport(options.configPath, exitCode);
  return client ? printStatus(*client, options.json) : exitCode;
}

int runMeasureCommand(const MeasureOptions& options) {
  int exitCode = 0;
  auto client = connectOrReport(options.configPath, exitCode);
  if (!client) return exitCode;
  auto measured = client->measure(options.nodes, options.timeoutSeconds);
  if (!measured) {
    std::fprintf(stderr, "hnow: measure failed: %s\n", measured.error().message.c_str());
    return 1;
  }
  return printStatus(*client, options.json);
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

int runForgetCommand(const std::string& configPath, const std::string& agent) {
  int exitCode = 0;
  auto client = connectOrReport(configPath, exitCode);
  if (!client) return exitCode;
  auto done = client->forgetAgent(agent);
  if (!done) {
    std::fprintf(stderr, "hnow: agent forget failed: %s\n", done.error().message.c_str());
    return 1;
  }
  std::printf("agent %s forgotten: its record, rates and links are gone; if it starts again it registers anew\n",
              agent.c_str());
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

std::string opsTable(const std::vector<api::OperationSummary>& records) {
  std::ostringstream out;
  char line[192];
  std::snprintf(line, sizeof line, "%6s %-10s %-8s %-20s %-20s %s\n", "id", "kind", "status",
                "started", "finished", "summary");
  out << line;
  for (const api::OperationSummary& r : records) {
    std::snprintf(line, sizeof line, "%6lld %-10s %-8s %-20s %-20s ", static_cast<long long>(r.id),
                  r.kind.c_str(), r.status.c_str(), utc(r.startedUnixMs).c_str(),
                  r.finishedUnixMs ? utc(r.finishedUnixMs).c_str() : "-");
    out << line << (r.progress.empty() ? "" : "[" + r.progress + "] ") << readableSummary(r.kind, r.summary) << "\n";
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
