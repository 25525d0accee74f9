#pragma once
// `hnowd.address` and `web.address` tell launchers (hnow local) and tests
// the ports the OS chose.
#include <filesystem>
#include <string>

namespace hnow::daemon {

// Writes `address` and a line feed to `path`, renamed into place so a
// reader never sees half of it; false when it could not.
bool writeAddressFile(const std::filesystem::path& path, const std::string& address);

}  // namespace hnow::daemon
