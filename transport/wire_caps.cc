#include "transport/wire_caps.h"

#include <cmath>
#include <string>

namespace hnow::transport {

namespace {

// A schedule entry names the window in status and logs; a peer's is kept short.
constexpr std::size_t kMaxEntry = 200;

std::optional<DirectionCap> directionFromWire(wire::DirectionCaps::Reader in) {
  DirectionCap cap;
  cap.staticBytesPerSecond = in.getStaticBytesPerS();
  cap.windowBytesPerSecond = in.getWindowBytesPerS();
  cap.percent = in.getPercent();
  for (double v : {cap.staticBytesPerSecond, cap.windowBytesPerSecond, cap.percent})
    if (!std::isfinite(v) || v < 0) return std::nullopt;
  if (cap.percent > 100) return std::nullopt;
  cap.absoluteWindow = std::string(in.getAbsoluteWindow().cStr()).substr(0, kMaxEntry);
  cap.percentWindow = std::string(in.getPercentWindow().cStr()).substr(0, kMaxEntry);
  return cap;
}

void directionToWire(const DirectionCap& cap, wire::DirectionCaps::Builder out) {
  out.setStaticBytesPerS(cap.staticBytesPerSecond);
  out.setWindowBytesPerS(cap.windowBytesPerSecond);
  out.setAbsoluteWindow(cap.absoluteWindow);
  out.setPercent(cap.percent);
  out.setPercentWindow(cap.percentWindow);
}

}  // namespace

std::optional<CapsInForce> capsFromWire(wire::LinkCaps::Reader in) {
  auto up = directionFromWire(in.getUp());
  auto down = directionFromWire(in.getDown());
  if (!up || !down) return std::nullopt;
  return CapsInForce{*up, *down};
}

void capsToWire(const CapsInForce& caps, wire::LinkCaps::Builder out) {
  directionToWire(caps.up, out.initUp());
  directionToWire(caps.down, out.initDown());
}

}  // namespace hnow::transport
