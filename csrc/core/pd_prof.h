/* The host event recorder behind paddle.profiler (see docs/arch/export_tools.md "Profiler").
 * Events (nanosecond CLOCK_MONOTONIC start/end, type, nesting depth, name, an optional JSON
 * object of arguments, memory counters) go to a buffer owned by the recording thread; a global
 * list of the buffers lets pd_prof_visit read them all. When recording is off the only cost
 * for a caller is one predictable branch on the plain global pd_prof_on. */
#ifndef PD_PROF_H
#define PD_PROF_H
#include <stdint.h>

/* Paddle's TracerEventType numbering (paddle.profiler.TracerEventType) */
enum {
  PD_PROF_OPERATOR = 0,
  PD_PROF_DATALOADER = 1,
  PD_PROF_PROFILESTEP = 2,
  PD_PROF_USERDEFINED = 7,
  PD_PROF_OPERATOR_INNER = 8,
  PD_PROF_FORWARD = 9,
  PD_PROF_BACKWARD = 10,
  PD_PROF_OPTIMIZATION = 11,
  PD_PROF_PYTHON_OP = 13,
  PD_PROF_PYTHON_USER = 14,
  PD_PROF_NUM_TYPES = 15
};

typedef struct {
  int64_t start_ns, end_ns;
  int32_t type;
  int32_t depth;       /* open events of this thread when it began (0: top level) */
  uint32_t name;       /* offset of the name in the thread's string arena */
  uint32_t args;       /* offset of a JSON object text, or PD_PROF_NO_ARGS */
  int64_t n_alloc, n_free, alloc_bytes, free_bytes; /* allocator calls while innermost */
} pd_prof_event;
#define PD_PROF_NO_ARGS 0xffffffffu

extern int pd_prof_on;     /* nonzero while recording (read unlocked by every op) */
extern int pd_prof_mem_on; /* nonzero while memory events are attributed (profile_memory) */

int64_t pd_prof_now_ns(void);
/* on: start (1) or stop (0) recording; mem: also attribute allocator calls to open events */
void pd_prof_enable(int on, int mem);
/* drops every recorded event of every thread (buffers are kept for reuse) */
void pd_prof_clear(void);

/* Opens an event on the calling thread; returns its handle (>= 0) or -1 when the stack is too
 * deep or out of memory. pd_prof_end closes it (and any events opened after it and still
 * open) and appends it with its name and args (copied; args may be NULL). */
int pd_prof_begin(int type, int64_t start_ns);
void pd_prof_end(int handle, const char *name, const char *args);
/* A closed event straight to the buffer (no memory attribution; nothing while off): the Python
 * RecordEvent path. */
void pd_prof_record(int type, const char *name, int64_t start_ns, int64_t end_ns, const char *args);

/* allocator hook (pd_alloc.c calls it while pd_prof_mem_on): +bytes allocated, -bytes freed */
void pd_prof_mem(int64_t bytes);

typedef int (*pd_prof_visit_fn)(void *ctx, int64_t tid, const pd_prof_event *e, const char *name,
                                const char *args);
/* calls f for every recorded event, thread by thread; stops when f returns nonzero (returned) */
int pd_prof_visit(pd_prof_visit_fn f, void *ctx);
/* events recorded and dropped (out of memory) so far */
void pd_prof_counts(int64_t *n_events, int64_t *n_dropped);
/* frees every buffer (tests; no thread may be recording) */
void pd_prof_free_all(void);

#endif
