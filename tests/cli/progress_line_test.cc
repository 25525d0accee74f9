// The progress lines of a run, an upload and a send, from fixed reports;
// the terminal line's redraws; the sliding rate behind each ETA.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <string>

#include "cli/progress_line.h"

using namespace hnow;

namespace {

api::RunStatus runningJob() {
  api::RunStatus r;
  r.phase = "running";
  r.units = 1000;
  r.agentsWorking = 3;
  r.elapsedS = 12.34;
  api::RunAgentStatus a, b;
  a.name = "agent-1";
  a.units = 250;
  b.name = "agent-2";
  b.units = 150;
  r.agents = {a, b};
  return r;
}

// What `draw` writes to stderr, captured in a temp file.
template <class Draw>
std::string stderrOf(Draw draw) {
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  ::dup2(::fileno(file), STDERR_FILENO);
  draw();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::string out;
  std::rewind(file);
  for (int c; (c = std::fgetc(file)) != EOF;) out += static_cast<char>(c);
  std::fclose(file);
  return out;
}

}  // namespace

TEST_CASE("run line: phase, units accepted of the total with percent, agents working, rate, ETA, elapsed") {
  CHECK(cli::runProgressText(runningJob(), 20.0) ==
        "running  400/1000 units (40%)  3 agents working  20.0 units/s  ETA 30 s  12.3 s");
  CHECK(cli::runUnitsDone(runningJob()) == 400);
}

TEST_CASE("run line: percent rounds down, so 100% only once every unit is accepted") {
  auto r = runningJob();
  r.agents[0].units = 849;
  CHECK(cli::runProgressText(r, 1.0).find("999/1000 units (99%)") != std::string::npos);
  r.agents[0].units = 850;
  r.phase = "writing";
  r.agentsWorking = 1;
  CHECK(cli::runProgressText(r, 1.0) == "writing  1000/1000 units (100%)  1 agent working  12.3 s");
}

TEST_CASE("run line: at a rate of 0 no ETA is shown") {
  const std::string line = cli::runProgressText(runningJob(), 0.0);
  CHECK(line == "running  400/1000 units (40%)  3 agents working  0.00 units/s  12.3 s");
  CHECK(cli::runProgressText(runningJob(), -1.0).find("ETA") == std::string::npos);
}

TEST_CASE("run line: while calibrating, with no total yet, only the phase and the agents at work") {
  api::RunStatus r;
  r.phase = "calibrating";
  r.agentsWorking = 2;
  CHECK(cli::runProgressText(r, 0.0) == "calibrating  2 agents working");
}

TEST_CASE("ETA: whole seconds rounded up, then minutes and hours") {
  CHECK(cli::etaText(10, 3) == "ETA 4 s");
  CHECK(cli::etaText(0.1, 1) == "ETA 1 s");
  CHECK(cli::etaText(99, 1) == "ETA 99 s");
  CHECK(cli::etaText(125, 1) == "ETA 2 min 05 s");
  CHECK(cli::etaText(3725, 1) == "ETA 1 h 02 min");
  CHECK(cli::etaText(1e12, 1) == "ETA over 100 h");
}

TEST_CASE("ETA: none at a rate of 0, below 0 or not a number") {
  CHECK(cli::etaText(100, 0).empty());
  CHECK(cli::etaText(100, -5).empty());
  CHECK(cli::etaText(100, 0.0 / 0.0).empty());
}

TEST_CASE("upload line: bytes sent of the total, percent, rate and ETA") {
  CHECK(cli::uploadProgressText("uploading", 1 << 20, 4u << 20, 1 << 20) ==
        "uploading  1.0 MiB/4.0 MiB (25%)  1.0 MiB/s  ETA 3 s");
  CHECK(cli::uploadProgressText("uploading", 1 << 20, 4u << 20, 0) == "uploading  1.0 MiB/4.0 MiB (25%)  0.0 B/s");
}

TEST_CASE("upload line: standard input's total is unknown: bytes and rate only") {
  CHECK(cli::uploadProgressText("reading standard input", 3u << 19, std::nullopt, 512 * 1024) ==
        "reading standard input  1.5 MiB  512.0 KiB/s");
}

TEST_CASE("send line: a bar of the bytes over the copies, rate, ETA while bytes move, copies done") {
  api::SendStatus s;
  s.size = 1000;
  s.elapsedS = 2.0;
  for (const char* n : {"a", "b"}) {
    api::CopyStatus c;
    c.node = n;
    c.state = api::CopyStatus::State::kReceiving;
    c.bytes = 250;
    s.copies.push_back(c);
  }
  CHECK(cli::sendProgressText(s, 1024, true) ==
        "[#######                       ]  25%    1.0 KiB/s  ETA   1.5 s  0/2 copies ");
  CHECK(cli::sendProgressText(s, 1024, false).find("ETA     ? s") != std::string::npos);
  for (auto& c : s.copies) c.bytes = 1000;
  s.copies[0].state = api::CopyStatus::State::kDone;
  CHECK(cli::sendProgressText(s, 0, false) == "  2.0 s  every byte in; 1/2 copies verified");
}

TEST_CASE("rate window: units per second over the window, a burst before it no longer counted") {
  cli::RateWindow rate(5.0);
  CHECK(rate.perSecond() == 0.0);
  rate.add(0, 0);
  CHECK(rate.perSecond() == 0.0);
  rate.add(1, 1000);
  CHECK(rate.perSecond() == doctest::Approx(1000.0));
  for (int t = 2; t <= 10; ++t) rate.add(t, 1000);
  rate.add(11, 1010);
  CHECK(rate.perSecond() == doctest::Approx(2.0));
}

TEST_CASE("rate window: a total that went down gives a rate of 0, not a negative one") {
  cli::RateWindow rate(5.0);
  rate.add(0, 100);
  rate.add(1, 50);
  CHECK(rate.perSecond() == 0.0);
}

TEST_CASE("progress line: on a terminal redrawn in place, a shorter text blanks the rest, end keeps the last text") {
  const std::string out = stderrOf([] {
    cli::ProgressLine line(true);
    line.draw("abcdef");
    line.draw("xy");  // under 0.1 s after the first: kept for end()
    line.end();
  });
  CHECK(out == "\rabcdef\rxy    \n");
}

TEST_CASE("progress line: clear blanks the line and returns to its start") {
  const std::string out = stderrOf([] {
    cli::ProgressLine line(true);
    line.draw("abc");
    line.clear();
    line.end();  // nothing on the line any more: no new line
  });
  CHECK(out == "\rabc\r   \r");
}

TEST_CASE("progress line: not a terminal, nothing is drawn") {
  const std::string out = stderrOf([] {
    cli::ProgressLine line(false);
    line.draw("abc");
    line.clear();
    line.end();
  });
  CHECK(out.empty());
}
