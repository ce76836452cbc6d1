/* The caching CPU allocator: size-bucketed free lists, 64-byte aligned blocks, never gives
 * memory back to the OS unless pd_alloc_empty_cache() is called (first touches of fresh pages
 * cost ~12 us each on the target machine). Thread-safe. Statistics for leak tests. */
#ifndef PD_ALLOC_H
#define PD_ALLOC_H
#include <stddef.h>
#include <stdint.h>

#define PD_ALIGN 64

typedef struct {
  int64_t in_use_bytes;     /* bytes handed out and not yet freed (rounded to bucket size) */
  int64_t cached_bytes;     /* bytes held in free lists */
  int64_t peak_in_use_bytes;
  int64_t n_alloc;          /* calls to pd_alloc */
  int64_t n_free;
  int64_t n_cache_hit;      /* allocations served from a free list */
  int64_t n_os_alloc;       /* allocations that went to the OS */
  int64_t n_live_blocks;    /* blocks handed out now */
  int64_t peak_reserved_bytes; /* highest in_use + cached (what the allocator held) */
} pd_alloc_stats;

/* Returns a 64-byte aligned block of at least nbytes (nbytes may be 0), or NULL. */
void *pd_alloc(size_t nbytes);
void pd_free(void *p);
/* Usable size of a block from pd_alloc. */
size_t pd_alloc_size(const void *p);
void pd_alloc_get_stats(pd_alloc_stats *s);
/* sets both peaks to the current in-use / reserved bytes */
void pd_alloc_reset_peak(void);
/* sets the peaks to at least these values (the profiler restores them after its window) */
void pd_alloc_raise_peaks(int64_t peak_in_use, int64_t peak_reserved);
/* Returns every cached block to the OS. */
void pd_alloc_empty_cache(void);
/* 0 = caching on (default), 1 = pass-through to the OS (for sanitizer runs). */
void pd_alloc_set_passthrough(int on);

#endif
