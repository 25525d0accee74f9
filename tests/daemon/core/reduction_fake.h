#pragma once
// A reduction driven by hand (daemon/core/jobs/job_reduction.h): its
// actions recorded as calls, answered one by one, and the shares its final
// partial combines.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/jobs/job_reduction.h"

namespace hnow::daemon::reductiontest {

struct Call {
  std::string kind;  // combine | move | collect
  int step = -1;
  std::string agent, from;  // move: agent receives from `from`
  int partial = -1, other = -1;
};

struct Fake final : ReductionActions {
  std::vector<Call> pending;
  std::vector<std::vector<int>> recomputes;
  int drops = 0;
  void combine(int step, const std::string& agent, int into, int other) override {
    pending.push_back({"combine", step, agent, "", into, other});
  }
  void move(int step, int partial, const std::string& from, const std::string& to) override {
    pending.push_back({"move", step, to, from, partial, -1});
  }
  void collect(int step, int partial, const std::string& agent) override {
    pending.push_back({"collect", step, agent, agent, partial, -1});
  }
  void drop(int, const std::string&) override { ++drops; }
  void recompute(const std::vector<int>& shares) override { recomputes.push_back(shares); }
};

// Uplinks: a fastest (the sink), then b, c, d.
inline ReductionCosts costsOf(const std::string& agent) {
  ReductionCosts c;
  c.uplinkBytesPerSecond = agent == "a" ? 400 : agent == "b" ? 300 : agent == "c" ? 200 : 100;
  c.combineFixedS = 0.1;
  return c;
}

// Answers the oldest pending call successfully; false if none.
inline bool answerOne(JobReduction& r, Fake& f) {
  if (f.pending.empty()) return false;
  const Call c = f.pending.front();
  f.pending.erase(f.pending.begin());
  if (c.kind == "combine")
    r.combined(c.step, CombinedFile{r.partials()[c.partial].size + r.partials()[c.other].size});
  else if (c.kind == "move")
    r.moved(c.step, {});
  else
    r.collected(c.step, {});
  return true;
}

inline void drive(JobReduction& r, Fake& f) {
  while (!r.finished() && answerOne(r, f)) {
  }
}

inline std::vector<int> finalShares(const JobReduction& r) {
  REQUIRE(r.finalPartial());
  auto shares = r.sharesOf(*r.finalPartial());
  std::sort(shares.begin(), shares.end());
  return shares;
}

using Shares = std::vector<int>;


}  // namespace hnow::daemon::reductiontest
