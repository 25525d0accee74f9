// The one file of hnowd's client commands that includes nlohmann/json (slow to compile).
#include <nlohmann/json.hpp>

#include "cli/status_command.h"
#include "api/relay_faults.h"

namespace hnow::cli {

namespace {

nlohmann::ordered_json linkJson(const api::LinkRate& l) {
  return {
      {"bytes_per_s", l.bytesPerSecond},  // for "bound": the least it is
      {"method", l.method},
      {"age_s", l.method == "unknown" ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(l.ageSeconds)},
      {"spread", l.spread},
      {"samples", l.samples},
      {"other_traffic_bytes_per_s", l.otherTraffic},
      {"available_bytes_per_s", l.available},
      // The agent tells this rate but its transfers achieve bytes_per_s: planned with those.
      {"told_bytes_per_s", l.told > 0 ? nlohmann::ordered_json(l.told) : nlohmann::ordered_json(nullptr)},
  };
}

// {"uplink": {"bytes_per_s", "by"} or null, "downlink": ...}: null when none.
nlohmann::ordered_json capsJson(const api::CapInForce& up, const api::CapInForce& down) {
  auto one = [](const api::CapInForce& c) {
    return c.bytesPerSecond > 0 ? nlohmann::ordered_json{{"bytes_per_s", c.bytesPerSecond}, {"by", c.by}}
                                : nlohmann::ordered_json(nullptr);
  };
  return {{"uplink", one(up)}, {"downlink", one(down)}};
}

nlohmann::ordered_json linksJson(const api::LinkRate& up, const api::LinkRate& down) {
  return {{"uplink", linkJson(up)}, {"downlink", linkJson(down)}};
}

}  // namespace

std::string statusJson(const api::CoordinatorStatus& status) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const api::AgentStatus& a : status.agents) {
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
    agent["links"] = linksJson(a.uplink, a.downlink);
    agent["caps"] = capsJson(a.uplinkCap, a.downlinkCap);
    agent["roots"] = a.roots;
    // Sends in which it relayed bytes that differ from the source's; relay_suspect: planned as a leaf.
    agent["relay_faults"] = a.relayFaults;
    agent["relay_suspect"] = a.relayFaults >= api::kSuspectFaults;
    agent["reachable"] = a.unreachable.empty();
    if (!a.unreachable.empty()) agent["unreachable"] = a.unreachable;
    // Two addresses its key logged in from by turns lately (a copied key?); null: none.
    agent["key_hosts"] = a.keyHosts.size() == 2
                             ? nlohmann::ordered_json{{"hosts", a.keyHosts},
                                                      {"changes", a.keyHostsChanges},
                                                      {"latest_s", a.keyHostsAgeSeconds}}
                             : nlohmann::ordered_json(nullptr);
    list.push_back(std::move(agent));
  }
  nlohmann::ordered_json root;
  root["coordinator"] = {{"name", "hnowd"}, {"surveying", status.surveying},
                         {"links", linksJson(status.uplink, status.downlink)},
                         {"caps", capsJson(status.uplinkCap, status.downlinkCap)}};
  root["agents"] = std::move(list);
  // Rooms behind trunks (docs/rooms.md); empty while every agent is in one room.
  nlohmann::ordered_json rooms = nlohmann::ordered_json::array();
  for (const api::RoomStatus& r : status.rooms)
    rooms.push_back({{"name", r.name}, {"agents", r.agents}, {"found_by", r.foundBy},
                     {"trunk", {{"in", linkJson(r.in)}, {"out", linkJson(r.out)}}}});
  root["rooms"] = std::move(rooms);
  // Machines with two agents or more, and what they take in together (docs/host-intake.md).
  nlohmann::ordered_json hosts = nlohmann::ordered_json::array();
  for (const api::HostStatus& h : status.hosts)
    hosts.push_back({{"key", h.key}, {"agents", h.agents}, {"intake", linkJson(h.intake)}});
  root["hosts"] = std::move(hosts);
  nlohmann::ordered_json owed = nlohmann::ordered_json::array();
  for (const api::OwedSend& o : status.owed)
    owed.push_back({{"record", o.record}, {"path", o.path}, {"dest", o.dest}, {"agents", o.agents},
                    {"since_unix_s", static_cast<double>(o.sinceUnixMs) / 1000}, {"sending", o.sending}});
  root["owed"] = std::move(owed);
  // Sends a restart of hnowd left, waiting for their agents before they run again.
  nlohmann::ordered_json waiting = nlohmann::ordered_json::array();
  for (const api::WaitingSend& w : status.waiting)
    waiting.push_back({{"record", w.record}, {"path", w.path}, {"dest", w.dest}, {"agents", w.agents},
                       {"waiting_for", w.away}, {"seconds_left", w.secondsLeft}});
  root["waiting_sends"] = std::move(waiting);
  // A path that is not UTF-8 (a file name may be any bytes) must not make
  // the whole status fail: such bytes are replaced.
  return root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string opsJson(const std::vector<api::OperationSummary>& records) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const api::OperationSummary& r : records) {
    nlohmann::ordered_json op;
    op["id"] = r.id;
    op["kind"] = r.kind;
    op["status"] = r.status;
    op["started_unix_s"] = static_cast<double>(r.startedUnixMs) / 1000;
    op["finished_unix_s"] =
        r.finishedUnixMs ? nlohmann::ordered_json(static_cast<double>(r.finishedUnixMs) / 1000) : nullptr;
    // hnowd's database only holds valid JSON; a damaged one is shown as text.
    op["summary"] = nlohmann::ordered_json::parse(r.summary, nullptr, false);
    if (op["summary"].is_discarded()) op["summary"] = r.summary;
    // Under way: how far it is, or why a queued job waits.
    if (!r.progress.empty()) op["progress"] = r.progress;
    list.push_back(std::move(op));
  }
  nlohmann::ordered_json root;
  root["operations"] = std::move(list);
  return root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string recordError(const std::string& summary) {
  const auto parsed = nlohmann::json::parse(summary, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return "";
  const auto error = parsed.find("error");
  return error != parsed.end() && error->is_string() ? error->get<std::string>() : "";
}

}  // namespace hnow::cli
