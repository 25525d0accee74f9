#pragma once
// A list of roots (hnowd's [send] or [run] roots) that a reload of the
// config (SIGHUP, server/config_reload.h) may change while sessions and
// services hold it: copies share one list, so every holder reads the
// current one at its next request and none keeps a stale copy.
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hnow::daemon {

class LiveRoots {
 public:
  LiveRoots() = default;
  explicit LiveRoots(std::vector<std::string> roots)
      : roots_(std::make_shared<std::vector<std::string>>(std::move(roots))) {}
  const std::vector<std::string>& get() const { return *roots_; }
  // Read on hnowd's control thread only, as every request is.
  void set(std::vector<std::string> roots) { *roots_ = std::move(roots); }

 private:
  std::shared_ptr<std::vector<std::string>> roots_ = std::make_shared<std::vector<std::string>>();
};

}  // namespace hnow::daemon
