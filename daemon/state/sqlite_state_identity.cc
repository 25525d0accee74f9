// The identity row of state.db (sqlite_state_store.h), apart from the
// tables of hnowd's state for the file's size.
#include <sqlite3.h>

#include "state/sqlite_state_store.h"

namespace hnow::daemon {

Result<std::optional<std::string>> SqliteStateStore::identity() {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT id FROM state_identity LIMIT 1", -1, &statement, nullptr) != SQLITE_OK)
    return Error{path_ + ": " + sqlite3_errmsg(db_)};
  std::optional<std::string> id;
  const int rc = sqlite3_step(statement);
  if (rc == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(statement, 0);
    id = text ? std::string(reinterpret_cast<const char*>(text)) : std::string();
  }
  sqlite3_finalize(statement);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return Error{path_ + ": " + sqlite3_errmsg(db_)};
  return id;
}

Result<void> SqliteStateStore::setIdentity(const std::string& id) {
  sqlite3_stmt* statement = nullptr;
  char* message = nullptr;
  if (sqlite3_exec(db_, "BEGIN; DELETE FROM state_identity;", nullptr, nullptr, &message) != SQLITE_OK) {
    std::string what = path_ + ": " + (message ? message : sqlite3_errmsg(db_));
    sqlite3_free(message);
    return Error{what};
  }
  bool ok = sqlite3_prepare_v2(db_, "INSERT INTO state_identity (id) VALUES (?1)", -1, &statement, nullptr) ==
                SQLITE_OK &&
            sqlite3_bind_text(statement, 1, id.data(), static_cast<int>(id.size()), SQLITE_TRANSIENT) == SQLITE_OK &&
            sqlite3_step(statement) == SQLITE_DONE;
  sqlite3_finalize(statement);
  std::string what = ok ? "" : path_ + ": " + sqlite3_errmsg(db_);
  if (sqlite3_exec(db_, ok ? "COMMIT" : "ROLLBACK", nullptr, nullptr, nullptr) != SQLITE_OK && ok)
    what = path_ + ": " + sqlite3_errmsg(db_);
  if (!what.empty()) return Error{what};
  return {};
}

}  // namespace hnow::daemon
