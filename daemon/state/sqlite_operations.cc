// The records of operations (state_store.h, OperationRecord) in state.db:
// begun, launched, described while they run, finished, and those under way
// marked interrupted when hnowd stops.
#include "state/sqlite_state_store.h"

#include <sqlite3.h>

#include "state/sqlite_statement.h"

namespace hnow::daemon {

using namespace sql;

Result<OperationId> SqliteStateStore::beginOperation(const OperationRecord& record) {
  return guarded([&] {
    Statement insert(db_, path_,
                     "INSERT INTO operations (kind, started_ms, finished_ms, status, summary) "
                     "VALUES (?1, ?2, ?3, ?4, ?5)");
    insert.bind(1, record.kind).bind(2, toMs(record.started));
    if (record.finished) insert.bind(3, toMs(*record.finished)); else insert.bindNull(3);
    insert.bind(4, record.status).bind(5, record.summary);
    insert.step();
    return static_cast<OperationId>(sqlite3_last_insert_rowid(db_));
  });
}

Result<void> SqliteStateStore::finishOperation(OperationId id, WallTime finished, const std::string& status,
                                               const std::string& summary) {
  return guarded([&] {
    Statement update(db_, path_,
                     "UPDATE operations SET finished_ms = ?1, status = ?2, summary = ?3 WHERE id = ?4 "
                     "AND status IN ('queued', 'running')");
    update.bind(1, toMs(finished)).bind(2, status).bind(3, summary).bind(4, std::int64_t{id});
    update.step();
  });
}

Result<void> SqliteStateStore::launchOperation(OperationId id) {
  return guarded([&] {
    Statement update(db_, path_, "UPDATE operations SET status = 'running' WHERE id = ?1 AND status = 'queued'");
    update.bind(1, std::int64_t{id});
    update.step();
  });
}

Result<void> SqliteStateStore::describeOperation(OperationId id, const std::string& summary) {
  return guarded([&] {
    Statement update(db_, path_, "UPDATE operations SET summary = ?1 WHERE id = ?2 AND status = 'running'");
    update.bind(1, summary).bind(2, std::int64_t{id});
    update.step();
  });
}

Result<int> SqliteStateStore::interruptRunning(WallTime at) {
  return guarded([&] {
    Statement update(db_, path_,
                     "UPDATE operations SET finished_ms = ?1, status = 'interrupted' "
                     "WHERE (status = 'running' AND id NOT IN (SELECT id FROM running_jobs) "
                     "AND id NOT IN (SELECT id FROM sends_under_way)) "
                     "OR (status = 'queued' AND id NOT IN (SELECT id FROM queued_jobs))");
    update.bind(1, toMs(at));
    update.step();
    return sqlite3_changes(db_);
  });
}

namespace {

OperationRecord operationOf(sqlite3_stmt* s) {
  OperationRecord r;
  r.id = sqlite3_column_int64(s, 0);
  r.kind = text(s, 1);
  r.started = fromMs(sqlite3_column_int64(s, 2));
  if (sqlite3_column_type(s, 3) != SQLITE_NULL) r.finished = fromMs(sqlite3_column_int64(s, 3));
  r.status = text(s, 4);
  r.summary = text(s, 5);
  return r;
}

}  // namespace

Result<std::vector<OperationRecord>> SqliteStateStore::operations(std::size_t limit) {
  return guarded([&] {
    Statement select(db_, path_,
                     "SELECT id, kind, started_ms, finished_ms, status, summary FROM operations "
                     "ORDER BY id DESC LIMIT ?1");
    select.bind(1, static_cast<std::int64_t>(limit));
    std::vector<OperationRecord> out;
    while (select.step()) out.push_back(operationOf(select.get()));
    return out;
  });
}

Result<std::optional<OperationRecord>> SqliteStateStore::operation(OperationId id) {
  return guarded([&]() -> std::optional<OperationRecord> {
    Statement select(db_, path_,
                     "SELECT id, kind, started_ms, finished_ms, status, summary FROM operations WHERE id = ?1");
    select.bind(1, static_cast<std::int64_t>(id));
    if (!select.step()) return std::nullopt;
    return operationOf(select.get());
  });
}

Result<std::vector<OperationCount>> SqliteStateStore::operationCounts() {
  return guarded([&] {
    Statement select(db_, path_, "SELECT kind, status, COUNT(*) FROM operations GROUP BY kind, status");
    std::vector<OperationCount> out;
    while (select.step())
      out.push_back({text(select.get(), 0), text(select.get(), 1),
                     static_cast<std::uint64_t>(sqlite3_column_int64(select.get(), 2))});
    return out;
  });
}

}  // namespace hnow::daemon
