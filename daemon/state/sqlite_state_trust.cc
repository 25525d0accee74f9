// Who hnowd trusts in state.db: agents' keys, revocations, enrollment tokens.
#include "state/sqlite_state_store.h"

#include "state/sqlite_statement.h"

namespace hnow::daemon {

using namespace sql;

namespace {

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
