#pragma once
// The networks this host sits on, as an agent reports them to hnowd and
// hnowd knows its own: hosts on different subnets are behind a router, so
// hnowd puts them in different rooms (daemon/core/links/room_map.h).
// hostNetworks() is the only call that asks the kernel; the rest is pure,
// so it is tested on fixed inputs.
#include <string>
#include <string_view>
#include <vector>

struct sockaddr;

namespace hnow {

struct HostNetworks {
  std::vector<std::string> networks;  // "10.1.2.3/26", "fd00:1::5/64"
  std::string gateway;                // the default IPv4 route's, "10.1.2.1"; "" when none
};

// This host's networks now: every address of an up, non-loopback
// interface (getifaddrs) and the default IPv4 gateway (/proc/net/route).
HostNetworks hostNetworks();

// One interface address as "ADDR/PREFIXLEN"; "" for a family other than
// IPv4 or IPv6, a missing or non-contiguous netmask, or an IPv6 link-local
// address (fe80::/10: every IPv6 interface has one, the same /64 on every
// host, so it would put hosts behind different routers in one room).
std::string interfaceNetwork(const sockaddr* address, const sockaddr* netmask);

// The gateway of the default route in /proc/net/route's text (destination
// and mask 0, flags up and gateway), the lowest metric's if several; ""
// when there is none. The kernel prints each address as the hex of its
// 32 bits in the host's byte order.
std::string defaultGatewayOf(std::string_view procNetRoute);

// `networks` with the one whose address is `host` (else the first that
// holds `host`) moved to the front, the others in their order: an agent's
// data plane listens on `host`, so that network is the one hnowd groups it
// by. Unchanged when none does.
std::vector<std::string> withHostNetworkFirst(std::vector<std::string> networks, std::string_view host);

}  // namespace hnow
