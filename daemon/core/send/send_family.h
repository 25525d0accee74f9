#pragma once
// A tree sent as a bundle per group of its agents (bundle_groups.h): each
// group's bundle goes as a send of its own, all at once, under the one
// record the send began with. The family answers for them: one status
// merging theirs, and one record, finished once the last group has ended,
// so that what state.db keeps for a restarted hnowd (sends_under_way.h)
// covers every group until then.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/send/send_service.h"

namespace hnow::daemon {

struct SendService::Family {
  std::uint64_t id = 0;
  SendRequest request;                    // as it was asked for: the record, every agent, --until-all
  std::vector<std::uint64_t> children;    // per group: its send's operation (0: not started, or could not)
  std::vector<BundleGroupStatus> groups;  // per group: its agents and bundle; why it could not start
  TreeSummary whole;                      // the tree, and the files some agent lacked
  double boundS = 0.0;                    // lackedBound's
  std::vector<SkippedAgent> skipped;      // as the send started (the first group's record lists them too)
  std::size_t waiting = 0;                // groups not answered yet
  std::size_t ended = 0;                  // groups whose send ran and ended
  SendEnd end;                            // what the groups that ended delivered and missed
  bool over = false;                      // its record finished
  Started started;
  std::shared_ptr<SendCancel> cancel;     // shared by every group's request
};

}  // namespace hnow::daemon
