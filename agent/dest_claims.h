#pragma once
// Which receive is writing each destination on this agent. hnowd orders
// the receives of sends and manifests on their own, and two of them at
// once to one destination would each end with its own SHA-256 verified
// while the agent keeps only the file renamed last: the second is refused
// while the first holds the destination, with a message naming it. A
// destination is the directory it lies in, by device and inode, and its
// last name, so two spellings of one path (`m//a`, `m/./a`, absolute and
// relative, a root reached twice) are one destination. On the kj thread.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "base/result.h"

namespace hnow::agent {

class DestClaims {
 public:
  // Who holds a destination, for the refusal of the next.
  struct Holder {
    std::string token;      // the receive's (hnowd releases it by this)
    std::string operation;  // hnowd's name for what it is part of ("send record 12"); "" unknown
    std::string path;       // the destination's absolute path
    std::uint64_t size = 0;
  };
  // `name` in the open directory `dirFd` claimed for `holder`, whose
  // transfers report under `transfers` too (a striped file's stripes); or
  // the refusal naming the receive that holds it. The same token claiming
  // again (a repeated order) is no conflict.
  Result<void> claim(int dirFd, const std::string& name, Holder holder, const std::vector<std::string>& transfers = {});
  // The receive of `token` (its own, or one of its transfers') ended: what it held is free.
  void release(const std::string& token);
  void clear();
  std::size_t size() const { return holders_.size(); }

 private:
  using Key = std::tuple<dev_t, ino_t, std::string>;
  std::map<Key, Holder> holders_;
  std::map<std::string, Key> byToken_;  // each receive's and transfer's token
};

}  // namespace hnow::agent
