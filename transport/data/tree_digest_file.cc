#include "transport/data/tree_digest_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

namespace hnow::transport::data {

namespace {

constexpr char kMagic[8] = {'H', 'N', 'O', 'W', 'D', 'I', 'G', '1'};

template <class T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <class T>
bool take(std::string_view& in, T& value) {
  if (in.size() < sizeof value) return false;
  std::memcpy(&value, in.data(), sizeof value);
  in.remove_prefix(sizeof value);
  return true;
}

}  // namespace

TreeDigestCache loadTreeDigests(const std::string& file) {
  TreeDigestCache cache;
  std::ifstream stream(file, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
  std::string_view in(bytes);
  if (in.size() < sizeof kMagic || std::memcmp(in.data(), kMagic, sizeof kMagic) != 0) return cache;
  in.remove_prefix(sizeof kMagic);
  // Each record: the path's length and bytes, the stamp, the digest. A
  // short or damaged file yields the records before the damage.
  std::uint32_t length = 0;
  while (take(in, length) && length <= in.size()) {
    const std::string path(in.substr(0, length));
    in.remove_prefix(length);
    FileStamp stamp;
    Sha256 digest{};
    if (!take(in, stamp.dev) || !take(in, stamp.ino) || !take(in, stamp.size) || !take(in, stamp.mtimeNs) ||
        !take(in, stamp.ctimeNs) || in.size() < digest.size())
      break;
    std::memcpy(digest.data(), in.data(), digest.size());
    in.remove_prefix(digest.size());
    cache.put(path, stamp, digest);
  }
  return cache;
}

Result<void> saveTreeDigests(const std::string& file, const std::string& dir, const ScannedTree& scan) {
  const std::string top = dir.size() > 1 && dir.back() == '/' ? dir.substr(0, dir.size() - 1) : dir;
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const std::int64_t recent = (static_cast<std::int64_t>(now.tv_sec) - 1) * 1'000'000'000 + now.tv_nsec;
  std::string out(kMagic, sizeof kMagic);
  for (std::size_t k = 0; k < scan.entries.size(); ++k) {
    const TreeEntry& e = scan.entries[k];
    const FileStamp& stamp = scan.stamps[k];
    if (e.kind != TreeEntryKind::kFile || stamp.ctimeNs > recent) continue;
    const std::string key = (top == "/" ? std::string() : top) + "/" + e.path;
    put(out, static_cast<std::uint32_t>(key.size()));
    out += key;
    put(out, stamp.dev), put(out, stamp.ino), put(out, stamp.size), put(out, stamp.mtimeNs), put(out, stamp.ctimeNs);
    out.append(reinterpret_cast<const char*>(e.sha256.data()), e.sha256.size());
  }
  const std::filesystem::path target(file);
  std::error_code error;
  std::filesystem::create_directories(target.parent_path(), error);
  const std::string temp = file + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream stream(temp, std::ios::binary | std::ios::trunc);
    stream.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!stream.flush()) return Error{"cannot write " + temp};
  }
  if (::rename(temp.c_str(), file.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    return Error{"cannot rename " + temp + " to " + file + ": " + why};
  }
  return {};
}

}  // namespace hnow::transport::data
