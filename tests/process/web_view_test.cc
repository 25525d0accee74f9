// hnowd's web view and /metrics on a real local lab (`hnow local up --web`):
// the listener on 127.0.0.1 with a port the OS chose, /metrics read by a
// strict parser of the Prometheus format, the page's JSON behind the
// operators' token, and the page itself in headless Chromium while a send
// runs (skipped, saying so, where Debian's chromium is not installed).
#include <doctest/doctest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>

#include "process/child_process.h"
#include "process/test_cluster.h"
#include "process/transfer_checks.h"
#include "support/prometheus_text.h"

using namespace hnow::testing;
using namespace std::chrono_literals;

namespace {

struct HttpAnswer {
  int status = 0;
  std::string head, body;
};

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Whether `received` holds a whole answer: its head and as many body bytes
// as its Content-Length says (none for a HEAD). kj-http keeps a connection
// open for a next request for 5 s whatever the client asked, so an answer
// is read to its length, not to the connection's close.
bool wholeAnswer(const std::string& received, bool head) {
  const auto split = received.find("\r\n\r\n");
  if (split == std::string::npos) return false;
  std::string lower = received.substr(0, split);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos || head) return true;
  const auto length = std::strtoull(lower.c_str() + at + 17, nullptr, 10);
  return received.size() - split - 4 >= length;
}

// One request over a fresh connection, `extra` header lines included.
HttpAnswer request(const std::string& address, const std::string& method, const std::string& path,
                   const std::string& extra = "") {
  RawPeer peer(address);
  HttpAnswer answer;
  if (!peer.connected() ||
      !peer.send(method + " " + path + " HTTP/1.1\r\nHost: " + address + "\r\nConnection: close\r\n" + extra + "\r\n"))
    return answer;
  char buffer[16384];
  while (!wholeAnswer(peer.received, method == "HEAD")) {
    pollfd p{peer.fd(), POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) break;
    const ssize_t n = ::recv(peer.fd(), buffer, sizeof buffer, 0);
    if (n <= 0) break;
    peer.received.append(buffer, static_cast<std::size_t>(n));
  }
  const auto split = peer.received.find("\r\n\r\n");
  if (split == std::string::npos) return answer;
  answer.head = peer.received.substr(0, split);
  answer.body = peer.received.substr(split + 4);
  answer.status = std::atoi(answer.head.c_str() + answer.head.find(' ') + 1);
  return answer;
}

std::string bearer(const std::string& token) { return "Authorization: Bearer " + token + "\r\n"; }

struct WebLab : TestCluster {
  explicit WebLab(const std::string& options) : TestCluster("--web " + options) {}
  std::string web() const { return trimmed(readWhole(dir.path / "hnowd" / "web.address")); }
  std::string token() const { return trimmed(readWhole(dir.path / "hnowd" / "web.token")); }
  PromText metrics() const {
    HttpAnswer a = request(web(), "GET", "/metrics");
    PromText parsed = parsePromText(a.body);
    if (a.status != 200) parsed.error = "HTTP " + std::to_string(a.status);
    return parsed;
  }
};

// The path of Debian's chromium, "" when it is not installed.
std::string chromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (::access(path, X_OK) == 0) return path;
  return "";
}

// The page as headless Chromium has it after running its script for a
// while (virtual time waits for the page's fetches).
std::string dumpDom(const std::string& browser, const std::filesystem::path& profile, const std::string& url) {
  return runCommand(browser + " --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir=" +
                    profile.string() + " --virtual-time-budget=2500 --dump-dom '" + url + "'")
      .out;
}

}  // namespace

TEST_CASE("hnowd's /metrics on the loopback is valid Prometheus text counting the lab's agents and their rates") {
  WebLab lab("--agents 3 --uplink-mbps 40");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  CHECK(lab.up.out.find("web view at http://" + lab.web() + "/") != std::string::npos);
  HttpAnswer raw = request(lab.web(), "GET", "/metrics");
  CHECK(raw.status == 200);
  CHECK(raw.head.find("text/plain; version=0.0.4") != std::string::npos);
  const PromText m = lab.metrics();
  REQUIRE_MESSAGE(m.error.empty(), m.error);
  CHECK(m.value("hnow_agents", {{"state", "alive"}}) == 3);
  CHECK(m.value("hnow_agents", {{"state", "lost"}}) == 0);
  for (const char* agent : {"agent-1", "agent-2", "agent-3"})
    CHECK(m.value("hnow_agent_send_rate_bytes_per_second", {{"agent", agent}}) == doctest::Approx(40e6 / 8).epsilon(0.05));
  CHECK(m.has("hnow_build_info", {{"version", HNOW_VERSION_TEXT}}));
}

