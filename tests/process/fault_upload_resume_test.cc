// The fault matrix, a send's row under the coordinator, for what a client
// uploads from outside hnowd's [send] roots: hnowd SIGKILLed mid-send and
// started again with the same data directory and key. A file or directory
// sent from hnowd's kept copy of it runs again from that copy under its
// record, each agent resuming; a directory whose copy a later upload
// changed meanwhile is not sent in its place, its record ends
// "interrupted" saying to send it again; an upload hnowd keeps no copy of
// (standard input) ends "interrupted" saying why, and sent again resumes
// from what each agent holds.
#include <doctest/doctest.h>

#include "process/send_resume_checks.h"

using hnow::testing::eventually;
using hnow::testing::FaultLab;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TempDir;
using hnow::testing::writeRandomFile;
using namespace hnow::testing::send_resume;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A client's directory of 8 files of 2 MiB each (`variant` changes their bytes): their contents.
std::vector<std::string> writeCourse(const fs::path& top, std::uint64_t variant = 0) {
  std::vector<std::string> files;
  for (int i = 0; i < 8; ++i)
    files.push_back(writeRandomFile(top / ("part-" + std::to_string(i)), 2 << 20, i + 16 * variant));
  return files;
}

// The send (its client "send") of `top` from outside hnowd's roots to in/tree, SIGKILLed while
// its bundle arrives: its record, once the client said hnowd keeps it.
std::int64_t killMidTreeUpload(FaultLab& lab, const fs::path& top) {
  auto send = lab.startClient("send " + top.string() + " --dest in/tree --compress none", "send");
  REQUIRE(eventually([&] { return lab.leftovers() > 0; }, 30s));  // the bundle is arriving
  std::this_thread::sleep_for(1s);
  const std::int64_t record = stopHnowd(lab, *send, SIGKILL);
  const std::string err = readWhole(lab.errPath("send"));
  CHECK(err.find("uploading " + top.string()) != std::string::npos);
  CHECK(err.find("(unless its copy of your directory changes first") != std::string::npos);
  return record;
}

nlohmann::json recordOf(const FaultLab& lab, std::int64_t record) {
  for (const auto& op : lab.ops())
    if (op["id"].get<std::int64_t>() == record) return op;
  return {};
}

}  // namespace

TEST_CASE("fault matrix: hnowd killed mid-send of a client's uploaded file - sent again from hnowd's kept copy under its record, each agent resuming, every copy whole") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  TempDir laptop;  // outside hnowd's [send] roots: the client uploads it
  constexpr std::size_t kSize = 16 << 20;
  const fs::path source = laptop.path / "image.bin";
  const std::string bytes = writeRandomFile(source, kSize);
  auto send = lab.startClient("send " + source.string() + " --dest in/big.bin --compress none", "send");
  REQUIRE(eventually([&] { return lab.progress("in/big.bin", kSize) >= 0.4; }, 30s));
  const std::int64_t record = stopHnowd(lab, *send, SIGKILL);
  CHECK(readWhole(lab.errPath("send")).find("uploading " + source.string()) != std::string::npos);
  restartUntilDone(lab, record);
  for (int k = 1; k <= 3; ++k) CHECK(readWhole(lab.root(k) / "in" / "big.bin") == bytes);
  const Accounted a = accountFor(lab, "big.bin", static_cast<long long>(kSize));
  CHECK(a.moved <= a.missing * 11 / 10);
  MESSAGE("fault matrix: hnowd killed mid-send of an uploaded file: held" << a.held << "; " << a.missing
                                                                          << " bytes missing, " << a.moved
                                                                          << " moved after the restart");
}

TEST_CASE("fault matrix: hnowd killed mid-send of a client's uploaded directory - sent again from hnowd's kept copy under its record, each agent resuming its bundle, every tree whole") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  TempDir laptop;  // outside hnowd's [send] roots: the client uploads it
  const fs::path top = laptop.path / "course";
  const std::vector<std::string> files = writeCourse(top);
  const std::int64_t record = killMidTreeUpload(lab, top);
  restartUntilDone(lab, record);
  for (int k = 1; k <= 3; ++k)
    for (std::size_t i = 0; i < files.size(); ++i)
      CHECK(readWhole(lab.root(k) / "in" / "tree" / ("part-" + std::to_string(i))) == files[i]);
  const nlohmann::json summary = recordOf(lab, record)["summary"];
  CHECK(summary["file"] == top.string());  // the client's directory, not hnowd's copy
  CHECK(summary["uploaded"] == true);
  REQUIRE(summary.contains("size"));
  const Accounted a = accountFor(lab, "tree", summary["size"].get<long long>());
  MESSAGE("fault matrix: hnowd killed mid-send of an uploaded directory: " << a.missing << " bytes of its bundle "
                                                                           << "missing at the restart, " << a.moved
                                                                           << " moved after it; bytes held:" << a.held);
  CHECK(a.moved <= a.missing * 11 / 10);
}

