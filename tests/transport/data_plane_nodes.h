#pragma once
// Data planes on 127.0.0.1 for the data plane's tests: each node with its
// own libuv thread and an event log to wait on, as hnowd and agents run them.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <openssl/sha.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "transport/data/data_plane.h"

namespace hnow::testing {

using namespace hnow::transport::data;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Collects one plane's events; waits for one with a deadline.
struct Events {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<TransferEvent> all;

  DataPlane::EventSink sink() {
    return [this](TransferEvent e) {
      std::lock_guard lock(mutex);
      all.push_back(std::move(e));
      changed.notify_all();
    };
  }
  std::optional<TransferEvent> waitFor(TransferEvent::Kind kind, std::chrono::milliseconds within = 10s) {
    std::unique_lock lock(mutex);
    std::optional<TransferEvent> found;
    changed.wait_for(lock, within, [&]() {
      for (auto& e : all)
        if (e.kind == kind) found = e;
      return found.has_value();
    });
    return found;
  }
  std::optional<TransferEvent> first(TransferEvent::Kind kind) {
    std::lock_guard lock(mutex);
    for (auto& e : all)
      if (e.kind == kind) return e;
    return std::nullopt;
  }
};

struct Node {
  hnow::SteadyClock clock;
  Events events;
  DataPlane plane;
  std::string address;
  explicit Node(DataOptions options = {}) : plane(clock, events.sink(), options) {
    auto port = plane.listen("127.0.0.1");
    REQUIRE(port.ok());
    address = "127.0.0.1:" + std::to_string(port.value());
  }
};

inline std::string randomBytes(std::size_t n) {
  std::mt19937_64 random(n);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(random());
  return s;
}

inline Sha256 shaOf(const std::string& s) {
  Sha256 out;
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), out.data());
  return out;
}

inline ReceiveTarget targetIn(const fs::path& dir, const std::string& name) {
  fs::create_directories(dir);
  ReceiveTarget t;
  t.dirFd = ::open(dir.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  t.tempName = "." + name + ".hnow-part";
  t.finalName = name;
  t.fileFd = ::openat(t.dirFd, t.tempName.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0644);
  t.path = (dir / name).string();
  REQUIRE(t.fileFd >= 0);
  return t;
}

}  // namespace hnow::testing
