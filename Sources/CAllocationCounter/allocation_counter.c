// Replaces glibc's allocation entry points in the benchmark executable with counting wrappers that forward
// to glibc's own (__libc_malloc and friends), so code linked into the executable (the Swift runtime,
// Foundation, NIO and ours) is counted while a thread has counting on. Memory is always glibc's: a block
// from either side may be freed or resized by the other.
#include "allocation_counter.h"

#if defined(__GLIBC__)
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static __thread int counting;
static __thread uint64_t counted;

static inline void note(void) {
    if (counting) counted += 1;
}

void *malloc(size_t size) {
    note();
    return __libc_malloc(size);
}

void free(void *pointer) { __libc_free(pointer); }

void *calloc(size_t count, size_t size) {
    note();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    note();
    return __libc_realloc(pointer, size);
}

static int valid_alignment(size_t alignment) {
    return alignment != 0 && (alignment & (alignment - 1)) == 0 && alignment % sizeof(void *) == 0;
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (!valid_alignment(alignment)) return EINVAL;
    note();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    note();
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    note();
    return __libc_memalign(alignment, size);
}

int allocation_counter_available(void) { return 1; }

void allocation_counter_start(void) {
    counted = 0;
    counting = 1;
}

uint64_t allocation_counter_stop(void) {
    counting = 0;
    return counted;
}
#else
int allocation_counter_available(void) { return 0; }
void allocation_counter_start(void) {}
uint64_t allocation_counter_stop(void) { return 0; }
#endif
