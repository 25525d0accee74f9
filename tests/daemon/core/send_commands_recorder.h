#pragma once
// What a send tells its agents, recorded (SendCommands), and the reports
// agents send back, for the send tests that drive SendOperation and
// StripedSend by hand.
#include <map>
#include <string>
#include <vector>

#include "core/send_operation.h"

namespace hnow::daemon::testing {

struct RecordingCommands final : SendCommands {
  std::map<std::string, std::vector<std::string>> pulls;  // node -> parent addresses, in order
  void pull(const std::string& node, const std::string& parentAddress) override {
    pulls[node].push_back(parentAddress);
  }
};

// A copy done with `sha` (hex) at /x.
inline TransferReport doneReport(const std::string& sha) {
  TransferReport r;
  r.state = TransferReport::State::kDone;
  r.sha256 = sha;
  r.path = "/x";
  return r;
}

}  // namespace hnow::daemon::testing
