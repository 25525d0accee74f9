// TCP_INFO comes from <linux/tcp.h> (glibc's <netinet/tcp.h> lacks the byte
// counts, and the two cannot meet in one file: no uv.h here).
#include "transport/data/link_counters.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/tcp.h>
#include <net/if.h>
#include <sys/socket.h>

#include <cstring>
#include <fstream>

namespace hnow::transport::data {

namespace {

std::optional<std::uint64_t> readNumber(const std::string& path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

}  // namespace

std::string interfaceOf(const std::string& host) {
  in_addr v4{};
  in6_addr v6{};
  const bool isV4 = inet_pton(AF_INET, host.c_str(), &v4) == 1;
  const bool isV6 = !isV4 && inet_pton(AF_INET6, host.c_str(), &v6) == 1;
  if (!isV4 && !isV6) return "";
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string found;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || (a->ifa_flags & IFF_LOOPBACK)) continue;
    if (isV4 && a->ifa_addr->sa_family == AF_INET &&
        std::memcmp(&reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, &v4, sizeof v4) == 0)
      found = a->ifa_name;
    if (isV6 && a->ifa_addr->sa_family == AF_INET6 &&
        std::memcmp(&reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr, &v6, sizeof v6) == 0)
      found = a->ifa_name;
    if (!found.empty()) break;
  }
  freeifaddrs(list);
  return found;
}

std::optional<InterfaceCounters> interfaceCounters(const std::string& interface) {
  if (interface.empty() || interface.find('/') != std::string::npos) return std::nullopt;
  const std::string base = "/sys/class/net/" + interface + "/statistics/";
  auto txBytes = readNumber(base + "tx_bytes"), rxBytes = readNumber(base + "rx_bytes");
  auto txPackets = readNumber(base + "tx_packets"), rxPackets = readNumber(base + "rx_packets");
  if (!txBytes || !rxBytes || !txPackets || !rxPackets) return std::nullopt;
  return InterfaceCounters{*txBytes, *rxBytes, *txPackets, *rxPackets};
}

std::optional<WireBytes> wireBytesOf(int fd) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return std::nullopt;
  return WireBytes{info.tcpi_bytes_acked, info.tcpi_bytes_received};
}

LinkCounters countersOf(double atSeconds, std::uint64_t dataSent, std::uint64_t dataReceived, const WireBytes& wire,
                        const std::string& interface) {
  LinkCounters c;
  c.atSeconds = atSeconds;
  c.dataSent = dataSent;
  c.dataReceived = dataReceived;
  c.tcpSent = wire.acked;
  c.tcpReceived = wire.received;
  if (auto nic = interfaceCounters(interface)) {
    c.nicKnown = true;
    c.nicSent = nic->txBytes;
    c.nicReceived = nic->rxBytes;
    c.nicSentPackets = nic->txPackets;
    c.nicReceivedPackets = nic->rxPackets;
  }
  return c;
}

}  // namespace hnow::transport::data
