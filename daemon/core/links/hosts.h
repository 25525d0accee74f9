#pragma once
// Which agents share a machine, and what plans take of it (host_intake.h,
// docs/host-intake.md): the agents of one host key, when two or more carry
// it; each node of a plan with its machine's intake as the link book
// knows it.
#include <map>
#include <string>
#include <vector>

#include "core/coordinator.h"
#include "core/send/send_operation.h"
#include "core/send/send_tree.h"

namespace hnow::daemon {

// Agent name -> host key, for the machines two agents or more report.
std::map<std::string, std::string> sharedHosts(const std::vector<AgentView>& agents);

// Sets nodes[first..]'s machine and its intake: a capacity the book holds
// (a bound limits nothing a plan could tell), else 0.
void placeOnHosts(std::vector<TreeNode>& nodes, std::size_t first, const Coordinator& coordinator);

// What a finished send says of the machines that took two of its copies
// or more (host_intake.h), into the link book; the readings, for the log.
std::vector<LinkReading> learnHostIntake(Coordinator& coordinator, const SendStatus& send);

struct HostView {
  std::string host;  // the key
  int agents = 0;
  LinkView intake;   // host_intake.h
};

// The machines with two agents or more, for `hnow status`.
std::vector<HostView> hostViews(const Coordinator& coordinator);

}  // namespace hnow::daemon
