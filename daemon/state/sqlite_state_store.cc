#include "state/sqlite_state_store.h"

#include <sqlite3.h>

#include <filesystem>
#include <stdexcept>
#include <type_traits>

namespace hnow::daemon {

namespace {

// SQLite's failures inside this file: thrown where they happen (a statement
// has many steps), caught at each StateStore call and given back as an Error.
struct SqlFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `body` run, its SqlFailure as an Error.
template <class F>
auto guarded(F body) -> Result<decltype(body())> {
  try {
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
      return {};
    } else {
      return body();
    }
  } catch (const SqlFailure& e) {
    return Error{e.what()};
  }
}

// Version 6 of the schema: version 1 had no `links`, version 2 no
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
PRAGMA user_version = 6;
)sql";

std::int64_t toMs(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
WallTime fromMs(std::int64_t ms) { return WallTime(std::chrono::milliseconds(ms)); }

std::string text(sqlite3_stmt* s, int column) {
  auto p = sqlite3_column_text(s, column);
  return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
}

// One prepared statement, finalized on every path out.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql) : db_(db), path_(path) {
    check(sqlite3_prepare_v2(db, sql, -1, &s_, nullptr));
  }
  ~Statement() { sqlite3_finalize(s_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int i, double v) { check(sqlite3_bind_double(s_, i, v)); return *this; }
  Statement& bind(int i, std::int64_t v) { check(sqlite3_bind_int64(s_, i, v)); return *this; }
  Statement& bindNull(int i) { check(sqlite3_bind_null(s_, i)); return *this; }
  // True while there is a row to read.
  bool step() {
    int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) check(rc);
    return false;
  }
  void reset() { sqlite3_reset(s_); sqlite3_clear_bindings(s_); }
  sqlite3_stmt* get() { return s_; }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK)
      throw SqlFailure(path_ + ": " + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  const std::string& path_;
  sqlite3_stmt* s_ = nullptr;
};

void execute(sqlite3* db, const std::string& path, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string what = path + ": " + (message ? message : sqlite3_errmsg(db));
    sqlite3_free(message);
    throw SqlFailure(what);
  }
}

// Inserts `rows` by `sql` in one transaction, `bind` binding one row; on a
// failure nothing is written.
template <class Row, class Bind>
void insertAll(sqlite3* db, const std::string& path, const char* sql, const std::vector<Row>& rows, Bind bind) {
  if (rows.empty()) return;
  execute(db, path, "BEGIN");
  try {
    Statement insert(db, path, sql);
    for (const Row& row : rows) {
      bind(insert, row);
      insert.step();
      insert.reset();
    }
  } catch (const SqlFailure&) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  execute(db, path, "COMMIT");
}

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
    bool hasForce = true;
    {
      Statement forced(db, path, "SELECT count(*) FROM pragma_table_info('owed_sends') WHERE name = 'force'");
      hasForce = !forced.step() || sqlite3_column_int(forced.get(), 0) != 0;
    }
    if (!hasForce) store->exec("ALTER TABLE owed_sends ADD COLUMN force INTEGER NOT NULL DEFAULT 0");
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
              "INSERT OR REPLACE INTO links (node, direction, bytes_per_s, method, measured_ms, spread) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
              links, [](Statement& insert, const StoredLink& l) {
                insert.bind(1, l.node).bind(2, l.direction).bind(3, l.bytesPerSecond).bind(4, l.method);
                insert.bind(5, toMs(l.measuredAt)).bind(6, l.spread);
              });
  });
}