TEST_CASE("a send moves /metrics' counts: operations, bytes, plans and the corrupt chunks agents caught") {
  ::setenv("HNOW_TEST_CORRUPT_CHUNK_EVERY", "7", 1);  // hnowd spoils every 7th chunk it serves
  WebLab lab("--agents 2 --uplink-mbps 200");
  ::unsetenv("HNOW_TEST_CORRUPT_CHUNK_EVERY");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const PromText before = lab.metrics();
  REQUIRE_MESSAGE(before.error.empty(), before.error);
  CHECK(before.value("hnow_plan_seconds_count") == 0);
  writeRandomFile(lab.dir.path / "payload.bin", 4 << 20);
  auto sent = runCommand(lab.hnow("send " + (lab.dir.path / "payload.bin").string() + " --dest in/payload.bin"));
  REQUIRE_MESSAGE(sent.status == 0, sent.err);
  const PromText after = lab.metrics();
  REQUIRE_MESSAGE(after.error.empty(), after.error);
  CHECK(after.value("hnow_operations", {{"kind", "send"}, {"status", "done"}}) == 1);
  CHECK(after.value("hnow_plan_seconds_count") == 1);
  CHECK(after.value("hnow_plan_seconds_sum") > 0);
  CHECK(after.value("hnow_corrupt_chunks_total") > 0);
  // hnowd's data plane served at least one whole copy (the first relays the rest).
  CHECK(eventually([&] { return lab.metrics().value("hnow_bytes_sent_total") >= (4 << 20); }, 3s));
}

