#pragma once
// A file already there (docs/send.md): before a single file is planned,
// every agent it goes to is asked what its destination holds. One that
// holds the same bytes gets nothing and counts as delivered at once; one
// that holds a different file is replaced only with --force, so a typo in
// --dest cannot overwrite an agent's file unasked.
//
// Two rounds, as a tree's (tree_held.h): the first names only the size, so
// a destination that is empty or of another size costs no read anywhere;
// only when some agent holds a file of that size (at the destination, or
// elsewhere under its root) does hnowd take the file's SHA-256 and ask
// those agents again with it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "core/agent_link.h"
#include "core/send/held_elsewhere.h"

namespace hnow::daemon {

// The agents asked whose destination holds a file (the others: nothing there).
struct HeldAtDest {
  std::vector<std::string> same;   // the same bytes: nothing to send
  std::vector<std::string> other;  // a different file: replaced only with --force
  // Agents not in `same` holding the same bytes under another path of
  // dest's root: --dest is copied from there, not sent. Those whose copy
  // is done are in `copied`, and then in `same` too.
  std::vector<HeldElsewhere> elsewhere, copied;
  std::string sha256;  // the file's, 32 bytes, when an agent was asked with it
};

// The file's SHA-256 (32 bytes), or why it cannot be taken; `done` once, later or at once.
using FileDigest = std::function<void(std::function<void(const Result<std::string>& sha256)> done)>;

// `done` once, with every agent's answer, or their refusals ("a2: ...; a3: ...").
using HoldingDone = std::function<void(const Result<HeldAtDest>& held)>;
void askHolding(const std::vector<std::string>& agents, const std::function<AgentLink*(const std::string&)>& linkOf,
                const std::string& dest, std::uint64_t size, FileDigest digest, HoldingDone done);

// Why a send without --force is refused: the agents in `other` (none: no refusal).
std::string refusalToReplace(const std::vector<std::string>& other, const std::string& dest);

}  // namespace hnow::daemon
