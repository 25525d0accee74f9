// The jobs under way, their accepted shares, the attempts agents compute
// and the partials a --reduce job's reduction combined (state_store.h,
// StoredRunningJob) in state.db, for the next hnowd to resume.
#include "state/sqlite_state_store.h"

#include "state/sqlite_statement.h"

namespace hnow::daemon {

using namespace sql;

Result<void> SqliteStateStore::saveRunningJob(const StoredRunningJob& job) {
  return guarded([&] {
    Statement insert(db_, path_,
                     "INSERT OR REPLACE INTO running_jobs (id, request, input_size, input_modified_ns, dir, "
                     "calibrations) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    insert.bind(1, std::int64_t{job.id}).bindBlob(2, job.request).bind(3, static_cast<std::int64_t>(job.inputSize));
    insert.bind(4, std::int64_t{job.inputModifiedNs}).bind(5, job.dir).bind(6, job.calibrations);
    insert.step();
  });
}

Result<void> SqliteStateStore::saveAcceptedShare(OperationId job, const StoredShare& share) {
  return guarded([&] {
    Statement insert(db_, path_,
                     "INSERT OR REPLACE INTO accepted_shares (job_id, first_unit, units, path, size) "
                     "VALUES (?1, ?2, ?3, ?4, ?5)");
    insert.bind(1, std::int64_t{job}).bind(2, static_cast<std::int64_t>(share.firstUnit));
    insert.bind(3, static_cast<std::int64_t>(share.units)).bind(4, share.path).bind(5, static_cast<std::int64_t>(share.size));
    insert.step();
  });
}

Result<void> SqliteStateStore::saveJobAttempt(OperationId job, const StoredAttempt& attempt) {
  return guarded([&] {
    Statement insert(db_, path_,
                     "INSERT INTO job_attempts (job_id, result_token, agent, first_unit, units, share_token, replicas, "
                     "digest) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (job_id, result_token) DO UPDATE SET "
                     "agent = ?3, first_unit = ?4, units = ?5, share_token = ?6, replicas = ?7, digest = ?8");
    insert.bind(1, std::int64_t{job}).bindBlob(2, attempt.resultToken).bind(3, attempt.agent);
    insert.bind(4, static_cast<std::int64_t>(attempt.firstUnit)).bind(5, static_cast<std::int64_t>(attempt.units));
    insert.bindBlob(6, attempt.shareToken).bind(7, std::int64_t{attempt.replicas}).bindBlob(8, attempt.digest);
    insert.step();
  });
}

Result<void> SqliteStateStore::saveReductionPartial(OperationId job, const StoredPartial& partial) {
  return guarded([&] {
    Statement insert(db_, path_,
                     "INSERT OR REPLACE INTO reduction_partials (job_id, token, agent, size, digest, input, other) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    insert.bind(1, std::int64_t{job}).bindBlob(2, partial.token).bind(3, partial.agent);
    insert.bind(4, static_cast<std::int64_t>(partial.size)).bindBlob(5, partial.digest);
    insert.bindBlob(6, partial.input).bindBlob(7, partial.other);
    insert.step();
  });
}

Result<void> SqliteStateStore::removeRunningJob(OperationId id) {
  return guarded([&] {
    exec("BEGIN");
    try {
      for (const char* sql : {"DELETE FROM accepted_shares WHERE job_id = ?1", "DELETE FROM job_attempts WHERE job_id = ?1",
                              "DELETE FROM reduction_partials WHERE job_id = ?1",
                              "DELETE FROM running_jobs WHERE id = ?1"}) {
        Statement remove(db_, path_, sql);
        remove.bind(1, std::int64_t{id});
        remove.step();
      }
    } catch (const SqlFailure&) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    exec("COMMIT");
  });
}

Result<std::vector<StoredRunningJob>> SqliteStateStore::loadRunningJobs() {
  return guarded([&] {
    std::vector<StoredRunningJob> out;
    Statement jobs(db_, path_,
                   "SELECT id, request, input_size, input_modified_ns, dir, calibrations FROM running_jobs ORDER BY id");
    while (jobs.step()) {
      sqlite3_stmt* s = jobs.get();
      out.push_back({sqlite3_column_int64(s, 0), blob(s, 1), static_cast<std::uint64_t>(sqlite3_column_int64(s, 2)),
                     sqlite3_column_int64(s, 3), text(s, 4), {}, text(s, 5)});
    }
    for (StoredRunningJob& job : out) {
      Statement shares(db_, path_,
                       "SELECT first_unit, units, path, size FROM accepted_shares WHERE job_id = ?1 ORDER BY first_unit");
      shares.bind(1, std::int64_t{job.id});
      while (shares.step()) {
        sqlite3_stmt* s = shares.get();
        job.accepted.push_back({static_cast<std::uint64_t>(sqlite3_column_int64(s, 0)),
                                static_cast<std::uint64_t>(sqlite3_column_int64(s, 1)), text(s, 2),
                                static_cast<std::uint64_t>(sqlite3_column_int64(s, 3))});
      }
      Statement attempts(db_, path_,
                         "SELECT agent, first_unit, units, result_token, share_token, replicas, digest FROM job_attempts "
                         "WHERE job_id = ?1 ORDER BY rowid");
      attempts.bind(1, std::int64_t{job.id});
      while (attempts.step()) {
        sqlite3_stmt* s = attempts.get();
        job.attempts.push_back({text(s, 0), static_cast<std::uint64_t>(sqlite3_column_int64(s, 1)),
                                static_cast<std::uint64_t>(sqlite3_column_int64(s, 2)), blob(s, 3), blob(s, 4),
                                sqlite3_column_int(s, 5), blob(s, 6)});
      }
      Statement partials(db_, path_,
                         "SELECT agent, token, digest, size, input, other FROM reduction_partials WHERE job_id = ?1 "
                         "ORDER BY rowid");
      partials.bind(1, std::int64_t{job.id});
      while (partials.step()) {
        sqlite3_stmt* s = partials.get();
        job.partials.push_back({text(s, 0), blob(s, 1), blob(s, 2), static_cast<std::uint64_t>(sqlite3_column_int64(s, 3)),
                                blob(s, 4), blob(s, 5)});
      }
    }
    return out;
  });
}

}  // namespace hnow::daemon
