// `hnow local up`'s arguments are checked before anything starts.
#include <doctest/doctest.h>

#include "cli/local_command.h"

using namespace hnow;

TEST_CASE("local up takes 1 to 256 agents, and says so for any other count") {
  cli::LocalUpOptions options;
  for (int n : {1, 64, 256}) {
    options.agents = n;
    CHECK(cli::checkLocalUp(options));
  }
  for (int n : {0, 257, -3}) {
    options.agents = n;
    auto checked = cli::checkLocalUp(options);
    REQUIRE_FALSE(checked);
    CHECK(checked.error().message == "--agents must be from 1 to 256");
  }
}

TEST_CASE("local up: a rate list has one value for all agents or one per agent") {
  cli::LocalUpOptions options;
  options.agents = 256;
  options.uplinkMbps = std::vector<double>(256, 1.0);
  CHECK(cli::checkLocalUp(options));
  options.uplinkMbps.pop_back();
  auto checked = cli::checkLocalUp(options);
  REQUIRE_FALSE(checked);
  CHECK(checked.error().message == "give one --uplink-mbps value, or one per agent (256)");
}

TEST_CASE("local up: --max-uplink-mbps has one value for all agents or one per agent, each from 0 (no cap)") {
  cli::LocalUpOptions options;
  options.agents = 3;
  options.maxUplinkMbps = {40};
  CHECK(cli::checkLocalUp(options));
  options.maxUplinkMbps = {40, 0, 10};
  CHECK(cli::checkLocalUp(options));
  options.maxUplinkMbps = {40, 10};
  auto checked = cli::checkLocalUp(options);
  REQUIRE_FALSE(checked);
  CHECK(checked.error().message == "give one --max-uplink-mbps value, or one per agent (3)");
  options.maxUplinkMbps = {-1};
  REQUIRE_FALSE(cli::checkLocalUp(options));
}
