#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* Size-bucketed caching allocator (see pd_alloc.h). Each block carries a 64-byte header that
 * records its bucket; bucket sizes are 2^p + k*2^(p-2) (k = 1..4), so waste is under 25%.
 * Blocks of 4 MiB and more ask the kernel for transparent huge pages. */
#include "pd_alloc.h"
#include "pd_prof.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define HDR 64
#define NBUCKETS (4 * 58)
#define MAGIC 0x5044414cu /* "PDAL" */

typedef struct block_hdr {
  struct block_hdr *next; /* free-list link while cached */
  uint32_t magic;
  int32_t bucket;
  size_t size;   /* usable size */
  int32_t owner; /* the thread that freed it last (thread_id) */
} block_hdr;

/* a small number per thread, for handing a freed large block back to the thread that freed it */
static atomic_int g_next_tid = 0;
static _Thread_local int t_id = -1;
static inline int thread_id(void) {
  if (t_id < 0) t_id = atomic_fetch_add(&g_next_tid, 1);
  return t_id;
}
#define AFFINE_MIN ((size_t)64 << 10)
#define AFFINE_LOOK 4
static int affine_on(void) {
  const char *e = getenv("PADDLE_C_ALLOC_AFFINE");
  return !(e && e[0] == '0');
}

static block_hdr *g_free[NBUCKETS];
static atomic_flag g_lock = ATOMIC_FLAG_INIT;
static pd_alloc_stats g_stats;
static int g_passthrough = -1;

static inline void lock(void) {
  while (atomic_flag_test_and_set_explicit(&g_lock, memory_order_acquire)) {
  }
}
static inline void unlock(void) { atomic_flag_clear_explicit(&g_lock, memory_order_release); }

/* fork() (DataLoader workers) copies the lock as it is: had another thread of the parent held it
 * at that moment, the child would spin for ever on its first allocation. The forking thread takes
 * it first, and both sides release it after. Registered before every other handler (constructor
 * priority 101), so its prepare step runs last: locks held while allocating (the random engine's,
 * pd_random.c) are taken before this innermost one, never after. */
static void alloc_prefork(void) { lock(); }
static void alloc_postfork(void) { unlock(); }
__attribute__((constructor(101))) static void alloc_atfork_init(void) {
  pthread_atfork(alloc_prefork, alloc_postfork, alloc_postfork);
}

static int passthrough(void) {
  if (g_passthrough < 0) {
    const char *e = getenv("PADDLE_C_ALLOC_PASSTHROUGH");
    g_passthrough = (e && e[0] == '1') ? 1 : 0;
  }
  return g_passthrough;
}

void pd_alloc_set_passthrough(int on) { g_passthrough = on ? 1 : 0; }

static int bucket_of(size_t n, size_t *bsize) {
  if (n <= 64) {
    *bsize = 64;
    return 0;
  }
  int p = 63 - __builtin_clzll((unsigned long long)(n - 1)); /* 2^p < n <= 2^(p+1) */
  size_t base = (size_t)1 << p, q = base >> 2;
  size_t k = (n - base + q - 1) / q; /* 1..4 */
  *bsize = base + k * q;
  int b = (p - 6) * 4 + (int)k;
  return b;
}

