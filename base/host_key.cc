#include "base/host_key.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>

namespace hnow {

namespace {

std::string firstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

}  // namespace

std::string hostKeyOf(std::string_view machine, std::string_view networkNamespace) {
  if (machine.empty() && networkNamespace.empty()) return "";
  std::uint64_t hash = 14695981039346656037ULL;
  auto mix = [&hash](std::string_view text) {
    for (unsigned char c : text) {
      hash ^= c;
      hash *= 1099511628211ULL;
    }
  };
  mix(machine);
  mix(std::string_view("\n", 1));
  mix(networkNamespace);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string hostKey() {
  std::string machine = firstLine("/etc/machine-id");
  if (machine.empty()) machine = firstLine("/proc/sys/kernel/random/boot_id");
  char link[128];
  const ssize_t n = ::readlink("/proc/self/ns/net", link, sizeof link - 1);
  const std::string ns = n > 0 ? std::string(link, static_cast<std::size_t>(n)) : std::string();
  return hostKeyOf(machine, ns);
}

bool plainHostKey(std::string_view key) {
  if (key.empty() || key.size() > 32) return false;
  for (char c : key)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace hnow
