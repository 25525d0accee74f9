// The SQLite StateStore against a temporary data directory.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <sqlite3.h>

#include "cli/run_process.h"
#include "state/sqlite_state_store.h"

using namespace hnow;
using namespace hnow::daemon;
using hnow::testing::TempDir;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<SqliteStateStore> openIn(const std::filesystem::path& dir) {
  auto opened = SqliteStateStore::open(dir.string());
  REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
  return std::move(opened).value();
}

StoredAgent storedAgent(const std::string& name, double uplink) {
  StoredAgent a;
  a.name = name;
  a.site = "room-" + name;
  a.hasRates = uplink > 0;
  a.rates.uplinkBytesPerSecond = uplink;
  a.rates.downlinkBytesPerSecond = 2 * uplink;
  a.rates.sendOverheadSeconds = 1e-5;
  a.rates.receiveOverheadSeconds = 2e-5;
  a.rates.computeSecondsPerUnit = 0.003;
  a.ratesAt = WallTime(1'700'000'000'123ms);
  a.lastSeen = WallTime(1'700'000'005'456ms);
  return a;
}

}  // namespace

TEST_CASE("agents and operation records written to state.db are read back after reopening") {
  TempDir dir;
  {
    auto store = openIn(dir.path);
    store->saveAgents({storedAgent("b", 1e6), storedAgent("a", 0)});
    OperationRecord record;
    record.kind = "set-rate";
    record.started = WallTime(1'700'000'010'000ms);
    record.status = "running";
    record.summary = R"({"agent":"a"})";
    OperationId first = store->beginOperation(record).value();
    store->finishOperation(first, WallTime(1'700'000'011'500ms), "done", R"({"agent":"a","ok":true})");
    record.summary = "{}";
    OperationId second = store->beginOperation(record).value();
    CHECK(second > first);
    CHECK(std::filesystem::exists(dir.path / "state.db-wal"));  // WAL mode
  }
  auto store = openIn(dir.path);
  auto agents = store->loadAgents().value();
  REQUIRE(agents.size() == 2);
  CHECK(agents[0].name == "a");
  CHECK_FALSE(agents[0].hasRates);
  const StoredAgent& b = agents[1];
  CHECK(b.site == "room-b");
  CHECK(b.hasRates);
  CHECK(b.rates.uplinkBytesPerSecond == 1e6);
  CHECK(b.rates.downlinkBytesPerSecond == 2e6);
  CHECK(b.rates.sendOverheadSeconds == 1e-5);
  CHECK(b.rates.receiveOverheadSeconds == 2e-5);
  CHECK(b.rates.computeSecondsPerUnit == 0.003);
  CHECK(b.ratesAt == WallTime(1'700'000'000'123ms));
  CHECK(b.lastSeen == WallTime(1'700'000'005'456ms));

  auto records = store->operations(10).value();
  REQUIRE(records.size() == 2);
  CHECK(records[0].status == "running");  // newest first
  CHECK_FALSE(records[0].finished.has_value());
  CHECK(records[1].kind == "set-rate");
  CHECK(records[1].status == "done");
  CHECK(records[1].started == WallTime(1'700'000'010'000ms));
  REQUIRE(records[1].finished.has_value());
  CHECK(*records[1].finished == WallTime(1'700'000'011'500ms));
  CHECK(records[1].summary == R"({"agent":"a","ok":true})");
  CHECK(store->operations(1)->size() == 1);
  // One record by its id, as `hnow cancel` reads it; none for an id never given.
  auto one = store->operation(records[1].id).value();
  REQUIRE(one.has_value());
  CHECK(one->status == "done");
  CHECK(one->summary == R"({"agent":"a","ok":true})");
  CHECK_FALSE(store->operation(records[0].id + 1).value().has_value());
}

TEST_CASE("saving an agent again replaces its row") {
  TempDir dir;
  auto store = openIn(dir.path);
  store->saveAgents({storedAgent("a", 1e6)});
  store->saveAgents({storedAgent("a", 3e6)});
  auto agents = store->loadAgents().value();
  REQUIRE(agents.size() == 1);
  CHECK(agents[0].rates.uplinkBytesPerSecond == 3e6);
}

