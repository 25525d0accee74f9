// The partials a --reduce job's reduction combined, in state.db
// (SqliteStateStore::saveReductionPartial): read back with their job in
// the order made, and gone with it; a state.db of schema version 9 gets
// their table.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include "cli/run_process.h"
#include "state/sqlite_state_store.h"

using namespace hnow;
using namespace hnow::daemon;
using hnow::testing::TempDir;

TEST_CASE("a --reduce job's partials are read back with it after reopening, in the order made, and go with it") {
  TempDir dir;
  {
    auto store = SqliteStateStore::open(dir.path.string()).value();
    REQUIRE(store->saveRunningJob({7, "req", 100, 0, "/jobs/job-7-1", {}}).ok());
    const StoredPartial later{"a1", std::string(32, 'z'), std::string(32, 'd'), 12, std::string(32, 'x'),
                              std::string(32, 'c')};
    const StoredPartial first{"a2", std::string(32, 'x'), std::string(32, 'e'), 11, std::string(32, 'a'),
                              std::string(32, 'b')};
    REQUIRE(store->saveReductionPartial(7, first).ok());
    REQUIRE(store->saveReductionPartial(7, later).ok());
  }
  auto store = SqliteStateStore::open(dir.path.string()).value();
  auto jobs = store->loadRunningJobs().value();
  REQUIRE(jobs.size() == 1);
  REQUIRE(jobs[0].partials.size() == 2);
  const StoredPartial& p = jobs[0].partials[0];
  CHECK(p.agent == "a2");
  CHECK(p.token == std::string(32, 'x'));
  CHECK(p.digest == std::string(32, 'e'));
  CHECK(p.size == 11);
  CHECK(p.input == std::string(32, 'a'));
  CHECK(p.other == std::string(32, 'b'));
  CHECK(jobs[0].partials[1].input == std::string(32, 'x'));  // made from the first
  REQUIRE(store->removeRunningJob(7).ok());
  REQUIRE(store->saveRunningJob({7, "req", 100, 0, "/jobs/job-7-2", {}}).ok());
  CHECK(store->loadRunningJobs().value().at(0).partials.empty());
}

TEST_CASE("a state.db of schema version 9 gets the reduction_partials table: its jobs read back with none") {
  TempDir dir;
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((dir.path / "state.db").string().c_str(), &db) == SQLITE_OK);
    const char* v9 =
        "CREATE TABLE running_jobs (id INTEGER PRIMARY KEY, request BLOB NOT NULL, input_size INTEGER NOT NULL,"
        " input_modified_ns INTEGER NOT NULL, dir TEXT NOT NULL, calibrations TEXT NOT NULL);"
        "INSERT INTO running_jobs VALUES (3, x'01', 100, 0, '/jobs/job-3-1', '');"
        "PRAGMA user_version = 9;";
    REQUIRE(sqlite3_exec(db, v9, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  auto store = SqliteStateStore::open(dir.path.string()).value();
  auto jobs = store->loadRunningJobs();
  REQUIRE_MESSAGE(jobs.ok(), (jobs.ok() ? "" : jobs.error().message));
  REQUIRE(jobs->size() == 1);
  CHECK(jobs->at(0).partials.empty());
  REQUIRE(store->saveReductionPartial(3, {"a1", "t", "d", 1, "i", "o"}).ok());
  CHECK(store->loadRunningJobs()->at(0).partials.size() == 1);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((dir.path / "state.db").string().c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* version = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &version, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(version) == SQLITE_ROW);
  CHECK(sqlite3_column_int(version, 0) == 10);
  sqlite3_finalize(version);
  sqlite3_close(db);
}
