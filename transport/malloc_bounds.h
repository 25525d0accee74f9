#pragma once
// How a daemon's allocator may hold memory, set once at the start of main()
// before any thread exists (docs/architecture.md "Threads", "Memory").
namespace hnow::transport {

// glibc malloc gives each thread that allocates while the others' arenas
// are busy an arena of its own (up to 8 per core), and never unmaps one.
// Off-thread work (transport/off_thread.h: a thread per hash, pack or
// compression) allocates 1 MiB read buffers; glibc's dynamic mmap threshold
// (raised to the size of the largest mapped block freed, and the trim threshold to twice
// that) then serves them from the arena, where about 2 MiB stay resident
// once freed. So each burst of concurrent work that is one thread wider
// than any before left another ~2 MiB behind: RSS in steps with the
// load's peak width, no leak, but no bound either. Two arenas (the control
// thread's, one shared by every other thread) and a fixed mmap threshold
// (blocks of 256 KiB and more are mapped and unmapped on free; a data
// frame of one 128 KiB chunk stays in the heap) keep resident memory a
// function of what is live. Measured in RELIABILITY.md (soak).
void boundMallocArenas();

}  // namespace hnow::transport
