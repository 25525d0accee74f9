#pragma once
// Sends that outlive hnowd: each send of a path on hnowd's host is kept in
// state.db from before its client hears it started until its record ends
// (StoredSendUnderWay). An hnowd that stops or is killed meanwhile leaves
// its record "running"; the next one (the same state.db) runs it again
// under that record once its agents are back - every one of them, or those
// back within the grace - planned afresh: an agent whose destination holds
// the file (a tree: the files) already is not sent it again, and one that
// kept its partial receive resumes from the bytes it holds
// (docs/send.md, "A send outlives hnowd").
//
// A client's upload is kept when hnowd sends it from its kept copy
// (docs/tree-send.md, "Kept files", "hnowd keeps its copy": those copies
// outlive hnowd): run again, it is sent from that copy while the copy is
// still the one it sent (a file's stamp, a directory's listing digest),
// else its record ends "interrupted" saying so. An upload hnowd kept no
// copy of (no room, standard input, a directory unpacked into a scratch
// directory) is kept only to say why its record ends "interrupted" at the
// next start, and what to do. Not kept at all: the sends made for owed
// agents (owed_sends.h keeps those). A tree sent as a bundle per group is
// kept as it was asked for, under its one record, which ends with its last
// group (send_family.h).
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "core/coordinator.h"
#include "core/send/send_service.h"
#include "core/send/stored_send.h"
#include "state/state_store.h"

namespace hnow::daemon {

class SendsUnderWay {
 public:
  using StartSend = SendStarter;

  SendsUnderWay(Coordinator& coordinator, StateStore& store, const Clock& clock, StartSend start);

  // Whether `request` is kept while it runs, to run again (see above).
  static bool keeps(const SendRequest& request);
  // Why a restarted hnowd cannot run `request` again, a client's upload it
  // kept no copy of (what its record says then); "" for any other send.
  static std::string notKeptWhy(const SendRequest& request);
  // The send's record began for `agents` (SendService::keepWith): kept.
  void keep(const SendRequest& request, const std::vector<std::string>& agents);
  // Its record ended, or it was refused or cancelled before it ran.
  void drop(OperationId record);
  // keep() and drop(), as SendService::keepWith takes them.
  SendService::Keeper keeper() {
    return {[this](const SendRequest& r, const std::vector<std::string>& agents) { keep(r, agents); },
            [this](OperationId record) { drop(record); }};
  }

  // What the last hnowd left under way: each waits until all its agents
  // are back, or `grace` has passed, then runs again (tick()).
  Result<void> restore(Duration grace);
  // Starts the restored sends whose agents are back or whose grace ran
  // out; one whose agents are none of them back ends "interrupted" (an
  // --until-all one: they are owed it).
  void tick();
  // `hnow cancel` of a restored send still waiting for its agents: it
  // will not run; its record ends "cancelled" by `who`. False: no such
  // send waits. (The agents drop the partial receives they parked for it
  // when no send claims them, agent/receiver_parked.cc.)
  bool cancel(OperationId record, const std::string& who);
  // Restored sends still waiting for their agents.
  std::size_t waiting() const { return waiting_.size(); }
  // One of them as `hnow status` and `hnow ops` show it: the agents it was
  // for, those not back yet, and how much longer it waits for them at most.
  struct WaitingSend {
    OperationId record = 0;
    std::string path, dest;
    std::vector<std::string> agents, away;
    Duration left{};
  };
  std::vector<WaitingSend> waitingSends() const;

 private:
  // Connected with their links known again (a send is refused before then).
  std::set<std::string> backAgents() const;
  struct Waiting {
    StoredSendUnderWay stored;
    TimePoint until{};
  };
  // The send will not run again: its record ends `status`, saying `why`.
  void end(const StoredSendUnderWay& stored, const std::string& status, const std::string& why);
  // The record's summary, `field` added with `value` (its path and dest
  // with it when state.db gives no summary).
  std::string endedSummary(const StoredSendUnderWay& stored, const std::string& field, const std::string& value);

  Coordinator& coordinator_;
  StateStore& store_;
  const Clock& clock_;
  StartSend start_;
  std::map<OperationId, Waiting> waiting_;
};

}  // namespace hnow::daemon
