// `hnow-agent enroll` (agent/agent_enroll.h): the token placed for the
// agent's next start (mode 0600), hnowd's address written into the config
// with the other lines kept, a bad token refused with nothing placed; and
// the agent taking the placed token and removing it once enrolled.
#include "agent/agent_enroll.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/agent_credentials.h"
#include "cli/run_process.h"
#include "conf/runtime_config.h"
#include "transport/identity.h"

using hnow::agent::AgentCredentials;
using hnow::agent::enroll;
using hnow::agent::EnrollArgs;
using hnow::agent::enrollTokenPath;
using hnow::testing::TempDir;
namespace fs = std::filesystem;
namespace transport = hnow::transport;

namespace {

std::string readAll(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

unsigned modeOf(const fs::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

// A token as `hnow agent token` prints it, for an hnowd whose key is `coordinator`.
std::string madeToken(const transport::PublicKey& coordinator, std::uint8_t id = 1) {
  transport::EnrollToken token;
  token.id.fill(id);
  token.secret.fill(9);
  token.coordinator = coordinator;
  return transport::tokenText(token) + "\n";
}

struct Machine {
  TempDir dir;
  fs::path config = dir.path / "hnow-agent.toml";
  fs::path data = dir.path / "state";
  Machine() {
    std::ofstream(config) << "# the lab's agent\nname = \"pc-07\"\ncoordinator = \"hnowd.example:7411\"\n"
                          << "data_dir = \"" << data.string() << "\"\nroots = [\"" << dir.path.string()
                          << "\"]\n\n[emulate]\n# coordinator = \"not this one\"\nuplink_mbps = 0\n";
    fs::permissions(config, fs::perms(0640));
  }
  EnrollArgs args(const fs::path& token, const std::string& coordinator = "") const {
    EnrollArgs a;
    a.configPath = config.string();
    a.tokenFile = token.string();
    a.coordinator = coordinator;
    return a;
  }
};

}  // namespace

TEST_CASE("hnow-agent enroll places the token 0600 for the next start and writes hnowd's address into the config") {
  Machine pc;
  const transport::PublicKey hnowd = transport::KeyPair::generate().publicKey();
  const fs::path token = pc.dir.path / "token-01.token";
  std::ofstream(token) << madeToken(hnowd);

  REQUIRE(enroll(pc.args(token, "10.0.0.1:7411")) == 0);
  const fs::path placed = enrollTokenPath(pc.data.string());
  CHECK(readAll(placed) == readAll(token));
  CHECK(modeOf(placed) == 0600);
  CHECK(modeOf(pc.data / "agent.key") == 0600);  // the agent's key, made now
  // Only the top-level coordinator line changed; the file's mode is kept.
  CHECK(readAll(pc.config) ==
        "# the lab's agent\nname = \"pc-07\"\ncoordinator = \"10.0.0.1:7411\"\ndata_dir = \"" + pc.data.string() +
            "\"\nroots = [\"" + pc.dir.path.string() + "\"]\n\n[emulate]\n# coordinator = \"not this one\"\n"
            "uplink_mbps = 0\n");
  CHECK(modeOf(pc.config) == 0640);
  // A second enroll replaces the token placed before.
  const fs::path second = pc.dir.path / "token-02.token";
  std::ofstream(second) << madeToken(hnowd, 2);
  REQUIRE(enroll(pc.args(second)) == 0);
  CHECK(readAll(placed) == readAll(second));
  CHECK(modeOf(placed) == 0600);

  // The agent's start takes the placed token: it trusts the hnowd the token
  // names, and once logged in keeps that key and removes the token.
  auto config = hnow::conf::loadAgentConfig(pc.config.string());
  REQUIRE(config.ok());
  auto credentials = AgentCredentials::load(*config, "");
  REQUIRE_MESSAGE(credentials.ok(), (credentials ? "" : credentials.error().message));
  REQUIRE(credentials->trusted());
  CHECK(*credentials->trusted() == hnowd);
  CHECK(credentials->tokenFile() == placed.string());
  CHECK(!credentials->sign("pc-07", transport::Bytes(32, 1)).tokenProof.empty());
  credentials.value().loggedIn(hnowd);
  CHECK_FALSE(fs::exists(placed));
  CHECK(credentials->tokenFile().empty());
  CHECK(readAll(pc.data / "hnowd.pub") == transport::keyText(hnowd) + "\n");

  // A token of another hnowd than the one now kept is refused at once.
  std::ofstream(token) << madeToken(transport::KeyPair::generate().publicKey(), 3);
  CHECK(enroll(pc.args(token)) == 2);
  CHECK_FALSE(fs::exists(placed));
}

TEST_CASE("hnow-agent enroll refuses a missing or damaged token and a bad address, placing nothing") {
  Machine pc;
  const fs::path placed = enrollTokenPath(pc.data.string());
  CHECK(enroll(pc.args(pc.dir.path / "none.token")) == 2);
  const fs::path damaged = pc.dir.path / "damaged.token";
  std::ofstream(damaged) << "hnow-enroll-AAAA\n";
  CHECK(enroll(pc.args(damaged)) == 2);
  std::ofstream(damaged) << "not a token\n";
  CHECK(enroll(pc.args(damaged)) == 2);
  CHECK_FALSE(fs::exists(placed));

  const fs::path token = pc.dir.path / "token.token";
  std::ofstream(token) << madeToken(transport::KeyPair::generate().publicKey());
  const std::string before = readAll(pc.config);
  CHECK(enroll(pc.args(token, "hnowd.example")) == 2);  // no port
  CHECK(enroll(pc.args(token, "hnowd.example:99999")) == 2);
  CHECK(enroll(pc.args(token, "a\" b:1")) == 2);
  CHECK(readAll(pc.config) == before);
  CHECK_FALSE(fs::exists(placed));

  // A placed token that is damaged stops the agent's start, naming the file.
  fs::create_directories(pc.data);
  std::ofstream(placed) << "hnow-enroll-AAAA\n";
  auto config = hnow::conf::loadAgentConfig(pc.config.string());
  REQUIRE(config.ok());
  auto credentials = AgentCredentials::load(*config, "");
  REQUIRE_FALSE(credentials.ok());
  CHECK(credentials.error().message.find(placed.string() + ": the enrollment token is damaged") == 0);
}
