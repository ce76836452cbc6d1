/* paddle._dist: the communication thread behind DataParallel's overlap. The Python thread queues
 * in-place all-reduces of gradient buckets (pdd_async_submit) while backward still runs; one
 * pthread runs them in submission order (so every rank issues its collectives in the same
 * order) with blocking MPI_Allreduce. MPI is initialized MPI_THREAD_SERIALIZED: the Python side
 * drains this queue (pdd_async_wait) before it makes any MPI call itself, so the two threads
 * never call MPI at the same time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"

typedef struct job {
  MPI_Comm comm;
  char *buf;
  int64_t count;
  size_t esize;
  int dtype, op;
  int shm;      /* >= 0: a shared-memory window's reduction of [off, off + count) */
  size_t off;
  void *owner; /* released by the Python thread after completion */
  struct job *next;
} job;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv_job = PTHREAD_COND_INITIALIZER, cv_done = PTHREAD_COND_INITIALIZER;
static job *q_head, *q_tail, *done_head;
static int pending, started, stopping, first_rc = MPI_SUCCESS;
static pthread_t thread;

#define PDD_ACHUNK ((int64_t)1 << 30)

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&mu);
    while (!q_head && !stopping) pthread_cond_wait(&cv_job, &mu);
    if (!q_head && stopping) {
      pthread_mutex_unlock(&mu);
      return NULL;
    }
    job *j = q_head;
    q_head = j->next;
    if (!q_head) q_tail = NULL;
    int skip = first_rc != MPI_SUCCESS;
    pthread_mutex_unlock(&mu);
    int rc = MPI_SUCCESS;
    if (!skip && j->shm >= 0) {
      rc = pdd_shm_allreduce(j->shm, j->off, j->count, j->dtype, j->op);
    } else if (!skip) {
      MPI_Op mop;
      if (pdd_mpi_op(j->dtype, j->op, &mop)) rc = MPI_ERR_OP;
      for (int64_t off = 0; off < j->count && rc == MPI_SUCCESS; off += PDD_ACHUNK) {
        int cnt = (int)(j->count - off < PDD_ACHUNK ? j->count - off : PDD_ACHUNK);
        rc = MPI_Allreduce(MPI_IN_PLACE, j->buf + (size_t)off * j->esize, cnt, pdd_mpi_type(j->dtype), mop, j->comm);
      }
      if (rc == MPI_SUCCESS && j->op == PDD_AVG) {
        int n = 1;
        MPI_Comm_size(j->comm, &n);
        pdd_divide(j->buf, j->count, j->dtype, n);
      }
    }
    pthread_mutex_lock(&mu);
    if (rc != MPI_SUCCESS && first_rc == MPI_SUCCESS) first_rc = rc;
    j->next = done_head;
    done_head = j;
    pending--;
    pthread_cond_broadcast(&cv_done);
    pthread_mutex_unlock(&mu);
  }
}

static int enqueue(job *j);

int pdd_async_submit_shm(int h, size_t off, int64_t count, int dtype, int op) {
  job *j = (job *)calloc(1, sizeof(job));
  if (!j) return -1;
  j->shm = h;
  j->off = off;
  j->count = count;
  j->dtype = dtype;
  j->op = op;
  return enqueue(j);
}

int pdd_async_submit(MPI_Comm c, void *buf, int64_t count, size_t esize, int dtype, int op, void *owner) {
  job *j = (job *)calloc(1, sizeof(job));
  if (!j) return -1;
  j->shm = -1;
  j->comm = c;
  j->buf = (char *)buf;
  j->count = count;
  j->esize = esize;
  j->dtype = dtype;
  j->op = op;
  j->owner = owner;
  return enqueue(j);
}

static int enqueue(job *j) {
  pthread_mutex_lock(&mu);
  if (!started) {
    stopping = 0;
    if (pthread_create(&thread, NULL, worker, NULL) != 0) {
      pthread_mutex_unlock(&mu);
      free(j);
      return -1;
    }
    started = 1;
  }
  if (q_tail) q_tail->next = j;
  else q_head = j;
  q_tail = j;
  pending++;
  pthread_cond_signal(&cv_job);
  pthread_mutex_unlock(&mu);
  return 0;
}

int pdd_async_pending(void) {
  pthread_mutex_lock(&mu);
  int p = pending;
  pthread_mutex_unlock(&mu);
  return p;
}

/* Waits until the queue is empty; hands back the owners of the finished jobs (*owners: a
 * malloc'd array the caller frees) and the first MPI error code (MPI_SUCCESS if none), which it
 * clears. Call without the GIL. */
int pdd_async_wait(void ***owners, int *n_owners) {
  pthread_mutex_lock(&mu);
  while (pending > 0) pthread_cond_wait(&cv_done, &mu);
  int n = 0;
  for (job *j = done_head; j; j = j->next) n++;
  void **o = n ? (void **)malloc(sizeof(void *) * (size_t)n) : NULL;
  int k = 0;
  while (done_head) {
    job *j = done_head;
    done_head = j->next;
    if (o && j->owner) o[k++] = j->owner;
    free(j);
  }
  int rc = first_rc;
  first_rc = MPI_SUCCESS;
  pthread_mutex_unlock(&mu);
  *owners = o;
  *n_owners = o ? k : 0;
  return rc;
}

void pdd_async_stop(void) {
  pthread_mutex_lock(&mu);
  int was = started;
  stopping = 1;
  pthread_cond_broadcast(&cv_job);
  pthread_mutex_unlock(&mu);
  if (was) pthread_join(thread, NULL);
  pthread_mutex_lock(&mu);
  started = 0;
  pthread_mutex_unlock(&mu);
}
