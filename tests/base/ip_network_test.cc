#include <doctest/doctest.h>

#include "base/ip_network.h"

using namespace hnow;

namespace {

std::string subnetText(const std::string& cidr) { return textOf(subnetOf(parseIpNetwork(cidr).value())); }

}  // namespace

TEST_CASE("an IPv4 or IPv6 network reads back as its canonical text") {
  CHECK(textOf(parseIpNetwork("10.1.2.3/26").value()) == "10.1.2.3/26");
  CHECK(textOf(parseIpNetwork("192.168.0.7/0").value()) == "192.168.0.7/0");
  CHECK(textOf(parseIpNetwork("10.1.2.3/32").value()) == "10.1.2.3/32");
  CHECK(textOf(parseIpNetwork("FD00:0001:0000::0005/64").value()) == "fd00:1::5/64");
  CHECK(parseIpNetwork("fd00:1::5/128").value().v6);
  CHECK_FALSE(parseIpNetwork("10.1.2.3/26").value().v6);
}

TEST_CASE("a malformed network, or a prefix longer than its address, is refused") {
  for (const char* bad : {"10.1.2.3", "10.1.2.3/", "10.1.2.3/33", "10.1.2.3/-1", "10.1.2.3/26x", "10.1.2.3/ 26",
                          "10.1.2/24", "host.example/24", "/24", "", "fd00::5/129", "[fd00::5]/64", "fe80::1%eth0/64"})
    CHECK_MESSAGE(!parseIpNetwork(bad), bad);
}

TEST_CASE("a numeric host address is a network of its full length, and a name or bracketed address is not") {
  CHECK(textOf(parseIpAddress("10.1.2.3").value()) == "10.1.2.3/32");
  CHECK(textOf(parseIpAddress("fd00::5").value()) == "fd00::5/128");
  CHECK_FALSE(parseIpAddress("[fd00::5]"));
  CHECK_FALSE(parseIpAddress("hnowd.example"));
  CHECK_FALSE(parseIpAddress("10.1.2.3:9000"));
}

TEST_CASE("a subnet clears the host bits: every address of one subnet gives the same one") {
  CHECK(subnetText("10.231.5.70/26") == "10.231.5.64/26");
  CHECK(subnetText("10.231.5.127/26") == "10.231.5.64/26");
  CHECK(subnetText("10.231.5.128/26") == "10.231.5.128/26");
  CHECK(subnetText("10.231.5.70/24") == "10.231.5.0/24");
  CHECK(subnetText("10.231.5.70/20") == "10.231.0.0/20");
  CHECK(subnetText("10.231.5.70/0") == "0.0.0.0/0");
  CHECK(subnetText("10.231.5.70/32") == "10.231.5.70/32");
  CHECK(subnetText("fd00:1:2:3:4:5:6:7/64") == "fd00:1:2:3::/64");
  CHECK(subnetText("fd00:1:2:3:4:5:6:7/52") == "fd00:1:2::/52");
  CHECK(subnetText("fd00:1:2:3:4:5:6:7/128") == "fd00:1:2:3:4:5:6:7/128");
}

TEST_CASE("a network holds the addresses of its subnet, of its own family only") {
  const IpNetwork lan = parseIpNetwork("10.231.5.70/26").value();
  CHECK(holds(lan, parseIpAddress("10.231.5.64").value()));
  CHECK(holds(lan, parseIpAddress("10.231.5.127").value()));
  CHECK_FALSE(holds(lan, parseIpAddress("10.231.5.128").value()));
  CHECK_FALSE(holds(lan, parseIpAddress("10.231.4.70").value()));
  CHECK(holds(parseIpNetwork("0.0.0.0/0").value(), parseIpAddress("8.8.8.8").value()));
  const IpNetwork v6 = parseIpNetwork("fd00:1::5/64").value();
  CHECK(holds(v6, parseIpAddress("fd00:1::ffff:1").value()));
  CHECK_FALSE(holds(v6, parseIpAddress("fd00:2::5").value()));
  CHECK_FALSE(holds(v6, parseIpAddress("10.231.5.70").value()));
  CHECK_FALSE(holds(lan, parseIpAddress("::ffff:10.231.5.70").value()));
}

TEST_CASE("a netmask's prefix length counts its leading ones, and a mask with a gap has none") {
  const std::uint8_t m26[] = {255, 255, 255, 192};
  const std::uint8_t m0[] = {0, 0, 0, 0};
  const std::uint8_t m32[] = {255, 255, 255, 255};
  const std::uint8_t gap[] = {255, 0, 255, 0};
  const std::uint8_t lowBit[] = {255, 255, 255, 1};
  CHECK(prefixLengthOfMask(m26, 4) == 26);
  CHECK(prefixLengthOfMask(m0, 4) == 0);
  CHECK(prefixLengthOfMask(m32, 4) == 32);
  CHECK_FALSE(prefixLengthOfMask(gap, 4));
  CHECK_FALSE(prefixLengthOfMask(lowBit, 4));
  std::uint8_t m64[16] = {};
  for (int i = 0; i < 8; ++i) m64[i] = 255;
  CHECK(prefixLengthOfMask(m64, 16) == 64);
}