TEST_CASE("an operation summary that is not JSON is refused with an error naming state.db") {
  TempDir dir;
  auto store = openIn(dir.path);
  OperationRecord record;
  record.kind = "send";
  record.status = "running";
  record.summary = "{not json";
  auto refused = store->beginOperation(record);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("state.db") != std::string::npos);
  CHECK(store->operations(10)->empty());
}

TEST_CASE("a data directory that cannot hold state.db is an error value naming the file") {
  TempDir dir;
  std::ofstream(dir.path / "not-a-directory") << "x";
  auto opened = SqliteStateStore::open((dir.path / "not-a-directory").string());
  REQUIRE_FALSE(opened.ok());
  CHECK(opened.error().message.find("not-a-directory/state.db") != std::string::npos);
}

TEST_CASE("records left running by a stopped hnowd are marked interrupted, finished ones kept") {
  TempDir dir;
  auto store = openIn(dir.path);
  OperationRecord record;
  record.kind = "send";
  record.started = WallTime(1'700'000'010'000ms);
  record.status = "running";
  OperationId done = store->beginOperation(record).value();
  store->finishOperation(done, WallTime(1'700'000'011'000ms), "done", "{}");
  store->beginOperation(record);
  store->beginOperation(record);
  CHECK(*store->interruptRunning(WallTime(1'700'000'020'000ms)) == 2);
  auto records = store->operations(10).value();
  REQUIRE(records.size() == 3);
  CHECK(records[0].status == "interrupted");
  REQUIRE(records[0].finished.has_value());
  CHECK(*records[0].finished == WallTime(1'700'000'020'000ms));
  CHECK(records[1].status == "interrupted");
  CHECK(records[2].status == "done");
  CHECK(*records[2].finished == WallTime(1'700'000'011'000ms));
  CHECK(*store->interruptRunning(WallTime(1'700'000'030'000ms)) == 0);
  // A record ends once; what a stopping hnowd's services report
  // after it marked them interrupted does not change them.
  store->finishOperation(records[0].id, WallTime(1'700'000'040'000ms), "failed", R"({"late":true})");
  store->finishOperation(records[2].id, WallTime(1'700'000'040'000ms), "failed", "{}");
  records = store->operations(10).value();
  CHECK(records[0].status == "interrupted");
  CHECK(*records[0].finished == WallTime(1'700'000'020'000ms));
  CHECK(records[2].status == "done");
}

TEST_CASE("a queued record becomes running when launched, ends once, and is interrupted like a running one") {
  TempDir dir;
  auto store = openIn(dir.path);
  OperationRecord record;
  record.kind = "run";
  record.started = WallTime(1'700'000'010'000ms);
  record.status = "queued";
  OperationId launched = store->beginOperation(record).value();
  OperationId cancelled = store->beginOperation(record).value();
  OperationId waiting = store->beginOperation(record).value();
  REQUIRE(store->launchOperation(launched).ok());
  CHECK(store->operation(launched).value()->status == "running");
  REQUIRE(store->finishOperation(cancelled, WallTime(1'700'000'011'000ms), "cancelled", "{}").ok());
  store->launchOperation(cancelled);  // ended: launching it again changes nothing
  CHECK(store->operation(cancelled).value()->status == "cancelled");
  CHECK(*store->interruptRunning(WallTime(1'700'000'020'000ms)) == 2);
  CHECK(store->operation(launched).value()->status == "interrupted");
  CHECK(store->operation(waiting).value()->status == "interrupted");
}

TEST_CASE("a queued job's request is kept across reopening, survives the interrupting of records under way, and goes when removed") {
  TempDir dir;
  OperationId kept = 0, unkept = 0;
  const std::string bytes("\x00\x01request\xff\x00", 11);  // a blob: zero bytes inside
  {
    auto store = openIn(dir.path);
    OperationRecord record;
    record.kind = "run";
    record.started = WallTime(1'700'000'010'000ms);
    record.status = "queued";
    kept = store->beginOperation(record).value();
    unkept = store->beginOperation(record).value();
    REQUIRE(store->saveQueuedJob({kept, bytes}).ok());
  }
  auto store = openIn(dir.path);
  CHECK(*store->interruptRunning(WallTime(1'700'000'020'000ms)) == 1);
  CHECK(store->operation(kept).value()->status == "queued");
  CHECK(store->operation(unkept).value()->status == "interrupted");
  auto queued = store->loadQueuedJobs().value();
  REQUIRE(queued.size() == 1);
  CHECK(queued[0].id == kept);
  CHECK(queued[0].request == bytes);
  REQUIRE(store->removeQueuedJob(kept).ok());
  CHECK(store->loadQueuedJobs().value().empty());
}

