#include "state/sqlite_state_store.h"

#include <sqlite3.h>

#include <filesystem>
#include <tuple>

#include "state/sqlite_statement.h"

namespace hnow::daemon {

using namespace sql;

namespace {

// Version 9 of the schema: version 8's `job_attempts` had no `replicas`
// and `digest`, which open() adds; version 7 had no `job_attempts`,
// `sends_under_way` and `send_agents`, and its `links` no
// `told_bytes_per_s`, which open() adds; version 6 had no `queued_jobs`, `running_jobs`,
// `accepted_shares` and `ledgers`; version 1 had no `links`, version 2 no
// `owed_sends` and `owed_agents`, version 4 no `agent_keys`,
// `revoked_keys` and `enroll_tokens`, version 5 no `state_identity`, which
// CREATE ... IF NOT EXISTS adds to them; version 3's `owed_sends` had no
// `force`, which open() adds.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS agents (
  name TEXT PRIMARY KEY,
  site TEXT NOT NULL,
  has_rates INTEGER NOT NULL,
  uplink_bytes_per_s REAL NOT NULL,
  downlink_bytes_per_s REAL NOT NULL,
  send_overhead_s REAL NOT NULL,
  recv_overhead_s REAL NOT NULL,
  compute_s_per_unit REAL NOT NULL,
  rates_at_ms INTEGER NOT NULL,
  last_seen_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS operations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  finished_ms INTEGER,
  status TEXT NOT NULL,
  summary TEXT NOT NULL CHECK (json_valid(summary))
);
CREATE TABLE IF NOT EXISTS links (
  node TEXT NOT NULL,
  direction TEXT NOT NULL CHECK (direction IN ('uplink', 'downlink')),
  bytes_per_s REAL NOT NULL,
  method TEXT NOT NULL,
  measured_ms INTEGER NOT NULL,
  spread REAL NOT NULL,
  told_bytes_per_s REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (node, direction)
);
CREATE TABLE IF NOT EXISTS owed_sends (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  dest TEXT NOT NULL,
  algo TEXT NOT NULL,
  compress TEXT NOT NULL,
  replan INTEGER NOT NULL,
  atomic INTEGER NOT NULL,
  delete_others INTEGER NOT NULL,
  max_rate_bytes_per_s REAL NOT NULL,
  since_ms INTEGER NOT NULL,
  force INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS owed_agents (
  send_id INTEGER NOT NULL REFERENCES owed_sends(id) ON DELETE CASCADE,
  agent TEXT NOT NULL,
  PRIMARY KEY (send_id, agent)
);
CREATE TABLE IF NOT EXISTS agent_keys (
  name TEXT PRIMARY KEY,
  key TEXT NOT NULL,
  how TEXT NOT NULL,
  at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS revoked_keys (
  key TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS enroll_tokens (
  id TEXT PRIMARY KEY,
  secret TEXT NOT NULL,
  name TEXT NOT NULL,
  made_by TEXT NOT NULL,
  made_ms INTEGER NOT NULL,
  expires_ms INTEGER NOT NULL
);
-- One row: the database's identity, which <data_dir>/state.mark repeats
-- (state_mark.h), so another or an emptied state.db is told from this one.
CREATE TABLE IF NOT EXISTS state_identity (
  id TEXT NOT NULL
);
-- Jobs waiting in hnowd's queue, their request's bytes (state_store.h).
CREATE TABLE IF NOT EXISTS queued_jobs (
  id INTEGER PRIMARY KEY,
  request BLOB NOT NULL
);
-- Jobs under way and their accepted shares, for the next hnowd to resume.
CREATE TABLE IF NOT EXISTS running_jobs (
  id INTEGER PRIMARY KEY,
  request BLOB NOT NULL,
  input_size INTEGER NOT NULL,
  input_modified_ns INTEGER NOT NULL,
  dir TEXT NOT NULL,
  calibrations TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS accepted_shares (
  job_id INTEGER NOT NULL,
  first_unit INTEGER NOT NULL,
  units INTEGER NOT NULL,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (job_id, first_unit)
);
-- Counts hnowd keeps per agent across runs (state_store.h, StoredLedgerEntry).
CREATE TABLE IF NOT EXISTS ledgers (
  ledger TEXT NOT NULL,
  agent TEXT NOT NULL,
  first INTEGER NOT NULL,
  second INTEGER NOT NULL,
  PRIMARY KEY (ledger, agent)
);
-- Attempts of a job under way that agents compute (state_store.h, StoredAttempt).
CREATE TABLE IF NOT EXISTS job_attempts (
  job_id INTEGER NOT NULL,
  result_token BLOB NOT NULL,
  agent TEXT NOT NULL,
  first_unit INTEGER NOT NULL,
  units INTEGER NOT NULL,
  share_token BLOB NOT NULL,
  replicas INTEGER NOT NULL DEFAULT 0,
  digest BLOB NOT NULL DEFAULT x'',
  PRIMARY KEY (job_id, result_token)
);
-- Sends under way and the agents each was for, for the next hnowd to run again.
CREATE TABLE IF NOT EXISTS sends_under_way (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  dest TEXT NOT NULL,
  algo TEXT NOT NULL,
  compress TEXT NOT NULL,
  replan INTEGER NOT NULL,
  atomic INTEGER NOT NULL,
  delete_others INTEGER NOT NULL,
  force INTEGER NOT NULL,
  until_all INTEGER NOT NULL,
  max_rate_bytes_per_s REAL NOT NULL,
  since_ms INTEGER NOT NULL,
  upload_key TEXT NOT NULL DEFAULT '',
  upload_stamp TEXT NOT NULL DEFAULT '',
  kept_tree TEXT NOT NULL DEFAULT '',
  uploaded_from TEXT NOT NULL DEFAULT '',
  not_kept_why TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS send_agents (
  send_id INTEGER NOT NULL,
  agent TEXT NOT NULL,
  PRIMARY KEY (send_id, agent)
);
PRAGMA user_version = 9;
)sql";

}  // namespace

Result<std::unique_ptr<SqliteStateStore>>
SqliteStateStore::open(const std::string& dataDir) {
  std::string path = (std::filesystem::path(dataDir) / "state.db").string();
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = path + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return Error{message};
  }
  std::unique_ptr<SqliteStateStore> store(new SqliteStateStore(db, path));
  try {
    // WAL: readers never block hnowd. synchronous=NORMAL: a commit is not
    // fsynced; a power cut may lose the last second, never corrupt the file.
    store->exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 2000;");
    store->exec(kSchema);
    // It holds enrollment tokens' secrets: its owner's alone, as a key file.
    std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::replace);
    // Columns an older schema's tables lack (CREATE ... IF NOT EXISTS leaves those tables as they are).
    for (const auto& [table, column, declaration] :
         {std::tuple{"owed_sends", "force", "INTEGER NOT NULL DEFAULT 0"},
          std::tuple{"links", "told_bytes_per_s", "REAL NOT NULL DEFAULT 0"},
          std::tuple{"job_attempts", "replicas", "INTEGER NOT NULL DEFAULT 0"},
          std::tuple{"job_attempts", "digest", "BLOB NOT NULL DEFAULT x''"},
          std::tuple{"sends_under_way", "upload_key", "TEXT NOT NULL DEFAULT ''"},
          std::tuple{"sends_under_way", "upload_stamp", "TEXT NOT NULL DEFAULT ''"},
          std::tuple{"sends_under_way", "kept_tree", "TEXT NOT NULL DEFAULT ''"},
          std::tuple{"sends_under_way", "uploaded_from", "TEXT NOT NULL DEFAULT ''"},
          std::tuple{"sends_under_way", "not_kept_why", "TEXT NOT NULL DEFAULT ''"}}) {
      bool has = true;
      {
        Statement count(db, path, "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2");
        count.bind(1, std::string(table)).bind(2, std::string(column));
        has = !count.step() || sqlite3_column_int(count.get(), 0) != 0;
      }
      if (!has) store->exec((std::string("ALTER TABLE ") + table + " ADD COLUMN " + column + " " + declaration).c_str());
    }
  } catch (const SqlFailure& e) {
    return Error{e.what()};
  }
  return store;
}

SqliteStateStore::~SqliteStateStore() { sqlite3_close(db_); }

void SqliteStateStore::exec(const char* sql) { execute(db_, path_, sql); }

Result<void> SqliteStateStore::saveAgents(const std::vector<StoredAgent>& agents) {
  return guarded([&] {
    insertAll(db_, path_,
              "INSERT OR REPLACE INTO agents (name, site, has_rates, uplink_bytes_per_s, "
              "downlink_bytes_per_s, send_overhead_s, recv_overhead_s, compute_s_per_unit, "
              "rates_at_ms, last_seen_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
              agents, [](Statement& insert, const StoredAgent& a) {
                insert.bind(1, a.name).bind(2, a.site).bind(3, std::int64_t{a.hasRates});
                insert.bind(4, a.rates.uplinkBytesPerSecond).bind(5, a.rates.downlinkBytesPerSecond);
                insert.bind(6, a.rates.sendOverheadSeconds).bind(7, a.rates.receiveOverheadSeconds);
                insert.bind(8, a.rates.computeSecondsPerUnit);
                insert.bind(9, toMs(a.ratesAt)).bind(10, toMs(a.lastSeen));
              });
  });
}

Result<std::vector<StoredAgent>> SqliteStateStore::loadAgents() {
  return guarded([&] {
    Statement select(db_, path_,
                     "SELECT name, site, has_rates, uplink_bytes_per_s, downlink_bytes_per_s, "
                     "send_overhead_s, recv_overhead_s, compute_s_per_unit, rates_at_ms, "
                     "last_seen_ms FROM agents ORDER BY name");
    std::vector<StoredAgent> out;
    while (select.step()) {
      sqlite3_stmt* s = select.get();
      StoredAgent a;
      a.name = text(s, 0);
      a.site = text(s, 1);
      a.hasRates = sqlite3_column_int(s, 2) != 0;
      a.rates.uplinkBytesPerSecond = sqlite3_column_double(s, 3);
      a.rates.downlinkBytesPerSecond = sqlite3_column_double(s, 4);
      a.rates.sendOverheadSeconds = sqlite3_column_double(s, 5);
      a.rates.receiveOverheadSeconds = sqlite3_column_double(s, 6);
      a.rates.computeSecondsPerUnit = sqlite3_column_double(s, 7);
      a.ratesAt = fromMs(sqlite3_column_int64(s, 8));
      a.lastSeen = fromMs(sqlite3_column_int64(s, 9));
      out.push_back(std::move(a));
    }
    return out;
  });
}

Result<void> SqliteStateStore::saveLinks(const std::vector<StoredLink>& links) {
  return guarded([&] {
    insertAll(db_, path_,
              "INSERT OR REPLACE INTO links (node, direction, bytes_per_s, method, measured_ms, spread, "
              "told_bytes_per_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
              links, [](Statement& insert, const StoredLink& l) {
                insert.bind(1, l.node).bind(2, l.direction).bind(3, l.bytesPerSecond).bind(4, l.method);
                insert.bind(5, toMs(l.measuredAt)).bind(6, l.spread).bind(7, l.toldBytesPerSecond);
              });
  });
}

Result<void> SqliteStateStore::forgetAgent(const std::string& name) {
  return guarded([&] {
    exec("BEGIN");
    try {
      for (const char* sql : {"DELETE FROM agents WHERE name = ?1", "DELETE FROM links WHERE node = ?1",
                              "DELETE FROM ledgers WHERE agent = ?1"}) {
        Statement remove(db_, path_, sql);
        remove.bind(1, name);
        remove.step();
      }
    } catch (const SqlFailure&) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    exec("COMMIT");
  });
}

Result<std::vector<StoredLink>> SqliteStateStore::loadLinks() {
  return guarded([&] {
    Statement select(db_, path_,
                     "SELECT node, direction, bytes_per_s, method, measured_ms, spread, told_bytes_per_s FROM links "
                     "ORDER BY node, direction");
    std::vector<StoredLink> out;
    while (select.step()) {
      sqlite3_stmt* s = select.get();
      out.push_back({text(s, 0), text(s, 1), sqlite3_column_double(s, 2), text(s, 3),
                     fromMs(sqlite3_column_int64(s, 4)), sqlite3_column_double(s, 5), sqlite3_column_double(s, 6)});
    }
    return out;
  });
}

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
