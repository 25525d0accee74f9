#pragma once
// SendService's lab in memory (send_service_test.cc, send_compression_test.cc):
// a manual clock, a source plane that records what hnowd serves, compresses
// and drops, agents whose links answer at once; no sockets, no files.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "base/hex.h"
#include "core/coordinator.h"
#include "core/send/send_service.h"
#include "daemon/core/memory_state_store.h"

namespace hnow::daemon::send_lab {

using namespace std::chrono_literals;

struct Agents {
  std::set<std::string> refusing;                              // agents that refuse the destination
  std::set<std::string> refusingOrders;                        // agents that answer what they hold, then refuse to receive
  std::vector<std::pair<std::string, std::string>> receives;  // (agent, token)
  std::vector<std::string> pulls;                              // "agent<-address"
  std::vector<std::string> releases;                           // agent names
  std::vector<AgentLink::ReceiveOrder> orders;
  std::vector<std::pair<std::string, std::string>> pulledTokens;  // (agent, token)
  // Only what changed: what each agent says it lacks of each part ("part one" -> ordinals).
  std::map<std::string, std::map<std::string, std::vector<std::uint32_t>>> lacking;
  // ... and what it has of the same size and another mtime ("part two" -> ordinals).
  std::map<std::string, std::map<std::string, std::vector<std::uint32_t>>> sameSize;
  std::vector<std::string> asked;  // "agent: part"
  // A file already there: what each agent's destination truly holds (none:
  // nothing): kSame the file's bytes, kSameSize other bytes of its size,
  // kOther a file of another size; and what hnowd asked ("agent: digest"
  // or "agent: size").
  std::map<std::string, AgentLink::DestHolding> holding;
  std::vector<std::string> heldAsked;
  std::set<std::string> refusingToTell;  // agents that refuse the destination when asked what it holds
  // A holder serving the file in hnowd's place: "agent: file" as asked;
  // one in `changedSince` holds other bytes by then (its digest 32 'x').
  std::vector<std::string> servedBy;
  std::vector<double> servePaces;  // the uplink pace each was asked to serve at
  std::set<std::string> changedSince;
  // The file's bytes under another path of an agent's root (agent -> that
  // path); the copies asked ("agent: from -> dest"); agents whose copy fails.
  std::map<std::string, std::string> heldElsewhere;
  std::vector<std::string> copiedHeld;
  std::set<std::string> failingCopy;
};

struct FakeAgent final : AgentLink {
  FakeAgent(std::string n, Agents* a) : name(std::move(n)), agents(a) {}
  void setEmulatedRates(const EmulatedRates&, Done done) override { done({}); }
  void probeNow() override {}
  void receive(const ReceiveOrder& order, ReceiveDone done) override {
    agents->receives.emplace_back(name, order.token);
    agents->orders.push_back(order);
    if (agents->refusing.count(name)) return done(Error{"'/etc/passwd' is outside this agent's roots"});
    if (agents->refusingOrders.count(name)) return done(Error{"no space left on device"});
    done("/srv/" + name + "/" + order.dest);
  }
  void pull(const std::string& token, const std::string& parent) override {
    agents->pulls.push_back(name + "<-" + parent);
    agents->pulledTokens.emplace_back(name, token);
  }
  void release(const std::string&) override { agents->releases.push_back(name); }
  // Without a digest an agent can tell only the size; with one, the bytes
  // (the plane's digest is 32 'h').
  void fileHeld(const std::string&, std::uint64_t, const std::string& sha256, HoldingDone done) override {
    agents->heldAsked.push_back(name + (sha256.empty() ? ": size" : ": digest"));
    if (agents->refusingToTell.count(name)) return done(Error{"'/etc/passwd' is outside this agent's roots"});
    auto it = agents->holding.find(name);
    DestHolding at = it == agents->holding.end() ? DestHolding::kAbsent : it->second;
    auto elsewhere = agents->heldElsewhere.find(name);
    const bool hasElsewhere = elsewhere != agents->heldElsewhere.end();
    if (sha256.empty()) {
      if (at == DestHolding::kSame || (hasElsewhere && at != DestHolding::kSameSize)) at = DestHolding::kSameSize;
      return done(FileHolding{at, ""});
    }
    const bool ours = sha256 == std::string(32, 'h');
    if (at == DestHolding::kSame && ours) return done(FileHolding{DestHolding::kSame, ""});
    if (at == DestHolding::kSame || at == DestHolding::kSameSize) at = DestHolding::kOther;
    done(FileHolding{at, hasElsewhere && ours ? elsewhere->second : ""});
  }
  void copyHeld(const std::string& dest, const std::string& from, std::uint64_t, const std::string&,
                CopiedDone done) override {
    agents->copiedHeld.push_back(name + ": " + from + " -> " + dest);
    if (agents->failingCopy.count(name)) return done(Error{"cannot copy " + from + ": its bytes are no longer those of the file sent now"});
    done("/srv/" + name + "/" + dest);
  }
  void serveFile(const std::string&, const std::string& file, double pace, ServeDone done) override {
    agents->servedBy.push_back(name + ": " + file);
    agents->servePaces.push_back(pace);
    if (agents->refusing.count(name)) return done(Error{"cannot open /srv/" + file + ": Permission denied"});
    done(ServedFile{64 << 20, std::string(32, agents->changedSince.count(name) ? 'x' : 'h')});
  }
  void treeHeld(const std::string&, const std::string& index, HeldDone done) override {
    agents->asked.push_back(name + ": " + index);
    if (agents->refusing.count(name)) return done(Error{"'/etc/passwd' is outside this agent's roots"});
    done(HeldAnswer{agents->lacking[name][index], agents->sameSize[name][index]});
  }
  std::string name;
  Agents* agents;
};

// hnowd's files by path (their sizes); what it served, released and paced at.
struct RecordingPlane final : SourcePlane {
  void serveFile(const std::string& token, const std::string& path, Served done) override {
    answer([this, token, path, done] { done(serveNow(token, path)); });
  }
  Result<SourceFile> serveNow(const std::string& token, const std::string& path) {
    auto it = files.find(path);
    if (it == files.end()) return Error{"cannot open " + path + ": No such file or directory"};
    served.insert(token);
    SourceFile f;
    f.size = it->second;
    f.sha256 = std::string(32, 'h');
    for (int i = 0; i < 32; ++i) f.sha256Hex += "68";
    return f;
  }
  void hashFile(const std::string& path, Served done) override {
    ++hashes;
    answer([this, path, done] {
      auto it = files.find(path);
      if (it == files.end()) return done(Error{"cannot open " + path});
      SourceFile f;
      f.size = it->second;
      f.sha256 = std::string(32, 'h');
      done(f);
    });
  }
  int hashes = 0;  // hashFile calls
  Result<std::uint64_t> sizeOf(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) return Error{"cannot open " + path + ": No such file or directory"};
    return it->second;
  }
  // Each stripe's digest is its token's last byte, repeated.
  void serveStripes(const std::string& token, const std::string& path, std::uint64_t size,
                    const std::vector<StripeCut>& stripes, std::uint32_t chunkBytes, Served done) override {
    answer([=, this] { done(servedStripes(token, path, size, stripes, chunkBytes)); });
  }
  Result<SourceFile> servedStripes(const std::string& token, const std::string& path, std::uint64_t size,
                                   const std::vector<StripeCut>& stripes, std::uint32_t chunkBytes) {
    stripeChunk = chunkBytes;
    auto file0 = serveNow(token, path);
    if (!file0) return file0;
    SourceFile file = *file0;
    if (file.size != size) return Error{"changed"};
    for (const StripeCut& s : stripes) {
      this->served.insert(s.token);
      file.stripeSha256.push_back(std::string(32, s.token.back()));
      file.stripeSha256Hex.push_back(hnow::hexOf(reinterpret_cast<const unsigned char*>(file.stripeSha256.back().data()), 32));
    }
    cuts = stripes;
    stripedFile = token;
    return file;
  }
  void receiveFile(const std::string&, std::uint64_t, const std::string&, const std::string&, const std::string&,
                   Received done) override {
    done(Error{"a send receives nothing at hnowd"});
  }
  // A striped file's token releases its stripes too, as the data plane does.
  void release(const std::string& token) override {
    served.erase(token);
    if (token == stripedFile)
      for (const StripeCut& c : cuts) served.erase(c.token);
  }
  void pace(double uplinkBytesPerSecond, double) override { paced.push_back(uplinkBytesPerSecond); }
  // A directory scans as three entries (a directory and two files) in two
  // parts of the index, one entry refused; it packs into a bundle "file"
  // of 64 MiB.
  bool isDirectory(const std::string& path) override { return directories.count(path) > 0; }
  void scanTree(const std::string& path, Scanned done) override {
    answer([this, path, done] {
      if (!directories.count(path)) return done(Error{"cannot open " + path});
      scans.insert(7);
      done(TreeScan{7, 3, {3, 2, (64 << 20) - 4096, false, 1, {{"out", "leads outside"}}, 0, 0, false, 0},
                    {"part one", "part two"}, {{-1, 1}, {-1, 2}}, scanSizes});
    });
  }
  // The second round asks about the files named, one part each ("digests of 2").
  Result<TreeQueries> digestQueries(std::uint64_t, const std::vector<std::size_t>& asked) override {
    TreeQueries out;
    for (std::size_t k : asked) {
      out.parts.push_back("digests of " + std::to_string(k));
      out.ordinals.push_back({-1, static_cast<std::int64_t>(k)});
    }
    return out;
  }
  // Bundle g is "/state/trees/<g + 1>.bundle", of 64 MiB over g + 1.
  void packScanned(std::uint64_t scanId, const std::vector<std::vector<bool>>& sends,
                   const std::vector<bool>& withSha256, Packed done) override {
    scans.erase(scanId);
    answer([this, sends, withSha256, done] {
      packs = sends;
      sent.assign(sends.front().size(), false);
      for (const auto& s : sends)
        for (std::size_t k = 0; k < s.size(); ++k) sent[k] = sent[k] || s[k];
      sentSha256 = withSha256;
      std::vector<TreeBundle> out;
      for (std::size_t g = 0; g < sends.size(); ++g) {
        const std::string path = "/state/trees/" + std::to_string(g + 1) + ".bundle";
        const std::uint64_t size = (64u << 20) / (g + 1);
        files[path] = size;
        bundles.insert(path);
        std::uint64_t carried = 0;
        for (bool s : sends[g]) carried += s;
        out.push_back(TreeBundle{path, size, {3, 2, (64 << 20) - 4096, false, 1, {{"out", "leads outside"}}, carried,
                                              100 * carried, false, 0}});
      }
      done(out);
    });
  }
  // As the real plane's hashes, scans and packs, answered later (off its
  // thread) when `deferred`: held in `due` until answerDue().
  void answer(std::function<void()> work) {
    if (deferred) return due.push_back(std::move(work));
    work();
  }
  void answerDue() {
    std::vector<std::function<void()>> now = std::move(due);
    due.clear();
    for (auto& work : now) work();
  }
  bool deferred = false;
  std::vector<std::function<void()>> due;
  void dropScan(std::uint64_t scanId) override { scans.erase(scanId); }
  void dropScratch(const std::string& bundlePath) override {
    bundles.erase(bundlePath);
    if (bundlePath.ends_with(".tree")) directories.erase(bundlePath);
  }
  // A client's directory: unpacked into "/state/trees/<n>.tree", or over
  // its kept copy "/state/trees/kept/<key>" (kept_trees.cc), each
  // directory listing as `listings` says (none: it cannot be listed).
  void unpackUpload(const std::string&, UnpackedUpload done) override {
    const std::string dir = "/state/trees/" + std::to_string(++unpacks) + ".tree";
    directories.insert(dir);
    done(dir);
  }
  static std::string keptDir(const std::string& key) { return "/state/trees/kept/" + key; }
  void unpackKept(const std::string& key, const std::string&, UnpackedUpload done) override {
    const std::string dir = keptDir(key);
    if (keptBusy.count(dir)) return done(Error{"a send of this directory from this machine is running"});
    keptBusy.insert(dir);
    directories.insert(dir);
    done(dir);
  }
  void releaseKept(const std::string& dir) override { keptBusy.erase(dir); }
  void listTree(const std::string& path, Listed done) override {
    if (!listings.count(path)) return done(Error{"cannot list " + path});
    done(listings[path]);
  }
  void useKeptTree(const std::string& key, const std::string& listingHex, UnpackedUpload done) override {
    const std::string dir = keptDir(key);
    if (keptBusy.count(dir)) return done(Error{"a later send of the directory from that machine runs from it"});
    if (!directories.count(dir)) return done(Error{"hnowd no longer holds it"});
    if (listings[dir] != listingHex) return done(Error{"it lists other files now"});
    keptBusy.insert(dir);
    done(dir);
  }
  std::set<std::string> directories{"/data/course"};
  std::map<std::string, std::string> listings;
  std::set<std::string> keptBusy;  // kept trees a send runs from
  int unpacks = 0;
  // --compress: every file samples at `ratio`, compressed at `compressRate`;
  // compressFile makes the scratch file "/state/trees/<n>.zst" of size x ratio.
  Result<CompressionSample> sampleCompression(const std::string& path, std::uint64_t) override {
    ++samples;
    if (!files.count(path)) return Error{"cannot open " + path};
    return CompressionSample{ratio, compressRate};
  }
  void compressFile(const std::string& path, std::uint64_t size, Compressed done) override {
    if (!compressFails.empty()) return done(Error{compressFails});
    const std::string out = "/state/trees/" + std::to_string(++compressions) + ".zst";
    compressedFrom.push_back(path);
    files[out] = static_cast<std::uint64_t>(static_cast<double>(size) * ratio);
    bundles.insert(out);
    done(CompressedSource{out, files[out], size, std::string(32, 'p'), 0.5});
  }
  double ratio = 1.0;
  double compressRate = 1e8;
  std::string compressFails;  // not empty: compressFile fails with this
  int samples = 0, compressions = 0;
  std::vector<std::string> compressedFrom;
  std::set<std::uint64_t> scans;  // scanned, not packed or dropped
  std::vector<std::uint64_t> scanSizes{0, 1000, 2000};  // the scan's entries' bytes
  std::vector<std::vector<bool>> packs;  // the last pack's files to send, per bundle
  std::vector<bool> sent;         // ... all bundles together
  std::vector<bool> sentSha256;   // ... and held files listed with their digest
  std::set<std::string> bundles;  // scratch files (bundles, compressed files) made and not dropped
  std::map<std::string, std::uint64_t> files{{"/data/image.iso", 64 << 20}};
  std::set<std::string> served;
  std::vector<StripeCut> cuts;  // the last striped send's
  std::string stripedFile;
  std::uint32_t stripeChunk = 0;
  std::vector<double> paced;
};

