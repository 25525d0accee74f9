#pragma once
// A directory tree moved as one file (docs/tree-send.md): hnowd packs the
// tree into a bundle, the bundle goes along the broadcast plan as any file
// does (whole or in stripes, checked by its SHA-256), and each agent unpacks
// it beside the destination. Small files then cost no round trip each, and
// the planner sees one file of the tree's size.
//
// Layout: the magic "HNOWTRE2", the index's length (8 bytes, little
// endian), the index, then every file's bytes at the offset its entry names.
// The index is one zstd frame (with its content size) of the plain index,
// followed by zeros up to the first file's bytes; the index's length counts
// both. The plain index is a varint count, then per entry a byte of kind
// and flags, its path prefix-coded against the entry before, mode, mtime as
// a difference from the entry before, and for a file its size, its offset
// unless held, its SHA-256 only when it is held and carries one; for a
// symlink its target. So a held file costs a few bytes: its name's tail,
// mode, mtime and size, and zstd shares what repeats.
// The index lists directories before what they hold; paths are relative,
// '/'-separated, with no empty, "." or ".." component (any other bytes,
// newlines and invalid UTF-8 included, as the filesystem allows).
// packTree fixes the index before it copies a file (offsets are known from
// the sizes) and leaves the region a refused file would have taken as zeros
// that belong to no entry and are never read.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/result.h"
#include "transport/data/data_plane.h"

namespace hnow::transport::data {

inline constexpr std::string_view kTreeMagic = "HNOWTRE2";
inline constexpr std::uint64_t kTreeHeaderBytes = 16;  // the magic and the index's length

// What an index may hold; a bundle past them is refused, not allocated.
inline constexpr std::uint64_t kMaxTreeEntries = 10'000'000;
inline constexpr std::size_t kMaxTreePathBytes = 4096;  // a path, and a symlink's target
inline constexpr std::size_t kMaxTreeNameBytes = 255;   // one component of a path
inline constexpr std::uint64_t kMaxTreeIndexBytes = 1ull << 30;  // the plain index, and its frame

enum class TreeEntryKind : std::uint8_t { kDirectory = 1, kFile = 2, kSymlink = 3 };

struct TreeEntry {
  TreeEntryKind kind = TreeEntryKind::kFile;
  std::string path;           // relative to the tree's top; "" is never an entry
  std::uint32_t mode = 0;     // permission bits (07777)
  std::int64_t mtimeNs = 0;   // since the epoch
  std::uint64_t size = 0;     // a file's bytes
  std::uint64_t offset = 0;   // a file: where its bytes start in the bundle
  Sha256 sha256{};            // a file's, over its bytes
  // The index carries sha256: only for a held file (kHeldOffset below)
  // that some agent holds with another mtime; other held files are checked
  // by size and mtime, and packed ones by the bundle's own SHA-256.
  bool withSha256 = false;
  std::string target;         // a symlink's, relative and inside the tree
  bool operator==(const TreeEntry&) const = default;
};

// A path left out of a pack, or not written by an unpack, and why.
struct TreeProblem {
  std::string path;  // relative to the tree's top
  std::string why;
};

// The index as bytes, and back. decodeTreeIndex refuses (with what and
// where) anything packTree would not write: a frame that is not one whole
// zstd frame declaring at most kMaxTreeIndexBytes (a bomb is refused before
// it is expanded), unknown kinds or flags, bad paths, a path listed twice,
// an entry under a non-directory or before its directory, a symlink leaving
// the tree, file bytes outside [dataStart, bundleSize) or overlapping (held
// files, kHeldOffset below, name no bytes and are not checked for either).
// `bytes` may end in zeros after the frame (packTree's room).
// Every decoded mode is receivedMode's (below); `clearedModes`, when
// given, counts the entries whose mode that changed.
std::string encodeTreeIndex(const std::vector<TreeEntry>& entries);
Result<std::vector<TreeEntry>> decodeTreeIndex(std::string_view bytes, std::uint64_t dataStart,
                                               std::uint64_t bundleSize, std::size_t* clearedModes = nullptr);
// The two halves of each: the plain index and its zstd frame.
std::string encodePlainTreeIndex(const std::vector<TreeEntry>& entries);
Result<std::vector<TreeEntry>> decodePlainTreeIndex(std::string_view plain, std::uint64_t dataStart,
                                                    std::uint64_t bundleSize, std::size_t* clearedModes = nullptr);

// The mode an entry of `kind` sent with `mode` gets where a tree lands
// (an agent, or hnowd unpacking a client's upload): never setuid or
// setgid, and a file never sticky. Whoever receives a tree writes it as
// its own user, root for an agent run as root, so a setuid copy of
// /usr/bin/id sent in a tree would land on every agent as a root-owned
// setuid program: anyone who may run it there would run it as root. A
// setgid directory would give what others create in it root's group. A
// directory keeps its sticky bit, which only keeps others from removing
// what is not theirs. Decoding applies it, so no receiver can miss it.
std::uint32_t receivedMode(TreeEntryKind kind, std::uint32_t mode);
std::string compressTreeIndex(std::string_view plain);
// The plain index of `bytes` (a frame, then only zeros), or why not.
Result<std::string> expandTreeIndex(std::string_view bytes);

// A bundle's index as read from its file: the entries, and where the
// data region starts (kTreeHeaderBytes + the index's length).
struct TreeIndex {
  std::vector<TreeEntry> entries;
  std::uint64_t dataStart = 0;
  std::size_t clearedModes = 0;  // entries sent setuid, setgid or (a file) sticky: receivedMode
};
// Reads the header and the index of the bundle `bundleFd` (its size from
// fstat) and decodes it; an index longer than the bundle or than
// kMaxTreeIndexBytes is refused before it is read.
Result<TreeIndex> readTreeIndex(int bundleFd);
// The same for a bundle of `bundleSize` bytes still being received: only
// its header and index need to be in the file yet.
Result<TreeIndex> readTreeIndex(int bundleFd, std::uint64_t bundleSize);

// True when the symlink at `linkPath` pointing at `target` stays inside
// the tree, resolved lexically from the link's directory: `target` is
// relative and its ".." never climb above the tree's top.
bool treeSymlinkStaysInside(std::string_view linkPath, std::string_view target);

// Only what changed (docs/tree-send.md): a file entry whose offset is
// kHeldOffset (and whose size is not 0) has no bytes in this bundle; every
// receiver told hnowd it already holds that file (missingFiles), and
// unpackTree keeps the copy it holds. decodeTreeIndex accepts such entries
// without a byte range.
inline constexpr std::uint64_t kHeldOffset = 0;

// A file's identity as a walk saw it: a digest learned for it stays true
// while all of these do.
struct FileStamp {
  std::uint64_t dev = 0, ino = 0, size = 0;
  std::int64_t mtimeNs = 0, ctimeNs = 0;
  bool operator==(const FileStamp&) const = default;
};

// hnowd's memory of the digests it computed, by absolute path: a second
// send of a tree hashes only the files whose stamp changed.
class TreeDigestCache {
 public:
  const Sha256* find(const std::string& path, const FileStamp& stamp) const;
  void put(const std::string& path, const FileStamp& stamp, const Sha256& sha256);
  std::size_t size() const { return entries_.size(); }

