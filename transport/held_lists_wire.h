#pragma once
// The answer to "which files of this index do you lack" (AgentControl.treeHeld,
// ClientSession.keptHeld): two lists of ordinals, `missing` and `sameSize`,
// written and read the same way whichever side answers.
#include <cstdint>
#include <vector>

#include "transport/data/tree_bundle.h"

namespace hnow::transport {

// Fills a treeHeld or keptHeld result builder.
template <class Results>
void setHeldLists(Results results, const data::HeldFiles& held) {
  auto missing = results.initMissing(static_cast<unsigned>(held.missing.size()));
  for (unsigned i = 0; i < missing.size(); ++i) missing.set(i, held.missing[i]);
  auto sameSize = results.initSameSize(static_cast<unsigned>(held.sameSize.size()));
  for (unsigned i = 0; i < sameSize.size(); ++i) sameSize.set(i, held.sameSize[i]);
}

// Reads a treeHeld or keptHeld response.
template <class Response>
data::HeldFiles heldListsOf(const Response& response) {
  data::HeldFiles held;
  for (std::uint32_t o : response.getMissing()) held.missing.push_back(o);
  for (std::uint32_t o : response.getSameSize()) held.sameSize.push_back(o);
  return held;
}

}  // namespace hnow::transport
