#pragma once
// Receiver's scratch files (receiver.cc receives them, receiver_scratch.cc
// unpacks or expands them on the unpack thread).
#include <fcntl.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "agent/receiver.h"
#include "transport/data/tree_staging.h"
#include "transport/data/zstd_file.h"

namespace hnow::agent {

// A scratch file being received (a tree's bundle, a compressed file): its
// transfers' done reports wait here until it is unpacked or expanded.
struct Receiver::Scratch {
  std::string fileToken;
  std::vector<std::string> transfers;  // what reports come under: the file's token, or each stripe's
  std::set<std::string> waiting;       // transfers not done yet
  std::vector<transport::data::TransferEvent> done;
  int parentFd = -1;  // the destination's directory
  int searchFd = -1;  // a tree: the root dest lies in, where held files not at their path are looked for
  std::string name, parentPath;
  std::string receivedName;  // the scratch file as received (its receive's final name, a temp name)
  bool tree = false;
  bool atomic = false;
  bool deleteOthers = false;
  // --compress: the received file is a zstd frame, expanded and checked against these.
  bool compressed = false;
  std::uint64_t plainSize = 0;
  transport::data::Sha256 plainSha256{};
  std::string expandedName;  // a compressed tree: the bundle expanded into this second scratch file
  int expandedFd = -1;
  std::unique_ptr<transport::data::FileExpansion> expansion;  // a compressed tree's, as its frame lands
  bool expansionFailed = false;  // unpack thread: logged once; the unpack reports it
  int outputFd = -1;         // a compressed file: the temp file beside dest it is expanded into
  std::string outputName;
  bool published = false;    // renamed into place: nothing of it to remove
  // An uncompressed tree is written into its staging as its bundle lands
  // (on the unpack thread), and published from it once the bundle matched.
  std::unique_ptr<transport::data::TreeStaging> staging;  // the unpack thread's, once made
  bool stagedAsLanded = false;  // kj thread: a tree, whose landed bytes advance its staging
  int bundleFd = -1;  // the bundle being received (its own descriptor), for the staging to read
  std::map<std::string, std::uint64_t> firstByte;  // each transfer's offset in the bundle
  std::map<std::string, std::uint64_t> landed;     // kj thread: each transfer's bytes landed, in order
  // Under Receiver::unpackMutex_: an advance of the staging is queued, to these spans.
  bool advanceQueued = false;
  std::vector<transport::data::LandedSpan> spans;
  std::uint64_t filesAsLanded = 0;  // written before the bundle was whole, for the log
  // Goes on under a new receive's tokens (a parked one adopted):
  // `renamed` maps each old token (the file's, each stripe's) to its new
  // one. receiver_parked.cc.
  void rekey(const std::map<std::string, std::string>& renamed);
  ~Scratch() {
    staging.reset();  // it borrows parentFd
    expansion.reset();  // it borrows expandedFd
    if (bundleFd >= 0) ::close(bundleFd);
    if (expandedFd >= 0) ::close(expandedFd);
    if (!expandedName.empty()) ::unlinkat(parentFd, expandedName.c_str(), 0);
    if (outputFd >= 0) ::close(outputFd);
    if (!outputName.empty() && !published) ::unlinkat(parentFd, outputName.c_str(), 0);
    if (parentFd >= 0) ::close(parentFd);
    if (searchFd >= 0) ::close(searchFd);  // after the staging, which borrows it
  }
};

}  // namespace hnow::agent
