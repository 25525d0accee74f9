#pragma once
// SQLite as the state store's files use it: a failure thrown where it
// happens (a statement has many steps) and caught at each StateStore call,
// given back as an Error; statements finalized on every path out; rows
// written in one transaction or not at all. Only daemon/state includes it.
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "base/result.h"
#include "state/state_store.h"

namespace hnow::daemon::sql {

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

inline std::int64_t toMs(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
inline WallTime fromMs(std::int64_t ms) { return WallTime(std::chrono::milliseconds(ms)); }

inline std::string blob(sqlite3_stmt* s, int column) {
  auto p = static_cast<const char*>(sqlite3_column_blob(s, column));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s, column))) : std::string();
}

inline std::string text(sqlite3_stmt* s, int column) {
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
  Statement& bindBlob(int i, const std::string& v) {
    check(sqlite3_bind_blob(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
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

inline void execute(sqlite3* db, const std::string& path, const char* sql) {
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

}  // namespace hnow::daemon::sql
