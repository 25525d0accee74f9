// `hnow plan REQUEST.toml` of every op (conf/plan_request.h): broadcast,
// reduce, cluster-broadcast, cluster-multicast, multicast, worksharing.
// Any text gives a request whose indices are in range, or one error
// naming the file; never a crash or an exception. A small loaded request
// is then planned as `hnow plan` does (cli/plan_runner.h): a plan the
// validator rejects ("internal error") is a planner bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "cli/plan_runner.h"
#include "conf/plan_request.h"
#include "fuzz/fuzz_check.h"

namespace {

using namespace hnow::conf;

void checkRequest(const CollectiveRequest& r) {
  HNOW_FUZZ_CHECK(!r.nodes.empty(), "a collective has nodes");
  HNOW_FUZZ_CHECK(r.root >= 0 && static_cast<std::size_t>(r.root) < r.nodes.size(),
                  "the root is one of the nodes");
}
void checkRequest(const TwoLevelRequest& r) {
  HNOW_FUZZ_CHECK(!r.clusters.empty(), "a two-level request has clusters");
  long long nodes = 0;
  for (const ClusterSpec& c : r.clusters) nodes += c.size;
  HNOW_FUZZ_CHECK(nodes <= kMaxTwoLevelNodes, "the node limit holds");
}
void checkRequest(const MulticastRequest& r) {
  const std::size_t n = r.nodeNames.size();
  HNOW_FUZZ_CHECK(r.instance.nodes.size() == n, "every node is named");
  HNOW_FUZZ_CHECK(r.instance.linkPerByte.size() == n * n, "X is n x n");
  for (const auto& m : r.instance.messages) {
    HNOW_FUZZ_CHECK(m.source >= 0 && static_cast<std::size_t>(m.source) < n, "a source is a node");
    for (int d : m.destinations)
      HNOW_FUZZ_CHECK(d >= 0 && static_cast<std::size_t>(d) < n, "a destination is a node");
  }
}
void checkRequest(const WorksharingRequest& r) {
  HNOW_FUZZ_CHECK(r.lifespan.has_value() != r.work.has_value(), "exactly one of lifespan and work");
}

// Small enough that every algorithm, the exact searches included, answers
// in milliseconds: the bound keeps each input's work small, not the inputs valid.
bool small(const CollectiveRequest& r) { return r.nodes.size() <= 12; }
bool small(const TwoLevelRequest& r) {
  long long nodes = 0;
  for (const ClusterSpec& c : r.clusters) nodes += c.size;
  return nodes <= 256;
}
bool small(const MulticastRequest& r) {
  std::size_t destinations = 0;
  for (const auto& m : r.instance.messages) destinations += m.destinations.size();
  return r.nodeNames.size() <= 8 && r.instance.messages.size() <= 4 && destinations <= 12;
}
// "best" searches every order (2 s for its limit of 8 workers under ASan).
bool small(const WorksharingRequest& r) { return r.workers.size() <= (r.algo == "best" ? 6u : 8u); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto loaded = parsePlanRequest(text, "request.toml");
  if (!loaded.ok()) {
    HNOW_FUZZ_CHECK(!loaded.error().message.empty(), "an error says what is wrong");
    HNOW_FUZZ_CHECK(loaded.error().file == "request.toml", "an error names the file");
    return 0;
  }
  std::visit([](const auto& request) { checkRequest(request); }, loaded.value());
  if (!std::visit([](const auto& request) { return small(request); }, loaded.value())) return 0;
  auto plan = hnow::cli::runPlan(loaded.value());
  if (!plan.ok())
    HNOW_FUZZ_CHECK(plan.error().message.rfind("internal error", 0) != 0,
                    "every plan passes the validator");
  return 0;
}
