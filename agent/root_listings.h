#pragma once
// The listing of an agent's root that hnowd's questions about one send
// share (docs/tree-send.md, "Under another path"). hnowd asks about a tree
// part by part, and every part with a file not at its path would list the
// whole root again: a 20,000-file tree took 8 listings per agent, seconds
// before a byte moved. A listing is kept for kKeptSeconds, and only while
// nothing was published under the roots since (published() is told of
// every receive, unpack and copy); what was on disk at its walk is then
// what is on disk now, but for changes made outside hnow, which a single
// walk could miss as well. Whatever it finds is checked against the
// SHA-256 again when the file is copied.
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "transport/data/tree_find.h"

namespace hnow::agent {

class RootListings {
 public:
  static constexpr std::chrono::seconds kKept{10};
  RootListings() = default;
  ~RootListings();
  RootListings(const RootListings&) = delete;
  RootListings& operator=(const RootListings&) = delete;

  // `use` with the finder over the directory `rootFd` (borrowed), the one
  // kept when it is that directory, fresh and nothing was published since;
  // one caller at a time (any thread).
  void withFinder(int rootFd, const std::function<void(transport::data::ContentFinder&)>& use);
  // Something was written under the roots: the next question lists them again.
  void published() { generation_.fetch_add(1); }

 private:
  struct Listing {
    int fd = -1;  // the root's, owned: the finder reads candidates through it
    dev_t dev = 0;
    ino_t ino = 0;
    std::uint64_t generation = 0;
    std::chrono::steady_clock::time_point at{};
    std::unique_ptr<transport::data::ContentFinder> finder;
  };
  std::mutex mutex_;
  std::atomic<std::uint64_t> generation_{0};
  Listing kept_;  // one root at a time: an agent's sends mostly go under one
};

}  // namespace hnow::agent
