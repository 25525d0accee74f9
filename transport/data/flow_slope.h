#pragma once
// The rate of a probe flow (or of a node's whole traffic) over a window,
// fitted to when its chunks arrived rather than counted between the
// window's two ends.
//
// A link hnow paces itself (an emulated link, a cap) lets a whole chunk go
// at once, so a flow arrives as a staircase: counting its bytes between two
// instants is off by up to a chunk at each end. At 20 Mbit/s shared by three
// flows a 0.6 s window holds about four chunks per flow, and a count reads
// the link 10-20% off either way. The least-squares slope of (arrival time,
// bytes so far) through the steps' tops is the staircase's rate, whatever its
// phase against the window. Links the kernel shapes arrive smoothly and give
// the same answer both ways.
#include <cstddef>
#include <cstdint>
#include <optional>

namespace hnow::transport::data {

class FlowSlope {
 public:
  // `bytes` received so far at `seconds` after the window opened.
  void add(double seconds, double bytes);
  // The fitted rate; none when the arrivals are too few or span too little
  // of the window to fit: a flow that stalled or ended early carried only
  // what a count of its bytes says.
  std::optional<double> fit(double windowSeconds) const;
  std::size_t arrivals() const { return n_; }

 private:
  std::size_t n_ = 0;
  double sumT_ = 0, sumB_ = 0, sumTT_ = 0, sumTB_ = 0;
  double first_ = 0, last_ = 0;
};

// Bytes counted over a probe window, each arrival stamped and fitted: one
// flow's payload, or a node's whole load. Data thread only.
class WindowCount {
 public:
  // Counting starts from nothing now; adds before are ignored.
  void open();
  void add(std::uint64_t bytes);
  std::uint64_t bytes() const { return bytes_; }
  std::optional<double> fit(double windowSeconds) const { return slope_.fit(windowSeconds); }
  // The fit, or the count over the window when there is none.
  double bytesPerSecond(double windowSeconds) const;

 private:
  std::uint64_t openedNs_ = 0;  // uv_hrtime at open(); 0 before
  std::uint64_t bytes_ = 0;
  FlowSlope slope_;
};

}  // namespace hnow::transport::data