Result<void> SqliteStateStore::forgetAgent(const std::string& name) {
  return guarded([&] {
    exec("BEGIN");
    try {
      for (const char* sql : {"DELETE FROM agents WHERE name = ?1", "DELETE FROM links WHERE node = ?1"}) {
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
                     "SELECT node, direction, bytes_per_s, method, measured_ms, spread FROM links ORDER BY node, direction");
    std::vector<StoredLink> out;
    while (select.step()) {
      sqlite3_stmt* s = select.get();
      out.push_back({text(s, 0), text(s, 1), sqlite3_column_double(s, 2), text(s, 3),
                     fromMs(sqlite3_column_int64(s, 4)), sqlite3_column_double(s, 5)});
    }
    return out;
  });
}

Result<void> SqliteStateStore::saveOwedSend(const StoredOwedSend& owed) {
  return guarded([&] {
    exec("BEGIN");
    try {
      for (const char* sql : {"DELETE FROM owed_agents WHERE send_id = ?1", "DELETE FROM owed_sends WHERE id = ?1"}) {
        Statement remove(db_, path_, sql);
        remove.bind(1, std::int64_t{owed.id});
        remove.step();
      }
      if (!owed.agents.empty()) {
        Statement insert(db_, path_,
                         "INSERT INTO owed_sends (id, path, dest, algo, compress, replan, atomic, delete_others, "
                         "since_ms, max_rate_bytes_per_s, force) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
        insert.bind(1, std::int64_t{owed.id}).bind(2, owed.path).bind(3, owed.dest).bind(4, owed.algo);
        insert.bind(5, owed.compress).bind(6, std::int64_t{owed.replan}).bind(7, std::int64_t{owed.atomic});
        insert.bind(8, std::int64_t{owed.deleteOthers}).bind(9, toMs(owed.since)).bind(10, owed.maxRateBytesPerSecond);
        insert.bind(11, std::int64_t{owed.force});
        insert.step();
        for (const std::string& agent : owed.agents) {
          Statement add(db_, path_, "INSERT OR IGNORE INTO owed_agents (send_id, agent) VALUES (?1, ?2)");
          add.bind(1, std::int64_t{owed.id}).bind(2, agent);
          add.step();
        }
      }
    } catch (const SqlFailure&) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    exec("COMMIT");
  });
}

Result<std::vector<StoredOwedSend>> SqliteStateStore::loadOwedSends() {
  return guarded([&] {
    std::vector<StoredOwedSend> out;
    Statement select(db_, path_,
                     "SELECT id, path, dest, algo, compress, replan, atomic, delete_others, since_ms, max_rate_bytes_per_s, "
                     "force FROM owed_sends "
                     "ORDER BY id");
    while (select.step()) {
      sqlite3_stmt* s = select.get();
      StoredOwedSend o;
      o.id = sqlite3_column_int64(s, 0);
      o.path = text(s, 1);
      o.dest = text(s, 2);
      o.algo = text(s, 3);
      o.compress = text(s, 4);
      o.replan = sqlite3_column_int(s, 5) != 0;
      o.atomic = sqlite3_column_int(s, 6) != 0;
      o.deleteOthers = sqlite3_column_int(s, 7) != 0;
      o.since = fromMs(sqlite3_column_int64(s, 8));
      o.maxRateBytesPerSecond = sqlite3_column_double(s, 9);
      o.force = sqlite3_column_int(s, 10) != 0;
      out.push_back(std::move(o));
    }
    for (StoredOwedSend& o : out) {
      Statement agents(db_, path_, "SELECT agent FROM owed_agents WHERE send_id = ?1 ORDER BY agent");
      agents.bind(1, std::int64_t{o.id});
      while (agents.step()) o.agents.push_back(text(agents.get(), 0));
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
                     "AND status = 'running'");
    update.bind(1, toMs(finished)).bind(2, status).bind(3, summary).bind(4, std::int64_t{id});
    update.step();
  });
}

Result<int> SqliteStateStore::interruptRunning(WallTime at) {
  return guarded([&] {
    Statement update(db_, path_,
                     "UPDATE operations SET finished_ms = ?1, status = 'interrupted' WHERE status = 'running'");
    update.bind(1, toMs(at));
    update.step();
    return sqlite3_changes(db_);
  });
}

Result<std::vector<OperationRecord>> SqliteStateStore::operations(std::size_t limit) {
  return guarded([&] {
    Statement select(db_, path_,
                     "SELECT id, kind, started_ms, finished_ms, status, summary FROM operations "
                     "ORDER BY id DESC LIMIT ?1");
    select.bind(1, static_cast<std::int64_t>(limit));
    std::vector<OperationRecord> out;
    while (select.step()) {
      sqlite3_stmt* s = select.get();
      OperationRecord r;
      r.id = sqlite3_column_int64(s, 0);
      r.kind = text(s, 1);
      r.started = fromMs(sqlite3_column_int64(s, 2));
      if (sqlite3_column_type(s, 3) != SQLITE_NULL) r.finished = fromMs(sqlite3_column_int64(s, 3));
      r.status = text(s, 4);
      r.summary = text(s, 5);
      out.push_back(std::move(r));
    }
    return out;
  });
}

namespace {

// `body` inside one transaction: all of it written, or nothing.
template <class F>
void transaction(sqlite3* db, const std::string& path, F body) {
  execute(db, path, "BEGIN");
  try {
    body();
  } catch (const SqlFailure&) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  execute(db, path, "COMMIT");
}

void insertIdentity(sqlite3* db, const std::string& path, const StoredIdentity& i) {
  Statement insert(db, path, "INSERT OR REPLACE INTO agent_keys (name, key, how, at_ms) VALUES (?1, ?2, ?3, ?4)");
  insert.bind(1, i.name).bind(2, i.key).bind(3, i.how).bind(4, toMs(i.at));
  insert.step();
}

}  // namespace

Result<void> SqliteStateStore::saveIdentity(const StoredIdentity& identity) {
  return guarded([&] { insertIdentity(db_, path_, identity); });
}

Result<void> SqliteStateStore::saveRevocation(const StoredRevocation& r) {
  return guarded([&] {
    transaction(db_, path_, [&] {
      Statement remove(db_, path_, "DELETE FROM agent_keys WHERE name = ?1");
      remove.bind(1, r.name);
      remove.step();
      Statement insert(db_, path_, "INSERT OR REPLACE INTO revoked_keys (key, name, at_ms) VALUES (?1, ?2, ?3)");
      insert.bind(1, r.key).bind(2, r.name).bind(3, toMs(r.at));
      insert.step();
    });
  });
}

Result<void> SqliteStateStore::saveToken(const StoredToken& t) {
  return guarded([&] {
    Statement insert(db_, path_,
                     "INSERT OR REPLACE INTO enroll_tokens (id, secret, name, made_by, made_ms, expires_ms) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    insert.bind(1, t.id).bind(2, t.secret).bind(3, t.name).bind(4, t.madeBy);
    insert.bind(5, toMs(t.made)).bind(6, toMs(t.expires));
    insert.step();
  });
}

Result<void> SqliteStateStore::useToken(const std::string& id, const StoredIdentity& enrolled) {
  return guarded([&] {
    transaction(db_, path_, [&] {
      Statement remove(db_, path_, "DELETE FROM enroll_tokens WHERE id = ?1");
      remove.bind(1, id);
      remove.step();
      if (!enrolled.name.empty()) insertIdentity(db_, path_, enrolled);
    });
  });
}

Result<StoredTrust> SqliteStateStore::loadTrust() {
  return guarded([&] {
    StoredTrust out;
    Statement identities(db_, path_, "SELECT name, key, how, at_ms FROM agent_keys ORDER BY name");
    while (identities.step()) {
      sqlite3_stmt* s = identities.get();
      out.identities.push_back({text(s, 0), text(s, 1), text(s, 2), fromMs(sqlite3_column_int64(s, 3))});
    }
    Statement revoked(db_, path_, "SELECT key, name, at_ms FROM revoked_keys ORDER BY at_ms");
    while (revoked.step()) {
      sqlite3_stmt* s = revoked.get();
      out.revocations.push_back({text(s, 0), text(s, 1), fromMs(sqlite3_column_int64(s, 2))});
    }
    Statement tokens(db_, path_,
                     "SELECT id, secret, name, made_by, made_ms, expires_ms FROM enroll_tokens ORDER BY made_ms");
    while (tokens.step()) {
      sqlite3_stmt* s = tokens.get();
      StoredToken t;
      t.id = text(s, 0);
      t.secret = text(s, 1);
      t.name = text(s, 2);
      t.madeBy = text(s, 3);
      t.made = fromMs(sqlite3_column_int64(s, 4));
      t.expires = fromMs(sqlite3_column_int64(s, 5));
      out.tokens.push_back(std::move(t));
    }
    return out;
  });
}

}  // namespace hnow::daemon
