// A send's picture from the command line, on a local lab: `hnow send
// --svg` writes it when the send ends, and `hnow ops show ID --svg` draws
// the same send from its record after hnowd stopped and started again.
#include <doctest/doctest.h>
#include <signal.h>

#include "process/fault_lab.h"

using hnow::testing::eventually;
using hnow::testing::FaultLab;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using namespace std::chrono_literals;

TEST_CASE("hnow send --svg draws the send's tree, and hnow ops show ID --svg draws the same from its record after hnowd restarts") {
  FaultLab lab(3, "--uplink-mbps 200 --source-uplink-mbps 200");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  hnow::testing::writeRandomFile(lab.dir.path / "source.bin", 2 << 20);
  const auto drawn = lab.dir.path / "send.svg", again = lab.dir.path / "again.svg";
  auto sent = runCommand(lab.hnow() + " send " + (lab.dir.path / "source.bin").string() + " --dest in/pic.bin --json --svg " +
                         drawn.string());
  REQUIRE_MESSAGE(sent.status == 0, sent.err);
  const std::string id = std::to_string(nlohmann::json::parse(sent.out)["id"].get<long long>());
  const std::string svg = readWhole(drawn);
  REQUIRE(svg.rfind("<svg", 0) == 0);
  for (const char* agent : {">agent-1<", ">agent-2<", ">agent-3<", ">hnowd<"}) CHECK(svg.find(agent) != std::string::npos);
  CHECK(svg.find("send of 2.1 MB to 3 agent(s)") != std::string::npos);
  CHECK(svg.find("class=\"edge") != std::string::npos);
  CHECK(svg.find("got ") != std::string::npos);
  CHECK(svg.find("bottleneck") != std::string::npos);
  CHECK(runCommand("xmllint --noout " + drawn.string() + " || ! command -v xmllint").status == 0);

  REQUIRE(lab.kill("hnowd", SIGTERM));
  lab.restart("hnowd");
  REQUIRE(eventually([&] { return lab.status().contains("agents"); }, 10s));
  auto shown = runCommand(lab.hnow() + " ops show " + id + " --svg " + again.string());
  REQUIRE_MESSAGE(shown.status == 0, shown.err);
  CHECK(readWhole(again) == svg);

  // An id hnowd has no record of: said, and nothing written.
  auto none = runCommand(lab.hnow() + " ops show 999999 --svg " + (lab.dir.path / "none.svg").string());
  CHECK(none.status != 0);
  CHECK_FALSE(std::filesystem::exists(lab.dir.path / "none.svg"));
}
