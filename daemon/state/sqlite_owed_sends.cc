// The sends hnowd still owes agents (core/send/owed_sends.h) in state.db.
#include "state/sqlite_state_store.h"

#include "state/sqlite_statement.h"

namespace hnow::daemon {

using namespace sql;

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

}  // namespace hnow::daemon
