#pragma once
// StateStore in memory, for coordinator tests without SQLite. A second
// Coordinator given the same store sees what the first one wrote, as a
// restarted hnowd sees state.db.
#include <algorithm>
#include <map>

#include "state/state_store.h"

namespace hnow::daemon {

class MemoryStateStore final : public StateStore {
 public:
  Result<void> saveAgents(const std::vector<StoredAgent>& agents) override {
    ++saves;
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    for (const auto& a : agents) agents_[a.name] = a;
    return {};
  }
  Result<std::vector<StoredAgent>> loadAgents() override {
    std::vector<StoredAgent> out;
    for (const auto& [_, a] : agents_) out.push_back(a);
    return out;
  }
  Result<void> saveLinks(const std::vector<StoredLink>& links) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    for (const auto& l : links) links_[l.node + "/" + l.direction] = l;
    return {};
  }
  Result<void> forgetAgent(const std::string& name) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    agents_.erase(name);
    links_.erase(name + "/uplink");
    links_.erase(name + "/downlink");
    for (auto& [_, entries] : ledgers_)
      std::erase_if(entries, [&](const StoredLedgerEntry& e) { return e.agent == name; });
    return {};
  }
  Result<std::vector<StoredLink>> loadLinks() override {
    std::vector<StoredLink> out;
    for (const auto& [_, l] : links_) out.push_back(l);
    return out;
  }
  Result<void> saveOwedSend(const StoredOwedSend& owed) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    if (owed.agents.empty()) owed_.erase(owed.id);
    else owed_[owed.id] = owed;
    return {};
  }
  Result<std::vector<StoredOwedSend>> loadOwedSends() override {
    std::vector<StoredOwedSend> out;
    for (const auto& [_, o] : owed_) out.push_back(o);
    return out;
  }
  Result<void> saveSendUnderWay(const StoredSendUnderWay& send) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    underWay_[send.id] = send;
    return {};
  }
  Result<void> removeSendUnderWay(OperationId id) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    underWay_.erase(id);
    return {};
  }
  Result<std::vector<StoredSendUnderWay>> loadSendsUnderWay() override {
    std::vector<StoredSendUnderWay> out;
    for (const auto& [_, w] : underWay_) out.push_back(w);
    return out;
  }
  Result<OperationId> beginOperation(const OperationRecord& record) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    records_.push_back(record);
    records_.back().id = static_cast<OperationId>(records_.size());
    return records_.back().id;
  }
  Result<void> finishOperation(OperationId id, WallTime finished, const std::string& status,
                               const std::string& summary) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    OperationRecord& r = records_.at(static_cast<std::size_t>(id - 1));
    if (r.status != "running" && r.status != "queued") return {};  // a record ends once, as in SqliteStateStore
    r.finished = finished;
    r.status = status;
    r.summary = summary;
    return {};
  }
  Result<void> launchOperation(OperationId id) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    OperationRecord& r = records_.at(static_cast<std::size_t>(id - 1));
    if (r.status == "queued") r.status = "running";
    return {};
  }
  Result<void> describeOperation(OperationId id, const std::string& summary) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    OperationRecord& r = records_.at(static_cast<std::size_t>(id - 1));
    if (r.status == "running") r.summary = summary;
    return {};
  }
  Result<std::optional<OperationRecord>> operation(OperationId id) override {
    for (const auto& r : records_)
      if (r.id == id) return std::optional<OperationRecord>{r};
    return std::optional<OperationRecord>{};
  }
  Result<std::vector<OperationRecord>> operations(std::size_t limit) override {
    std::vector<OperationRecord> out(records_.rbegin(), records_.rend());
    out.resize(std::min(limit, out.size()));
    return out;
  }
  Result<std::vector<OperationCount>> operationCounts() override {
    std::map<std::pair<std::string, std::string>, std::uint64_t> counts;
    for (const OperationRecord& r : records_) ++counts[{r.kind, r.status}];
    std::vector<OperationCount> out;
    for (const auto& [key, n] : counts) out.push_back({key.first, key.second, n});
    return out;
  }

  Result<void> saveIdentity(const StoredIdentity& identity) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    identities_[identity.name] = identity;
    return {};
  }
  Result<void> saveRevocation(const StoredRevocation& revocation) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    identities_.erase(revocation.name);
    revocations_[revocation.key] = revocation;
    return {};
  }
  Result<void> saveToken(const StoredToken& token) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    tokens_[token.id] = token;
    return {};
  }
  Result<void> useToken(const std::string& id, const StoredIdentity& enrolled) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    tokens_.erase(id);
    if (!enrolled.name.empty()) identities_[enrolled.name] = enrolled;
    return {};
  }
  Result<StoredTrust> loadTrust() override {
    StoredTrust t;
    for (const auto& [_, i] : identities_) t.identities.push_back(i);
    for (const auto& [_, r] : revocations_) t.revocations.push_back(r);
    for (const auto& [_, k] : tokens_) t.tokens.push_back(k);
    return t;
  }

  Result<int> interruptRunning(WallTime at) override {
    int n = 0;
    for (OperationRecord& r : records_)
      if ((r.status == "running" && !running_.count(r.id) && !underWay_.count(r.id)) || (r.status == "queued" && !queued_.count(r.id)))
        r.status = "interrupted", r.finished = at, ++n;
    return n;
  }
  Result<void> saveLedger(const std::string& ledger, const std::vector<StoredLedgerEntry>& entries) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    ledgers_[ledger] = entries;
    return {};
  }
  Result<std::vector<StoredLedgerEntry>> loadLedger(const std::string& ledger) override {
    auto it = ledgers_.find(ledger);
    return it == ledgers_.end() ? std::vector<StoredLedgerEntry>{} : it->second;
  }
  Result<void> saveRunningJob(const StoredRunningJob& job) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    auto accepted = running_.count(job.id) ? running_[job.id].accepted : std::vector<StoredShare>{};
    auto attempts = running_.count(job.id) ? running_[job.id].attempts : std::vector<StoredAttempt>{};
    auto partials = running_.count(job.id) ? running_[job.id].partials : std::vector<StoredPartial>{};
    running_[job.id] = job;
    running_[job.id].accepted = accepted;
    running_[job.id].attempts = attempts;
    running_[job.id].partials = partials;
    return {};
  }
  Result<void> saveAcceptedShare(OperationId job, const StoredShare& share) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    auto& shares = running_.at(job).accepted;
    std::erase_if(shares, [&](const StoredShare& s) { return s.firstUnit == share.firstUnit; });
    shares.push_back(share);
    std::sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) { return a.firstUnit < b.firstUnit; });
    return {};
  }
  Result<void> saveJobAttempt(OperationId job, const StoredAttempt& attempt) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    auto& attempts = running_.at(job).attempts;
    for (StoredAttempt& a : attempts)  // in the order first written, as state.db's rows
      if (a.resultToken == attempt.resultToken) return a = attempt, Result<void>();
    attempts.push_back(attempt);
    return {};
  }
  Result<void> saveReductionPartial(OperationId job, const StoredPartial& partial) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    auto& partials = running_.at(job).partials;
    for (StoredPartial& p : partials)
      if (p.token == partial.token) return p = partial, Result<void>();
    partials.push_back(partial);
    return {};
  }
  Result<void> removeRunningJob(OperationId id) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    running_.erase(id);
    return {};
  }
  Result<std::vector<StoredRunningJob>> loadRunningJobs() override {
    std::vector<StoredRunningJob> out;
    for (const auto& [_, j] : running_) out.push_back(j);
    return out;
  }
  Result<void> saveQueuedJob(const StoredQueuedJob& job) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    queued_[job.id] = job;
    return {};
  }
  Result<void> removeQueuedJob(OperationId id) override {
    if (failing) return Error{"/mem/state.db: disk I/O error"};
    queued_.erase(id);
    return {};
  }
  Result<std::vector<StoredQueuedJob>> loadQueuedJobs() override {
    std::vector<StoredQueuedJob> out;
    for (const auto& [_, j] : queued_) out.push_back(j);
    return out;
  }

  const std::map<std::string, StoredAgent>& agents() const { return agents_; }
  int saves = 0;         // saveAgents() calls
  bool failing = false;  // every write fails, as on a full disk

 private:
  std::map<std::string, StoredAgent> agents_;
  std::map<std::string, StoredLink> links_;
  std::vector<OperationRecord> records_;
  std::map<OperationId, StoredQueuedJob> queued_;
  std::map<OperationId, StoredRunningJob> running_;
  std::map<std::string, std::vector<StoredLedgerEntry>> ledgers_;
  std::map<OperationId, StoredOwedSend> owed_;
  std::map<OperationId, StoredSendUnderWay> underWay_;
  std::map<std::string, StoredIdentity> identities_;
  std::map<std::string, StoredRevocation> revocations_;
  std::map<std::string, StoredToken> tokens_;
};

}  // namespace hnow::daemon