 private:
  std::unordered_map<std::string, std::pair<FileStamp, Sha256>> entries_;  // at most kMaxTreeEntries; cleared past that
};

// A tree as a walk found it: every entry (files with their digests, from
// the cache or read), each file's stamp (parallel to entries; unused for
// the rest), and what was left out. No bundle written yet.
struct ScannedTree {
  std::vector<TreeEntry> entries;  // files' offsets are kHeldOffset (an empty file's too: it names 0 bytes at 0)
  std::vector<FileStamp> stamps;
  std::vector<TreeProblem> refused;
  std::uint64_t files = 0, fileBytes = 0;
};

// Walks `dir` as packTree does and takes each file's SHA-256 from `cache`
// (keyed by `cacheName` + "/" + the entry's path; `cacheName` "": `dir`)
// when its stamp is unchanged, else reads it (and tells the cache, when the
// whole stamp held through the read). A file that changes while it is
// read, or cannot be read, is refused as packTree refuses it. `cacheName`
// serves a `dir` that names the tree otherwise (hnowd's descriptor of it,
// /proc/self/fd/N): a digest is taken only for the same device, inode,
// size, mtime and ctime, so the name decides only whether it is found.
Result<ScannedTree> scanTree(const std::string& dir, TreeDigestCache& cache, const std::string& cacheName = "");

// The index of `entries` (a scan's, or a part of them) as hnowd asks the
// agents with it: every file held (kHeldOffset), so it names no bytes (an
// empty file, which cannot be held, names its 0 bytes at offset 0), with
// its SHA-256 only when `withSha256`; decodeTreeIndex(bytes, 0, 0) reads
// it back.
std::string queryIndexOf(const std::vector<TreeEntry>& entries, bool withSha256);

// What the directory `name` in `parentFd` holds of the file entries of
// `entries` (a decoded index), as ordinals (indices into `entries`):
//  - missing: its path there is not a regular file of the entry's size, or
//    has another mtime and the entry's SHA-256 is listed and differs; and
//    no file anywhere under `name` has the listed SHA-256 (ContentFinder:
//    the unpack copies it from there);
//  - sameSize: no SHA-256 listed to compare with (hnowd asks again with
//    it), and its path holds a file of the entry's size with another mtime,
//    or some other path under `name` a file of its size.
// Same size and mtime is held. Symlinks on the way are not followed (a
// path through one is missing). A missing `name` (or one that is not a
// single name) holds nothing. `searchFd` (borrowed; -1: `name` itself) is
// where a file not at its path is looked for: an agent's whole root (at
// most kMaxFilesSearched files listed).
struct HeldFiles {
  std::vector<std::uint32_t> missing;
  std::vector<std::uint32_t> sameSize;
};
HeldFiles missingFiles(const std::vector<TreeEntry>& entries, int parentFd, const std::string& name,
                       int searchFd = -1);
// The same, looking for files not at their path with `elsewhere` (a
// listing of the agent's root its questions share).
class ContentFinder;
HeldFiles missingFiles(const std::vector<TreeEntry>& entries, int parentFd, const std::string& name,
                       ContentFinder& elsewhere);

struct PackedTree {
  std::vector<TreeEntry> entries;
  std::vector<TreeProblem> refused;  // left out at the source: symlinks leaving the tree, unreadable, changed while read
  std::uint64_t size = 0;            // of the bundle
  std::uint64_t fileBytes = 0;       // of the files packed
  std::uint64_t files = 0;
};

// Walks `dir` (symlinks not followed, one filesystem's entries as they
// are) and writes its bundle to `outFd` (empty, opened for writing) from
// offset 0. A file that cannot be read, or that changes while it is read
// (size or mtime differ after), is left out and listed in `refused`; so is
// a symlink that is absolute or leads outside the tree, and anything not
// a regular file, directory or symlink. Fails only when `dir` is not a
// readable directory or the bundle cannot be written.
Result<PackedTree> packTree(const std::string& dir, int outFd);
// The same from a scan: only the files whose `send[k]` is true (k indexes
// scan.entries; `send` and `withSha256` as long as them) get their bytes,
// read again and checked against the scan's stamp and digest (changed
// since: refused "changed while it was read; send again"); the other files
// are listed held (kHeldOffset; the scan's digest when `withSha256[k]`),
// except empty files, always packed.
// Directories and symlinks are all listed. `refused` lists only what this
// pack left out (scan.refused are not repeated); `files` and `fileBytes`
// count the files packed, not the held.
Result<PackedTree> packTree(const std::string& dir, const ScannedTree& scan, const std::vector<bool>& send,
                            const std::vector<bool>& withSha256, int outFd);

struct UnpackedTree {
  std::uint64_t files = 0;     // files published
  std::uint64_t bytes = 0;     // their bytes
  std::uint64_t replaced = 0;  // of them, files that replaced another at their path
  std::uint64_t held = 0;      // files kept as they were: this agent held them already
  std::uint64_t copied = 0;    // files this agent held under another path of the tree, copied from there (not sent)
  std::uint64_t deleted = 0;   // entries removed with `deleteOthers`
  std::vector<TreeProblem> failed;  // entries not published, and why
  std::uint64_t clearedModes = 0;   // entries sent setuid, setgid or (a file) sticky, written without (receivedMode)
};

// Unpacks the verified bundle `bundleFd` as `name` inside the directory
// `parentFd` (`displayPath`: its absolute path, for messages). The tree is
// first written into a staging directory beside it (synced once), then:
//  - `atomic`: the staging directory takes `name`'s place in one rename
//    (exchanged with an existing directory, whose old tree is removed);
//  - otherwise each file is renamed into place on its own, so each appears
//    whole or not at all; files and directories already there that the
//    tree does not name are left alone.
// Modes (as receivedMode allows), mtimes (directories' last), empty
// directories and symlinks are kept. Nothing is written outside `name`. Fails as a whole (and leaves no
// staging behind) when the bundle is malformed, `name` is a file, or the
// staging cannot be written; a single entry that cannot be published (a
// directory in a file's place) is listed in `failed`.
//
// A held entry (kHeldOffset) is kept from what `name` holds: checked again
// (size and mtime, else the SHA-256 it carries, if any), its mode and mtime set to the entry's;
// with `atomic` it is copied into the staging first. A held file no longer
// there, or changed, fails that entry (atomic: the whole unpack) with
// "changed on this agent since hnowd asked; send again". Without
// `atomic`, a file of the bundle whose path already holds a regular file
// of the same size and mtime is kept too (counted held, its mode set).
// `deleteOthers` (not atomic, where it is implied): afterwards every file,
// symlink and directory under `name` that the tree does not name is
// removed (never through a symlink, never outside `name`, never `name`),
// counted in `deleted` (a directory once); hnow's temp names (staging
// directories, `.NAME.hnow-<16 hex>.part`) stay, and a directory the tree
// names as a file or symlink (its entry failed) is not entered. With
// `atomic`, `deleted` counts what the old tree held that the new one does
// not name, the same way.
Result<UnpackedTree> unpackTree(int bundleFd, int parentFd, const std::string& name,
                                const std::string& displayPath, bool atomic, bool deleteOthers = false);

// True for the names unpackTree gives its staging directories
// (`.NAME.hnow-stage-XXXXXXXXXXXXXXXX`), for the agent's startup sweep.
bool isTreeStagingName(const std::string& name);

}  // namespace hnow::transport::data