void *pd_alloc(size_t nbytes) {
  size_t bsize;
  int b = bucket_of(nbytes, &bsize);
  if (b >= NBUCKETS) return NULL;
  block_hdr *h = NULL;
  int pt = passthrough();
  const int me = bsize >= AFFINE_MIN && affine_on() ? thread_id() : -1; /* outside the spin lock */
  lock();
  g_stats.n_alloc++;
  if (!pt && g_free[b]) {
    block_hdr **pp = &g_free[b];
    if (me >= 0) {
      /* a block this thread freed, among the first few: its lines are in this core's caches */
      block_hdr **q = &g_free[b];
      for (int i = 0; i < AFFINE_LOOK && *q; i++, q = &(*q)->next)
        if ((*q)->owner == me) {
          pp = q;
          break;
        }
    }
    h = *pp;
    *pp = h->next;
    g_stats.cached_bytes -= (int64_t)bsize;
    g_stats.n_cache_hit++;
  }
  unlock();
  if (!h) {
    void *mem = NULL;
    size_t total = bsize + HDR;
    if (bsize >= ((size_t)4 << 20)) {
      size_t al = (size_t)2 << 20;
      total = (total + al - 1) & ~(al - 1);
      if (posix_memalign(&mem, al, total) != 0) mem = NULL;
#ifdef MADV_HUGEPAGE
      if (mem) madvise(mem, total, MADV_HUGEPAGE);
#endif
    } else {
      if (posix_memalign(&mem, PD_ALIGN, total) != 0) mem = NULL;
    }
    if (!mem) return NULL;
    h = (block_hdr *)mem;
    h->magic = MAGIC;
    h->bucket = b;
    h->size = bsize;
    h->owner = -1;
    lock();
    g_stats.n_os_alloc++;
    unlock();
  }
  h->next = NULL;
  lock();
  g_stats.in_use_bytes += (int64_t)bsize;
  g_stats.n_live_blocks++;
  if (g_stats.in_use_bytes > g_stats.peak_in_use_bytes) g_stats.peak_in_use_bytes = g_stats.in_use_bytes;
  if (g_stats.in_use_bytes + g_stats.cached_bytes > g_stats.peak_reserved_bytes)
    g_stats.peak_reserved_bytes = g_stats.in_use_bytes + g_stats.cached_bytes;
  unlock();
  if (__builtin_expect(pd_prof_mem_on != 0, 0)) pd_prof_mem((int64_t)bsize);
  return (char *)h + HDR;
}

size_t pd_alloc_size(const void *p) {
  if (!p) return 0;
  const block_hdr *h = (const block_hdr *)((const char *)p - HDR);
  return h->size;
}

void pd_free(void *p) {
  if (!p) return;
  block_hdr *h = (block_hdr *)((char *)p - HDR);
  if (h->magic != MAGIC) abort(); /* heap corruption: a programming error, not user input */
  int pt = passthrough();
  if (__builtin_expect(pd_prof_mem_on != 0, 0)) pd_prof_mem(-(int64_t)h->size);
  if (h->size >= AFFINE_MIN) h->owner = thread_id();
  lock();
  g_stats.n_free++;
  g_stats.in_use_bytes -= (int64_t)h->size;
  g_stats.n_live_blocks--;
  if (!pt) {
    h->next = g_free[h->bucket];
    g_free[h->bucket] = h;
    g_stats.cached_bytes += (int64_t)h->size;
    unlock();
    return;
  }
  unlock();
  h->magic = 0;
  free(h);
}

void pd_alloc_get_stats(pd_alloc_stats *s) {
  lock();
  *s = g_stats;
  unlock();
}

void pd_alloc_reset_peak(void) {
  lock();
  g_stats.peak_in_use_bytes = g_stats.in_use_bytes;
  g_stats.peak_reserved_bytes = g_stats.in_use_bytes + g_stats.cached_bytes;
  unlock();
}

void pd_alloc_raise_peaks(int64_t peak_in_use, int64_t peak_reserved) {
  lock();
  if (peak_in_use > g_stats.peak_in_use_bytes) g_stats.peak_in_use_bytes = peak_in_use;
  if (peak_reserved > g_stats.peak_reserved_bytes) g_stats.peak_reserved_bytes = peak_reserved;
  unlock();
}

void pd_alloc_empty_cache(void) {
  block_hdr *lists[NBUCKETS];
  lock();
  memcpy(lists, g_free, sizeof lists);
  memset(g_free, 0, sizeof g_free);
  g_stats.cached_bytes = 0;
  unlock();
  for (int b = 0; b < NBUCKETS; b++) {
    block_hdr *h = lists[b];
    while (h) {
      block_hdr *n = h->next;
      h->magic = 0;
      free(h);
      h = n;
    }
  }
#ifdef __GLIBC__
  /* glibc keeps freed heap chunks (and, after its mmap threshold rose, blocks of up to 32 MiB are
   * heap chunks) mapped: hand their pages back too, or "return to the OS" would not lower RSS */
  malloc_trim(0);
#endif
}
