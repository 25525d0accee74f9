#include "transport/malloc_bounds.h"

#include <malloc.h>

namespace hnow::transport {

void boundMallocArenas() {
  // Two rather than one: threads past the bound share the arenas there are
  // (glibc picks one not locked at the time), so two halve the waiting on
  // a lock that one would put on every allocation of every thread.
  mallopt(M_ARENA_MAX, 2);
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
}

}  // namespace hnow::transport
