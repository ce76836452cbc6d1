/* paddle._dist: all-reduce through MPI-3 shared memory, for DataParallel's gradient buckets when
 * every rank of the group runs on one machine. OpenMPI's MPI_Allreduce over its shared-memory
 * transport (vader, CMA single copy) took 7-14 ms for 5.3 MB on 2 ranks here (0.4-0.7 GB/s, load
 * 4) while a memcpy of half of it took 0.2-0.4 ms. Here the buckets live in one window from
 * MPI_Win_allocate_shared (each rank's segment mapped into every rank), and a reduction is: a
 * barrier (every rank's gradients are in place), rank r sums slice r of all ranks' segments in
 * rank order and stores the result into slice r of every segment, a barrier. Each slice is
 * computed once, so all ranks hold bitwise the same result, and the data moves once. The
 * barrier is a counter and a futex in the window (shm_barrier: a waiting rank sleeps instead of
 * polling). The memory is MPI's; the arithmetic and the barrier are ours. */
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "dist.h"

#define PDD_MAX_WINS 64
#define PDD_CTL 4096 /* each segment starts with a control page; rank 0's holds the barrier */
#define PDD_SPIN 4000 /* flag checks before a waiting rank sleeps in the kernel */
#define PDD_BLOCK 2048 /* elements summed per pass (stays in L1 across the ranks' segments) */

typedef struct {
  _Atomic unsigned count; /* ranks arrived in the current barrier */
  _Atomic unsigned gen;   /* barriers completed (the futex word) */
} shm_ctl;

typedef struct {
  MPI_Win win;
  shm_ctl *ctl;
  MPI_Comm node; /* the group's communicator restricted to this machine (== the group) */
  int n, me;
  int mpi_barrier; /* PADDLE_C_DP_SHM_BARRIER=mpi: MPI_Barrier instead of the futex (for comparison) */
  char **base; /* base[r]: rank r's segment, mapped here */
  size_t bytes;
} shm_win;

static shm_win wins[PDD_MAX_WINS];
static int n_wins;

int pdd_shm_create(MPI_Comm c, size_t nbytes, int *handle, void **mine) {
  *handle = -1;
  *mine = NULL;
  int n = 0, nn = 0, rc;
  MPI_Comm_size(c, &n);
  MPI_Comm node;
  rc = MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm_size(node, &nn);
  /* every rank must agree: usable only if the whole group shares one machine on every rank */
  int ok = nn == n && n_wins < PDD_MAX_WINS, all_ok = 0;
  rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, c);
  if (rc != MPI_SUCCESS || !all_ok) {
    MPI_Comm_free(&node);
    return rc;
  }
  MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  size_t bytes = (nbytes + 4095) & ~(size_t)4095, total = bytes + PDD_CTL;
  void *base = NULL;
  MPI_Win win;
  rc = MPI_Win_allocate_shared((MPI_Aint)total, 1, info, node, &base, &win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(&node);
    return rc;
  }
  shm_win *w = &wins[n_wins];
  w->base = (char **)calloc((size_t)n, sizeof(char *));
  if (!w->base) {
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    return MPI_ERR_NO_MEM;
  }
  for (int r = 0; r < n; r++) {
    MPI_Aint sz = 0;
    int disp = 0;
    void *p = NULL;
    MPI_Win_shared_query(win, r, &sz, &disp, &p);
    w->base[r] = (char *)p + PDD_CTL;
  }
  w->ctl = (shm_ctl *)(w->base[0] - PDD_CTL);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  memset(base, 0, total); /* rank 0's control block starts at zero (ranks pass a barrier below) */
  w->win = win;
  w->node = node;
  w->n = n;
  w->mpi_barrier = getenv("PADDLE_C_DP_SHM_BARRIER") && !strcmp(getenv("PADDLE_C_DP_SHM_BARRIER"), "mpi");
  MPI_Comm_rank(node, &w->me);
  w->bytes = bytes;
  *handle = n_wins++;
  *mine = (char *)base + PDD_CTL;
  MPI_Win_sync(win);
  return MPI_Barrier(node);
}

size_t pdd_shm_size(int h) { return h >= 0 && h < n_wins ? wins[h].bytes : 0; }

