#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* Host event recorder (see pd_prof.h). Each thread appends to its own buffer under its own
 * mutex (uncontended while recording; pd_prof_visit takes it to read); the buffers hang off a
 * global list so events of finished threads (DataLoader workers) are kept until cleared. */
#include "pd_prof.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int pd_prof_on = 0;
int pd_prof_mem_on = 0;

typedef struct prof_buf {
  struct prof_buf *next;
  int64_t tid;
  pthread_mutex_t mu;
  pd_prof_event *ev;
  size_t n, cap;
  char *str;
  size_t slen, scap;
} prof_buf;

#define MAX_OPEN 64
typedef struct {
  int64_t start_ns;
  int32_t type;
  int64_t n_alloc, n_free, alloc_bytes, free_bytes;
} open_ev;

typedef struct {
  prof_buf *b;
  int sp;
  open_ev stack[MAX_OPEN];
} prof_tls;

static _Thread_local prof_tls tl;
static pthread_mutex_t g_list_mu = PTHREAD_MUTEX_INITIALIZER;
static prof_buf *g_bufs = NULL;
static atomic_llong g_n_events, g_n_dropped;

/* fork() must not copy a buffer's lock (or the list's) held by another thread: the forking thread
 * takes the list lock, then every buffer's (the order the collectors use), and both sides release
 * them after. Priority 102: after the allocator's (101), before every other lock's (103 and the
 * unprioritised ones), so this prepare step runs after theirs: events are recorded while those
 * locks are held (the random engine's, around allocations that the memory profiler records), never
 * the other way round. */
static void prof_prefork(void) {
  pthread_mutex_lock(&g_list_mu);
  for (prof_buf *b = g_bufs; b; b = b->next) pthread_mutex_lock(&b->mu);
}
static void prof_postfork(void) {
  for (prof_buf *b = g_bufs; b; b = b->next) pthread_mutex_unlock(&b->mu);
  pthread_mutex_unlock(&g_list_mu);
}
__attribute__((constructor(102))) static void prof_atfork_init(void) {
  pthread_atfork(prof_prefork, prof_postfork, prof_postfork);
}

int64_t pd_prof_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void pd_prof_enable(int on, int mem) {
  pd_prof_mem_on = on && mem;
  pd_prof_on = on ? 1 : 0;
}

static prof_buf *my_buf(void) {
  if (tl.b) return tl.b;
  prof_buf *b = (prof_buf *)calloc(1, sizeof *b);
  if (!b) return NULL;
  b->tid = (int64_t)syscall(SYS_gettid);
  pthread_mutex_init(&b->mu, NULL);
  pthread_mutex_lock(&g_list_mu);
  b->next = g_bufs;
  g_bufs = b;
  pthread_mutex_unlock(&g_list_mu);
  tl.b = b;
  return b;
}

/* copies s (NUL included) into b's arena: its offset, or PD_PROF_NO_ARGS when it does not fit */
static uint32_t put_str(prof_buf *b, const char *s) {
  size_t n = strlen(s) + 1;
  if (b->slen + n > b->scap) {
    size_t cap = b->scap ? b->scap : 4096;
    while (cap < b->slen + n) cap *= 2;
    if (cap >= PD_PROF_NO_ARGS) return PD_PROF_NO_ARGS;
    char *p = (char *)realloc(b->str, cap);
    if (!p) return PD_PROF_NO_ARGS;
    b->str = p;
    b->scap = cap;
  }
  memcpy(b->str + b->slen, s, n);
  uint32_t off = (uint32_t)b->slen;
  b->slen += n;
  return off;
}

static void append(const pd_prof_event *e0, const char *name, const char *args) {
  prof_buf *b = my_buf();
  if (!b) {
    atomic_fetch_add(&g_n_dropped, 1);
    return;
  }
  pthread_mutex_lock(&b->mu);
  int ok = 1;
  if (b->n == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 1024;
    pd_prof_event *p = (pd_prof_event *)realloc(b->ev, cap * sizeof *p);
    if (p) {
      b->ev = p;
      b->cap = cap;
    } else {
      ok = 0;
    }
  }
  if (ok) {
    pd_prof_event e = *e0;
    size_t mark = b->slen;
    e.name = put_str(b, name ? name : "");
    e.args = args ? put_str(b, args) : PD_PROF_NO_ARGS;
    if (e.name == PD_PROF_NO_ARGS || (args && e.args == PD_PROF_NO_ARGS)) {
      b->slen = mark;
      ok = 0;
    } else {
      b->ev[b->n++] = e;
    }
  }
  pthread_mutex_unlock(&b->mu);
  atomic_fetch_add(ok ? &g_n_events : &g_n_dropped, 1);
}

