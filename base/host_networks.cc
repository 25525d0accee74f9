#include "base/host_networks.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "base/ip_network.h"

namespace hnow {

namespace {

bool parseNumber(const std::string& text, int base, std::uint32_t& out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  return !text.empty() && error == std::errc{} && end == text.data() + text.size();
}

}  // namespace

std::string interfaceNetwork(const sockaddr* address, const sockaddr* netmask) {
  if (!address || !netmask) return "";
  IpNetwork network;
  const std::uint8_t* mask = nullptr;
  std::size_t size = 0;
  if (address->sa_family == AF_INET) {
    std::memcpy(network.bytes.data(), &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, 4);
    mask = reinterpret_cast<const std::uint8_t*>(&reinterpret_cast<const sockaddr_in*>(netmask)->sin_addr);
    size = 4;
  } else if (address->sa_family == AF_INET6) {
    network.v6 = true;
    std::memcpy(network.bytes.data(), &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, 16);
    mask = reinterpret_cast<const std::uint8_t*>(&reinterpret_cast<const sockaddr_in6*>(netmask)->sin6_addr);
    size = 16;
    if (network.bytes[0] == 0xfe && (network.bytes[1] & 0xc0) == 0x80) return "";
  } else {
    return "";
  }
  const std::optional<int> length = prefixLengthOfMask(mask, size);
  if (!length) return "";
  network.prefixLength = *length;
  return textOf(network);
}

std::string defaultGatewayOf(std::string_view procNetRoute) {
  std::istringstream lines{std::string(procNetRoute)};
  std::string line;
  std::getline(lines, line);  // the header
  std::string best;
  std::uint32_t bestMetric = std::numeric_limits<std::uint32_t>::max();
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string iface, destination, gateway, flags, refCount, use, metric, mask;
    if (!(fields >> iface >> destination >> gateway >> flags >> refCount >> use >> metric >> mask)) continue;
    std::uint32_t d = 0, g = 0, f = 0, m = 0, mk = 0;
    if (!parseNumber(destination, 16, d) || !parseNumber(gateway, 16, g) || !parseNumber(flags, 16, f) ||
        !parseNumber(metric, 10, m) || !parseNumber(mask, 16, mk))
      continue;
    if (d != 0 || mk != 0 || (f & RTF_UP) == 0 || (f & RTF_GATEWAY) == 0) continue;
    if (!best.empty() && m >= bestMetric) continue;
    in_addr address{};
    std::memcpy(&address, &g, sizeof address);  // the kernel printed the bytes as a host-order number
    char text[INET_ADDRSTRLEN] = "";
    inet_ntop(AF_INET, &address, text, sizeof text);
    best = text;
    bestMetric = m;
  }
  return best;
}

std::vector<std::string> withHostNetworkFirst(std::vector<std::string> networks, std::string_view host) {
  const auto address = parseIpAddress(host);
  if (!address) return networks;
  auto first = networks.end();
  for (auto it = networks.begin(); it != networks.end(); ++it) {
    const auto network = parseIpNetwork(*it);
    if (!network || !holds(*network, *address)) continue;
    if (network->bytes == address->bytes) {
      first = it;
      break;
    }
    if (first == networks.end()) first = it;
  }
  if (first != networks.end()) std::rotate(networks.begin(), first, first + 1);
  return networks;
}

HostNetworks hostNetworks() {
  HostNetworks out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* a = list; a; a = a->ifa_next) {
      if (!(a->ifa_flags & IFF_UP) || (a->ifa_flags & IFF_LOOPBACK)) continue;
      std::string network = interfaceNetwork(a->ifa_addr, a->ifa_netmask);
      if (!network.empty()) out.networks.push_back(std::move(network));
    }
    freeifaddrs(list);
  }
  std::ifstream routes("/proc/net/route");
  std::stringstream text;
  if (routes) text << routes.rdbuf();
  out.gateway = defaultGatewayOf(text.str());
  return out;
}

}  // namespace hnow
