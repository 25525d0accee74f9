// The sends under way (state_store.h, StoredSendUnderWay) in state.db, for
// the next hnowd to run again under their records.
#include "state/sqlite_state_store.h"

#include "state/sqlite_send_rows.h"
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
                       (std::string("INSERT INTO sends_under_way (") + kSendColumns +
                        ", until_all, upload_key, upload_stamp, kept_tree, uploaded_from, not_kept_why) VALUES (?1, "
                        "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)")
                           .c_str());
      bindSend(insert, send);
      insert.bind(12, std::int64_t{send.untilAll}).bind(13, send.uploadKey).bind(14, send.uploadStamp);
      insert.bind(15, send.keptTree).bind(16, send.uploadedFrom).bind(17, send.notKeptWhy);
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
                     (std::string("SELECT ") + kSendColumns +
                      ", until_all, upload_key, upload_stamp, kept_tree, uploaded_from, not_kept_why FROM "
                      "sends_under_way ORDER BY id")
                         .c_str());
    while (select.step()) {
      StoredSendUnderWay w;
      static_cast<StoredOwedSend&>(w) = sendOf(select.get());
      w.untilAll = sqlite3_column_int(select.get(), 11) != 0;
      w.uploadKey = text(select.get(), 12);
      w.uploadStamp = text(select.get(), 13);
      w.keptTree = text(select.get(), 14);
      w.uploadedFrom = text(select.get(), 15);
      w.notKeptWhy = text(select.get(), 16);
      out.push_back(std::move(w));
    }
    for (StoredSendUnderWay& w : out)
      w.agents = agentsOf(db_, path_, "SELECT agent FROM send_agents WHERE send_id = ?1 ORDER BY agent", w.id);
    return out;
  });
}

}  // namespace hnow::daemon
