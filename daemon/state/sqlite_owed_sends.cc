// The sends hnowd still owes agents (core/send/owed_sends.h) in state.db.
#include "state/sqlite_state_store.h"

#include "state/sqlite_send_rows.h"
#include "state/sqlite_statement.h"

namespace hnow::daemon {

namespace sql {

void bindSend(Statement& insert, const StoredOwedSend& send) {
  insert.bind(1, std::int64_t{send.id}).bind(2, send.path).bind(3, send.dest).bind(4, send.algo);
  insert.bind(5, send.compress).bind(6, std::int64_t{send.replan}).bind(7, std::int64_t{send.atomic});
  insert.bind(8, std::int64_t{send.deleteOthers}).bind(9, toMs(send.since)).bind(10, send.maxRateBytesPerSecond);
  insert.bind(11, std::int64_t{send.force});
}

StoredOwedSend sendOf(sqlite3_stmt* s) {
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
  return o;
}

std::vector<std::string> agentsOf(sqlite3* db, const std::string& path, const char* sql, OperationId id) {
  std::vector<std::string> out;
  Statement agents(db, path, sql);
  agents.bind(1, std::int64_t{id});
  while (agents.step()) out.push_back(text(agents.get(), 0));
  return out;
}

}  // namespace sql

using namespace sql;

Result<void> SqliteStateStore::saveOwedSend(const StoredOwedSend& owed) {
  return guarded([&] {
    transaction(db_, path_, [&] {
      for (const char* sql : {"DELETE FROM owed_agents WHERE send_id = ?1", "DELETE FROM owed_sends WHERE id = ?1"}) {
        Statement remove(db_, path_, sql);
        remove.bind(1, std::int64_t{owed.id});
        remove.step();
      }
      if (owed.agents.empty()) return;
      Statement insert(db_, path_,
                       (std::string("INSERT INTO owed_sends (") + kSendColumns +
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)")
                           .c_str());
      bindSend(insert, owed);
      insert.step();
      for (const std::string& agent : owed.agents) {
        Statement add(db_, path_, "INSERT OR IGNORE INTO owed_agents (send_id, agent) VALUES (?1, ?2)");
        add.bind(1, std::int64_t{owed.id}).bind(2, agent);
        add.step();
      }
    });
  });
}

Result<std::vector<StoredOwedSend>> SqliteStateStore::loadOwedSends() {
  return guarded([&] {
    std::vector<StoredOwedSend> out;
    Statement select(db_, path_, (std::string("SELECT ") + kSendColumns + " FROM owed_sends ORDER BY id").c_str());
    while (select.step()) out.push_back(sendOf(select.get()));
    for (StoredOwedSend& o : out)
      o.agents = agentsOf(db_, path_, "SELECT agent FROM owed_agents WHERE send_id = ?1 ORDER BY agent", o.id);
    return out;
  });
}

}  // namespace hnow::daemon
