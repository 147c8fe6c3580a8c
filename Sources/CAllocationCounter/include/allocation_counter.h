// Counts the heap allocations of the calling thread between start and stop, for marketalertd-bench's
// "allocates nothing per message" budgets. Linked into the benchmark only, never into the daemon.
#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

#include <stdint.h>

/// Whether allocations can be counted here (glibc: malloc and friends are replaced in this executable).
int allocation_counter_available(void);
/// Starts counting this thread's allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc,
/// memalign) from zero.
void allocation_counter_start(void);
/// Stops counting; returns how many there were since `allocation_counter_start` on this thread.
uint64_t allocation_counter_stop(void);

#endif
