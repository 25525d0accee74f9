#include "core/send/send_compression.h"

#include <cmath>
#include <cstdio>

namespace hnow::daemon {

bool knownCompressMode(const std::string& mode) { return mode == "auto" || mode == "zstd" || mode == "none"; }

namespace {

// Above this ratio a file looks random (compressed already, encrypted, media).
constexpr double kRandomLooking = 0.9;

std::string format(const char* pattern, double a, double b, double c) {
  char text[160];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

}  // namespace

CompressionChoice chooseCompression(const std::string& mode, std::uint64_t size, double plainSeconds,
                                    const Result<CompressionSample>* sample,
                                    const std::function<double(std::uint64_t bytes)>& sendSeconds) {
  if (mode == "none" || !sample) return {false, "none: --compress none"};
  const bool forced = mode == "zstd";
  if (!*sample) {
    if (forced) return {true, "zstd: --compress zstd (no sample: " + sample->error().message + ")"};
    return {false, "none: the file could not be sampled (" + sample->error().message + ")"};
  }
  if (size == 0) return {forced, forced ? "zstd: --compress zstd" : "none: an empty file"};
  const CompressionSample& s = sample->value();
  const double plain = static_cast<double>(size);
  const auto sentBytes = static_cast<std::uint64_t>(std::ceil(plain * s.ratio));
  const double compressing = s.compressBytesPerSecond > 0 ? plain / s.compressBytesPerSecond : INFINITY;
  const double compressed = sendSeconds(sentBytes) + compressing + plain / kExpandBytesPerSecond;
  const std::string numbers =
      format("%.1f s predicted against %.1f s plain (ratio %.2f)", compressed, plainSeconds, s.ratio);
  if (forced) return {true, "zstd: --compress zstd; " + numbers};
  if (compressed < kCompressGain * plainSeconds) return {true, "zstd: " + numbers};
  if (s.ratio >= kRandomLooking) return {false, format("none: random-looking data, ratio %.2f", s.ratio, 0, 0)};
  return {false, format("none: %.1f s predicted plain against %.1f s compressed (ratio %.2f): the links are fast "
                        "enough",
                        plainSeconds, compressed, s.ratio)};
}

}  // namespace hnow::daemon
