#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "base/host_networks.h"
#include "base/ip_network.h"

using namespace hnow;

namespace {

sockaddr_in v4(const char* text) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, text, &a.sin_addr);
  return a;
}

sockaddr_in6 v6(const char* text) {
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  inet_pton(AF_INET6, text, &a.sin6_addr);
  return a;
}

const sockaddr* any(const void* a) { return static_cast<const sockaddr*>(a); }

// An address as /proc/net/route prints it: its four bytes read as one
// number in this host's byte order, in hex.
std::string routeHex(const char* address) {
  in_addr a{};
  inet_pton(AF_INET, address, &a);
  std::uint32_t number = 0;
  std::memcpy(&number, &a, sizeof number);
  char text[9];
  std::snprintf(text, sizeof text, "%08X", number);
  return text;
}

std::string route(const char* iface, const char* destination, const char* gateway, const char* flags, int metric,
                  const char* mask) {
  return std::string(iface) + "\t" + routeHex(destination) + "\t" + routeHex(gateway) + "\t" + flags + "\t0\t0\t" +
         std::to_string(metric) + "\t" + routeHex(mask) + "\t0\t0\t0\n";
}

const std::string kHeader = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n";

}  // namespace

TEST_CASE("an interface's IPv4 or IPv6 address with its netmask is ADDR/PREFIXLEN") {
  auto address = v4("10.231.5.70"), mask = v4("255.255.255.192");
  CHECK(interfaceNetwork(any(&address), any(&mask)) == "10.231.5.70/26");
  auto address6 = v6("fd00:1::5"), mask6 = v6("ffff:ffff:ffff:ffff::");
  CHECK(interfaceNetwork(any(&address6), any(&mask6)) == "fd00:1::5/64");
}

TEST_CASE("an interface address without a usable netmask, of another family or IPv6 link-local gives nothing") {
  auto address = v4("10.231.5.70"), gap = v4("255.0.255.0");
  CHECK(interfaceNetwork(any(&address), any(&gap)).empty());
  CHECK(interfaceNetwork(any(&address), nullptr).empty());
  CHECK(interfaceNetwork(nullptr, any(&gap)).empty());
  sockaddr other{};
  other.sa_family = AF_UNIX;
  CHECK(interfaceNetwork(&other, &other).empty());
  auto linkLocal = v6("fe80::1c2d:3eff:fe4f:5a6b"), mask6 = v6("ffff:ffff:ffff:ffff::");
  CHECK(interfaceNetwork(any(&linkLocal), any(&mask6)).empty());
  auto global = v6("2001:db8::1");
  CHECK(interfaceNetwork(any(&global), any(&mask6)) == "2001:db8::1/64");
}

TEST_CASE("the default gateway is the up gateway route to 0.0.0.0/0 with the lowest metric") {
  const std::string routes = kHeader + route("eth0", "10.231.5.64", "0.0.0.0", "0001", 0, "255.255.255.192") +
                             route("wlan0", "0.0.0.0", "192.168.2.1", "0003", 600, "0.0.0.0") +
                             route("eth0", "0.0.0.0", "10.231.5.65", "0003", 100, "0.0.0.0") +
                             route("eth1", "0.0.0.0", "10.9.9.1", "0003", 100, "0.0.0.0");
  CHECK(defaultGatewayOf(routes) == "10.231.5.65");
}

TEST_CASE("no default gateway: no route to 0.0.0.0/0, one without a gateway or down, or unreadable text") {
  CHECK(defaultGatewayOf("").empty());
  CHECK(defaultGatewayOf(kHeader).empty());
  CHECK(defaultGatewayOf(kHeader + route("eth0", "10.231.5.64", "0.0.0.0", "0001", 0, "255.255.255.192")).empty());
  // A default route straight onto a link (no RTF_GATEWAY), or not up.
  CHECK(defaultGatewayOf(kHeader + route("ppp0", "0.0.0.0", "0.0.0.0", "0001", 0, "0.0.0.0")).empty());
  CHECK(defaultGatewayOf(kHeader + route("eth0", "0.0.0.0", "10.231.5.65", "0002", 0, "0.0.0.0")).empty());
  // A route to 10.0.0.0/8 through a gateway is not the default one.
  CHECK(defaultGatewayOf(kHeader + route("eth0", "10.0.0.0", "10.231.5.65", "0003", 0, "255.0.0.0")).empty());
  CHECK(defaultGatewayOf(kHeader + "eth0\t00000000\tzz\t0003\t0\t0\t0\t00000000\n").empty());
  CHECK(defaultGatewayOf(kHeader + "eth0\t00000000\n").empty());
}

TEST_CASE("the network the data plane listens on goes first, the others keep their order") {
  const std::vector<std::string> networks{"172.17.0.1/16", "10.231.5.70/26", "fd00:1::5/64", "10.231.5.71/26"};
  CHECK(withHostNetworkFirst(networks, "10.231.5.70") ==
        std::vector<std::string>{"10.231.5.70/26", "172.17.0.1/16", "fd00:1::5/64", "10.231.5.71/26"});
  // Its own address first, before an earlier network that merely holds it.
  CHECK(withHostNetworkFirst(networks, "10.231.5.71") ==
        std::vector<std::string>{"10.231.5.71/26", "172.17.0.1/16", "10.231.5.70/26", "fd00:1::5/64"});
  CHECK(withHostNetworkFirst(networks, "fd00:1::5") ==
        std::vector<std::string>{"fd00:1::5/64", "172.17.0.1/16", "10.231.5.70/26", "10.231.5.71/26"});
  // An address no interface has but one network holds.
  CHECK(withHostNetworkFirst(networks, "10.231.5.99") ==
        std::vector<std::string>{"10.231.5.70/26", "172.17.0.1/16", "fd00:1::5/64", "10.231.5.71/26"});
  CHECK(withHostNetworkFirst(networks, "127.0.0.1") == networks);
  CHECK(withHostNetworkFirst(networks, "0.0.0.0") == networks);
  CHECK(withHostNetworkFirst(networks, "not an address") == networks);
  CHECK(withHostNetworkFirst({}, "10.231.5.70").empty());
}

TEST_CASE("this host's networks are well formed and none is loopback") {
  const HostNetworks here = hostNetworks();
  for (const std::string& network : here.networks) {
    const auto parsed = parseIpNetwork(network);
    REQUIRE_MESSAGE(parsed, network);
    CHECK_FALSE(holds(parseIpNetwork("127.0.0.0/8").value(), *parsed));
    CHECK_FALSE(holds(parseIpNetwork("::1/128").value(), *parsed));
  }
  if (!here.gateway.empty()) CHECK(parseIpAddress(here.gateway));
}
