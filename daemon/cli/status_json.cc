// The one file of the status command that includes nlohmann/json (slow to compile).
#include <nlohmann/json.hpp>

#include "cli/status_command.h"

namespace hnow::cli {

std::string statusJson(const std::vector<RemoteAgent>& agents) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const RemoteAgent& a : agents) {
    nlohmann::ordered_json agent;
    agent["name"] = a.name;
    agent["site"] = a.site;
    agent["state"] = a.alive ? "alive" : "lost";
    // null until the agent has reported rates at all
    agent["age_s"] = a.ratesAgeSeconds ? nlohmann::ordered_json(*a.ratesAgeSeconds) : nullptr;
    agent["rates"] = {
        {"uplink_bytes_per_s", a.rates.uplinkBytesPerSecond},
        {"downlink_bytes_per_s", a.rates.downlinkBytesPerSecond},
        {"send_overhead_s", a.rates.sendOverheadSeconds},
        {"recv_overhead_s", a.rates.receiveOverheadSeconds},
        {"compute_s_per_unit", a.rates.computeSecondsPerUnit},
    };
    agent["roots"] = a.roots;
    list.push_back(std::move(agent));
  }
  nlohmann::ordered_json root;
  root["agents"] = std::move(list);
  return root.dump(2) + "\n";
}

}  // namespace hnow::cli
