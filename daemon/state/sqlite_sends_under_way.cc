// The sends under way (state_store.h, StoredSendUnderWay) in state.db, for
// the next hnowd to run again under their records.
#include "state/sqlite_state_store.h"

#include "state/sqlite_statement.h"

namespace hnow::daemon {

using namespace sql;

namespace {

void removeRows(sqlite3* db, const std::string& path, OperationId id) {
  for (const char* sql : {"DELETE FROM send_agents WHERE send_id = ?1", "DELETE FROM sends_under_way WHERE id = ?1"}) {
    Statement remove(db, path, sql);
    remove.bind(1, std::int64_t{id});
    remove.step();
  }
}

}  // namespace

Result<void> SqliteStateStore::saveSendUnderWay(const StoredSendUnderWay& send) {
  return guarded([&] {
    transaction(db_, path_, [&] {
      removeRows(db_, path_, send.id);
      Statement insert(db_, path_,
                       "INSERT INTO sends_under_way (id, path, dest, algo, compress, replan, atomic, delete_others, "
                       "force, until_all, max_rate_bytes_per_s, since_ms) "
                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
      insert.bind(1, std::int64_t{send.id}).bind(2, send.path).bind(3, send.dest).bind(4, send.algo);
      insert.bind(5, send.compress).bind(6, std::int64_t{send.replan}).bind(7, std::int64_t{send.atomic});
      insert.bind(8, std::int64_t{send.deleteOthers}).bind(9, std::int64_t{send.force});
      insert.bind(10, std::int64_t{send.untilAll}).bind(11, send.maxRateBytesPerSecond).bind(12, toMs(send.since));
      insert.step();
      Statement add(db_, path_, "INSERT OR IGNORE INTO send_agents (send_id, agent) VALUES (?1, ?2)");
      for (const std::string& agent : send.agents) {
        add.bind(1, std::int64_t{send.id}).bind(2, agent);
        add.step();
        add.reset();
      }
    });
  });
}

Result<void> SqliteStateStore::removeSendUnderWay(OperationId id) {
  return guarded([&] { transaction(db_, path_, [&] { removeRows(db_, path_, id); }); });
}

Result<std::vector<StoredSendUnderWay>> SqliteStateStore::loadSendsUnderWay() {
  return guarded([&] {
    std::vector<StoredSendUnderWay> out;
    Statement select(db_, path_,
                     "SELECT id, path, dest, algo, compress, replan, atomic, delete_others, force, until_all, "
                     "max_rate_bytes_per_s, since_ms FROM sends_under_way ORDER BY id");
    while (select.step()) {
      sqlite3_stmt* s = select.get();
      StoredSendUnderWay w;
      w.id = sqlite3_column_int64(s, 0);
      w.path = text(s, 1);
      w.dest = text(s, 2);
      w.algo = text(s, 3);
      w.compress = text(s, 4);
      w.replan = sqlite3_column_int(s, 5) != 0;
      w.atomic = sqlite3_column_int(s, 6) != 0;
      w.deleteOthers = sqlite3_column_int(s, 7) != 0;
      w.force = sqlite3_column_int(s, 8) != 0;
      w.untilAll = sqlite3_column_int(s, 9) != 0;
      w.maxRateBytesPerSecond = sqlite3_column_double(s, 10);
      w.since = fromMs(sqlite3_column_int64(s, 11));
      out.push_back(std::move(w));
    }
    for (StoredSendUnderWay& w : out) {
      Statement agents(db_, path_, "SELECT agent FROM send_agents WHERE send_id = ?1 ORDER BY agent");
      agents.bind(1, std::int64_t{w.id});
      while (agents.step()) w.agents.push_back(text(agents.get(), 0));
    }
    return out;
  });
}

}  // namespace hnow::daemon
