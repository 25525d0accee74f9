#pragma once
// What a receive that an agent's earlier process left behind holds: its
// temp file's bytes, written in order from each range's start, and the
// lists of chunk digests it took as they arrived (chunk_digests.h), kept
// in a file beside the receive's record so they outlive the process
// (ReceiveTarget::listsFd). A later receive of the same file into the same
// path (agent/held_receives.h) checks those bytes against the source's
// digests before it pulls, and resumes after the last chunk that matched:
// nothing is taken on trust from disk, so a torn write at a crash costs
// only the chunks it touched.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "transport/data/chunk_digests.h"

namespace hnow::transport::data {

// One piece's list of chunk digests as a receive took it: `range` is the
// range's index in a striped file (0 for a whole file), `offset` the
// piece's first byte in that range.
struct KeptList {
  std::uint32_t range = 0;
  std::uint64_t offset = 0;
  std::string digests;
};

// As appended to the lists file: range, offset, length, then the digests.
std::string encodeKeptList(const KeptList& list);
// Every whole entry of `bytes`; a torn entry at the end (the process died
// while writing it) and whatever follows are left out.
std::vector<KeptList> decodeKeptLists(std::string_view bytes);
// A file's contents, "" when it cannot be read.
std::string readKeptLists(int fd);

// How many of the `held` bytes of range `range` (at `base` in `fd`) are
// the source's, in order and in whole chunks (the last chunk of the range
// may be short): each piece's chunks are checked against its list, taken
// from `kept` (its entries for that range) or, for a piece held whole, cut from the bytes
// themselves; every list must match hnowd's piece digest in `digests`,
// which takes the lists of the pieces checked. 0 without digests: a
// receive without them checks only the whole file, so it starts over.
std::uint64_t checkLeftover(int fd, std::uint32_t range, std::uint64_t base, std::uint64_t held,
                            ChunkDigests& digests, const std::vector<KeptList>& kept);

}  // namespace hnow::transport::data
