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
  void saveAgents(const std::vector<StoredAgent>& agents) override {
    ++saves;
    for (const auto& a : agents) agents_[a.name] = a;
  }
  std::vector<StoredAgent> loadAgents() override {
    std::vector<StoredAgent> out;
    for (const auto& [_, a] : agents_) out.push_back(a);
    return out;
  }
  void saveLinks(const std::vector<StoredLink>& links) override {
    for (const auto& l : links) links_[l.node + "/" + l.direction] = l;
  }
  std::vector<StoredLink> loadLinks() override {
    std::vector<StoredLink> out;
    for (const auto& [_, l] : links_) out.push_back(l);
    return out;
  }
  OperationId beginOperation(const OperationRecord& record) override {
    records_.push_back(record);
    records_.back().id = static_cast<OperationId>(records_.size());
    return records_.back().id;
  }
  void finishOperation(OperationId id, WallTime finished, const std::string& status,
                       const std::string& summary) override {
    OperationRecord& r = records_.at(static_cast<std::size_t>(id - 1));
    if (r.status != "running") return;  // a record ends once, as in SqliteStateStore
    r.finished = finished;
    r.status = status;
    r.summary = summary;
  }
  std::vector<OperationRecord> operations(std::size_t limit) override {
    std::vector<OperationRecord> out(records_.rbegin(), records_.rend());
    out.resize(std::min(limit, out.size()));
    return out;
  }

  int interruptRunning(WallTime at) override {
    int n = 0;
    for (OperationRecord& r : records_)
      if (r.status == "running") r.status = "interrupted", r.finished = at, ++n;
    return n;
  }

  const std::map<std::string, StoredAgent>& agents() const { return agents_; }
  int saves = 0;  // saveAgents() calls

 private:
  std::map<std::string, StoredAgent> agents_;
  std::map<std::string, StoredLink> links_;
  std::vector<OperationRecord> records_;
};

}  // namespace hnow::daemon