int pd_prof_begin(int type, int64_t start_ns) {
  if (tl.sp >= MAX_OPEN) return -1;
  open_ev *o = &tl.stack[tl.sp];
  o->start_ns = start_ns;
  o->type = type;
  o->n_alloc = o->n_free = o->alloc_bytes = o->free_bytes = 0;
  return tl.sp++;
}

void pd_prof_end(int handle, const char *name, const char *args) {
  if (handle < 0 || handle >= tl.sp) return;
  int64_t t1 = pd_prof_now_ns();
  open_ev *o = &tl.stack[handle];
  tl.sp = handle;
  if (!pd_prof_on) return; /* stopped while it ran: an event from before would be cut */
  pd_prof_event e;
  memset(&e, 0, sizeof e);
  e.start_ns = o->start_ns;
  e.end_ns = t1;
  e.type = o->type;
  e.depth = handle;
  e.n_alloc = o->n_alloc;
  e.n_free = o->n_free;
  e.alloc_bytes = o->alloc_bytes;
  e.free_bytes = o->free_bytes;
  append(&e, name, args);
}

void pd_prof_record(int type, const char *name, int64_t start_ns, int64_t end_ns, const char *args) {
  if (!pd_prof_on) return;
  pd_prof_event e;
  memset(&e, 0, sizeof e);
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  e.type = type;
  e.depth = tl.sp;
  append(&e, name, args);
}

void pd_prof_mem(int64_t bytes) {
  if (tl.sp <= 0) return;
  open_ev *o = &tl.stack[tl.sp - 1];
  if (bytes >= 0) {
    o->n_alloc++;
    o->alloc_bytes += bytes;
  } else {
    o->n_free++;
    o->free_bytes -= bytes;
  }
}

void pd_prof_clear(void) {
  pthread_mutex_lock(&g_list_mu);
  for (prof_buf *b = g_bufs; b; b = b->next) {
    pthread_mutex_lock(&b->mu);
    b->n = 0;
    b->slen = 0;
    pthread_mutex_unlock(&b->mu);
  }
  pthread_mutex_unlock(&g_list_mu);
  atomic_store(&g_n_events, 0);
  atomic_store(&g_n_dropped, 0);
}

int pd_prof_visit(pd_prof_visit_fn f, void *ctx) {
  int r = 0;
  pthread_mutex_lock(&g_list_mu);
  for (prof_buf *b = g_bufs; b && !r; b = b->next) {
    pthread_mutex_lock(&b->mu);
    for (size_t i = 0; i < b->n && !r; i++) {
      const pd_prof_event *e = &b->ev[i];
      r = f(ctx, b->tid, e, b->str + e->name, e->args == PD_PROF_NO_ARGS ? NULL : b->str + e->args);
    }
    pthread_mutex_unlock(&b->mu);
  }
  pthread_mutex_unlock(&g_list_mu);
  return r;
}

void pd_prof_counts(int64_t *n_events, int64_t *n_dropped) {
  *n_events = atomic_load(&g_n_events);
  *n_dropped = atomic_load(&g_n_dropped);
}

void pd_prof_free_all(void) {
  pthread_mutex_lock(&g_list_mu);
  prof_buf *b = g_bufs;
  g_bufs = NULL;
  pthread_mutex_unlock(&g_list_mu);
  while (b) {
    prof_buf *n = b->next;
    pthread_mutex_destroy(&b->mu);
    free(b->ev);
    free(b->str);
    free(b);
    b = n;
  }
  tl.b = NULL; /* other threads' pointers dangle: only for single-threaded tests */
  tl.sp = 0;
}