TEST_CASE("a ledger is kept across reopening, replaced whole when saved again, and an agent forgotten leaves every ledger") {
  TempDir dir;
  {
    auto store = openIn(dir.path);
    REQUIRE(store->saveLedger("host-trust", {{"a1", 12, 0}, {"a2", 3, 1}}).ok());
    REQUIRE(store->saveLedger("relay-faults", {{"a2", 2, 0}}).ok());
  }
  auto store = openIn(dir.path);
  auto trust = store->loadLedger("host-trust").value();
  REQUIRE(trust.size() == 2);
  CHECK(trust[0].agent == "a1");
  CHECK(trust[0].first == 12);
  CHECK(trust[1].second == 1);
  REQUIRE(store->saveLedger("host-trust", {{"a3", 1, 0}}).ok());
  trust = store->loadLedger("host-trust").value();
  REQUIRE(trust.size() == 1);
  CHECK(trust[0].agent == "a3");
  REQUIRE(store->forgetAgent("a2").ok());
  CHECK(store->loadLedger("relay-faults").value().empty());
  CHECK(store->loadLedger("nothing").value().empty());
}

TEST_CASE("a job under way is kept across reopening with its accepted shares and calibrations, is not interrupted, and goes whole") {
  TempDir dir;
  OperationId id = 0;
  {
    auto store = openIn(dir.path);
    OperationRecord record;
    record.kind = "run";
    record.started = WallTime(1'700'000'010'000ms);
    record.status = "running";
    id = store->beginOperation(record).value();
    REQUIRE(store->saveRunningJob({id, std::string("\x01\x00req", 5), 28890, 1'700'000'000'123'456'789, "/var/lib/hnow/jobs/job-1-7",
                                   {}, "a1 0.001 0.01 0.5 0.0002\n"}).ok());
    REQUIRE(store->saveAcceptedShare(id, {2000, 500, "/var/lib/hnow/jobs/job-1-7/result-4", 4}).ok());
    REQUIRE(store->saveAcceptedShare(id, {0, 1000, "/var/lib/hnow/jobs/job-1-7/result-0", 5}).ok());
    REQUIRE(store->saveJobAttempt(id, {"a2", 1000, 1000, std::string(32, 'r'), std::string(32, 's')}).ok());
    REQUIRE(store->saveJobAttempt(id, {"a1", 2500, 500, std::string(32, 'q'), std::string(32, 't')}).ok());
    // a2's result computed: its digest and its share's replicas written over the same row.
    REQUIRE(store->saveJobAttempt(id, {"a2", 1000, 1000, std::string(32, 'r'), std::string(32, 's'), 2,
                                       std::string(32, 'd')}).ok());
  }
  auto store = openIn(dir.path);
  CHECK(*store->interruptRunning(WallTime(1'700'000'020'000ms)) == 0);
  auto jobs = store->loadRunningJobs().value();
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].id == id);
  CHECK(jobs[0].request == std::string("\x01\x00req", 5));
  CHECK(jobs[0].inputSize == 28890);
  CHECK(jobs[0].inputModifiedNs == 1'700'000'000'123'456'789);
  CHECK(jobs[0].calibrations == "a1 0.001 0.01 0.5 0.0002\n");
  REQUIRE(jobs[0].accepted.size() == 2);
  CHECK(jobs[0].accepted[0].firstUnit == 0);  // in input order
  CHECK(jobs[0].accepted[1].path == "/var/lib/hnow/jobs/job-1-7/result-4");
  REQUIRE(jobs[0].attempts.size() == 2);  // in the order they were sent
  CHECK(jobs[0].attempts[0].agent == "a2");
  CHECK(jobs[0].attempts[0].firstUnit == 1000);
  CHECK(jobs[0].attempts[0].resultToken == std::string(32, 'r'));
  CHECK(jobs[0].attempts[0].replicas == 2);
  CHECK(jobs[0].attempts[0].digest == std::string(32, 'd'));
  CHECK(jobs[0].attempts[1].shareToken == std::string(32, 't'));
  CHECK(jobs[0].attempts[1].replicas == 0);
  CHECK(jobs[0].attempts[1].digest.empty());
  REQUIRE(store->removeRunningJob(id).ok());
  CHECK(store->loadRunningJobs().value().empty());
  CHECK(*store->interruptRunning(WallTime(1'700'000'030'000ms)) == 1);  // no longer kept: interrupted
}

