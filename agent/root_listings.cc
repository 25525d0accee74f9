#include "agent/root_listings.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hnow::agent {

RootListings::~RootListings() {
  if (kept_.fd >= 0) ::close(kept_.fd);
}

void RootListings::withFinder(int rootFd, const std::function<void(transport::data::ContentFinder&)>& use) {
  struct stat info {};
  if (rootFd < 0 || ::fstat(rootFd, &info) != 0) {
    transport::data::ContentFinder none(-1);
    return use(none);
  }
  std::lock_guard<std::mutex> hold(mutex_);
  const auto now = std::chrono::steady_clock::now();
  const std::uint64_t generation = generation_.load();
  const bool fresh = kept_.finder && kept_.dev == info.st_dev && kept_.ino == info.st_ino &&
                     kept_.generation == generation && now - kept_.at < kKept;
  if (!fresh) {
    if (kept_.fd >= 0) ::close(kept_.fd);
    kept_ = {};
    kept_.fd = ::fcntl(rootFd, F_DUPFD_CLOEXEC, 0);
    kept_.dev = info.st_dev;
    kept_.ino = info.st_ino;
    kept_.generation = generation;
    kept_.at = now;
    kept_.finder = std::make_unique<transport::data::ContentFinder>(kept_.fd, transport::data::kMaxFilesSearched);
  }
  use(*kept_.finder);
}

}  // namespace hnow::agent
