// hnowd's [web]: the web view and /metrics, off unless listen is set.
#include <doctest/doctest.h>

#include "conf/runtime_config.h"

using namespace hnow::conf;

namespace {

const std::string kBase = "data_dir = \"/var/lib/hnow\"\n";

std::string errorOf(const std::string& text) {
  auto loaded = parseCoordinatorConfig(text, "hnowd.toml", "/etc/hnow");
  return loaded ? "" : loaded.error().text();
}

}  // namespace

TEST_CASE("the web view is off without [web], and [web] listen turns it on with its token in the data directory") {
  auto off = parseCoordinatorConfig(kBase, "hnowd.toml", "/etc/hnow");
  REQUIRE(off.ok());
  CHECK_FALSE(off->web.enabled());
  auto on = parseCoordinatorConfig(kBase + "\n[web]\nlisten = \"127.0.0.1:7480\"\n", "hnowd.toml", "/etc/hnow");
  REQUIRE(on.ok());
  CHECK(on->web.enabled());
  CHECK(on->web.listen == "127.0.0.1:7480");
  CHECK(on->web.tokenFile == "/var/lib/hnow/web.token");
  CHECK(on->web.metricsTokenFile.empty());
}

TEST_CASE("[web] token files are read relative to the config's directory") {
  auto loaded = parseCoordinatorConfig(
      kBase + "\n[web]\nlisten = \"0.0.0.0:0\"\ntoken_file = \"web/pages.token\"\nmetrics_token_file = \"/etc/hnow/scrape\"\n",
      "hnowd.toml", "/etc/hnow");
  REQUIRE(loaded.ok());
  CHECK(loaded->web.listen == "0.0.0.0:0");
  CHECK(loaded->web.tokenFile == "/etc/hnow/web/pages.token");
  CHECK(loaded->web.metricsTokenFile == "/etc/hnow/scrape");
}

TEST_CASE("a bad [web] is refused with its position and how to fix it") {
  CHECK(errorOf(kBase + "\n[web]\nlisten = \"127.0.0.1\"\n") ==
        "hnowd.toml:4:10: 'listen' must be host:port with a port from 0 to 65535, not '127.0.0.1'");
  CHECK(errorOf(kBase + "\n[web]\nlisten = \"127.0.0.1:99999\"\n") ==
        "hnowd.toml:4:10: 'listen' must be host:port with a port from 0 to 65535, not '127.0.0.1:99999'");
  CHECK(errorOf(kBase + "\n[web]\ntoken_file = \"t\"\n").find(
            "missing key 'listen' in [web] (the web view's address, host:port, e.g. \"127.0.0.1:7480\"; remove [web] "
            "to leave the web view off)") != std::string::npos);
  CHECK(errorOf(kBase + "\n[web]\nlisten = \"127.0.0.1:0\"\nlisen = \"x\"\n")
            .find("unknown key 'lisen' in [web] (expected one of: listen, metrics_token_file, token_file)") !=
        std::string::npos);
  CHECK(errorOf(kBase + "\n[web]\nlisten = \"127.0.0.1:0\"\ntoken_file = \"\"\n") ==
        "hnowd.toml:5:14: 'token_file' cannot be empty");
}
