#pragma once
// Records of the operations hnowd carries out (set-rate, send, manifest,
// run), kept in the StateStore so they survive restarts.
#include <string>
#include <vector>

#include "base/clock.h"
#include "state/state_store.h"

namespace hnow::daemon {

class OperationLog {
 public:
  OperationLog(const Clock& clock, StateStore& store) : clock_(clock), store_(store) {}

  // A record with status "running"; `summary` is a JSON object. Its id, or
  // why the store could not keep it (the operation goes ahead unrecorded).
  Result<OperationId> begin(const std::string& kind, const std::string& summary);
  // The same, "queued": a job waiting for its agents (core/jobs/job_queue.h).
  Result<OperationId> queue(const std::string& kind, const std::string& summary);
  // A queued record becomes "running".
  Result<void> launch(OperationId id) { return store_.launchOperation(id); }
  // A queued job's request kept with its record until it starts or ends
  // (StateStore::saveQueuedJob): the queue survives a restart.
  Result<void> keepQueued(OperationId id, const std::string& request) { return store_.saveQueuedJob({id, request}); }
  Result<void> dropQueued(OperationId id) { return store_.removeQueuedJob(id); }
  Result<std::vector<StoredQueuedJob>> queued() { return store_.loadQueuedJobs(); }
  // A job under way kept for the next hnowd to resume (StateStore::saveRunningJob).
  Result<void> keepRunning(const StoredRunningJob& job) { return store_.saveRunningJob(job); }
  Result<void> keepAccepted(OperationId job, const StoredShare& share) { return store_.saveAcceptedShare(job, share); }
  Result<void> keepAttempt(OperationId job, const StoredAttempt& attempt) { return store_.saveJobAttempt(job, attempt); }
  Result<void> keepPartial(OperationId job, const StoredPartial& partial) {
    return store_.saveReductionPartial(job, partial);
  }
  Result<void> dropRunning(OperationId id) { return store_.removeRunningJob(id); }
  Result<std::vector<StoredRunningJob>> running() { return store_.loadRunningJobs(); }
  // status: "done" or "failed"; `summary` replaces the one given to begin().
  Result<void> finish(OperationId id, const std::string& status, const std::string& summary);
  // A running record's summary replaced (StateStore::describeOperation).
  Result<void> describe(OperationId id, const std::string& summary) { return store_.describeOperation(id, summary); }
  Result<std::vector<OperationRecord>> newest(std::size_t limit) { return store_.operations(limit); }
  // Every record counted by kind and status.
  Result<std::vector<OperationCount>> counts() { return store_.operationCounts(); }
  // The record `id`, none when there is none.
  Result<std::optional<OperationRecord>> find(OperationId id) { return store_.operation(id); }
  // hnowd stops with operations under way: they end "interrupted"
  // now (later finish() calls leave them so). Returns how many.
  Result<int> interruptRunning() { return store_.interruptRunning(clock_.wallNow()); }

 private:
  const Clock& clock_;
  StateStore& store_;
};

// `value` as a JSON string literal, quotes included: summaries are built by
// hand here to keep nlohmann (slow to compile) out of the daemon's core.
std::string jsonString(const std::string& value);
// `values` as a JSON array of strings.
std::string jsonStrings(const std::vector<std::string>& values);
// A JSON number with millisecond precision; not finite (an infinite
// prediction, a rate of 0) as null.
std::string jsonNumber(double x);

}  // namespace hnow::daemon
