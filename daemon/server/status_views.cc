// The views of status_views.h: the core's records and services turned into
// daemon/api's values, for every reader of hnowd's state.
#include "server/status_views.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/jobs/job_service.h"
#include "core/links/hosts.h"
#include "core/links/rooms.h"
#include "core/links/survey_runner.h"
#include "core/manifest/manifest_service.h"
#include "core/send/owed_sends.h"
#include "core/send/send_service.h"
#include "core/send/sends_under_way.h"
#include "core/trust/key_hosts.h"
#include "server/link_values.h"

namespace hnow::daemon {

namespace {

api::CapInForce capOf(const CapView& cap) { return {cap.bytesPerSecond, cap.by}; }

std::int64_t unixMs(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::string percentOf(double done, double whole) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", whole > 0 ? 100.0 * done / whole : 0.0);
  return text;
}

std::string progressText(const RunStatus& s) {
  if (s.phase == "queued") return "waiting: " + s.waiting;
  std::uint64_t done = s.unitsKept;
  for (const auto& a : s.agents) done += a.units;
  if (s.phase == "running" || s.phase == "reducing")
    return s.phase + ", " + std::to_string(done) + " of " + std::to_string(s.units) + " units (" +
           percentOf(static_cast<double>(done), static_cast<double>(s.units)) + ")";
  return s.phase;
}

std::string progressText(const SendStatus& s) {
  std::uint64_t bytes = 0;
  std::size_t done = 0;
  for (const auto& c : s.copies) {
    bytes += c.bytes;
    done += c.state == api::CopyStatus::State::kDone;
  }
  return std::to_string(done) + " of " + std::to_string(s.copies.size()) + " copies, " +
         percentOf(static_cast<double>(bytes), static_cast<double>(s.size) * static_cast<double>(s.copies.size()));
}

std::string progressText(const ManifestStatus& s) {
  std::size_t done = 0;
  for (const auto& item : s.items) done += item.send.finished;
  return std::to_string(done) + " of " + std::to_string(s.items.size()) + " items";
}

std::string progressText(const SendsUnderWay::WaitingSend& w) {
  if (w.away.empty()) return "runs again after hnowd's restart";
  std::string names;
  for (const std::string& agent : w.away) names += (names.empty() ? "" : ", ") + agent;
  char left[32];
  std::snprintf(left, sizeof left, "%.0f s", std::ceil(seconds(w.left)));
  return "waiting for " + names + " after hnowd's restart (at most " + left + " more)";
}

// Status's flag of `name`'s key taking turns between two hosts.
void keyHostsOf(const StatusSources& from, const std::string& name, api::AgentStatus& out) {
  if (!from.keyHosts || !from.clock) return;
  const TimePoint now = from.clock->now();
  auto flag = from.keyHosts->shown(name, now);
  if (!flag) return;
  out.keyHosts = {flag->host, flag->otherHost};
  out.keyHostsChanges = flag->changes;
  out.keyHostsAgeSeconds = seconds(now - flag->last);
}

}  // namespace

api::AgentStatus agentStatusOf(const StatusSources& from, const AgentView& a) {
  api::AgentStatus out;
  out.name = a.record.name;
  out.site = a.record.site;
  out.alive = a.record.state == AgentState::kAlive;
  out.ratesAgeSeconds = a.ratesAgeSeconds;
  out.rates = a.record.rates;
  out.roots = a.registration.roots;
  out.capabilities = a.registration.capabilities;
  out.dataAddress = a.registration.dataAddress;
  out.uplink = linkReportOf(a.links.up);
  out.downlink = linkReportOf(a.links.down);
  out.uplinkCap = capOf(a.caps.up);
  out.downlinkCap = capOf(a.caps.down);
  out.relayFaults = a.relayFaults;
  out.networks = a.registration.networks;
  out.gateway = a.registration.gateway;
  if (!a.reachability.reachable) out.unreachable = a.reachability.note;
  keyHostsOf(from, a.record.name, out);
  return out;
}

api::CoordinatorStatus coordinatorStatusOf(const StatusSources& from) {
  Coordinator& coordinator = *from.coordinator;
  api::CoordinatorStatus status;
  const NodeLinks own = coordinator.coordinatorLinks();
  status.uplink = linkReportOf(own.up);
  status.downlink = linkReportOf(own.down);
  status.surveying = from.surveys && from.surveys->running();
  const NodeCaps ownCaps = coordinator.pacing().coordinatorCaps();
  status.uplinkCap = capOf(ownCaps.up);
  status.downlinkCap = capOf(ownCaps.down);
  for (const RoomView& r : roomViews(coordinator))
    status.rooms.push_back({r.name, r.agents, r.foundBy, linkReportOf(r.in), linkReportOf(r.out)});
  for (const HostView& h : hostViews(coordinator))
    status.hosts.push_back({h.host, h.agents, linkReportOf(h.intake)});
  for (const AgentView& a : coordinator.status()) status.agents.push_back(agentStatusOf(from, a));
  if (from.owed)
    for (const OwedSends::Owed& o : from.owed->owed())
      status.owed.push_back({static_cast<std::int64_t>(o.id), o.path, o.dest, o.agents, unixMs(o.since), o.sending});
  if (from.underWay)
    for (const SendsUnderWay::WaitingSend& w : from.underWay->waitingSends())
      status.waiting.push_back({static_cast<std::int64_t>(w.record), w.path, w.dest, w.agents, w.away, seconds(w.left)});
  return status;
}

LocatedOperation locateOperation(const StatusSources& from, OperationId record) {
  if (from.jobs)
    if (auto id = from.jobs->operationOf(record)) return {"run", id};
  if (from.sends)
    if (auto id = from.sends->operationOf(record)) return {"send", id};
  if (from.manifests)
    if (auto id = from.manifests->operationOf(record)) return {"manifest", id};
  return {};
}

std::string progressOf(const StatusSources& from, OperationId record) {
  // A send a restart left is "running" under its record before it runs again: what it waits for.
  if (from.underWay)
    for (const SendsUnderWay::WaitingSend& w : from.underWay->waitingSends())
      if (w.record == record) return progressText(w);
  const LocatedOperation where = locateOperation(from, record);
  if (where.kind == "run") {
    if (auto s = from.jobs->status(where.operation); s && !s->finished) return progressText(*s);
  } else if (where.kind == "send") {
    if (auto s = from.sends->status(where.operation); s && !s->finished) return progressText(*s);
  } else if (where.kind == "manifest") {
    if (auto s = from.manifests->status(where.operation); s && !s->finished) return progressText(*s);
  }
  return "";
}

api::OperationSummary summaryOf(const StatusSources& from, const OperationRecord& r) {
  const bool underWay = r.status == "queued" || r.status == "running";
  return {static_cast<std::int64_t>(r.id), r.kind, unixMs(r.started), r.finished ? unixMs(*r.finished) : 0,
          r.status, r.summary, underWay ? progressOf(from, r.id) : ""};
}

}  // namespace hnow::daemon