TEST_CASE("fault matrix: hnowd killed mid-send of an uploaded directory whose kept copy a later upload changes before the send runs again - its record ends interrupted saying so, nothing else sent in its place") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  TempDir laptop;
  const fs::path top = laptop.path / "course";
  std::vector<std::string> changed = writeCourse(top);
  const std::int64_t record = killMidTreeUpload(lab, top);
  // agent-3 stays away, so the restarted hnowd waits for it (10 s at most)
  // before it runs the send again: time for another upload of the directory.
  REQUIRE(lab.kill("agent-3"));
  lab.restart("hnowd");
  // Waiting for agent-3 alone: agent-1 and agent-2 are back, and take the later send.
  REQUIRE(eventually(
      [&] {
        auto status = lab.status();
        return status.contains("waiting_sends") && !status["waiting_sends"].empty() &&
               status["waiting_sends"][0]["waiting_for"] == nlohmann::json::array({"agent-3"});
      },
      10s));
  changed[0] = writeRandomFile(top / "part-0", 2 << 20, 99);
  auto again = runCommand(lab.hnow() + " send " + top.string() + " --dest in/tree2 --compress none");
  REQUIRE_MESSAGE(again.status == 0, again.err);
  CHECK(again.err.find("hnowd holds the rest from the last upload") != std::string::npos);  // unpacked over the copy
  REQUIRE(eventually([&] { return statusOf(lab, record) == "interrupted"; }, 30s));
  const std::string why = recordOf(lab, record)["summary"].value("error", "");
  CHECK_MESSAGE(why.rfind("hnowd's kept copy changed since the send began (", 0) == 0, why);
  CHECK_MESSAGE(why.find("send the directory again") != std::string::npos, why);
  // hnow ops wait and show say why, not a bare "interrupted".
  auto waited = runCommand(lab.hnow() + " ops wait " + std::to_string(record));
  CHECK(waited.status == 1);
  CHECK_MESSAGE(waited.err.find("send " + std::to_string(record) + " interrupted: hnowd's kept copy changed") !=
                    std::string::npos,
                waited.err);
  auto shown = runCommand(lab.hnow() + " ops show " + std::to_string(record));
  CHECK(shown.status == 0);
  CHECK(shown.out.find("interrupted") != std::string::npos);
  CHECK(shown.err.find("interrupted: hnowd's kept copy changed") != std::string::npos);
  // The changed directory went only where it was sent; the interrupted send published nothing.
  for (int k = 1; k <= 2; ++k) {
    CHECK_FALSE(fs::exists(lab.root(k) / "in" / "tree" / "part-0"));
    for (std::size_t i = 0; i < changed.size(); ++i)
      CHECK(readWhole(lab.root(k) / "in" / "tree2" / ("part-" + std::to_string(i))) == changed[i]);
  }
  const std::string log = readWhole(lab.dir.path / "logs" / "hnowd.log");
  CHECK(log.find("send record " + std::to_string(record) + " ends interrupted") != std::string::npos);
}

TEST_CASE("fault matrix: hnowd killed mid-send of standard input - its record ends interrupted saying it cannot be read again, and piped again it resumes from what each agent holds") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  constexpr std::size_t kSize = 16 << 20;
  const fs::path source = lab.dir.path / "piped.bin";
  const std::string bytes = writeRandomFile(source, kSize);
  auto send = lab.startClient("send - --dest in/piped.bin --compress none < " + source.string(), "send");
  REQUIRE(eventually([&] { return lab.progress("in/piped.bin", kSize) >= 0.4; }, 30s));
  auto ops = lab.ops();
  REQUIRE(!ops.empty());
  const std::int64_t record = ops[0]["id"].get<std::int64_t>();
  REQUIRE(lab.kill("hnowd", SIGKILL));
  auto exited = send->waitExit(10s);
  REQUIRE(exited.has_value());
  CHECK(*exited == 1);
  const std::string err = readWhole(lab.errPath("send"));
  CHECK_MESSAGE(err.find("hnowd keeps no copy of standard input to send it again: send " + std::to_string(record) +
                         " ends interrupted when hnowd is back") != std::string::npos,
                err);
  lab.restart("hnowd");
  REQUIRE(lab.allReady());
  CHECK(statusOf(lab, record) == "interrupted");
  const std::string says = "hnowd stopped mid-send and cannot run it again: it keeps no copy of standard input, "
                           "which cannot be read again; pipe it into `hnow send -` again";
  CHECK(recordOf(lab, record)["summary"].value("error", "").rfind(says, 0) == 0);
  auto waited = runCommand(lab.hnow() + " ops wait " + std::to_string(record));
  CHECK(waited.status == 1);
  CHECK_MESSAGE(waited.err.find("send " + std::to_string(record) + " interrupted: " + says) != std::string::npos,
                waited.err);
  auto shown = runCommand(lab.hnow() + " ops show " + std::to_string(record));
  CHECK(shown.out.find("cannot be read again") != std::string::npos);
  // Piped again: each agent resumes the receive it parked, so little more than what was missing moves.
  auto piped = runCommand("sh -c '" + lab.hnow() + " send - --dest in/piped.bin --compress none < " +
                          source.string() + "'");
  REQUIRE_MESSAGE(piped.status == 0, piped.err);
  for (int k = 1; k <= 3; ++k) CHECK(readWhole(lab.root(k) / "in" / "piped.bin") == bytes);
  const Accounted a = accountFor(lab, "piped.bin", static_cast<long long>(kSize));
  MESSAGE("fault matrix: hnowd killed mid-send of standard input, piped again: " << a.missing << " bytes missing, "
                                                                                 << a.moved << " moved; held:"
                                                                                 << a.held);
  CHECK(a.moved <= a.missing * 11 / 10);
}
