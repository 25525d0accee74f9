// `hnow ops` on the wire (ClientSession.operations, locate): the records in
// state.db, with how far each one under way is as its service tells it now,
// and the operation a record names for the follow calls and grantOutput.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "api/coordinator_status_wire.h"
#include "core/jobs/job_service.h"
#include "core/manifest/manifest_service.h"
#include "core/send/send_service.h"
#include "core/send/sends_under_way.h"
#include "server/sessions.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

namespace {

std::int64_t unixMs(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::string percentOf(double done, double whole) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", whole > 0 ? 100.0 * done / whole : 0.0);
  return text;
}

std::string progressOf(const RunStatus& s) {
  if (s.phase == "queued") return "waiting: " + s.waiting;
  std::uint64_t done = s.unitsKept;
  for (const auto& a : s.agents) done += a.units;
  if (s.phase == "running" || s.phase == "reducing")
    return s.phase + ", " + std::to_string(done) + " of " + std::to_string(s.units) + " units (" +
           percentOf(static_cast<double>(done), static_cast<double>(s.units)) + ")";
  return s.phase;
}

std::string progressOf(const SendStatus& s) {
  std::uint64_t bytes = 0;
  std::size_t done = 0;
  for (const auto& c : s.copies) {
    bytes += c.bytes;
    done += c.state == api::CopyStatus::State::kDone;
  }
  return std::to_string(done) + " of " + std::to_string(s.copies.size()) + " copies, " +
         percentOf(static_cast<double>(bytes), static_cast<double>(s.size) * static_cast<double>(s.copies.size()));
}

std::string progressOf(const ManifestStatus& s) {
  std::size_t done = 0;
  for (const auto& item : s.items) done += item.send.finished;
  return std::to_string(done) + " of " + std::to_string(s.items.size()) + " items";
}

std::string progressOf(const SendsUnderWay::WaitingSend& w) {
  if (w.away.empty()) return "runs again after hnowd's restart";
  std::string names;
  for (const std::string& agent : w.away) names += (names.empty() ? "" : ", ") + agent;
  char left[32];
  std::snprintf(left, sizeof left, "%.0f s", std::ceil(seconds(w.left)));
  return "waiting for " + names + " after hnowd's restart (at most " + left + " more)";
}

}  // namespace

ClientSessionServer::Located ClientSessionServer::located(OperationId record) const {
  if (jobs_)
    if (auto id = jobs_->operationOf(record)) return {"run", id};
  if (sends_)
    if (auto id = sends_->operationOf(record)) return {"send", id};
  if (manifests_)
    if (auto id = manifests_->operationOf(record)) return {"manifest", id};
  return {};
}

std::string ClientSessionServer::progressOf(OperationId record) const {
  // A send a restart left is "running" under its record before it runs again: what it waits for.
  if (underWay_)
    for (const SendsUnderWay::WaitingSend& w : underWay_->waitingSends())
      if (w.record == record) return daemon::progressOf(w);
  const Located where = located(record);
  if (where.kind == "run") {
    if (auto s = jobs_->status(where.operation); s && !s->finished) return daemon::progressOf(*s);
  } else if (where.kind == "send") {
    if (auto s = sends_->status(where.operation); s && !s->finished) return daemon::progressOf(*s);
  } else if (where.kind == "manifest") {
    if (auto s = manifests_->status(where.operation); s && !s->finished) return daemon::progressOf(*s);
  }
  return "";
}

kj::Promise<void> ClientSessionServer::operations(OperationsContext context) {
  const std::size_t limit = std::min<std::size_t>(context.getParams().getLimit(), 1000);
  auto newest = coordinator_.operations(limit);
  if (!newest) transport::refuse("cannot read hnowd's operation records: " + newest.error().message);
  std::vector<api::OperationSummary> records;
  for (const OperationRecord& r : *newest) {
    const bool underWay = r.status == "queued" || r.status == "running";
    records.push_back({static_cast<std::int64_t>(r.id), r.kind, unixMs(r.started), r.finished ? unixMs(*r.finished) : 0,
                       r.status, r.summary, underWay ? progressOf(r.id) : ""});
  }
  api::toWire(records, context.getResults().initRecords(static_cast<unsigned>(records.size())));
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::locate(LocateContext context) {
  const auto id = static_cast<OperationId>(context.getParams().getRecord());
  auto record = coordinator_.operationLog().find(id);
  if (!record) transport::refuse("cannot read hnowd's operation records: " + record.error().message);
  const Located where = located(id);
  auto results = context.getResults();
  results.setKind(where.kind);
  results.setOperation(where.operation);
  if (*record) {
    const OperationRecord& r = **record;
    const bool underWay = r.status == "queued" || r.status == "running";
    api::toWire(api::OperationSummary{static_cast<std::int64_t>(r.id), r.kind, unixMs(r.started),
                                      r.finished ? unixMs(*r.finished) : 0, r.status, r.summary,
                                      underWay ? progressOf(r.id) : ""},
                results.initEntry());
  }
  return kj::READY_NOW;
}

}  // namespace hnow::daemon
