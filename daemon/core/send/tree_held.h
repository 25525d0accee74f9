#pragma once
// Only what changed (docs/tree-send.md): before a tree is packed, every
// agent it goes to is asked which of its files it lacks, part by part of
// the index; the bundle then carries the files some agent lacks. A node
// that holds a file still relays it, as it relays any byte of the bundle.
//
// Two rounds: the first index lists no digests (a held file is one of the
// same size and mtime); an agent names the files it has with the same size
// and another mtime, and only those are asked about again with their
// SHA-256. A tree that mostly did not change so costs no digest per file.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "core/agent_link.h"
#include "core/send/tree_send.h"

namespace hnow::daemon {

// What the agents hold of a scan, per scan entry (files only).
struct HeldTree {
  std::vector<bool> missing;     // some agent lacks it: the bundle carries its bytes
  std::vector<bool> byDigest;    // some agent holds it with another mtime: a held entry lists its SHA-256
  std::uint64_t queryBytes = 0;  // the indexes sent, all agents and rounds summed
  // The union's: what each agent asked lacks (`missing` of its own), in the order asked.
  std::vector<std::vector<bool>> agentMissing{};
};

// The second round's questions about `files` (scan entries), or why not.
using DigestQueries = std::function<Result<TreeQueries>(const std::vector<std::size_t>& files)>;

// `done` once, with the union, or every agent's refusal ("a2: ...; a3: ...").
using MissingDone = std::function<void(const Result<HeldTree>& held)>;
void askMissing(const std::vector<std::string>& agents, const std::function<AgentLink*(const std::string&)>& linkOf,
                const std::string& dest, std::shared_ptr<const TreeScan> scan, DigestQueries again,
                MissingDone done);

}  // namespace hnow::daemon
