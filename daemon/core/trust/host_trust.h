#pragma once
// Adaptive replication of job results, as BOINC's (docs/jobs.md, "Results
// from untrusted volunteers"): an agent whose results agreed with another
// agent's this many times in a row is trusted, and its shares run once;
// a random fraction of them is still checked by a second agent, and a
// result that disagrees with the majority takes the agent's trust away.
// hnowd keeps one ledger across runs, and across restarts (state.db's
// "host-trust" ledger, JobService). Pure: the random draw is injected.
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hnow::daemon {

struct HostTrustOptions {
  int trustAfter = 10;   // agreeing results in a row before an agent is trusted
  double recheck = 0.1;  // the fraction of a trusted agent's shares checked anyway
};

class HostTrust {
 public:
  // `uniform` returns a number in [0, 1).
  HostTrust(HostTrustOptions options, std::function<double()> uniform)
      : options_(options), uniform_(std::move(uniform)) {}

  bool trusted(const std::string& agent) const;
  // Whether a share computed by `agent` needs a second agent's result.
  bool needsCheck(const std::string& agent);
  // A result that agreed with another agent's, or one the majority overruled.
  void agreed(const std::string& agent);
  void overruled(const std::string& agent);

  int streak(const std::string& agent) const;
  int overrulings(const std::string& agent) const;

  // The whole ledger, as state.db keeps it across restarts, and back.
  struct Line {
    std::string agent;
    int streak = 0;
    int overruled = 0;
  };
  std::vector<Line> ledger() const;
  void restore(const std::vector<Line>& lines);

 private:
  struct Record {
    int streak = 0;
    int overruled = 0;
  };
  HostTrustOptions options_;
  std::function<double()> uniform_;
  std::map<std::string, Record> records_;
};

}  // namespace hnow::daemon