struct Lab {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator{clock, RateTableOptions{}, store};
  Agents agents;
  RecordingPlane plane;
  std::map<std::string, SessionId> sessions;
  // The first token is 32 't'; a striped send's next ones differ in their last byte.
  int tokens = 0;
  SendService service{coordinator, plane, "hnowd:7000", clock, 128 << 10, 12.5e6,
                      [this] { return std::string(31, 't') + (tokens++ == 0 ? 't' : static_cast<char>('a' + tokens)); }};

  // Links of 10 MB/s each way; `uplink` and `downlink` change the agents'.
  explicit Lab(double uplink = 1e7, double downlink = 1e7) {
    for (const char* name : {"a1", "a2", "a3"}) {
      AgentRegistration r{name, "room", {"relay"}, std::string(name) + ":9000", {"/srv"}};
      SessionId s = coordinator.attach(r, std::make_unique<FakeAgent>(name, &agents));
      planner::NodeRates rates;
      rates.sendOverheadSeconds = rates.receiveOverheadSeconds = 1e-4;
      coordinator.reportRates(s, rates, {uplink, downlink});  // emulated links: taken as told
      sessions[name] = s;
    }
  }
  SendRequest toAll() const { return {"/data/image.iso", "in/image.iso", {"all"}, "auto", true}; }
  TransferReport done() const {
    TransferReport r;
    r.state = TransferReport::State::kDone;
    r.bytes = 64 << 20;
    for (int i = 0; i < 32; ++i) r.sha256 += "68";
    return r;
  }
};

// Starts a send whose agents answer at once: its id and first status, or why it was refused.
inline Result<std::pair<std::uint64_t, SendStatus>> started(Lab& lab, const SendRequest& request) {
  std::optional<Result<std::pair<std::uint64_t, SendStatus>>> answer;
  lab.service.start(request, [&](const Result<std::pair<std::uint64_t, SendStatus>>& a) { answer = a; });
  REQUIRE(answer);
  return *answer;
}

inline std::string refusalOf(Lab& lab, const SendRequest& request) {
  auto answer = started(lab, request);
  return answer ? "" : answer.error().message;
}

}  // namespace hnow::daemon::send_lab
