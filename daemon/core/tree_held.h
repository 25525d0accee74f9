#pragma once
// Only what changed (docs/tree-send.md): before a tree is packed, every
// agent it goes to is asked which of its files it lacks, part by part of
// the index; the bundle then carries the files some agent lacks. A node
// that holds a file still relays it, as it relays any byte of the bundle.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "core/agent_link.h"
#include "core/tree_send.h"

namespace hnow::daemon {

// Per scan entry: does some agent lack it (files only). `done` once, with
// the union, or every agent's refusal ("a2: ...; a3: ...").
using MissingDone = std::function<void(const Result<std::vector<bool>>& missing)>;
void askMissing(const std::vector<std::string>& agents, const std::function<AgentLink*(const std::string&)>& linkOf,
                const std::string& dest, std::shared_ptr<const TreeScan> scan, MissingDone done);

}  // namespace hnow::daemon
