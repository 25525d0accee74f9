// The jobs waiting in hnowd's queue (state_store.h, StoredQueuedJob) in state.db.
#include "state/sqlite_state_store.h"

#include "state/sqlite_statement.h"

namespace hnow::daemon {

using namespace sql;

Result<void> SqliteStateStore::saveQueuedJob(const StoredQueuedJob& job) {
  return guarded([&] {
    Statement insert(db_, path_, "INSERT OR REPLACE INTO queued_jobs (id, request) VALUES (?1, ?2)");
    insert.bind(1, std::int64_t{job.id}).bindBlob(2, job.request);
    insert.step();
  });
}

Result<void> SqliteStateStore::removeQueuedJob(OperationId id) {
  return guarded([&] {
    Statement remove(db_, path_, "DELETE FROM queued_jobs WHERE id = ?1");
    remove.bind(1, std::int64_t{id});
    remove.step();
  });
}

Result<std::vector<StoredQueuedJob>> SqliteStateStore::loadQueuedJobs() {
  return guarded([&] {
    std::vector<StoredQueuedJob> out;
    Statement select(db_, path_, "SELECT id, request FROM queued_jobs ORDER BY id");
    while (select.step()) out.push_back({sqlite3_column_int64(select.get(), 0), blob(select.get(), 1)});
    return out;
  });
}

}  // namespace hnow::daemon
