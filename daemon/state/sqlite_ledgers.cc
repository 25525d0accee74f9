// The per-agent ledgers hnowd keeps across runs (state_store.h,
// StoredLedgerEntry) in state.db.
#include "state/sqlite_state_store.h"

#include "state/sqlite_statement.h"

namespace hnow::daemon {

using namespace sql;

Result<void> SqliteStateStore::saveLedger(const std::string& ledger, const std::vector<StoredLedgerEntry>& entries) {
  return guarded([&] {
    exec("BEGIN");
    try {
      Statement remove(db_, path_, "DELETE FROM ledgers WHERE ledger = ?1");
      remove.bind(1, ledger);
      remove.step();
      for (const StoredLedgerEntry& e : entries) {
        Statement insert(db_, path_, "INSERT INTO ledgers (ledger, agent, first, second) VALUES (?1, ?2, ?3, ?4)");
        insert.bind(1, ledger).bind(2, e.agent).bind(3, e.first).bind(4, e.second);
        insert.step();
      }
    } catch (const SqlFailure&) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    exec("COMMIT");
  });
}

Result<std::vector<StoredLedgerEntry>> SqliteStateStore::loadLedger(const std::string& ledger) {
  return guarded([&] {
    std::vector<StoredLedgerEntry> out;
    Statement select(db_, path_, "SELECT agent, first, second FROM ledgers WHERE ledger = ?1 ORDER BY agent");
    select.bind(1, ledger);
    while (select.step())
      out.push_back({text(select.get(), 0), sqlite3_column_int64(select.get(), 1), sqlite3_column_int64(select.get(), 2)});
    return out;
  });
}

}  // namespace hnow::daemon
