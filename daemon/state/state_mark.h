#pragma once
// hnowd's mark that it keeps state: `<data_dir>/state.mark`, written when
// state.db is first given its identity and naming it. state.db holds the
// revoked agent keys, the enrollment tokens and the operation records; one
// deleted, emptied or swapped for another would let a revoked agent log back
// in, unnoticed. With the mark there, hnowd refuses such a state.db and says
// how to go on; `hnowd --new-state` accepts starting afresh (logged). A fresh
// data directory has no mark, so a first start (and `hnow local up`) simply
// begins.
#include <memory>
#include <string>

#include "base/result.h"
#include "state/sqlite_state_store.h"

namespace hnow::daemon {

struct MarkedState {
  std::unique_ptr<SqliteStateStore> store;
  // For hnowd's log: what --new-state accepted (warning), or that state.db
  // was marked now (information); "" when nothing happened.
  std::string warning;
  std::string note;
};

// Opens `<dataDir>/state.db` as its mark allows, marking it when it has no
// mark yet; `newState` accepts a state.db that is missing, empty or another
// than the mark names, and marks that one.
Result<MarkedState> openMarkedState(const std::string& dataDir, bool newState);

}  // namespace hnow::daemon
