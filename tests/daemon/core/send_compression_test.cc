// hnow send --compress in SendService (docs/compression.md): what `auto`
// decides from the sample and the links, what the agents are told, and
// that every scratch file hnowd made is dropped.
#include "daemon/core/send_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;
using namespace std::chrono_literals;

namespace {

SendRequest compressing(const Lab& lab, const std::string& mode) {
  SendRequest r = lab.toAll();
  r.compress = mode;
  return r;
}

// Every agent reports its copy done.
void allDone(Lab& lab, std::uint64_t bytes) {
  lab.clock.advance(2s);
  for (const char* agent : {"a1", "a2", "a3"}) {
    TransferReport done = lab.done();
    done.bytes = bytes;
    lab.coordinator.reportTransfer(lab.sessions[agent], std::string(32, 't'), done);
  }
}

}  // namespace

TEST_CASE("auto compresses a file that samples at ratio 0.3 on slow links, tells every agent to expand it, and drops the compressed file at the end") {
  Lab lab;  // 10 MB/s links: 64 MiB plain takes seconds
  lab.plane.ratio = 0.3;
  auto answer = started(lab, compressing(lab, "auto"));
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  CHECK(lab.plane.samples == 1);
  REQUIRE(lab.plane.compressions == 1);
  const std::uint64_t sent = lab.plane.files["/state/trees/1.zst"];
  CHECK(sent == static_cast<std::uint64_t>((64 << 20) * 0.3));
  CHECK(lab.plane.bundles == std::set<std::string>{"/state/trees/1.zst"});
  REQUIRE(lab.agents.orders.size() == 3);
  for (const auto& order : lab.agents.orders) {
    CHECK(order.compressed);
    CHECK(order.size == sent);  // what moves is the compressed file
    CHECK(order.plainSize == 64u << 20);
    CHECK(order.plainSha256 == std::string(32, 'p'));
    CHECK_FALSE(order.tree);
  }
  CHECK(first.size == sent);
  CHECK(first.compression.algo == "zstd");
  CHECK(first.compression.plainBytes == 64u << 20);
  CHECK(first.compression.sentBytes == sent);
  CHECK(first.compression.compressS == 0.5);
  CHECK(first.compression.why.rfind("zstd: ", 0) == 0);
  CHECK(first.compression.why.find("(ratio 0.30)") != std::string::npos);

  allDone(lab, sent);
  auto status = *lab.service.status(id);
  CHECK(status.finished);
  for (const auto& c : status.copies) CHECK(c.state == CopyStatus::State::kDone);
  CHECK(lab.plane.bundles.empty());  // the compressed file dropped with the send
  CHECK(lab.plane.served.empty());
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].summary.find("\"size\":" + std::to_string(64 << 20) + ",\"compress\":\"zstd\",\"sent_size\":" +
                            std::to_string(sent)) != std::string::npos);
}

TEST_CASE("auto sends random-looking data as it is, and data that shrinks too when compressing would take longer than it saves") {
  Lab lab;
  lab.plane.ratio = 0.99;
  auto random = started(lab, compressing(lab, "auto"));
  REQUIRE(random);
  CHECK(lab.plane.compressions == 0);
  CHECK(random->second.compression.algo == "none");
  CHECK(random->second.compression.why == "none: random-looking data, ratio 0.99");
  CHECK(random->second.compression.sentBytes == 64u << 20);
  for (const auto& order : lab.agents.orders) CHECK_FALSE(order.compressed);
  CHECK(random->second.size == 64u << 20);

  Lab slowCpu;
  slowCpu.plane.ratio = 0.3;
  slowCpu.plane.compressRate = 5e6;  // 13 s to compress 64 MiB: more than the whole plain send
  auto text = started(slowCpu, compressing(slowCpu, "auto"));
  REQUIRE(text);
  CHECK(slowCpu.plane.compressions == 0);
  CHECK(text->second.compression.why.find("the links are fast enough") != std::string::npos);
  auto ops = slowCpu.coordinator.operations(1).value();
  CHECK(ops[0].summary.find("\"compress\":\"none\"") != std::string::npos);
}

TEST_CASE("--compress none never samples the file, and --compress zstd compresses even data that does not shrink") {
  Lab lab;
  lab.plane.ratio = 0.3;
  auto none = started(lab, compressing(lab, "none"));
  REQUIRE(none);
  CHECK(lab.plane.samples == 0);
  CHECK(lab.plane.compressions == 0);
  CHECK(none->second.compression.why == "none: --compress none");

  Lab forced;
  forced.plane.ratio = 0.99;
  auto zstd = started(forced, compressing(forced, "zstd"));
  REQUIRE(zstd);
  CHECK(forced.plane.compressions == 1);
  CHECK(zstd->second.compression.algo == "zstd");
  CHECK(zstd->second.compression.why.rfind("zstd: --compress zstd; ", 0) == 0);
  for (const auto& order : forced.agents.orders) CHECK(order.compressed);
}

TEST_CASE("a tree's bundle and an upload are compressed and dropped at once, the compressed file kept until the send ends") {
  Lab lab;
  lab.plane.ratio = 0.25;
  SendRequest tree = compressing(lab, "zstd");
  tree.path = "/data/course";
  lab.agents.lacking["a1"]["part one"] = {1};
  auto answer = started(lab, tree);
  REQUIRE(answer);
  CHECK(lab.plane.compressedFrom == std::vector<std::string>{"/state/trees/1.bundle"});
  CHECK(lab.plane.bundles == std::set<std::string>{"/state/trees/1.zst"});  // the bundle is dropped
  REQUIRE(lab.agents.orders.size() == 3);
  for (const auto& order : lab.agents.orders) {
    CHECK(order.tree);
    CHECK(order.compressed);
    CHECK(order.plainSize == 64u << 20);
    CHECK(order.size == (64u << 20) / 4);
  }
  REQUIRE(answer->second.tree);  // the tree's summary stays with the compressed file
  CHECK(answer->second.tree->files == 2);
  allDone(lab, (64u << 20) / 4);
  CHECK(lab.service.status(answer->first)->finished);
  CHECK(lab.plane.bundles.empty());

  SendRequest upload = compressing(lab, "zstd");
  upload.path = "/uploads/7";
  upload.scratch = true;
  lab.plane.files[upload.path] = 1 << 20;
  lab.plane.bundles.insert(upload.path);
  REQUIRE(started(lab, upload));
  CHECK(lab.plane.bundles == std::set<std::string>{"/state/trees/2.zst"});
}

TEST_CASE("a compression that fails refuses the send before any agent is asked, and an unknown --compress is refused") {
  Lab lab;
  lab.plane.compressFails = "the file ends at byte 5, not 67108864: it changed while it was compressed";
  CHECK(refusalOf(lab, compressing(lab, "zstd")) ==
        "cannot compress /data/image.iso: the file ends at byte 5, not 67108864: it changed while it was compressed");
  CHECK(lab.agents.orders.empty());
  CHECK(lab.plane.served.empty());
  const int samples = lab.plane.samples;
  CHECK(refusalOf(lab, compressing(lab, "gzip")) == "unknown --compress gzip (auto, zstd or none)");
  CHECK(lab.plane.samples == samples);
}
