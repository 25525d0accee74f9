#pragma once
// SourcePlane (core/source_plane.h) over hnowd's data plane.
#include "core/source_plane.h"
#include "transport/data/data_plane.h"

namespace hnow::daemon {

class DataSourcePlane final : public SourcePlane {
 public:
  explicit DataSourcePlane(transport::data::DataPlane& plane) : plane_(plane) {}
  Result<SourceFile> serveFile(const std::string& token, const std::string& path) override;
  void release(const std::string& token) override { plane_.release(token); }
  void paceUplink(double bytesPerSecond) override { plane_.setRates(bytesPerSecond, 0); }

 private:
  transport::data::DataPlane& plane_;
};

}  // namespace hnow::daemon
