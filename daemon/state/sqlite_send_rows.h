#pragma once
// A send's request as the rows of `owed_sends` and `sends_under_way` hold
// it (StoredOwedSend), in one column order: id, path, dest, algo, compress,
// replan, atomic, delete_others, since_ms, max_rate_bytes_per_s, force.
// sqlite_owed_sends.cc.
#include <sqlite3.h>

#include <string>
#include <vector>

#include "state/sqlite_statement.h"
#include "state/state_store.h"

namespace hnow::daemon::sql {

// Those columns, as "id, path, ..." for a SELECT or an INSERT.
inline constexpr const char* kSendColumns =
    "id, path, dest, algo, compress, replan, atomic, delete_others, since_ms, max_rate_bytes_per_s, force";
// Binds ?1 to ?11 in that order.
void bindSend(Statement& insert, const StoredOwedSend& send);
// Reads columns 0 to 10 of a row selected in that order.
StoredOwedSend sendOf(sqlite3_stmt* row);
// The agents `sql` (one ?1: the send's id) selects, in its order.
std::vector<std::string> agentsOf(sqlite3* db, const std::string& path, const char* sql, OperationId id);

}  // namespace hnow::daemon::sql