TEST_CASE("forgetting an agent removes its row and its links from state.db, and only its") {
  TempDir dir;
  {
    auto store = openIn(dir.path);
    REQUIRE(store->saveAgents({storedAgent("a", 1e6), storedAgent("b", 2e6)}).ok());
    REQUIRE(store->saveLinks({{"a", "uplink", 1e6, "probe", WallTime(1'700'000'000'000ms), 0.01},
                              {"a", "downlink", 2e6, "probe", WallTime(1'700'000'000'000ms), 0.01},
                              {"b", "uplink", 3e6, "passive", WallTime(1'700'000'000'000ms), 0.02}})
                .ok());
    REQUIRE(store->forgetAgent("a").ok());
    REQUIRE(store->forgetAgent("never-there").ok());
  }
  auto reopened = openIn(dir.path);
  auto agents = reopened->loadAgents().value();
  REQUIRE(agents.size() == 1);
  CHECK(agents[0].name == "b");
  auto links = reopened->loadLinks().value();
  REQUIRE(links.size() == 1);
  CHECK(links[0].node == "b");
}

TEST_CASE("a send owed to agents is read back after reopening, replaced when saved again, and removed when none are owed") {
  TempDir dir;
  StoredOwedSend owed;
  owed.id = 7;
  owed.path = "/srv/course";
  owed.dest = "course";
  owed.algo = "auto";
  owed.compress = "zstd";
  owed.replan = false;
  owed.atomic = true;
  owed.deleteOthers = false;
  owed.maxRateBytesPerSecond = 12.5e6;
  owed.force = true;
  owed.agents = {"lab-3", "lab-9"};
  owed.since = WallTime(1'700'000'000'123ms);
  {
    auto store = openIn(dir.path);
    REQUIRE(store->saveOwedSend(owed).ok());
    StoredOwedSend other = owed;
    other.id = 9;
    other.path = "/srv/image.iso";
    other.agents = {"lab-1"};
    REQUIRE(store->saveOwedSend(other).ok());
  }
  auto store = openIn(dir.path);
  auto loaded = store->loadOwedSends();
  REQUIRE(loaded.ok());
  REQUIRE(loaded->size() == 2);
  const StoredOwedSend& back = loaded->at(0);
  CHECK(back.id == 7);
  CHECK(back.path == "/srv/course");
  CHECK(back.dest == "course");
  CHECK(back.compress == "zstd");
  CHECK_FALSE(back.replan);
  CHECK(back.atomic);
  CHECK_FALSE(back.deleteOthers);
  CHECK(back.maxRateBytesPerSecond == 12.5e6);
  CHECK(back.force);
  CHECK(back.agents == std::vector<std::string>{"lab-3", "lab-9"});
  CHECK(back.since == owed.since);

  owed.agents = {"lab-9"};  // lab-3 got its copy
  REQUIRE(store->saveOwedSend(owed).ok());
  CHECK(store->loadOwedSends()->at(0).agents == std::vector<std::string>{"lab-9"});
  owed.agents.clear();
  REQUIRE(store->saveOwedSend(owed).ok());
  loaded = store->loadOwedSends();
  REQUIRE(loaded->size() == 1);
  CHECK(loaded->at(0).id == 9);
}

