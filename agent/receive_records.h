#pragma once
// What an agent's receives leave for its next process (docs/send.md, "An
// agent that restarts mid-send"). Each receive in progress has a record
// under `<data root>/.hnow-receives/`, named by its temp file's 16 hex
// digits: the file it receives (size, SHA-256, stripes; a compressed
// frame or a tree's bundle, and how the tree is laid down) into which
// path, and the temp file that holds its bytes; beside it, `<id>.lists`,
// the lists of chunk digests the receive took (transport/data/
// leftover_bytes.h). The start-up sweep keeps a temp file whose record
// reads whole, and the next process's receive of the same file into the
// same path takes it over: its bytes are checked against the source's
// digests and only the rest is pulled.
#include <cstdint>
#include <string>
#include <vector>

#include "transport/data/chunk_digests.h"

namespace hnow::agent {

inline constexpr const char* kReceiveRecordDir = ".hnow-receives";

struct ReceiveRecord {
  struct Stripe {
    std::uint64_t offset = 0, length = 0;
    transport::data::Sha256 sha256{};
  };
  std::string dir;   // absolute: where the temp file and the destination lie
  std::string temp;  // the temp file's name in `dir`
  std::string path;  // absolute: the file's (a tree's) final path
  std::uint64_t size = 0;
  transport::data::Sha256 sha256{};
  std::vector<Stripe> stripes;  // none: the file comes whole
  bool compressed = false;
  bool tree = false, atomic = false, deleteOthers = false;

  // The temp name's 16 hex digits: the record's name; "" for no temp name.
  std::string id() const;
};

// Writes `record` (whole or not at all) and opens its lists file to append
// to: that descriptor, or -1 when either cannot be (logged: the receive
// goes on, and a restart starts it over).
int keepReceiveRecord(const std::string& dataRoot, const ReceiveRecord& record);
// Removes the record `id` and its lists.
void dropReceiveRecord(const std::string& dataRoot, const std::string& id);
// Every record that reads whole.
std::vector<ReceiveRecord> readReceiveRecords(const std::string& dataRoot);
// Opens the lists file of record `id` to append to (-1: cannot), and reads
// what it holds.
int openReceiveLists(const std::string& dataRoot, const std::string& id, std::string& held);

}  // namespace hnow::agent
