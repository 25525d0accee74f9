#pragma once
// A raw TCP peer that sends whatever bytes a test gives it (the
// security tests), and small waits the process tests share.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cli/run_process.h"

namespace hnow::testing {

// Waits for `done` until `within` has passed; true if it became true.
template <class F>
bool eventually(F done, std::chrono::steady_clock::duration within) {
  auto deadline = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

inline bool processAlive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::string stat = readWhole("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  return close == std::string::npos || stat[close + 2] != 'Z';
}

// A blocking TCP connection to host:port (numeric IPv4), closed when
// destroyed; from the local address `source` when given (127.0.0.2 ...: on
// one machine, another peer to the daemons' per-address limits).
class RawPeer {
 public:
  explicit RawPeer(const std::string& hostPort, const std::string& source = "") {
    auto colon = hostPort.rfind(':');
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(std::stoi(hostPort.substr(colon + 1))));
    ::inet_pton(AF_INET, hostPort.substr(0, colon).c_str(), &address.sin_addr);
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    if (!source.empty() && (::inet_pton(AF_INET, source.c_str(), &local.sin_addr) != 1 ||
                            ::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0)) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawPeer() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;

  bool connected() const { return fd_ >= 0; }
  // "127.0.0.1:PORT" as the other end sees us: how its log names us.
  std::string self() const {
    sockaddr_in address{};
    socklen_t length = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    return "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  }
  bool send(const std::string& bytes) {
    for (std::size_t done = 0; done < bytes.size();) {
      ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
  // Reads until the other end closes or `quiet` passes without a byte.
  // `closed` tells which; what arrived is kept in `received`.
  bool readUntilClosed(std::chrono::milliseconds quiet, std::size_t atMost = 1 << 20) {
    char buffer[16384];
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(quiet.count())) <= 0) return false;
      ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return true;  // EOF or reset: closed
      received.append(buffer, static_cast<std::size_t>(n));
      if (received.size() >= atMost) return false;
    }
  }
  int fd() const { return fd_; }

  std::string received;

 private:
  int fd_ = -1;
};

}  // namespace hnow::testing
