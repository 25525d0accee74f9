#include "base/ip_network.h"

#include <arpa/inet.h>

#include <charconv>

namespace hnow {

std::optional<IpNetwork> parseIpAddress(std::string_view host) {
  const std::string text(host);  // inet_pton wants a terminated string
  IpNetwork out;
  if (inet_pton(AF_INET, text.c_str(), out.bytes.data()) == 1) {
    out.prefixLength = 32;
    return out;
  }
  if (inet_pton(AF_INET6, text.c_str(), out.bytes.data()) == 1) {
    out.v6 = true;
    out.prefixLength = 128;
    return out;
  }
  return std::nullopt;
}

std::optional<IpNetwork> parseIpNetwork(std::string_view cidr) {
  const std::size_t slash = cidr.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto network = parseIpAddress(cidr.substr(0, slash));
  if (!network) return std::nullopt;
  const std::string_view digits = cidr.substr(slash + 1);
  int length = -1;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), length);
  // Digits only: from_chars takes a '-', and "26x" must not pass as 26.
  if (digits.empty() || digits.front() == '-' || error != std::errc{} || end != digits.data() + digits.size())
    return std::nullopt;
  if (length < 0 || length > network->prefixLength) return std::nullopt;
  network->prefixLength = length;
  return network;
}

std::string textOf(const IpNetwork& network) {
  char text[INET6_ADDRSTRLEN] = "";
  inet_ntop(network.v6 ? AF_INET6 : AF_INET, network.bytes.data(), text, sizeof text);
  return std::string(text) + "/" + std::to_string(network.prefixLength);
}

IpNetwork subnetOf(const IpNetwork& network) {
  IpNetwork out = network;
  const int bits = network.v6 ? 128 : 32;
  for (int bit = network.prefixLength; bit < bits; ++bit)
    out.bytes[bit / 8] &= static_cast<std::uint8_t>(~(0x80u >> (bit % 8)));
  return out;
}

bool holds(const IpNetwork& network, const IpNetwork& address) {
  if (network.v6 != address.v6) return false;
  IpNetwork masked = address;
  masked.prefixLength = network.prefixLength;
  return subnetOf(masked).bytes == subnetOf(network).bytes;
}

std::optional<int> prefixLengthOfMask(const std::uint8_t* mask, std::size_t size) {
  int length = 0;
  bool zeros = false;  // a zero bit seen: every later bit must be zero too
  for (std::size_t i = 0; i < size; ++i)
    for (int bit = 7; bit >= 0; --bit) {
      const bool one = (mask[i] >> bit) & 1;
      if (one && zeros) return std::nullopt;
      if (one) ++length;
      else zeros = true;
    }
  return length;
}

}  // namespace hnow
