#pragma once
// Sends hnowd still owes (`hnow send --until-all`): a lab's machines are
// not all on when a send runs. The agents an --until-all send could not
// reach (off, lost, or failed) stay owed its path and destination, kept in
// state.db across restarts; when one of them is connected again, hnowd
// sends it the same path (as it is then: a tree moves only what the agent
// lacks) to the agents owed, once each. The send made for them has its own
// record, naming the send it settles ("owed_by"), which says when.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "core/coordinator.h"
#include "core/send/send_service.h"
#include "core/send/stored_send.h"
#include "state/state_store.h"

namespace hnow::daemon {

class OwedSends {
 public:
  using StartSend = SendStarter;
  // A refused or failed owed send is tried again this long after.
  static constexpr Duration kRetryAfter = std::chrono::seconds(30);

  OwedSends(Coordinator& coordinator, StateStore& store, const Clock& clock, StartSend start);
  // What state.db still owes (an hnowd that stopped with agents owed).
  Result<void> restore();

  // A send ended (SendService::onEnded): an --until-all send leaves the
  // agents without a copy owed; a send made for owed agents settles those
  // that now have one and leaves the rest owed.
  void ended(const SendEnd& end);
  // Owed agents connected now get their send, one send per owed item at a
  // time; agents hnowd no longer knows (hnow agent forget) are owed nothing.
  void tick();
  // `hnow cancel` of the send that left agents owed: they are owed nothing
  // any more (state.db too), so one that comes back gets nothing. The
  // agents it owed; none when it owes nothing. A send already under way
  // for them has a record of its own, cancelled on its own.
  std::optional<std::vector<std::string>> cancel(OperationId send, const std::string& who);

  struct Owed {
    OperationId id = 0;  // the send that left them owed
    std::string path, dest;
    std::vector<std::string> agents;
    WallTime since{};
    bool sending = false;
  };
  std::vector<Owed> owed() const;

 private:
  struct Item {
    StoredOwedSend stored;
    bool sending = false;
    TimePoint retryAt{};
  };
  void save(const Item& item);

  Coordinator& coordinator_;
  StateStore& store_;
  const Clock& clock_;
  StartSend start_;
  std::map<OperationId, Item> items_;
};

}  // namespace hnow::daemon
