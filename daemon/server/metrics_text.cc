#include "server/metrics_text.h"

#include <cstdio>
#include <map>

namespace hnow::daemon {

namespace {

std::string number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

// One family's HELP and TYPE lines, then its samples.
class Family {
 public:
  Family(std::string& out, const char* name, const char* type, const char* help) : out_(out), name_(name) {
    out_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void sample(const std::string& labels, double value, const char* suffix = "") {
    out_ += name_ + suffix + (labels.empty() ? "" : "{" + labels + "}") + " " + number(value) + "\n";
  }
  void sample(std::uint64_t value, const char* suffix = "") { out_ += name_ + suffix + " " + std::to_string(value) + "\n"; }

 private:
  std::string& out_;
  std::string name_;
};

std::string label(const char* name, const std::string& value) { return std::string(name) + "=\"" + labelValue(value) + "\""; }

}  // namespace

std::string labelValue(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string metricsText(const MetricsValues& v) {
  std::string out;
  {
    Family f(out, "hnow_build_info", "gauge", "hnow's version; the value is always 1.");
    f.sample(label("version", v.version), 1);
  }
  {
    Family f(out, "hnow_agents", "gauge", "Agents hnowd knows, by state (alive: heard lately; lost: silent).");
    std::map<std::string, int> byState{{"alive", 0}, {"lost", 0}};
    for (const auto& a : v.agents) ++byState[a.alive ? "alive" : "lost"];
    for (const auto& [state, n] : byState) f.sample(label("state", state), n);
  }
  {
    Family f(out, "hnow_agent_send_rate_bytes_per_second", "gauge", "Each agent's uplink rate as sends are planned with it.");
    for (const auto& a : v.agents) f.sample(label("agent", a.name), a.rates.uplinkBytesPerSecond);
  }
  {
    Family f(out, "hnow_agent_receive_rate_bytes_per_second", "gauge",
             "Each agent's downlink rate as sends are planned with it.");
    for (const auto& a : v.agents) f.sample(label("agent", a.name), a.rates.downlinkBytesPerSecond);
  }
  {
    Family f(out, "hnow_agent_compute_seconds_per_unit", "gauge",
             "Each agent's measured time for one unit of job work (0: not measured yet).");
    for (const auto& a : v.agents) f.sample(label("agent", a.name), a.rates.computeSecondsPerUnit);
  }
  {
    Family f(out, "hnow_agent_relay_faults", "gauge",
             "Sends in which each agent relayed bytes that differ from the source's.");
    for (const auto& a : v.agents) f.sample(label("agent", a.name), a.relayFaults);
  }
  {
    Family f(out, "hnow_bytes_sent_total", "counter", "Payload hnowd's data plane handed to its sockets since it started.");
    f.sample(v.bytesSent);
  }
  {
    Family f(out, "hnow_bytes_received_total", "counter", "Payload hnowd's data plane took from its sockets since it started.");
    f.sample(v.bytesReceived);
  }
  {
    Family f(out, "hnow_operations", "gauge", "Operation records in hnowd's state, by kind and status.");
    for (const OperationCount& c : v.operations)
      f.sample(label("kind", c.kind) + "," + label("status", c.status), static_cast<double>(c.count));
  }
  {
    Family f(out, "hnow_replans_total", "counter", "New trees sends adopted while they ran, counted as each send ends.");
    f.sample(v.counts.replans);
  }
  {
    Family f(out, "hnow_reissues_total", "counter", "Job shares given to another agent, counted as each job ends.");
    f.sample(v.counts.reissues);
  }
  {
    Family f(out, "hnow_corrupt_chunks_total", "counter",
             "Chunks agents found differing from the source's digest and fetched again.");
    f.sample(v.counts.corruptChunks);
  }
  {
    Family f(out, "hnow_relay_faults_total", "counter", "Relays caught passing on bytes that differ from the source's.");
    f.sample(v.counts.relayFaults);
  }
  {
    Family f(out, "hnow_plan_seconds", "summary", "Time the planner took for each send's tree or stripes.");
    f.sample("", v.counts.planSeconds, "_sum");
    f.sample(v.counts.plans, "_count");
  }
  return out;
}

}  // namespace hnow::daemon
