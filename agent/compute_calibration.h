#pragma once
// The "short compute calibration": seconds this node needs for one
// reference work unit, times the emulated compute factor. A unit is a fixed
// amount of integer mixing, so units compare across nodes.
#include "base/clock.h"

namespace hnow::agent {

// Blocks for a few milliseconds (the best of several runs is kept, so a
// busy neighbour does not make a node look slow).
double calibrateComputeSecondsPerUnit(const hnow::Clock& clock, double computeFactor);

}  // namespace hnow::agent
