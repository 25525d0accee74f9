#pragma once
// What the fault matrix's cases of hnowd killed mid-send check
// (fault_send_resume_test.cc, fault_upload_resume_test.cc): the client
// told hnowd keeps the send, the restarted hnowd running it under its
// record to its end, and what the agents' receives lacked at the restart
// against what their data planes took after it, by their logs.
#include <doctest/doctest.h>

#include <string>

#include "process/fault_lab.h"

namespace hnow::testing::send_resume {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Paced so a 16 MiB send to 3 agents lasts a few seconds.
inline constexpr const char* kLabOptions = "--uplink-mbps 40 --source-uplink-mbps 40";

// The number after `marker` in the last line of `log` holding it; -1 none.
inline long long numberAfter(const std::string& log, const std::string& marker) {
  const auto at = log.rfind(marker);
  if (at == std::string::npos) return -1;
  return std::stoll(log.substr(at + marker.size()));
}

// What an agent's log says of its receive across the restart: the byte it
// was parked at, and its data plane's DATA bytes received when it parked
// and when the resumed receive was whole.
struct Resumed {
  long long parkedAt = -1, before = -1, after = -1;
};

inline Resumed resumedOf(const FaultLab& lab, int k, const std::string& path) {
  const std::string log = readWhole(lab.dir.path / "logs" / (FaultLab::name(k) + ".log"));
  Resumed r;
  // Into `path`, or a compressed file's scratch file beside it.
  const std::string parked = "parked the receive into " + fs::path(path).parent_path().string() + "/";
  if (const auto at = log.rfind(parked); at != std::string::npos)
    r.parkedAt = numberAfter(log.substr(0, log.find('\n', at)), ": ");
  if (const auto at = log.rfind("partial receive(s) for hnowd's next send"); at != std::string::npos)
    r.before = numberAfter(log.substr(0, log.find('\n', at)), "has received ");
  r.after = numberAfter(log, path + " is whole, resumed from the part received before; this agent's data plane has received ");
  return r;
}

inline std::string statusOf(const FaultLab& lab, std::int64_t record) {
  for (const auto& op : lab.ops())
    if (op["id"].get<std::int64_t>() == record) return op["status"].get<std::string>();
  return "";
}

// hnowd given `signal` while `send`, the client of a send, follows it: that
// send's record, once the client said hnowd keeps it and exited 1.
inline std::int64_t stopHnowd(FaultLab& lab, hnow::testing::ChildProcess& send, int signal) {
  auto ops = lab.ops();
  REQUIRE(!ops.empty());
  const std::int64_t record = ops[0]["id"].get<std::int64_t>();
  CHECK(ops[0]["kind"] == "send");
  REQUIRE(lab.kill("hnowd", signal));
  auto status = send.waitExit(10s);
  REQUIRE(status.has_value());
  CHECK(*status == 1);
  const std::string err = readWhole(lab.errPath("send"));
  CHECK(err.find("lost hnowd while sending") != std::string::npos);
  CHECK(err.find("hnowd keeps send " + std::to_string(record)) != std::string::npos);
  return record;
}

// hnowd started again: every agent back, and the record `record` done,
// no temp file left.
inline void restartUntilDone(FaultLab& lab, std::int64_t record) {
  lab.restart("hnowd");
  // What the client said to run: it follows the send once hnowd runs it again.
  REQUIRE(eventually([&] { return lab.status().contains("agents"); }, 10s));
  auto waited = hnow::testing::runCommand(lab.hnow() + " ops wait " + std::to_string(record));
  CHECK_MESSAGE(waited.status == 0, waited.err);
  REQUIRE_MESSAGE(eventually([&] { return statusOf(lab, record) == "done"; }, 60s), statusOf(lab, record));
  CHECK(eventually([&] { return lab.leftovers() == 0; }, 5s));
  const std::string log = readWhole(lab.dir.path / "logs" / "hnowd.log");
  CHECK(log.find("send record " + std::to_string(record) + ": runs again") != std::string::npos);
}

// What the agents' receives into in/`name` (a file, or a tree's
// directory) lacked of `total` bytes (what moves: the file, a compressed
// frame, a tree's bundle) when hnowd restarted, and what their data planes
// took after it, by their logs; each must have resumed a parked receive.
struct Accounted {
  long long missing = 0, moved = 0;
  std::string held;  // per agent, for the message
};

inline Accounted accountFor(const FaultLab& lab, const std::string& name, long long total) {
  Accounted a;
  for (int k = 1; k <= 3; ++k) {
    const Resumed r = resumedOf(lab, k, (lab.root(k) / "in" / name).string());
    INFO(FaultLab::name(k) << ": parked at " << r.parkedAt << ", received " << r.before << " then " << r.after);
    // Each held part of it when hnowd restarted (the kill came midway).
    REQUIRE(r.parkedAt > 0);
    REQUIRE(r.before >= 0);
    REQUIRE(r.after >= r.before);
    a.held += " " + FaultLab::name(k) + ":" + std::to_string(r.parkedAt);
    a.missing += total - r.parkedAt;
    a.moved += r.after - r.before;
  }
  return a;
}

}  // namespace hnow::testing::send_resume
