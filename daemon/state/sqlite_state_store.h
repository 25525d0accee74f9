#pragma once
// StateStore in SQLite: `state.db` in hnowd's data directory, WAL mode so
// readers (a backup, sqlite3 on the command line) never block hnowd. Its
// files (state/sqlite_*) are the only ones that contain SQL.
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "state/state_store.h"

struct sqlite3;

namespace hnow::daemon {

class SqliteStateStore final : public StateStore {
 public:
  // Opens (creating if needed) `<dataDir>/state.db`; an error names the
  // file and what SQLite said.
  static Result<std::unique_ptr<SqliteStateStore>> open(const std::string& dataDir);
  ~SqliteStateStore() override;

  Result<void> saveAgents(const std::vector<StoredAgent>& agents) override;
  Result<std::vector<StoredAgent>> loadAgents() override;
  Result<void> saveLinks(const std::vector<StoredLink>& links) override;
  Result<void> forgetAgent(const std::string& name) override;
  Result<std::vector<StoredLink>> loadLinks() override;
  Result<void> saveOwedSend(const StoredOwedSend& owed) override;
  Result<std::vector<StoredOwedSend>> loadOwedSends() override;
  Result<void> saveSendUnderWay(const StoredSendUnderWay& send) override;
  Result<void> removeSendUnderWay(OperationId id) override;
  Result<std::vector<StoredSendUnderWay>> loadSendsUnderWay() override;
  Result<OperationId> beginOperation(const OperationRecord& record) override;
  Result<void> finishOperation(OperationId id, WallTime finished, const std::string& status,
                               const std::string& summary) override;
  Result<void> describeOperation(OperationId id, const std::string& summary) override;
  Result<std::vector<OperationRecord>> operations(std::size_t limit) override;
  Result<std::optional<OperationRecord>> operation(OperationId id) override;
  Result<std::vector<OperationCount>> operationCounts() override;
  Result<void> launchOperation(OperationId id) override;
  Result<void> saveQueuedJob(const StoredQueuedJob& job) override;
  Result<void> saveRunningJob(const StoredRunningJob& job) override;
  Result<void> saveAcceptedShare(OperationId job, const StoredShare& share) override;
  Result<void> saveJobAttempt(OperationId job, const StoredAttempt& attempt) override;
  Result<void> saveReductionPartial(OperationId job, const StoredPartial& partial) override;
  Result<void> removeRunningJob(OperationId id) override;
  Result<std::vector<StoredRunningJob>> loadRunningJobs() override;
  Result<void> saveLedger(const std::string& ledger, const std::vector<StoredLedgerEntry>& entries) override;
  Result<std::vector<StoredLedgerEntry>> loadLedger(const std::string& ledger) override;
  Result<void> removeQueuedJob(OperationId id) override;
  Result<std::vector<StoredQueuedJob>> loadQueuedJobs() override;
  Result<int> interruptRunning(WallTime at) override;
  Result<void> saveIdentity(const StoredIdentity& identity) override;
  Result<void> saveRevocation(const StoredRevocation& revocation) override;
  Result<void> saveToken(const StoredToken& token) override;
  Result<void> useToken(const std::string& id, const StoredIdentity& enrolled) override;
  Result<StoredTrust> loadTrust() override;

  // The database's identity (state_mark.h); none in a database that was
  // never given one (new, emptied, or written by an hnowd before identities).
  // sqlite_state_identity.cc.
  Result<std::optional<std::string>> identity();
  Result<void> setIdentity(const std::string& id);

 private:
  explicit SqliteStateStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  void exec(const char* sql);

  sqlite3* db_;
  std::string path_;
};

}  // namespace hnow::daemon
