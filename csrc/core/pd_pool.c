/* The OpenMP pool under contention (issue 24). One libgomp pool serves every kernel (ours, the
 * OpenMP OpenBLAS, oneDNN); this file decides, per top-level kernel call, how many of its threads
 * the call may use:
 * - a call from a second OS thread while another thread's kernel holds the pool runs on its own
 *   thread alone (omp_set_num_threads(1) is a per-thread setting), instead of starting a second
 *   pool next to the first (libgomp gives every OS thread its own) and oversubscribing the cores;
 * - while such calls happen (since the last ~50 ms window), the holder runs on one thread too;
 * - otherwise the thread holding the pool alternates, in windows of ~50 ms of kernel time, between the
 *   configured count and one thread, keeps the faster, and re-checks with a growing interval
 *   (0.5 s doubling to ~6 s). On an idle machine that is the configured count; when other
 *   processes take the cores, a pool thread descheduled for a time slice holds up every barrier
 *   and one thread wins. Kernels still decide from the size of their work whether to split at
 *   all (their grain thresholds); this only bounds the threads they may split over.
 * The windows make a result depend on when they fall wherever a kernel's bits depend on its thread
 * count (OpenBLAS's and oneDNN's GEMMs and convolutions, reductions split by thread count): two
 * runs of one training script then differ in the last bits. Paddle's FLAGS_cpu_deterministic
 * (environment, or paddle.set_flags / pd_pool_set_deterministic at run time) keeps the configured
 * count for every call, so runs repeat bit for bit; the governor's gain under busy neighbours is
 * then gone.
 * PADDLE_C_THREAD_GOVERNOR=0 turns the alternation off (always the configured count); =chaos
 * (for tests only) draws 1 or the configured count at random for every top-level call, so a run
 * meets, op after op, what the governor's windows make rare: a result that depends on the thread
 * count, or state built at one count and used at another; the
 * configured count is OMP_NUM_THREADS (libgomp reads it) or paddle.set_num_threads. Bounded
 * spinning (GOMP_SPINCOUNT) is set by python/paddle/__init__.py before libgomp loads. */
#include "pd_pool.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static atomic_int g_busy;          /* 1 while some thread's top-level kernel holds the pool */
static atomic_int g_user = 0;      /* configured thread count (0: not read yet) */
static atomic_int g_gen = 1;       /* bumped when the configured count changes */
static int g_governor = -1;        /* -1: env not read yet, 0 off, 1 on, 2 chaos */
static _Thread_local int tl_depth; /* nesting of kernel calls on this thread */
static _Thread_local int tl_holder; /* this thread's top-level kernel call holds the pool */
static _Thread_local int tl_cur;   /* the count this thread's ICV is set to (0: untouched) */
static _Thread_local int tl_gen;

/* governor state: touched only by the thread holding g_busy */
static int g_mode;                  /* threads used now */
static int g_phase;                 /* -1: warm-up, 0: measuring the configured count, 1: measuring 1, 2: using the winner */
static uint64_t g_win_t, g_win_n;   /* time and calls in the current window */
static uint64_t g_last_end;         /* when the holder's last call ended (ticks; 0: none yet) */
static uint64_t g_t_reset;          /* the first governed call after a reset (0: none yet) */
static double g_avg_n, g_avg_1;
static int g_hold, g_hold_left;     /* windows to keep the winner; doubles while the winner repeats */
static int g_last_winner;
static atomic_long g_stat_guest, g_stat_windows, g_stat_one;
static uint32_t g_rng = 0x9e3779b9u; /* sampling of the calls timed, chaos draws (holder only) */
static inline uint32_t holder_rand(void) { /* xorshift32 step of g_rng */
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 17;
  g_rng ^= g_rng << 5;
  return g_rng;
}
static long g_guest_mark;          /* guest calls counted at the last window boundary (holder only) */
static atomic_int g_reset;          /* the configured count changed: the holder resets its state */