/* A barrier of the window's ranks through rank 0's control block: the last to arrive resets the
 * count and advances gen; the others watch gen for PDD_SPIN checks, then sleep on it (a futex on
 * the shared mapping). A rank that waits gives its core away: with one core per rank and other
 * processes on the machine, MPI_Barrier's polling (even with mpi_yield_when_idle) keeps a waiting
 * rank runnable, competing with the rank it waits for. */
static void shm_barrier(shm_win *w) {
  if (w->mpi_barrier) {
    MPI_Barrier(w->node);
    return;
  }
  shm_ctl *c = w->ctl;
  unsigned g = atomic_load(&c->gen);
  if (atomic_fetch_add(&c->count, 1) == (unsigned)w->n - 1) {
    atomic_store(&c->count, 0);
    atomic_fetch_add(&c->gen, 1);
    syscall(SYS_futex, &c->gen, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    return;
  }
  for (int i = 0; i < PDD_SPIN; i++) {
    if (atomic_load_explicit(&c->gen, memory_order_acquire) != g) return;
    __builtin_ia32_pause();
  }
  while (atomic_load(&c->gen) == g) syscall(SYS_futex, &c->gen, FUTEX_WAIT, g, NULL, NULL, 0);
}

/* out[i] = (seg_0[i] + seg_1[i] + ... ) * scale over [lo, hi), stored into every segment. */
#define PDD_SHM_SUM(T)                                                                         \
  static void sum_##T(shm_win *w, size_t off, int64_t lo, int64_t hi, T scale, int avg) {     \
    T acc[PDD_BLOCK];                                                                          \
    for (int64_t b = lo; b < hi; b += PDD_BLOCK) {                                             \
      int64_t m = hi - b < PDD_BLOCK ? hi - b : PDD_BLOCK;                                     \
      const T *s0 = (const T *)(w->base[0] + off) + b;                                         \
      for (int64_t i = 0; i < m; i++) acc[i] = s0[i];                                          \
      for (int r = 1; r < w->n; r++) {                                                         \
        const T *s = (const T *)(w->base[r] + off) + b;                                        \
        for (int64_t i = 0; i < m; i++) acc[i] += s[i];                                        \
      }                                                                                        \
      if (avg)                                                                                 \
        for (int64_t i = 0; i < m; i++) acc[i] *= scale;                                       \
      for (int r = 0; r < w->n; r++) memcpy((T *)(w->base[r] + off) + b, acc, (size_t)m * sizeof(T)); \
    }                                                                                          \
  }
PDD_SHM_SUM(float)
PDD_SHM_SUM(double)

int pdd_shm_allreduce(int h, size_t off, int64_t count, int dtype, int op) {
  if (h < 0 || h >= n_wins) return MPI_ERR_WIN;
  shm_win *w = &wins[h];
  size_t es = dtype == PDD_FLOAT32 ? 4 : dtype == PDD_FLOAT64 ? 8 : 0;
  if (!es || (op != PDD_SUM && op != PDD_AVG) || off + (size_t)count * es > w->bytes) return MPI_ERR_ARG;
  MPI_Win_sync(w->win);
  shm_barrier(w);
  MPI_Win_sync(w->win);
  /* slice r: [lo, hi), cut at multiples of 16 elements (whole cache lines) */
  int64_t per = (count + w->n - 1) / w->n;
  per = (per + 15) & ~(int64_t)15;
  int64_t lo = per * w->me, hi = lo + per;
  if (lo > count) lo = count;
  if (hi > count) hi = count;
  if (es == 4) sum_float(w, off, lo, hi, 1.0f / (float)w->n, op == PDD_AVG);
  else sum_double(w, off, lo, hi, 1.0 / (double)w->n, op == PDD_AVG);
  MPI_Win_sync(w->win);
  shm_barrier(w);
  MPI_Win_sync(w->win);
  return MPI_SUCCESS;
}

void pdd_shm_free_all(void) {
  for (int i = 0; i < n_wins; i++) {
    MPI_Win_unlock_all(wins[i].win);
    MPI_Win_free(&wins[i].win);
    MPI_Comm_free(&wins[i].node);
    free(wins[i].base);
  }
  n_wins = 0;
}
