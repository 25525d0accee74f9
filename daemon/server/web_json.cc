#include "server/web_json.h"

#include <nlohmann/json.hpp>

#include "api/send_picture_json.h"
#include "api/send_picture_svg.h"
#include "core/jobs/job_service.h"
#include "core/manifest/manifest_service.h"
#include "core/send/send_service.h"
#include "api/relay_faults.h"

namespace hnow::daemon {

namespace {

using nlohmann::json;

// Strings from agents may hold any bytes: invalid UTF-8 is replaced, not thrown on.
std::string dumped(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

const char* copyState(api::CopyStatus::State s) {
  switch (s) {
    case api::CopyStatus::State::kWaiting: return "waiting";
    case api::CopyStatus::State::kReceiving: return "receiving";
    case api::CopyStatus::State::kDone: return "done";
    case api::CopyStatus::State::kFailed: return "failed";
  }
  return "unknown";
}

json agentJson(const api::AgentStatus& a) {
  json flags = json::array();
  if (a.relayFaults >= api::kSuspectFaults) flags.push_back("suspect relay: planned as a leaf");
  else if (a.relayFaults > 0) flags.push_back(std::to_string(a.relayFaults) + " relay fault(s)");
  if (!a.unreachable.empty()) flags.push_back("unreachable: " + a.unreachable);
  if (!a.keyHosts.empty()) flags.push_back("key used from " + a.keyHosts.front() + " and " + a.keyHosts.back());
  return {{"name", a.name},
          {"site", a.site},
          {"state", a.alive ? "alive" : "lost"},
          {"uplink_bytes_per_second", a.rates.uplinkBytesPerSecond},
          {"downlink_bytes_per_second", a.rates.downlinkBytesPerSecond},
          {"compute_seconds_per_unit", a.rates.computeSecondsPerUnit},
          {"rates_age_s", a.ratesAgeSeconds ? json(*a.ratesAgeSeconds) : json(nullptr)},
          {"relay_faults", a.relayFaults},
          {"flags", flags}};
}

// How far an operation under way is, 0 to 1; none when its service does not say.
std::optional<double> fractionOf(const StatusSources& from, OperationId record) {
  const LocatedOperation where = locateOperation(from, record);
  if (where.kind == "send") {
    auto s = from.sends->status(where.operation);
    if (!s || s->copies.empty() || s->size == 0) return std::nullopt;
    double bytes = 0;
    for (const auto& c : s->copies) bytes += static_cast<double>(c.bytes);
    return bytes / (static_cast<double>(s->size) * static_cast<double>(s->copies.size()));
  }
  if (where.kind == "run") {
    auto s = from.jobs->status(where.operation);
    if (!s || s->units == 0) return std::nullopt;
    double done = static_cast<double>(s->unitsKept);
    for (const auto& a : s->agents) done += static_cast<double>(a.units);
    return done / static_cast<double>(s->units);
  }
  if (where.kind == "manifest") {
    auto s = from.manifests->status(where.operation);
    if (!s || s->items.empty()) return std::nullopt;
    double done = 0;
    for (const auto& item : s->items) done += item.send.finished;
    return done / static_cast<double>(s->items.size());
  }
  return std::nullopt;
}

json operationJson(const StatusSources& from, const OperationRecord& r) {
  const api::OperationSummary s = summaryOf(from, r);
  const bool underWay = s.status == "queued" || s.status == "running";
  const std::optional<double> fraction = underWay ? fractionOf(from, r.id) : std::nullopt;
  json summary = json::parse(s.summary, nullptr, false);
  if (summary.is_discarded()) summary = s.summary;
  // A send's picture is drawn from its own address (webSendPictureSvg): a
  // poll of fifty records need not carry fifty trees.
  const bool picture = summary.is_object() && summary.erase("picture") > 0;
  return {{"id", s.id},
          {"kind", s.kind},
          {"status", s.status},
          {"started_ms", s.startedUnixMs},
          {"finished_ms", s.finishedUnixMs},
          {"summary", summary},
          {"has_picture", picture},
          {"progress", s.progress},
          {"fraction", fraction ? json(*fraction) : json(nullptr)}};
}

json sendJson(const SendStatus& s) {
  json copies = json::array();
  for (const auto& c : s.copies)
    copies.push_back({{"agent", c.node}, {"parent", c.parent}, {"state", copyState(c.state)}, {"bytes", c.bytes},
                      {"planned_s", c.plannedS}, {"finished_s", c.finishedS}, {"message", c.message}});
  return {{"algo", s.algo}, {"size", s.size}, {"predicted_s", s.predictedS}, {"elapsed_s", s.elapsedS},
          {"replans", s.replans}, {"copies", copies}};
}

json runJson(const RunStatus& s) {
  json agents = json::array();
  for (const auto& a : s.agents)
    agents.push_back({{"agent", a.name}, {"units", a.units}, {"planned_units", a.plannedUnits},
                      {"compute_s", a.computeS}, {"idle_s", a.idleS}, {"share_units", a.shareUnits},
                      {"failures", a.failures}});
  return {{"phase", s.phase}, {"units", s.units}, {"units_kept", s.unitsKept}, {"agents", agents}};
}

}  // namespace

std::string webStatusJson(const StatusSources& from, std::size_t recent) {
  const api::CoordinatorStatus status = coordinatorStatusOf(from);
  json agents = json::array();
  for (const auto& a : status.agents) agents.push_back(agentJson(a));
  json operations = json::array();
  auto newest = from.coordinator->operations(recent);
  if (newest)
    for (const OperationRecord& r : *newest) operations.push_back(operationJson(from, r));
  json out = {{"agents", agents}, {"operations", operations}, {"surveying", status.surveying}};
  if (!newest) out["error"] = "cannot read hnowd's operation records: " + newest.error().message;
  return dumped(out);
}

std::optional<std::string> webOperationJson(const StatusSources& from, OperationId record) {
  auto found = from.coordinator->operationLog().find(record);
  if (!found || !*found) return std::nullopt;
  json out = operationJson(from, **found);
  const LocatedOperation where = locateOperation(from, record);
  if (where.kind == "send")
    if (auto s = from.sends->status(where.operation)) out["send"] = sendJson(*s);
  if (where.kind == "run")
    if (auto s = from.jobs->status(where.operation)) out["run"] = runJson(*s);
  return dumped(out);
}

Result<std::string> webSendPictureSvg(const StatusSources& from, OperationId record) {
  auto found = from.coordinator->operationLog().find(record);
  if (!found) return found.error();
  if (!*found) return Error{"no operation " + std::to_string(record)};
  if ((*found)->kind != "send") return Error{"operation " + std::to_string(record) + " is a " + (*found)->kind +
                                             ": only a send has a picture"};
  // While hnowd holds the send its picture is the live one, achieved rates
  // so far; afterwards the one kept in its record.
  const LocatedOperation where = locateOperation(from, record);
  if (where.kind == "send")
    if (auto s = from.sends->status(where.operation); s && s->picture) return api::renderSendPicture(*s->picture);
  const json summary = json::parse((*found)->summary, nullptr, false);
  auto kept = summary.is_object() ? summary.find("picture") : summary.end();
  if (kept == summary.end() || !kept->is_object())
    return Error{"send " + std::to_string(record) + " keeps no picture: it never started, or an older hnowd ran it"};
  auto picture = api::sendPictureFromJson(kept->dump());
  if (!picture) return Error{"send " + std::to_string(record) + "'s picture cannot be read: " + picture.error().message};
  return api::renderSendPicture(*picture);
}

}  // namespace hnow::daemon