/* A child of fork has only the forking thread: a holder that was another thread is gone. And
 * libgomp keeps, per OS thread, the pool of worker threads that thread's parallel regions used;
 * in the child the forking thread's pool still lists workers that did not survive the fork, and
 * its next team of more than one thread waits for them at the dock for ever (GCC's libgomp has
 * no fork support). So in a child the forking thread runs every kernel on itself alone (its ICV
 * is 1 and pd_pool_clamp holds it there); threads the child starts get fresh pools. */
static _Thread_local int tl_forked;
static void after_fork_child(void) {
  atomic_store(&g_busy, 0);
  tl_forked = 1;
#ifdef _OPENMP
  omp_set_num_threads(1);
#endif
  tl_cur = 1;
  tl_gen = atomic_load(&g_gen);
}

int pd_pool_clamp(int n) { return tl_forked ? 1 : n; }
__attribute__((constructor)) static void pool_init(void) { pthread_atfork(NULL, NULL, after_fork_child); }

static inline uint64_t now_ticks(void) {
#if defined(__x86_64__)
  return __rdtsc();
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

#if defined(__x86_64__)
#define WINDOW_TICKS 120000000ull /* ~50 ms at 2.4 GHz TSC */
#else
#define WINDOW_TICKS 50000000ull /* 50 ms in ns */
#endif
#define WARMUP_TICKS (5 * WINDOW_TICKS) /* ~0.25 s */
#if defined(__x86_64__)
#define GAP_CAP 480000ull /* ~200 us */
#else
#define GAP_CAP 200000ull
#endif
#define HOLD_MIN 10
#define HOLD_FIRST1 2
#define HOLD_MAX 128

static int max_threads_default(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

static int user_threads(void) {
  int u = atomic_load_explicit(&g_user, memory_order_relaxed);
  if (u == 0) {
    int d = max_threads_default();
    int expect = 0;
    atomic_compare_exchange_strong(&g_user, &expect, d < 1 ? 1 : d);
    u = atomic_load(&g_user);
  }
  return u;
}

static int env_true(const char *name) {
  const char *e = getenv(name);
  return e && (strcmp(e, "1") == 0 || strcasecmp(e, "true") == 0 || strcasecmp(e, "on") == 0 ||
               strcasecmp(e, "yes") == 0);
}

static atomic_int g_deterministic = -1; /* FLAGS_cpu_deterministic; -1: env not read yet */

int pd_pool_deterministic(void) {
  int d = atomic_load_explicit(&g_deterministic, memory_order_relaxed);
  if (d < 0) {
    int expect = -1;
    atomic_compare_exchange_strong(&g_deterministic, &expect, env_true("FLAGS_cpu_deterministic"));
    d = atomic_load(&g_deterministic);
  }
  return d;
}

void pd_pool_set_deterministic(int on) {
  atomic_store(&g_deterministic, on != 0);
  atomic_store(&g_reset, 1); /* the holder starts over (from the configured count) when it is off again */
}

static int governor_on(void) {
  if (g_governor < 0) {
    const char *e = getenv("PADDLE_C_THREAD_GOVERNOR");
    g_governor = e && strcmp(e, "chaos") == 0 ? 2 : !(e && (strcmp(e, "0") == 0 || strcmp(e, "off") == 0));
  }
  return pd_pool_deterministic() ? 0 : g_governor;
}

static inline void set_icv(int n) {
  n = pd_pool_clamp(n);
  int gen = atomic_load_explicit(&g_gen, memory_order_relaxed);
  if (tl_cur == n && tl_gen == gen) return;
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
  tl_cur = n;
  tl_gen = gen;
}

static void governor_reset(int user) {
  g_mode = user;
  /* the windows ending in the first WARMUP_TICKS (~0.25 s, wall clock from the first governed call)
   * after a reset count for nothing: a model's first runs create its primitives and touch its
   * buffers (eager ResNet-50's first run took ~10 windows); measured over them, the first decision
   * was chance, and since the predictor follows the governor a wrong one held a benchmark's whole
   * batch-1 run on one thread (29.4 ms against 15.5). Wall clock, not a count of windows of kernel
   * time: a small model fills each window slowly. (0.5 s cost the contention bench's busy cells.) */
  g_phase = -1;
  g_t_reset = 0;
  g_win_t = g_win_n = 0;
  g_hold = HOLD_MIN;
  g_hold_left = 0;
  g_last_winner = 0;
}

void pd_pool_set_threads(int n) {
  if (n < 1) n = 1;
  atomic_store(&g_user, n);
  atomic_fetch_add(&g_gen, 1);
  /* the governor state belongs to the pool holder, which resets it on its next call (never wait
   * for the flag here: its holder may be a thread that a fork left behind) */
  atomic_store(&g_reset, 1);
  set_icv(n);
}

int pd_pool_threads(void) { return user_threads(); }

/* a predictor's run: its own thread count (SetCpuMathLibraryNumThreads) on this thread, in place
 * of the configured one, so its kernel calls still go through the governor (an
 * omp_set_num_threads of its own left this file's cached ICV stale: the governor's one-thread
 * windows then ran on the predictor's two threads, never won, and under a busy neighbour the two
 * threads shared one core for good) */
static _Thread_local int tl_local; /* 0: none */
static inline int eff_threads(void) { return tl_local > 0 ? tl_local : user_threads(); }

int pd_pool_local_begin(int n) {
  const int prev = tl_local;
  tl_local = n < 1 ? 1 : n;
  /* the governor's current count where it is lower (a racy read of the holder's state, a hint):
   * what runs before the first governed call (feed reorders, small ops) then does not wake the
   * other pool threads that a one-thread decision keeps asleep */
  const int m = governor_on() ? g_mode : 0;
  set_icv(m >= 1 && m < tl_local ? m : tl_local);
  return prev;
}

void pd_pool_local_end(int prev) {
  tl_local = prev;
  set_icv(eff_threads());
}

static void account(uint64_t dt, int user) {
  g_win_t += dt;
  g_win_n++;
  if (g_win_t < WINDOW_TICKS) return;
  double avg = (double)g_win_t / (double)g_win_n;
  g_win_t = g_win_n = 0;
  g_guest_mark = atomic_load_explicit(&g_stat_guest, memory_order_relaxed);
  atomic_fetch_add_explicit(&g_stat_windows, 1, memory_order_relaxed);
  if (g_phase < 0) {
    if (now_ticks() - g_t_reset >= WARMUP_TICKS) g_phase = 0;
  } else if (g_phase == 0) {
    g_avg_n = avg;
    g_phase = 1;
    g_mode = 1;
  } else if (g_phase == 1) {
    g_avg_1 = avg;
    /* one thread must win clearly: a descheduled pool thread costs far more than 20% (whole
     * time slices at every barrier), while windows of one op mix differ by a few percent and
     * a false win costs up to the configured count's speed-up for seconds */
    int winner = g_avg_1 < g_avg_n * 0.8 ? 1 : user;
    /* a first decision for one thread is held 2 windows only: it may still follow the first runs'
     * primitive creation on the configured count (eager ResNet-50 b1 idle took one thread for its
     * first ~12 runs, held 10 windows), and a right one is confirmed at once (then held 10, doubling) */
    if (winner != g_last_winner) g_hold = g_last_winner == 0 && winner == 1 ? HOLD_FIRST1 : HOLD_MIN;
    else g_hold = g_hold * 2 > HOLD_MAX ? HOLD_MAX : g_hold * 2 < HOLD_MIN ? HOLD_MIN : g_hold * 2;
    g_last_winner = winner;
    g_hold_left = g_hold;
    g_mode = winner;
    g_phase = 2;
  } else if (--g_hold_left <= 0) {
    g_phase = 0;
    g_mode = user;
  }
}

int pd_pool_hold_try(void) {
  int expect = 0;
  return atomic_compare_exchange_strong_explicit(&g_busy, &expect, 1, memory_order_acquire, memory_order_relaxed);
}

void pd_pool_hold_release(void) { atomic_store_explicit(&g_busy, 0, memory_order_release); }

pd_pool_ticket pd_pool_enter(void) {
  pd_pool_ticket t = {0, 0};
  if (tl_depth++ > 0) return t; /* nested kernel call: the outer one decided */
  int user = eff_threads();
  if (user <= 1) {
    set_icv(1);
    return t;
  }
  if (!pd_pool_hold_try()) {
    /* another thread's kernel holds the pool: run here, on this thread alone */
    atomic_fetch_add_explicit(&g_stat_guest, 1, memory_order_relaxed);
    set_icv(1);
    t.kind = 2;
    return t;
  }
  if (!governor_on()) {
    set_icv(user);
  } else {
    if (g_mode < 1 || g_mode > user || atomic_exchange_explicit(&g_reset, 0, memory_order_relaxed))
      governor_reset(user);
    /* other Python threads computing (guest calls since the last window boundary) already use
     * the cores: the holder then runs on one thread too */
    int busy_peers = atomic_load_explicit(&g_stat_guest, memory_order_relaxed) != g_guest_mark;
    int use = busy_peers ? 1 : g_mode;
    if (governor_on() == 2) { /* chaos: 1 or the configured count, at random (the holder's generator) */
      use = (holder_rand() >> 7) & 1 ? user : 1;
    }
    set_icv(use);
    if (use == 1) atomic_fetch_add_explicit(&g_stat_one, 1, memory_order_relaxed);
  }
  t.kind = 1;
  tl_holder = 1;
  if (governor_on()) {
    if (g_phase < 0 && !g_t_reset) g_t_reset = now_ticks();
    if (g_phase < 2) {
      /* the warm-up and the two measuring windows time every call: a sample would miss some of a step's few
       * long calls (an LSTM's recurrence among its small ops) and could crown one thread on
       * chance alone (seen: an LSTM step at 10 ms instead of 5.5 for whole seconds) */
      t.kind = 3;
      t.t0 = now_ticks();
      /* and the time since the holder's previous call, up to GAP_CAP: under a busy neighbour the
       * configured count's cost is also between the calls (a worker spinning after each region on
       * the core the caller needs: a small model's ops took 1.1 ms a run on two threads against
       * 0.4 on one, with per-call times close enough for two threads to win); longer gaps are idle
       * time (a server between requests) and count as GAP_CAP in both windows */
      if (g_last_end && t.t0 > g_last_end) t.t0 -= t.t0 - g_last_end < GAP_CAP ? t.t0 - g_last_end : GAP_CAP;
    } else {
      /* holding the winner: time one call in four, drawn at random (a fixed stride could alias
       * with a training step's op sequence), only to count the windows; scaled back up */
      if ((holder_rand() & 3) == 0) {
        t.kind = 4;
        t.t0 = now_ticks();
      }
    }
  }
  return t;
}

void pd_pool_leave(pd_pool_ticket t) {
  tl_depth--;
  if (t.kind == 0 || t.kind == 2) return; /* nested, or beside the holder */
  tl_holder = 0;
  if (governor_on()) { /* (kinds 3 and 4 come only from the governor) */
    const uint64_t now = now_ticks(); /* one read for the window and the next call's gap */
    if (t.kind == 3 || t.kind == 4) account((t.kind == 4 ? 4 : 1) * (now - t.t0), eff_threads());
    g_last_end = now;
  }
  pd_pool_hold_release();
}

int pd_pool_create_begin(void) {
#ifdef _OPENMP
  /* a guest call beside the holder stays on its one thread; a call too small for the pool's
   * bookkeeping (tl_depth 0: no enter) runs on whatever the governor last left in the ICV */
  if ((tl_depth > 0 && !tl_holder) || omp_in_parallel()) return 0;
  const int want = pd_pool_clamp(eff_threads()), cur = omp_get_max_threads();
  if (cur >= want) return 0;
  omp_set_num_threads(want); /* not set_icv: tl_cur stays what the governor set, restored below */
  return cur;
#else
  return 0;
#endif
}

void pd_pool_create_end(int prev) {
#ifdef _OPENMP
  if (prev > 0) omp_set_num_threads(prev);
#else
  (void)prev;
#endif
}

void pd_pool_stats(long *guest_calls, long *windows, long *single_calls, int *mode) {
  *guest_calls = atomic_load(&g_stat_guest);
  *windows = atomic_load(&g_stat_windows);
  *single_calls = atomic_load(&g_stat_one);
  *mode = g_mode;
}
