#pragma once
// An interface address with its prefix length, as agents report their
// networks ("10.1.2.3/26", "fd00:1::5/64"), and the subnet it lies in.
// Pure: hnowd groups agents into rooms by these (daemon/core/links/room_map.h),
// the host's own list comes from host_networks.h.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hnow {

struct IpNetwork {
  bool v6 = false;
  std::array<std::uint8_t, 16> bytes{};  // network byte order; IPv4 in the first 4
  int prefixLength = 0;                  // 0..32 or 0..128
};

// "ADDR/PREFIXLEN", numeric IPv4 or IPv6; none when malformed or the
// prefix is longer than the address.
std::optional<IpNetwork> parseIpNetwork(std::string_view cidr);
// A numeric host address ("10.1.2.3", "fd00::5") as a network of its full
// length; none when it is not one (a name, "[fd00::5]").
std::optional<IpNetwork> parseIpAddress(std::string_view host);

// "ADDR/PREFIXLEN", the address in its canonical text (inet_ntop).
std::string textOf(const IpNetwork& network);
// The network's own address: its host bits cleared ("10.1.2.3/26" gives
// 10.1.2.0/26), so every address of one subnet gives the same value.
IpNetwork subnetOf(const IpNetwork& network);
// `address` lies within `network`: same family, the first prefixLength bits
// equal.
bool holds(const IpNetwork& network, const IpNetwork& address);

// The leading one bits of a netmask of `size` bytes (network byte order);
// none when its ones are not contiguous (such a mask names no subnet).
std::optional<int> prefixLengthOfMask(const std::uint8_t* mask, std::size_t size);

}  // namespace hnow
