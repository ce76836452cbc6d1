/* The profiler's event recorder (csrc/core/pd_prof.c): off records nothing, begin/end nesting
 * and depth, names and args copied, memory attribution to the innermost open event, per-thread
 * buffers under concurrent recording, clear, and growth past the initial capacities. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "core/pd_prof.h"
#include "pd_test.h"

typedef struct {
  int n;
  int64_t tids[8];
  int ntid;
  int per_tid[8];
  char names[64][32];
  int depth[64];
  int type[64];
  int64_t t0[64], t1[64], mem[64][4];
  char args[64][64];
} seen;

static int collect(void *ctx, int64_t tid, const pd_prof_event *e, const char *name, const char *args) {
  seen *s = (seen *)ctx;
  int k;
  for (k = 0; k < s->ntid && s->tids[k] != tid; k++) {
  }
  if (k == s->ntid && k < 8) s->tids[s->ntid++] = tid;
  if (k < 8) s->per_tid[k]++;
  if (s->n < 64) {
    snprintf(s->names[s->n], 32, "%s", name);
    snprintf(s->args[s->n], 64, "%s", args ? args : "(null)");
    s->depth[s->n] = e->depth;
    s->type[s->n] = e->type;
    s->t0[s->n] = e->start_ns;
    s->t1[s->n] = e->end_ns;
    s->mem[s->n][0] = e->n_alloc;
    s->mem[s->n][1] = e->n_free;
    s->mem[s->n][2] = e->alloc_bytes;
    s->mem[s->n][3] = e->free_bytes;
  }
  s->n++;
  return 0;
}

static void test_off_records_nothing(void) {
  pd_prof_clear();
  pd_prof_enable(0, 0);
  pd_prof_record(PD_PROF_USERDEFINED, "x", 1, 2, NULL);
  int h = pd_prof_begin(PD_PROF_OPERATOR, pd_prof_now_ns());
  pd_prof_end(h, "op", NULL);
  seen s;
  memset(&s, 0, sizeof s);
  pd_prof_visit(collect, &s);
  CHECK(s.n == 0);
}

static void test_nesting_names_args_memory(void) {
  pd_prof_clear();
  pd_prof_enable(1, 1);
  int64_t a = pd_prof_now_ns();
  int h0 = pd_prof_begin(PD_PROF_OPERATOR, a);
  pd_prof_mem(100);
  int h1 = pd_prof_begin(PD_PROF_OPERATOR, pd_prof_now_ns());
  pd_prof_mem(64);
  pd_prof_mem(-64);
  pd_prof_end(h1, "inner", "{\"input_shapes\": {}}");
  pd_prof_mem(-100);
  char name[40];
  strcpy(name, "outer");
  pd_prof_end(h0, name, NULL);
  strcpy(name, "XXXXX"); /* the recorder keeps its own copy */
  pd_prof_mem(5);        /* nothing open: attributed to nothing */
  pd_prof_enable(0, 0);
  seen s;
  memset(&s, 0, sizeof s);
  pd_prof_visit(collect, &s);
  CHECK(s.n == 2);
  CHECK(strcmp(s.names[0], "inner") == 0 && strcmp(s.names[1], "outer") == 0);
  CHECK(s.depth[0] == 1 && s.depth[1] == 0);
  CHECK(s.t0[1] == a && s.t0[1] <= s.t0[0] && s.t0[0] <= s.t1[0] && s.t1[0] <= s.t1[1]);
  CHECK(strcmp(s.args[0], "{\"input_shapes\": {}}") == 0 && strcmp(s.args[1], "(null)") == 0);
  CHECK(s.mem[0][0] == 1 && s.mem[0][1] == 1 && s.mem[0][2] == 64 && s.mem[0][3] == 64);
  CHECK(s.mem[1][0] == 1 && s.mem[1][1] == 1 && s.mem[1][2] == 100 && s.mem[1][3] == 100);
  int64_t ne, nd;
  pd_prof_counts(&ne, &nd);
  CHECK(ne == 2 && nd == 0);
  pd_prof_clear();
  memset(&s, 0, sizeof s);
  pd_prof_visit(collect, &s);
  CHECK(s.n == 0);
  /* ending a handle that is not open does nothing; an end after stopping records nothing */
  pd_prof_enable(1, 0);
  int h = pd_prof_begin(PD_PROF_OPERATOR, pd_prof_now_ns());
  pd_prof_end(h + 5, "bogus", NULL);
  pd_prof_enable(0, 0);
  pd_prof_end(h, "late", NULL);
  memset(&s, 0, sizeof s);
  pd_prof_visit(collect, &s);
  CHECK(s.n == 0);
}

static void test_deep_stack_refused(void) {
  pd_prof_clear();
  pd_prof_enable(1, 0);
  int hs[70];
  for (int i = 0; i < 70; i++) hs[i] = pd_prof_begin(PD_PROF_OPERATOR, pd_prof_now_ns());
  CHECK(hs[63] == 63 && hs[64] == -1 && hs[69] == -1);
  for (int i = 69; i >= 0; i--) pd_prof_end(hs[i], "d", NULL);
  pd_prof_enable(0, 0);
  seen s;
  memset(&s, 0, sizeof s);
  pd_prof_visit(collect, &s);
  CHECK(s.n == 64);
}

#define NPER 5000
static void *worker(void *arg) {
  (void)arg;
  char nm[32];
  for (int i = 0; i < NPER; i++) {
    int h = pd_prof_begin(PD_PROF_OPERATOR, pd_prof_now_ns());
    snprintf(nm, sizeof nm, "op%d", i % 7);
    pd_prof_end(h, nm, "{\"input_shapes\": {\"x\": [[1, 2, 3]]}}");
  }
  return NULL;
}

static void test_threads_and_growth(void) {
  pd_prof_clear();
  pd_prof_enable(1, 0);
  pthread_t t[3];
  for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, NULL);
  worker(NULL);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  pd_prof_enable(0, 0);
  seen s;
  memset(&s, 0, sizeof s);
  pd_prof_visit(collect, &s);
  CHECK(s.n == 4 * NPER);
  CHECK(s.ntid == 4);
  for (int k = 0; k < s.ntid; k++) CHECK(s.per_tid[k] == NPER);
  pd_prof_clear();
}

int main(void) {
  RUN(test_off_records_nothing);
  RUN(test_nesting_names_args_memory);
  RUN(test_deep_stack_refused);
  RUN(test_threads_and_growth);
  pd_prof_free_all();
  return PD_TEST_RESULT();
}