TEST_CASE("the web view's JSON needs the operators' token, every answer is marked uncacheable and sniff-proof, and it is read-only") {
  WebLab lab("--agents 2 --uplink-mbps 200");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  struct stat info {};
  REQUIRE(::stat((lab.dir.path / "hnowd" / "web.token").c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  HttpAnswer none = request(lab.web(), "GET", "/api/status");
  CHECK(none.status == 401);
  CHECK(none.head.find("WWW-Authenticate: Bearer") != std::string::npos);
  CHECK(none.body.find("agent-1") == std::string::npos);
  CHECK(request(lab.web(), "GET", "/api/status", bearer(lab.token() + "x")).status == 401);
  HttpAnswer good = request(lab.web(), "GET", "/api/status", bearer(lab.token()));
  REQUIRE(good.status == 200);
  auto status = nlohmann::json::parse(good.body);
  REQUIRE(status["agents"].size() == 2);
  CHECK(status["agents"][0]["name"] == "agent-1");
  CHECK(status["agents"][0]["state"] == "alive");
  HttpAnswer page = request(lab.web(), "GET", "/");
  CHECK(page.status == 200);
  CHECK(page.body.find("<script src=\"/app.js\"") != std::string::npos);
  for (const char* header : {"Content-Security-Policy: default-src 'none'", "Cache-Control: no-store",
                             "X-Content-Type-Options: nosniff"})
    CHECK_MESSAGE(page.head.find(header) != std::string::npos, header);
  CHECK(request(lab.web(), "POST", "/api/status", bearer(lab.token()) + "Content-Length: 0\r\n").status == 405);
  CHECK(request(lab.web(), "GET", "/api/ops/999", bearer(lab.token())).status == 404);
  CHECK(request(lab.web(), "GET", "/api/ops/999/picture.svg", bearer(lab.token())).status == 404);
  CHECK(request(lab.web(), "GET", "/api/ops/1x/picture.svg", bearer(lab.token())).status == 404);
}

TEST_CASE("the web view draws a send's picture behind the token, from the record once the send has ended") {
  WebLab lab("--agents 2 --uplink-mbps 200");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  writeRandomFile(lab.dir.path / "payload.bin", 2 << 20);
  auto sent = runCommand(lab.hnow("send " + (lab.dir.path / "payload.bin").string() + " --dest in/payload.bin --json"));
  REQUIRE_MESSAGE(sent.status == 0, sent.err);
  const auto id = nlohmann::json::parse(sent.out)["id"].get<std::int64_t>();
  const std::string path = "/api/ops/" + std::to_string(id) + "/picture.svg";
  CHECK(request(lab.web(), "GET", path).status == 401);
  HttpAnswer svg = request(lab.web(), "GET", path, bearer(lab.token()));
  REQUIRE(svg.status == 200);
  CHECK(svg.head.find("Content-Type: image/svg+xml") != std::string::npos);
  CHECK(svg.body.find("<svg") != std::string::npos);
  CHECK(svg.body.find("</svg>") != std::string::npos);
  for (const char* agent : {"agent-1", "agent-2"}) CHECK_MESSAGE(svg.body.find(agent) != std::string::npos, agent);
  // The same drawing `hnow ops show ID --svg` writes from the record.
  const auto file = lab.dir.path / "ops.svg";
  auto shown = runCommand(lab.hnow("ops show " + std::to_string(id) + " --svg " + file.string()));
  REQUIRE_MESSAGE(shown.status == 0, shown.err);
  CHECK(readWhole(file) == svg.body);
  // The list carries that a picture exists, not the picture itself.
  auto status = nlohmann::json::parse(request(lab.web(), "GET", "/api/status", bearer(lab.token())).body);
  REQUIRE(!status["operations"].empty());
  CHECK(status["operations"][0]["id"] == id);
  CHECK(status["operations"][0]["has_picture"] == true);
  CHECK(!status["operations"][0]["summary"].contains("picture"));
}

TEST_CASE("in headless Chromium the page shows the lab's agents and follows a send as it runs") {
  const std::string browser = chromium();
  if (browser.empty()) {
    MESSAGE("skipped: no chromium (apt-get install chromium; ./dev.sh test installs it)");
    return;
  }
  // Long enough for two runs of a browser on a busy machine.
  WebLab lab("--agents 3 --uplink-mbps 40 --source-uplink-mbps 8");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  writeRandomFile(lab.dir.path / "big.bin", 16 << 20);  // about 17 s at 8 Mbit/s
  const std::string url = "http://" + lab.web() + "/#token=" + lab.token();
  const std::filesystem::path profile = lab.dir.path / "chromium";
  // Before the send: the agents are shown, and the browser's profile is
  // made, which makes its later starts quicker.
  const std::string idle = dumpDom(browser, profile, url);
  for (const char* agent : {"agent-1", "agent-2", "agent-3"}) CHECK_MESSAGE(idle.find(agent) != std::string::npos, agent);
  CHECK(idle.find("site local") != std::string::npos);  // the lab's picture groups agents by site
  ChildProcess send({kHnowBinary, "--config", (lab.dir.path / "client.toml").string(), "send",
                     (lab.dir.path / "big.bin").string(), "--dest", "in/big.bin"},
                    {}, (lab.dir.path / "send.err").string());
  // Until hnowd lists it running.
  REQUIRE(eventually([&] {
    return request(lab.web(), "GET", "/api/status", bearer(lab.token())).body.find("\"status\":\"running\"") !=
           std::string::npos;
  }, 10s));
  const std::regex progress(R"((\d+ of 3 copies, \d+%))");
  const std::string first = dumpDom(browser, profile, url);
  std::smatch was;
  REQUIRE_MESSAGE(std::regex_search(first, was, progress), "no send in progress on the page (did it end before the browser ran?)");
  std::this_thread::sleep_for(1500ms);
  // The send selected (#op=ID): its copies and its live picture.
  const auto ops = nlohmann::json::parse(request(lab.web(), "GET", "/api/status", bearer(lab.token())).body)["operations"];
  REQUIRE(!ops.empty());
  const std::string second = dumpDom(browser, profile, url + "&op=" + std::to_string(ops[0]["id"].get<std::int64_t>()));
  CHECK(second.find("<figure id=\"detail-picture\">") != std::string::npos);
  CHECK(second.find("src=\"blob:") != std::string::npos);
  std::smatch now;
  const bool moved = std::regex_search(second, now, progress) ? now.str(1) != was.str(1)
                                                              : second.find("status-done") != std::string::npos;
  CHECK_MESSAGE(moved, "first: " << was.str(1) << ", then: " << (now.empty() ? "no progress" : now.str(1)));
  CHECK(send.waitExit(60000ms) == 0);
}
