/* C unit tests of the OpenMP pool's per-call thread count (csrc/core/pd_pool.c): the thread-local
 * ICV cache stays true to the ICV through a predictor's own thread count (pd_pool_local_begin /
 * _end), so the governor's one-thread decisions reach the predictor's kernel calls. */
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "core/pd_pool.h"
#include "pd_test.h"

static atomic_int phase;

/* holds the pool from another OS thread until told to leave */
static void *holder(void *arg) {
  (void)arg;
  pd_pool_ticket t = pd_pool_enter();
  atomic_store(&phase, 1);
  while (atomic_load(&phase) != 2) sched_yield();
  pd_pool_leave(t);
  atomic_store(&phase, 3);
  return NULL;
}

static void test_predictor_count_follows_the_governor(void) {
  pd_pool_set_threads(2);
  pd_pool_ticket t = pd_pool_enter(); /* a call holding the pool: the configured 2 threads */
  CHECK(t.kind != 2);
  CHECK(omp_get_max_threads() == 2);
  pd_pool_leave(t);
  /* while another OS thread holds the pool, this thread's call runs beside it on one thread */
  pthread_t th;
  CHECK(pthread_create(&th, NULL, holder, NULL) == 0);
  while (atomic_load(&phase) != 1) sched_yield();
  t = pd_pool_enter();
  CHECK(t.kind == 2);
  CHECK(omp_get_max_threads() == 1);
  pd_pool_leave(t);
  atomic_store(&phase, 2);
  while (atomic_load(&phase) != 3) sched_yield();
  pthread_join(th, NULL);
  /* a predictor run at 2 threads: its ICV is 2, but a guest was seen in this governor window, so
   * its kernel calls run on one thread (an omp_set_num_threads(2) of the predictor's own left the
   * cached ICV at 1 and these calls on 2 threads) */
  const int prev = pd_pool_local_begin(2);
  CHECK(omp_get_max_threads() == 2);
  t = pd_pool_enter();
  CHECK(t.kind != 2);
  CHECK(omp_get_max_threads() == 1);
  pd_pool_leave(t);
  pd_pool_local_end(prev);
  CHECK(omp_get_max_threads() == 2);
  /* a predictor at one thread under a configured 2: one thread, without the governor's say */
  const int p1 = pd_pool_local_begin(1);
  t = pd_pool_enter();
  CHECK(omp_get_max_threads() == 1);
  pd_pool_leave(t);
  pd_pool_local_end(p1);
  CHECK(omp_get_max_threads() == 2);
}

int main(void) {
  printf("test_pool\n");
  RUN(test_predictor_count_follows_the_governor);
  return PD_TEST_RESULT();
}