TEST_CASE("a state.db of schema version 3 is opened with what it owes kept, its sends read as not forced") {
  TempDir dir;
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((dir.path / "state.db").string().c_str(), &db) == SQLITE_OK);
    const char* v3 =
        "CREATE TABLE owed_sends (id INTEGER PRIMARY KEY, path TEXT NOT NULL, dest TEXT NOT NULL, algo TEXT NOT NULL,"
        " compress TEXT NOT NULL, replan INTEGER NOT NULL, atomic INTEGER NOT NULL, delete_others INTEGER NOT NULL,"
        " max_rate_bytes_per_s REAL NOT NULL, since_ms INTEGER NOT NULL);"
        "CREATE TABLE owed_agents (send_id INTEGER NOT NULL REFERENCES owed_sends(id) ON DELETE CASCADE,"
        " agent TEXT NOT NULL, PRIMARY KEY (send_id, agent));"
        "INSERT INTO owed_sends VALUES (4, '/srv/image.iso', 'image.iso', 'auto', 'none', 1, 0, 0, 0, 1700000000000);"
        "INSERT INTO owed_agents VALUES (4, 'lab-2');"
        "PRAGMA user_version = 3;";
    REQUIRE(sqlite3_exec(db, v3, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  auto store = openIn(dir.path);
  auto loaded = store->loadOwedSends();
  REQUIRE_MESSAGE(loaded.ok(), (loaded.ok() ? "" : loaded.error().message));
  REQUIRE(loaded->size() == 1);
  CHECK(loaded->at(0).path == "/srv/image.iso");
  CHECK(loaded->at(0).agents == std::vector<std::string>{"lab-2"});
  CHECK_FALSE(loaded->at(0).force);
  StoredOwedSend forced = loaded->at(0);
  forced.force = true;
  REQUIRE(store->saveOwedSend(forced).ok());
  CHECK(store->loadOwedSends()->at(0).force);
}

TEST_CASE("agent keys, revocations and enrollment tokens are kept in state.db, which only its owner may read") {
  TempDir dir;
  const WallTime t0(std::chrono::seconds(1700000000));
  {
    auto store = openIn(dir.path);
    REQUIRE(store->saveIdentity({"pc-1", "ed25519:one", "token", t0}).ok());
    REQUIRE(store->saveIdentity({"pc-2", "ed25519:two", "approved", t0}).ok());
    REQUIRE(store->saveToken({"aa01", std::string(64, 'f'), "pc-3", "ana", t0, t0 + 3600s}).ok());
    REQUIRE(store->saveToken({"bb02", std::string(64, 'e'), "", "ana", t0, t0 + 60s}).ok());
    // The token used and the key it enrolled: one step.
    REQUIRE(store->useToken("aa01", {"pc-3", "ed25519:three", "token", t0 + 5s}).ok());
    REQUIRE(store->saveRevocation({"ed25519:two", "pc-2", t0 + 10s}).ok());
  }
  auto reopened = openIn(dir.path);
  auto trust = reopened->loadTrust();
  REQUIRE(trust.ok());
  REQUIRE(trust->identities.size() == 2);
  CHECK(trust->identities[0].name == "pc-1");
  CHECK(trust->identities[1].name == "pc-3");
  CHECK(trust->identities[1].key == "ed25519:three");
  REQUIRE(trust->revocations.size() == 1);
  CHECK(trust->revocations[0].key == "ed25519:two");
  CHECK(trust->revocations[0].at == t0 + 10s);
  REQUIRE(trust->tokens.size() == 1);
  CHECK(trust->tokens[0].id == "bb02");
  CHECK(trust->tokens[0].expires == t0 + 60s);
  CHECK((std::filesystem::status(dir.path / "state.db").permissions() & std::filesystem::perms::others_read) ==
        std::filesystem::perms::none);
  CHECK((std::filesystem::status(dir.path / "state.db").permissions() & std::filesystem::perms::group_read) ==
        std::filesystem::perms::none);
}

TEST_CASE("a belied link keeps what its agent told across reopening, and a links table without that column gets it") {
  TempDir dir;
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((dir.path / "state.db").string().c_str(), &db) == SQLITE_OK);
    const char* v7 =
        "CREATE TABLE links (node TEXT NOT NULL, direction TEXT NOT NULL, bytes_per_s REAL NOT NULL, method TEXT NOT NULL,"
        " measured_ms INTEGER NOT NULL, spread REAL NOT NULL, PRIMARY KEY (node, direction));"
        "INSERT INTO links VALUES ('a', 'uplink', 1000000.0, 'probe', 1700000000000, 0.01);"
        "PRAGMA user_version = 7;";
    REQUIRE(sqlite3_exec(db, v7, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  auto store = openIn(dir.path);
  auto links = store->loadLinks().value();
  REQUIRE(links.size() == 1);
  CHECK(links[0].toldBytesPerSecond == 0.0);
  REQUIRE(store->saveLinks({{"b", "uplink", 11.0, "passive", WallTime(1'700'000'000'000ms), 0.0, 1000.0}}).ok());
  auto reopened = openIn(dir.path);
  links = reopened->loadLinks().value();
  REQUIRE(links.size() == 2);
  CHECK(links[1].node == "b");
  CHECK(links[1].toldBytesPerSecond == 1000.0);
}

TEST_CASE("a job_attempts table of schema version 8 gets its replicas and digest: its rows read as of unknown replicas") {
  TempDir dir;
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((dir.path / "state.db").string().c_str(), &db) == SQLITE_OK);
    const char* v8 =
        "CREATE TABLE running_jobs (id INTEGER PRIMARY KEY, request BLOB NOT NULL, input_size INTEGER NOT NULL,"
        " input_modified_ns INTEGER NOT NULL, dir TEXT NOT NULL, calibrations TEXT NOT NULL);"
        "CREATE TABLE job_attempts (job_id INTEGER NOT NULL, result_token BLOB NOT NULL, agent TEXT NOT NULL,"
        " first_unit INTEGER NOT NULL, units INTEGER NOT NULL, share_token BLOB NOT NULL,"
        " PRIMARY KEY (job_id, result_token));"
        "INSERT INTO running_jobs VALUES (3, x'01', 100, 0, '/jobs/job-3-1', '');"
        "INSERT INTO job_attempts VALUES (3, x'72', 'a1', 0, 50, x'73');"
        "PRAGMA user_version = 8;";
    REQUIRE(sqlite3_exec(db, v8, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  auto store = openIn(dir.path);
  auto jobs = store->loadRunningJobs();
  REQUIRE_MESSAGE(jobs.ok(), (jobs.ok() ? "" : jobs.error().message));
  REQUIRE(jobs->size() == 1);
  REQUIRE(jobs->at(0).attempts.size() == 1);
  CHECK(jobs->at(0).attempts[0].agent == "a1");
  CHECK(jobs->at(0).attempts[0].replicas == 0);
  CHECK(jobs->at(0).attempts[0].digest.empty());
  REQUIRE(store->saveJobAttempt(3, {"a1", 0, 50, "r", "s", 2, std::string(32, 'd')}).ok());
  CHECK(store->loadRunningJobs()->at(0).attempts.back().digest == std::string(32, 'd'));
}

TEST_CASE("a send under way is read back after reopening with its agents, its record left running at the next start, and gone once removed") {
  TempDir dir;
  OperationRecord record;
  record.kind = "send";
  record.started = WallTime(1'700'000'010'000ms);
  record.status = "running";
  StoredSendUnderWay send;
  send.path = "/srv/image.iso";
  send.dest = "images/image.iso";
  send.algo = "striped";
  send.compress = "none";
  send.replan = false;
  send.force = true;
  send.untilAll = true;
  send.maxRateBytesPerSecond = 5e6;
  send.agents = {"lab-2", "lab-1"};
  send.since = WallTime(1'700'000'010'500ms);
  OperationId other = 0;
  {
    auto store = openIn(dir.path);
    send.id = store->beginOperation(record).value();
    other = store->beginOperation(record).value();
    REQUIRE(store->saveSendUnderWay(send).ok());
  }
  auto store = openIn(dir.path);
  CHECK(*store->interruptRunning(WallTime(1'700'000'020'000ms)) == 1);
  CHECK(store->operation(send.id).value()->status == "running");
  CHECK(store->operation(other).value()->status == "interrupted");
  auto loaded = store->loadSendsUnderWay();
  REQUIRE(loaded.ok());
  REQUIRE(loaded->size() == 1);
  const StoredSendUnderWay& back = loaded->at(0);
  CHECK(back.id == send.id);
  CHECK(back.path == "/srv/image.iso");
  CHECK(back.dest == "images/image.iso");
  CHECK(back.algo == "striped");
  CHECK(back.compress == "none");
  CHECK_FALSE(back.replan);
  CHECK_FALSE(back.atomic);
  CHECK(back.force);
  CHECK(back.untilAll);
  CHECK(back.maxRateBytesPerSecond == 5e6);
  CHECK(back.agents == std::vector<std::string>{"lab-1", "lab-2"});
  CHECK(back.since == send.since);

  send.agents = {"lab-3"};  // saved again: replaced whole
  REQUIRE(store->saveSendUnderWay(send).ok());
  CHECK(store->loadSendsUnderWay()->at(0).agents == std::vector<std::string>{"lab-3"});
  REQUIRE(store->removeSendUnderWay(send.id).ok());
  CHECK(store->loadSendsUnderWay()->empty());
  CHECK(*store->interruptRunning(WallTime(1'700'000'030'000ms)) == 1);
  CHECK(store->operation(send.id).value()->status == "interrupted");
}

TEST_CASE("an upload's send under way is read back with its kept copy's key, stamp and listing, its client path and why it is not kept") {
  TempDir dir;
  StoredSendUnderWay tree;
  tree.id = 7;
  tree.path = "/var/lib/hnow/trees/kept/ab12";
  tree.dest = "in/course";
  tree.compress = "none";
  tree.agents = {"lab-1"};
  tree.uploadKey = "ana laptop:/home/ana/course";
  tree.keptTree = std::string(64, 'c');
  tree.uploadedFrom = "/home/ana/course";
  StoredSendUnderWay piped = tree;
  piped.id = 8;
  piped.path = "/var/lib/hnow/uploads/1-1.upload";
  piped.uploadKey = piped.keptTree = "";
  piped.uploadStamp = "";
  piped.uploadedFrom = "-";
  piped.notKeptWhy = "standard input cannot be read again: send it again";
  {
    auto store = openIn(dir.path);
    REQUIRE(store->saveSendUnderWay(tree).ok());
    REQUIRE(store->saveSendUnderWay(piped).ok());
  }
  auto loaded = openIn(dir.path)->loadSendsUnderWay();
  REQUIRE(loaded.ok());
  REQUIRE(loaded->size() == 2);
  CHECK(loaded->at(0).uploadKey == tree.uploadKey);
  CHECK(loaded->at(0).keptTree == tree.keptTree);
  CHECK(loaded->at(0).uploadedFrom == "/home/ana/course");
  CHECK(loaded->at(0).notKeptWhy.empty());
  CHECK(loaded->at(1).uploadedFrom == "-");
  CHECK(loaded->at(1).notKeptWhy == piped.notKeptWhy);
}

TEST_CASE("a sends_under_way table of an older hnowd gets the upload columns, its rows read back with none") {
  TempDir dir;
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((dir.path / "state.db").string().c_str(), &db) == SQLITE_OK);
    const char* v7 =
        "CREATE TABLE sends_under_way (id INTEGER PRIMARY KEY, path TEXT NOT NULL, dest TEXT NOT NULL, algo TEXT NOT "
        "NULL, compress TEXT NOT NULL, replan INTEGER NOT NULL, atomic INTEGER NOT NULL, delete_others INTEGER NOT "
        "NULL, force INTEGER NOT NULL, until_all INTEGER NOT NULL, max_rate_bytes_per_s REAL NOT NULL, since_ms "
        "INTEGER NOT NULL);"
        "INSERT INTO sends_under_way VALUES (3, '/srv/a.iso', 'in/a.iso', 'auto', 'auto', 1, 0, 0, 0, 0, 0.0, "
        "1700000000000);"
        "PRAGMA user_version = 7;";
    REQUIRE(sqlite3_exec(db, v7, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  auto store = openIn(dir.path);
  auto loaded = store->loadSendsUnderWay();
  REQUIRE_MESSAGE(loaded.ok(), loaded.error().message);
  REQUIRE(loaded->size() == 1);
  CHECK(loaded->at(0).path == "/srv/a.iso");
  CHECK(loaded->at(0).uploadKey.empty());
  CHECK(loaded->at(0).notKeptWhy.empty());
}
