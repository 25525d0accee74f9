#pragma once
// The SHA-256 of a file read once, remembered by its inode while its size,
// mtime and ctime stay as they were (git's index and rsync's quick check
// trust the same stamps). A file sent every week is hashed whole each time
// it is asked about or served otherwise: 1 GiB is seconds of reading on
// every agent that holds it, and on hnowd, before a byte moves. ctime
// cannot be set back by a user, so a write after the read always shows.
// A file changed less than a second before it was read is not remembered:
// a timestamp's tick may hide a write in the same tick. One cache per
// process, shared by every thread.
#include <cstdint>

#include "base/result.h"
#include "transport/data/data_plane.h"
#include "transport/data/file_digest.h"

namespace hnow::transport::data {

// The digest of the regular file open on `fd`, from the cache or read
// whole (then remembered).
Result<Sha256> rememberedSha256(int fd);

// The digest and the chunk digests of `chunkBytes` (chunk_digests.h) of
// the file open on `fd`: what hnowd serves. Remembered as the digest is,
// within a budget (kMaxChunkDigestBytes): a send of an unchanged file
// reads it no more than a send without digests did.
Result<FileDigests> rememberedDigests(int fd, std::uint32_t chunkBytes);

// The digests of the file open on `fd` taken from its bytes as this
// process wrote them (a receive's landing bytes, ReceiveTarget::
// cutChunkBytes), remembered at its stamp now: no byte of it was written
// after it was hashed, so the wait for the stamp to settle is not needed.
// Within rememberedDigests' budget.
void rememberWritten(int fd, const FileDigests& digests);

// Files this process has read whole to hash them here.
std::uint64_t digestReads();
// Forgets every digest (tests).
void forgetDigests();

}  // namespace hnow::transport::data
