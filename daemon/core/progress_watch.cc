#include "core/progress_watch.h"

namespace hnow::daemon {

ProgressWatch::ProgressWatch(std::size_t nodes, ProgressWatchOptions options)
    : options_(options), expected_(nodes, 0.0), samples_(nodes), lastProbe_(nodes), probed_(nodes, false) {}

void ProgressWatch::expect(TimePoint /*now*/, std::vector<double> expectedRate) {
  expectedRate.resize(samples_.size(), 0.0);
  expected_ = std::move(expectedRate);
  for (auto& s : samples_) s.clear();
}

std::vector<int> ProgressWatch::observe(TimePoint now, int node, std::uint64_t bytes, int parent,
                                        std::uint64_t parentBytes) {
  const auto i = static_cast<std::size_t>(node);
  if (node <= 0 || i >= samples_.size()) return {};
  auto& samples = samples_[i];
  samples.push_back({now, bytes});
  // Keep one sample at least `window` old, to measure over the whole window.
  while (samples.size() > 2 && now - samples[1].at >= options_.window) samples.pop_front();
  const Sample& first = samples.front();
  if (now - first.at < options_.window || expected_[i] <= 0) return {};
  const double rate = static_cast<double>(bytes > first.bytes ? bytes - first.bytes : 0) / seconds(now - first.at);
  if (rate >= options_.slowFraction * expected_[i]) return {};
  if (parentBytes < bytes + options_.leadBytes) return {};  // waiting for its parent, not slowed
  std::vector<int> probe;
  for (int n : {parent, node}) {
    const auto k = static_cast<std::size_t>(n);
    if (n <= 0 || (probed_[k] && now - lastProbe_[k] < options_.probeEvery)) continue;
    probed_[k] = true;
    lastProbe_[k] = now;
    probe.push_back(n);
  }
  return probe;
}

}  // namespace hnow::daemon
