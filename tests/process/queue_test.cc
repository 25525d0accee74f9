// Jobs queued and clients that leave (docs/jobs.md, "Queue and detach"), on
// a real hnowd and agents on 127.0.0.1: `--detach` prints the record's id
// and leaves; `hnow ops wait|show|output ID` find the operation later.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/run_process.h"
#include "process/cancel_checks.h"
#include "process/test_cluster.h"
#include "process/transfer_checks.h"

using hnow::testing::eventually;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using Cluster = hnow::testing::TestCluster;
namespace fs = std::filesystem;

namespace {

// `hnow run ... --detach` over `input`: the record id it printed (0: it failed).
std::int64_t detachedRun(const Cluster& cluster, const fs::path& input, const std::string& more = "") {
  auto r = runCommand(cluster.hnow("run --input " + input.string() + " --cmd 'wc -l' --shell --concat --detach " + more));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return std::stoll(r.out);
}

nlohmann::json operation(const Cluster& cluster, std::int64_t id) {
  auto r = runCommand(cluster.hnow("ops --json --limit 100"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto parsed = nlohmann::json::parse(r.out);  // kept: the loop reads into it
  for (const auto& op : parsed["operations"])
    if (op["id"].get<std::int64_t>() == id) return op;
  MESSAGE("no record " << id << " in " << r.out);
  return {};
}

long countedLines(const std::string& output) {
  std::istringstream in(output);
  long total = 0;
  for (long n; in >> n;) total += n;
  return total;
}

}  // namespace

TEST_CASE("20 jobs submitted with --detach at once all complete, queued behind each other, each result fetched later by its id") {
  Cluster cluster("--agents 2");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path input = cluster.dir.path / "input.txt";
  {
    std::ofstream out(input);
    for (int i = 0; i < 3000; ++i) out << "line " << i << "\n";
  }
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 20; ++i) ids.push_back(detachedRun(cluster, input));
  // The last one was submitted while earlier ones held both agents.
  auto last = operation(cluster, ids.back());
  CHECK(last["kind"] == "run");
  CHECK(last["status"] == "queued");
  CHECK(last["progress"].get<std::string>().rfind("waiting: its agents run run ", 0) == 0);

  for (std::int64_t id : ids) {
    auto waited = runCommand(cluster.hnow("ops wait " + std::to_string(id)));
    CHECK_MESSAGE(waited.status == 0, "run " << id << ": " << waited.err);
    auto fetched = runCommand(cluster.hnow("ops output " + std::to_string(id)));
    REQUIRE_MESSAGE(fetched.status == 0, fetched.err);
    CHECK(countedLines(fetched.out) == 3000);
    CHECK(operation(cluster, id)["status"] == "done");
  }
  // A result fetched goes once 8 newer runs exist; the newest one stays, and goes to a file whole.
  auto gone = runCommand(cluster.hnow("ops output " + std::to_string(ids[3])));
  CHECK(gone.status == 1);
  CHECK(gone.err.find("its result is no longer kept") != std::string::npos);
  const fs::path out = cluster.dir.path / "result.txt";
  auto toFile = runCommand(cluster.hnow("ops output " + std::to_string(ids.back()) + " --output " + out.string()));
  REQUIRE_MESSAGE(toFile.status == 0, toFile.err);
  CHECK(countedLines(readWhole(out)) == 3000);
  CHECK_FALSE(fs::exists(out.string() + ".hnow-part"));
  auto shown = runCommand(cluster.hnow("ops show " + std::to_string(ids[0])));
  REQUIRE_MESSAGE(shown.status == 0, shown.err);
  CHECK(shown.out.find("operation " + std::to_string(ids[0]) + ": run, done") != std::string::npos);
  CHECK(shown.out.find("agent-1") != std::string::npos);
}

TEST_CASE("a queued job cancelled ends cancelled, `hnow ops wait` on it exits 3, and the job it waited for runs on") {
  Cluster cluster("--agents 2");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path input = cluster.dir.path / "input.txt";
  {
    std::ofstream out(input);
    for (int i = 0; i < 200; ++i) out << "line " << i << "\n";
  }
  auto slow = runCommand(cluster.hnow("run --input " + input.string() +
                                      " --cmd 'sleep 2; wc -l' --shell --concat --detach"));
  REQUIRE_MESSAGE(slow.status == 0, slow.err);
  const std::int64_t first = std::stoll(slow.out);
  const std::int64_t second = detachedRun(cluster, input, "--priority 0");
  CHECK(operation(cluster, second)["status"] == "queued");
  auto cancelled = runCommand(cluster.hnow("cancel " + std::to_string(second)));
  REQUIRE_MESSAGE(cancelled.status == 0, cancelled.err);
  auto waited = runCommand(cluster.hnow("ops wait " + std::to_string(second)));
  CHECK(waited.status == 3);
  CHECK(waited.err.find("cancelled by local") != std::string::npos);
  auto firstWaited = runCommand(cluster.hnow("ops wait " + std::to_string(first)));
  CHECK_MESSAGE(firstWaited.status == 0, firstWaited.err);
  auto missing = runCommand(cluster.hnow("ops wait 999999"));
  CHECK(missing.status == 1);
  CHECK(missing.err.find("no operation 999999") != std::string::npos);
}

TEST_CASE("hnow send --detach prints the record's id and leaves: the send lands, and ops wait reports it done") {
  Cluster cluster("--agents 2");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path file = cluster.dir.path / "file.bin";
  hnow::testing::writeRandomFile(file, 4 << 20);
  auto sent = runCommand(cluster.hnow("send " + file.string() + " --dest in/file.bin --detach"));
  REQUIRE_MESSAGE(sent.status == 0, sent.err);
  const std::int64_t id = std::stoll(sent.out);
  auto waited = runCommand(cluster.hnow("ops wait " + std::to_string(id)));
  CHECK_MESSAGE(waited.status == 0, waited.err);
  for (int agent : {1, 2}) CHECK(fs::file_size(cluster.root(agent) / "in/file.bin") == (4u << 20));
  auto output = runCommand(cluster.hnow("ops output " + std::to_string(id)));
  CHECK(output.status == 1);
  CHECK(output.err.find("is a send: only a run has an output") != std::string::npos);
}
