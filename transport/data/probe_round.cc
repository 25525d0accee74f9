#include "transport/data/probe_round.h"

namespace hnow::transport::data {

namespace {
// Peers of the round register its token meanwhile.
constexpr double kPullAfterSeconds = 0.05;
// A peer's pulls may open up to this much later than ours: it serves that
// much longer, then closes what is left.
constexpr double kServeSlackSeconds = 1.0;
constexpr std::size_t kMaxFlows = 64;
constexpr double kMaxSeconds = 10.0;
}  // namespace

Result<void> ProbeRound::checkOrder(const ProbeOrder& order) {
  if (order.token.size() != kTokenBytes) return Error{"a probe token is 32 bytes"};
  if (!(order.warmSeconds >= 0) || !(order.windowSeconds > 0) || order.warmSeconds + order.windowSeconds > kMaxSeconds)
    return Error{"a probe's warm-up and window must be at most 10 s together, the window more than 0"};
  if (order.pullFrom.size() > kMaxFlows) return Error{"a probe pulls from at most 64 peers"};
  for (const std::string& address : order.pullFrom) {
    sockaddr_storage parsed{};
    if (!parseAddress(address, parsed)) return Error{"cannot resolve the probe peer " + address};
  }
  return {};
}

ProbeRound::ProbeRound(PlaneCore& core, ProbeOrder order, ProbeDone done, Hooks hooks)
    : core_(core), order_(std::move(order)), done_(std::move(done)), hooks_(std::move(hooks)) {}

UvHandle<uv_timer_t> ProbeRound::timer(void (*callback)(uv_timer_t*), double seconds) {
  UvHandle<uv_timer_t> t([this](uv_timer_t* h) { return uv_timer_init(core_.loop(), h); });
  if (!t) return t;
  t.get()->data = this;
  uv_timer_start(t.get(), callback, static_cast<std::uint64_t>(seconds * 1000), 0);
  return t;
}

void ProbeRound::start() {
  if (order_.serve) hooks_.serve(order_.token);
  for (const std::string& address : order_.pullFrom) {
    sockaddr_storage peer{};
    parseAddress(address, peer);  // checkOrder() checked it
    flows_.push_back(std::make_unique<ProbeConnection>(core_, order_.token, peer));
  }
  timers_.push_back(timer(
      [](uv_timer_t* t) {
        for (auto& flow : static_cast<ProbeRound*>(t->data)->flows_) flow->connect();
      },
      kPullAfterSeconds));
  timers_.push_back(timer([](uv_timer_t* t) { static_cast<ProbeRound*>(t->data)->openWindow(); },
                          order_.warmSeconds));
  timers_.push_back(timer([](uv_timer_t* t) { static_cast<ProbeRound*>(t->data)->closeWindow(); },
                          order_.warmSeconds + order_.windowSeconds));
  timers_.push_back(timer([](uv_timer_t* t) { static_cast<ProbeRound*>(t->data)->end(); },
                          order_.warmSeconds + order_.windowSeconds + kServeSlackSeconds));
}

void ProbeRound::counted(std::uint64_t sent, std::uint64_t received) {
  sent_.add(sent);
  received_.add(received);
}

void ProbeRound::openWindow() {
  sent_.open();
  received_.open();
  result_.before = hooks_.counters();
  for (auto& flow : flows_) flow->openWindow();
}

void ProbeRound::closeWindow() {
  result_.after = hooks_.counters();
  result_.windowSeconds = result_.after.atSeconds - result_.before.atSeconds;
  // Without a fit hnowd keeps the node's counters (0 says so).
  result_.sentBytesPerSecond = sent_.fit(result_.windowSeconds).value_or(0.0);
  result_.receivedBytesPerSecond = received_.fit(result_.windowSeconds).value_or(0.0);
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    result_.flowBytes.push_back(flows_[i]->windowBytes());
    result_.flowBytesPerSecond.push_back(flows_[i]->bytesPerSecond(result_.windowSeconds));
    flows_[i]->stop();
  }
  auto done = std::move(done_);
  done_ = nullptr;
  if (done) done(std::move(result_));
}

void ProbeRound::end() {
  if (order_.serve) hooks_.stopServing(order_.token);
  hooks_.ended(this);
}

}  // namespace hnow::transport::data
