#include "agent/receive_records.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "agent/startup_sweep.h"
#include "agent/whole_file.h"
#include "base/hex.h"
#include "transport/data/leftover_bytes.h"

namespace hnow::agent {

namespace {

using nlohmann::json;

std::string hex(const transport::data::Sha256& d) { return hexOf(d.data(), d.size()); }

bool sha(const json& j, transport::data::Sha256& out) {
  return j.is_string() && bytesOfHex(j.get<std::string>(), out.data(), out.size());
}

std::string dirOf(const std::string& dataRoot) { return dataRoot + "/" + kReceiveRecordDir; }

}  // namespace

std::string ReceiveRecord::id() const {
  if (!isReceiveTempName(temp)) return {};
  return temp.substr(temp.size() - 16 - 5, 16);  // before ".part"
}

int keepReceiveRecord(const std::string& dataRoot, const ReceiveRecord& record) {
  const std::string id = record.id(), dir = dirOf(dataRoot);
  if (id.empty() || dataRoot.empty()) return -1;
  json stripes = json::array();
  for (const ReceiveRecord::Stripe& s : record.stripes)
    stripes.push_back({{"offset", s.offset}, {"length", s.length}, {"sha256", hex(s.sha256)}});
  const json j = {{"dir", record.dir},         {"temp", record.temp},       {"path", record.path},
                  {"size", record.size},       {"sha256", hex(record.sha256)}, {"stripes", stripes},
                  {"compressed", record.compressed}, {"tree", record.tree}, {"atomic", record.atomic},
                  {"delete_others", record.deleteOthers}};
  // Replaced invalid UTF-8: a path is bytes, and a record that cannot be written is only a resume lost.
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  if (!writeWhole(dir + "/" + id + ".receive", text, 0600)) {
    spdlog::warn("cannot keep the record of the receive into {} in {} ({}): a restart of this agent receives it anew",
                 record.path, dir, std::strerror(errno));
    return -1;
  }
  std::string none;
  return openReceiveLists(dataRoot, id, none);
}

int openReceiveLists(const std::string& dataRoot, const std::string& id, std::string& held) {
  const std::string path = dirOf(dataRoot) + "/" + id + ".lists";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    spdlog::warn("cannot keep the chunk digests of a receive in {}: {}", path, std::strerror(errno));
    return -1;
  }
  held = transport::data::readKeptLists(fd);
  return fd;
}

void dropReceiveRecord(const std::string& dataRoot, const std::string& id) {
  if (id.empty() || dataRoot.empty()) return;
  const std::string base = dirOf(dataRoot) + "/" + id;
  ::unlink((base + ".receive").c_str());
  ::unlink((base + ".lists").c_str());
}

std::vector<ReceiveRecord> readReceiveRecords(const std::string& dataRoot) {
  std::vector<ReceiveRecord> out;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dirOf(dataRoot), error)) {
    if (entry.path().extension() != ".receive" || entry.is_symlink(error)) continue;
    std::ifstream in(entry.path());
    const json j = json::parse(in, nullptr, false);
    ReceiveRecord r;
    if (!j.is_object() || !j.contains("dir") || !j.contains("temp") || !j.contains("path") || !j.contains("size") ||
        !j.contains("stripes") || !j["dir"].is_string() || !j["temp"].is_string() || !j["path"].is_string() ||
        !j["size"].is_number_unsigned() || !j["stripes"].is_array() || !sha(j.value("sha256", json()), r.sha256))
      continue;
    r.dir = j["dir"].get<std::string>();
    r.temp = j["temp"].get<std::string>();
    r.path = j["path"].get<std::string>();
    r.size = j["size"].get<std::uint64_t>();
    r.compressed = j.value("compressed", false);
    r.tree = j.value("tree", false);
    r.atomic = j.value("atomic", false);
    r.deleteOthers = j.value("delete_others", false);
    bool whole = r.id() + ".receive" == entry.path().filename().string() && r.temp.find('/') == std::string::npos;
    for (const json& s : j["stripes"]) {
      ReceiveRecord::Stripe stripe;
      whole = whole && s.is_object() && s.contains("offset") && s.contains("length") &&
              s["offset"].is_number_unsigned() && s["length"].is_number_unsigned() &&
              sha(s.value("sha256", json()), stripe.sha256);
      if (!whole) break;
      stripe.offset = s["offset"].get<std::uint64_t>();
      stripe.length = s["length"].get<std::uint64_t>();
      r.stripes.push_back(stripe);
    }
    if (whole) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace hnow::agent
