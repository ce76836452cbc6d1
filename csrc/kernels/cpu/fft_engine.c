/* The transform engine under the kernels of ops/fft.yaml (fft.c): FFTW3 (Debian's libfftw3: its codelets for SSE2/AVX/AVX2/AVX-512
 * are picked at run time from CPUID, so nothing here assumes an ISA at build time).
 *
 * Plans: FFTW's guru64 interface describes every transform (the transformed dims, the other dims
 * as the "howmany" loop, strides in elements), so one plan covers a whole batched N-d transform.
 * Plans are cached per (kind, precision, sign, dims and strides, thread count, alignment of the
 * arrays) in a hash table under one mutex, which also guards every FFTW planner call (the
 * planner is not thread-safe; executing a plan on new arrays is). A plan is first made with
 * FFTW_ESTIMATE (no timing, never touches the arrays); the third use of the same key re-plans it
 * with FFTW_MEASURE on scratch arrays from the caching allocator (64-byte aligned, so only keys
 * whose arrays are aligned are upgraded), with FFTW's planner time limit at 0.5 s (unlimited,
 * measuring 2^20 points took 23-32 s on this loaded VM). PADDLE_C_FFT_PLANNER=estimate|measure
 * forces one.
 * Replaced plans are kept on a list (another thread may be running one), never freed; the table holds at
 * most 4096 keys, beyond that a plan is made per call and destroyed after it.
 *
 * Threads: plans are single-threaded; a batched transform of >= 64K elements is cut along its
 * largest batch dim into one chunk per thread of the project's OpenMP pool (one parallel region
 * per call). FFTW's own threaded plans (fftw3_omp, also libgomp) were 4-10x slower here: they
 * open a parallel region per stage, and every barrier costs a time slice on this shared,
 * overloaded VM (256 x 1024 complex64: 9-24 ms on 2 threads vs 2.2 ms on one). A single
 * long c2c (n >= 65536 with a divisor >= 16, also inside an r2c of 2n) runs in the six-step form
 * below, whose tiles are spread over the pool; other single transforms run on one thread.
 * Even-length r2c along a contiguous axis is a half-length c2c plus a split pass (below).
 *
 * Layouts: c2c and r2c read a contiguous input (strided inputs are copied once) and write a
 * contiguous output. c2r copies its input into a scratch half-spectrum first (FFTW's c2r
 * overwrites its input; the copy also pads / truncates the last axis to n/2+1 and conjugates for
 * forward=true). Scaling, conjugation (FFTW's r2c is always the e^-i transform: the inverse of a
 * real signal is the conjugate of the forward) and the c2r gradient's doubling are one pass over
 * the output. */
#include <fftw3.h>
#include <math.h>
#include <omp.h>
#ifdef __AVX__
#include <immintrin.h>
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../../core/pd_alloc.h"
#include "../../core/pd_hash.h"
#include "../../core/pd_iter.h"
#include "../../ops/infer_meta_fft.h"
#include "fft_engine.h"

typedef struct {
  int kind, dbl, sign, nthreads, align, rank, howrank, inplace; /* inplace: in == out */
  fftw_iodim64 dims[PD_MAX_DIMS], how[PD_MAX_DIMS];
} plan_key;

typedef struct plan_entry {
  plan_key k;
  void *plan;
  int uses, measured;
  struct plan_entry *next;
} plan_entry;

#define NBUCKET 512
#define MAX_PLANS 4096
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
/* fork() must not copy the plan cache's lock (and FFTW's planner, only ever entered under it)
 * held by another thread: priority 103, as conv_dnnl.c's, so it is taken before the allocator's */
static void fft_prefork(void) { pthread_mutex_lock(&g_lock); }
static void fft_postfork(void) { pthread_mutex_unlock(&g_lock); }
__attribute__((constructor(103))) static void fft_atfork_init(void) {
  pthread_atfork(fft_prefork, fft_postfork, fft_postfork);
}
static plan_entry *g_table[NBUCKET];
static int g_count;
typedef struct retired {
  void *plan;
  struct retired *next;
} retired;
static retired *g_retired; /* plans replaced by their FFTW_MEASURE versions: kept, never run again */
static int g_policy; /* 0 auto, 1 estimate, 2 measure */
#define SIX_MIN_DEFAULT 65536
static int64_t g_r2c_min = 64; /* PADDLE_C_FFT_R2C_HALF=0: off, =N: even n >= N */
static int64_t g_six_min = SIX_MIN_DEFAULT; /* PADDLE_C_FFT_SIXSTEP=0: off, =N: from n >= N */

static void fft_init(void) {
  fftw_init_threads();
  fftwf_init_threads();
  /* FFTW_MEASURE on 2^20 points took 23-32 s here without a limit (measured under load) */
  fftw_set_timelimit(0.5);
  fftwf_set_timelimit(0.5);
  const char *p = getenv("PADDLE_C_FFT_PLANNER");
  g_policy = p && !strcmp(p, "estimate") ? 1 : p && !strcmp(p, "measure") ? 2 : 0;
  const char *q = getenv("PADDLE_C_FFT_SIXSTEP");
  if (q && *q) g_six_min = strtoll(q, NULL, 10);
  q = getenv("PADDLE_C_FFT_R2C_HALF");
  if (q && *q) g_r2c_min = strtoll(q, NULL, 10);
}

/* Makes a plan (caller holds g_lock). */
static void *plan_make(const plan_key *k, void *in, void *out, unsigned flags) {
  if (k->dbl) {
    fftw_plan_with_nthreads(k->nthreads);
    if (k->kind == K_C2C)
      return fftw_plan_guru64_dft(k->rank, k->dims, k->howrank, k->how, (fftw_complex *)in, (fftw_complex *)out,
                                  k->sign, flags);
    if (k->kind == K_R2C)
      return fftw_plan_guru64_dft_r2c(k->rank, k->dims, k->howrank, k->how, (double *)in, (fftw_complex *)out, flags);
    return fftw_plan_guru64_dft_c2r(k->rank, k->dims, k->howrank, k->how, (fftw_complex *)in, (double *)out, flags);
  }
  fftwf_plan_with_nthreads(k->nthreads);
  if (k->kind == K_C2C)
    return fftwf_plan_guru64_dft(k->rank, k->dims, k->howrank, k->how, (fftwf_complex *)in, (fftwf_complex *)out,
                                 k->sign, flags);
  if (k->kind == K_R2C)
    return fftwf_plan_guru64_dft_r2c(k->rank, k->dims, k->howrank, k->how, (float *)in, (fftwf_complex *)out, flags);
  return fftwf_plan_guru64_dft_c2r(k->rank, k->dims, k->howrank, k->how, (fftwf_complex *)in, (float *)out, flags);
}

static void plan_destroy(const plan_key *k, void *p) {
  if (k->dbl)
    fftw_destroy_plan((fftw_plan)p);
  else
    fftwf_destroy_plan((fftwf_plan)p);
}

/* Bytes spanned by the input (which = 0) or output (1) of a key. */
static size_t key_span(const plan_key *k, int which) {
  int64_t last = 0;
  for (int i = 0; i < k->rank; i++) {
    int64_t n = k->dims[i].n;
    if (i == k->rank - 1 && ((k->kind == K_R2C && which == 1) || (k->kind == K_C2R && which == 0))) n = n / 2 + 1;
    last += (n - 1) * (which ? k->dims[i].os : k->dims[i].is);
  }
  for (int i = 0; i < k->howrank; i++) last += (k->how[i].n - 1) * (which ? k->how[i].os : k->how[i].is);
  int real_side = (k->kind == K_R2C && which == 0) || (k->kind == K_C2R && which == 1);
  size_t es = (size_t)(k->dbl ? 8 : 4) * (real_side ? 1 : 2);
  return (size_t)(last + 1) * es;
}

/* Looks up / makes the plan of k for arrays in, out. *temp = 1: the caller destroys it (under
 * g_lock) after executing. */
static pd_status plan_get(plan_key *k, void *in, void *out, void **plan, int *temp) {
  pthread_once(&g_once, fft_init);
  k->align = (k->dbl ? fftw_alignment_of((double *)in) : fftwf_alignment_of((float *)in)) * 64 +
             (k->dbl ? fftw_alignment_of((double *)out) : fftwf_alignment_of((float *)out));
  uint64_t h = pd_hash_bytes(k, sizeof(*k)) % NBUCKET;
  *temp = 0;
  pthread_mutex_lock(&g_lock);
  plan_entry *e = g_table[h];
  while (e && memcmp(&e->k, k, sizeof *k)) e = e->next;
  if (e) {
    e->uses++;
    if (!e->measured && g_policy == 0 && e->uses == 3 && k->align == 0) {
      size_t ni = key_span(k, 0), no = key_span(k, 1);
      if (k->inplace && no > ni) ni = no;
      void *si = pd_alloc(ni), *so = pd_alloc(no);
      if (si && so) {
        void *p = plan_make(k, si, k->inplace ? si : so, FFTW_MEASURE);
        if (p) { /* the ESTIMATE plan stays alive (another thread may be running it), on a list */
          retired *r = (retired *)malloc(sizeof *r);
          if (r) {
            r->plan = e->plan;
            r->next = g_retired;
            g_retired = r;
          }
          e->plan = p;
        }
      }
      pd_free(si);
      pd_free(so);
      e->measured = 1;
    }
    *plan = e->plan;
    pthread_mutex_unlock(&g_lock);
    return PD_OK;
  }
  void *p = NULL;
  int measured = 0;
  if (g_policy == 2 && k->align == 0) {
    size_t ni = key_span(k, 0), no = key_span(k, 1);
    if (k->inplace && no > ni) ni = no;
    void *si = pd_alloc(ni), *so = pd_alloc(no);
    if (si && so) {
      p = plan_make(k, si, k->inplace ? si : so, FFTW_MEASURE);
      measured = 1;
    }
    pd_free(si);
    pd_free(so);
  }
  if (!p) p = plan_make(k, in, out, FFTW_ESTIMATE);
  if (!p) {
    pthread_mutex_unlock(&g_lock);
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[fft] FFTW could not plan a transform of rank %d", k->rank);
  }
  if (g_count < MAX_PLANS) {
    e = (plan_entry *)calloc(1, sizeof *e);
    if (e) {
      e->k = *k;
      e->plan = p;
      e->uses = 1;
      e->measured = measured;
      e->next = g_table[h];
      g_table[h] = e;
      g_count++;
    }
  }
  if (!e) *temp = 1;
  *plan = p;
  pthread_mutex_unlock(&g_lock);
  return PD_OK;
}

/* ---- Contention guard for short parallel regions. A region ends when its last thread does;
 * on a machine whose cores are shared with other busy processes a woken pool thread can wait
 * milliseconds for a time slice, while the whole transform takes ~0.2 ms on one thread. Each
 * region notes how late its threads arrived; a thread later than FFT_LATE_NS makes the calls of
 * the next FFT_SOLO_NS whose work is short (batched transforms of <= FFT_SHORT elements) run on
 * the calling thread alone; then the pool is tried again. Long transforms (the six-step form,
 * whose tiles are handed out dynamically) always use the pool. ---- */
#define FFT_LATE_NS 200000
#define FFT_SOLO_NS 200000000
#define FFT_SHORT (1 << 20)
static _Atomic int64_t g_solo_until;

static int64_t fft_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* threads for a short call (nt: what the pool offers) */
static int fft_short_threads(int nt) { return nt > 1 && fft_now_ns() < atomic_load(&g_solo_until) ? 1 : nt; }

/* called by each thread on entering a region started at t0 */
static void fft_arrive(int64_t t0) {
  if (fft_now_ns() - t0 > FFT_LATE_NS) atomic_store(&g_solo_until, fft_now_ns() + FFT_SOLO_NS);
}

/* ---- Large 1-D c2c transforms: the six-step (Bailey) form on our pool ----
 * n = n1 * n2 (n1 <= n2, n1 the divisor of n nearest sqrt n), x viewed as A[n1][n2]:
 * pass 1, per tile of SIX_W columns: gather the columns into a padded tile (rows of n1),
 * n1-point FFTs in the tile, multiply entry (k1, col) by W_n^(col k1) (and the norm's scale),
 * scatter the tile into the padded scratch S[k1][col]; pass 2, per block of SIX_W rows of S:
 * n2-point FFTs in place, write row k1's entry k2 to out[k2 n1 + k1]. Every FFT runs on
 * contiguous data in L2 (FFTW's own plans for one 2^20-point transform stream the whole array
 * with large strides: 18-22 ms on one thread here, against ~5 ms for this form); the padding
 * (SIX_PAD complex elements per row) keeps the rows of a tile out of one cache set. Twiddles:
 * W^j = hi[j >> shift] * lo[j & mask] (double tables of ~sqrt n entries, cached with the plan);
 * per column, W^(col k1) for k1 = 16 h + l is U[h] V[l] with U, V from the tables. Both
 * passes are one parallel region (one barrier between them), tiles handed out dynamically so
 * a thread that loses its core to a neighbour process does not hold the other back. */
#define SIX_W 16
#define SIX_PAD 8

typedef struct six_plan {
  int64_t n, n1, n2;
  int dbl, sign, shift;
  double *lo, *hi;
  struct six_plan *next;
} six_plan;

static six_plan *g_six; /* under g_lock; never freed (a few sqrt(n) tables) */

static int six_split(int64_t n, int64_t *n1, int64_t *n2) {
  int64_t best = 1;
  for (int64_t d = 2; d * d <= n; d++)
    if (n % d == 0) best = d;
  if (best < 16) return 0;
  *n1 = best;
  *n2 = n / best;
  return 1;
}

static six_plan *six_get(int64_t n, int dbl, int sign) {
  int64_t n1, n2;
  if (!six_split(n, &n1, &n2)) return NULL;
  pthread_mutex_lock(&g_lock);
  six_plan *s = g_six;
  while (s && !(s->n == n && s->dbl == dbl && s->sign == sign)) s = s->next;
  if (!s && (s = (six_plan *)calloc(1, sizeof *s)) != NULL) {
    int shift = 0;
    while (((int64_t)1 << (2 * shift)) < n) shift++;
    int64_t B = (int64_t)1 << shift, nh = ((n - 1) >> shift) + 1;
    s->lo = (double *)malloc(sizeof(double) * 2 * (size_t)B);
    s->hi = (double *)malloc(sizeof(double) * 2 * (size_t)nh);
    if (!s->lo || !s->hi) {
      free(s->lo);
      free(s->hi);
      free(s);
      s = NULL;
    } else {
      const double tp = 6.283185307179586476925286766559;
      for (int64_t j = 0; j < B; j++) {
        double a = tp * (double)j / (double)n;
        s->lo[2 * j] = cos(a);
        s->lo[2 * j + 1] = sign * sin(a);
      }
      for (int64_t m = 0; m < nh; m++) {
        double a = tp * (double)(m * B) / (double)n;
        s->hi[2 * m] = cos(a);
        s->hi[2 * m + 1] = sign * sin(a);
      }
      s->n = n;
      s->n1 = n1;
      s->n2 = n2;
      s->dbl = dbl;
      s->sign = sign;
      s->shift = shift;
      s->next = g_six;
      g_six = s;
    }
  }
  pthread_mutex_unlock(&g_lock);
  return s;
}

static inline void six_tw(const six_plan *s, int64_t j, double *re, double *im) {
  const double *a = s->hi + 2 * (j >> s->shift), *b = s->lo + 2 * (j & (((int64_t)1 << s->shift) - 1));
  *re = a[0] * b[0] - a[1] * b[1];
  *im = a[0] * b[1] + a[1] * b[0];
}

/* Transposed copy of complex elements (es = 8 or 16 bytes): dst[j ds + i] = src[i ss + j] for
 * i < m, j < k (strides in elements), in 4 x 4 blocks (AVX: 64-bit lanes / 128-bit halves).
 * src_outer: walk the source rows in the outer loop (they are the strided, cold side: the
 * next rows are prefetched), else the destination rows (prefetched for writing). */
#define SIX_PF 24
static inline void six_blk(int es, const char *s, int64_t ss, char *d, int64_t ds) {
#ifdef __AVX__
  if (es == 8) {
    const double *a = (const double *)s;
    double *b = (double *)d;
    __m256d r0 = _mm256_loadu_pd(a), r1 = _mm256_loadu_pd(a + ss), r2 = _mm256_loadu_pd(a + 2 * ss),
            r3 = _mm256_loadu_pd(a + 3 * ss);
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1), t2 = _mm256_unpacklo_pd(r2, r3),
            t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(b, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(b + ds, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(b + 2 * ds, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(b + 3 * ds, _mm256_permute2f128_pd(t1, t3, 0x31));
    return;
  }
  const double *a = (const double *)s;
  double *b = (double *)d;
  for (int i = 0; i < 4; i += 2)
    for (int j = 0; j < 4; j += 2) {
      __m256d r0 = _mm256_loadu_pd(a + 2 * (i * ss + j)), r1 = _mm256_loadu_pd(a + 2 * ((i + 1) * ss + j));
      _mm256_storeu_pd(b + 2 * (j * ds + i), _mm256_permute2f128_pd(r0, r1, 0x20));
      _mm256_storeu_pd(b + 2 * ((j + 1) * ds + i), _mm256_permute2f128_pd(r0, r1, 0x31));
    }
#else
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) memcpy(d + (size_t)(j * ds + i) * es, s + (size_t)(i * ss + j) * es, (size_t)es);
#endif
}

static void six_tr(int es, const void *src, int64_t ss, void *dst, int64_t ds, int64_t m, int64_t k, int src_outer) {
  const char *s = (const char *)src;
  char *d = (char *)dst;
  const int64_t m4 = m & ~(int64_t)3, k4 = k & ~(int64_t)3;
  if (src_outer) {
    for (int64_t i = 0; i < m4; i += 4) {
      if (i + SIX_PF + 4 <= m)
        for (int r = 0; r < 4; r++)
          for (int64_t b = 0; b < k * es; b += 64) __builtin_prefetch(s + (size_t)((i + SIX_PF + r) * ss) * es + b, 0, 3);
      for (int64_t j = 0; j < k4; j += 4) six_blk(es, s + (size_t)(i * ss + j) * es, ss, d + (size_t)(j * ds + i) * es, ds);
    }
  } else {
    for (int64_t j = 0; j < k4; j += 4) {
      if (j + SIX_PF + 4 <= k)
        for (int r = 0; r < 4; r++)
          for (int64_t b = 0; b < m * es; b += 64) __builtin_prefetch(d + (size_t)((j + SIX_PF + r) * ds) * es + b, 1, 3);
      for (int64_t i = 0; i < m4; i += 4) six_blk(es, s + (size_t)(i * ss + j) * es, ss, d + (size_t)(j * ds + i) * es, ds);
    }
  }
  /* the edges (m or k not a multiple of 4) */
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = i < m4 ? k4 : 0; j < k; j++)
      memcpy(d + (size_t)(j * ds + i) * es, s + (size_t)(i * ss + j) * es, (size_t)es);
}

#define DEF_SIX(SUF, R, EXEC, CPLX)                                                                        \
  /* pass 1 on columns c0 .. c0+w of x into S (row stride ld), tile T (row stride tld) */                 \
  static void six_pass1_##SUF(const six_plan *s, const R *x, R *S, int64_t ld, R *T, int64_t tld, int64_t c0, \
                              int w, void *plan, double scale) {                                          \
    const int64_t n1 = s->n1, n2 = s->n2;                                                                 \
    six_tr((int)(2 * sizeof(R)), x + 2 * c0, n2, T, tld, n1, w, 1);                                       \
    EXEC(plan, (CPLX *)T, (CPLX *)T);                                                                     \
    for (int c = 0; c < w; c++) {                                                                         \
      const int64_t col = c0 + c;                                                                         \
      R vr[16], vi[16];                                                                                   \
      for (int l = 0; l < 16; l++) {                                                                      \
        double a, b;                                                                                      \
        six_tw(s, col * l, &a, &b);                                                                       \
        vr[l] = (R)a;                                                                                     \
        vi[l] = (R)b;                                                                                     \
      }                                                                                                   \
      R *t = T + 2 * c * tld;                                                                             \
      for (int64_t h = 0; h * 16 < n1; h++) {                                                             \
        double a, b;                                                                                      \
        six_tw(s, col * 16 * h, &a, &b);                                                                  \
        const R ur = (R)(a * scale), ui = (R)(b * scale);                                                 \
        const int L = n1 - h * 16 < 16 ? (int)(n1 - h * 16) : 16;                                         \
        R *p = t + 32 * h;                                                                                \
        for (int l = 0; l < L; l++) {                                                                     \
          const R wr = ur * vr[l] - ui * vi[l], wi = ur * vi[l] + ui * vr[l];                             \
          const R pr = p[2 * l], pi = p[2 * l + 1];                                                       \
          p[2 * l] = pr * wr - pi * wi;                                                                   \
          p[2 * l + 1] = pr * wi + pi * wr;                                                               \
        }                                                                                                 \
      }                                                                                                   \
    }                                                                                                     \
    six_tr((int)(2 * sizeof(R)), T, tld, S + 2 * c0, ld, w, n1, 0);                                        \
  }                                                                                                       \
  /* pass 2 on rows r0 .. r0+w of S: FFT in place, transpose into out */                                 \
  static void six_pass2_##SUF(const six_plan *s, R *S, int64_t ld, R *out, int64_t r0, int w, void *plan) { \
    const int64_t n1 = s->n1, n2 = s->n2;                                                                 \
    R *rows = S + 2 * r0 * ld;                                                                            \
    EXEC(plan, (CPLX *)rows, (CPLX *)rows);                                                               \
    six_tr((int)(2 * sizeof(R)), rows, ld, out + 2 * r0, n1, w, n2, 0);                                    \
  }
static void six_exec_f(void *p, fftwf_complex *a, fftwf_complex *b) { fftwf_execute_dft((fftwf_plan)p, a, b); }
static void six_exec_d(void *p, fftw_complex *a, fftw_complex *b) { fftw_execute_dft((fftw_plan)p, a, b); }
DEF_SIX(f, float, six_exec_f, fftwf_complex)
DEF_SIX(d, double, six_exec_d, fftw_complex)

/* Plan of w in-place transforms of length len, rows ld apart (array at p, 64-byte aligned). */
/* The key of `howmany` single-threaded 1-D c2c transforms of len contiguous points, rows is / os
 * elements apart (the six-step passes and the half-length r2c share it). */
static plan_key c2c_rows_key(int dbl, int sign, int64_t len, int64_t howmany, int64_t is, int64_t os) {
  plan_key k;
  memset(&k, 0, sizeof k);
  k.kind = K_C2C;
  k.dbl = dbl;
  k.sign = sign;
  k.nthreads = 1;
  k.rank = 1;
  k.dims[0].n = len;
  k.dims[0].is = k.dims[0].os = 1;
  k.howrank = 1;
  k.how[0].n = howmany;
  k.how[0].is = is;
  k.how[0].os = os;
  return k;
}

static pd_status six_subplan(int dbl, int sign, int64_t len, int64_t w, int64_t ld, void *p, void **plan, int *temp) {
  plan_key k = c2c_rows_key(dbl, sign, len, w, ld, ld);
  k.inplace = 1;
  return plan_get(&k, p, p, plan, temp);
}

/* Runs nb transforms of n points (contiguous, n apart) in the six-step form if n qualifies;
 * *done = 0 leaves it to pd_fft_exec. scale is applied (fused with the twiddles). */
static pd_status six_run(int dbl, int sign, int64_t n, int64_t nb, void *in, void *out, double scale, int *done) {
  *done = 0;
  pthread_once(&g_once, fft_init);
  if (g_six_min <= 0 || n < g_six_min) return PD_OK;
  six_plan *s = six_get(n, dbl, sign);
  if (!s) return PD_OK;
  const int64_t n1 = s->n1, n2 = s->n2, ld = n2 + SIX_PAD, tld = n1 + SIX_PAD;
  const size_t es = (size_t)(dbl ? 16 : 8);
  int nt = pd_num_threads();
  const int64_t ntile1 = (n2 + SIX_W - 1) / SIX_W, ntile2 = (n1 + SIX_W - 1) / SIX_W;
  if (nt > ntile1) nt = (int)ntile1;
  if (nt < 1) nt = 1;
  const size_t tsz = ((size_t)SIX_W * (size_t)tld * es + 63) / 64 * 64;
  char *tb = (char *)pd_alloc(tsz * (size_t)nt);
  char *S = (char *)pd_alloc((size_t)n1 * (size_t)ld * es);
  void *pl[4] = {NULL, NULL, NULL, NULL};
  int tmp[4] = {0, 0, 0, 0};
  pd_status st = tb && S ? PD_OK : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[fft] out of memory (six-step scratch)");
  const int w1r = (int)(n2 % SIX_W), w2r = (int)(n1 % SIX_W);
  if (st == PD_OK) st = six_subplan(dbl, sign, n1, SIX_W, tld, tb, &pl[0], &tmp[0]);
  if (st == PD_OK && w1r) st = six_subplan(dbl, sign, n1, w1r, tld, tb, &pl[1], &tmp[1]);
  if (st == PD_OK) st = six_subplan(dbl, sign, n2, SIX_W, ld, S, &pl[2], &tmp[2]);
  if (st == PD_OK && w2r) st = six_subplan(dbl, sign, n2, w2r, ld, S, &pl[3], &tmp[3]);
  if (st == PD_OK) {
    for (int64_t b = 0; b < nb; b++) {
      char *xi = (char *)in + (size_t)(b * n) * es, *xo = (char *)out + (size_t)(b * n) * es;
#pragma omp parallel num_threads(nt) if (nt > 1)
      {
        char *T = tb + tsz * (size_t)omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < ntile1; t++) {
          int w = t == ntile1 - 1 && w1r ? w1r : SIX_W;
          void *p = w == SIX_W ? pl[0] : pl[1];
          if (dbl)
            six_pass1_d(s, (const double *)xi, (double *)S, ld, (double *)T, tld, t * SIX_W, w, p, scale);
          else
            six_pass1_f(s, (const float *)xi, (float *)S, ld, (float *)T, tld, t * SIX_W, w, p, scale);
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < ntile2; t++) {
          int w = t == ntile2 - 1 && w2r ? w2r : SIX_W;
          void *p = w == SIX_W ? pl[2] : pl[3];
          if (dbl)
            six_pass2_d(s, (double *)S, ld, (double *)xo, t * SIX_W, w, p);
          else
            six_pass2_f(s, (float *)S, ld, (float *)xo, t * SIX_W, w, p);
        }
      }
    }
    *done = 1;
  }
  pthread_mutex_lock(&g_lock);
  for (int i = 0; i < 4; i++)
    if (tmp[i] && pl[i]) plan_destroy(&(plan_key){.dbl = dbl}, pl[i]);
  pthread_mutex_unlock(&g_lock);
  pd_free(tb);
  pd_free(S);
  return st;
}

/* ---- Real-to-complex transforms of even length n = 2M as one complex transform of M points:
 * z[m] = x[2m] + i x[2m+1] (the real row read as complex, no copy), Z = FFT_M(z) written into
 * the first M slots of the output row, then in place, for each pair k, M-k:
 * E = (Z[k] + conj Z[M-k]) / 2, O = -i (Z[k] - conj Z[M-k]) / 2, X[k] = E + W_n^k O and
 * X[M-k] = conj(E - W_n^k O); X[0] = Re Z0 + Im Z0, X[M] = Re Z0 - Im Z0. FFTW's own r2c
 * plans for n = 1024 run its SSE2 hc2c codelets (256 x 1024: ~295 us on one thread here) while
 * its AVX c2c of 512 points takes ~111 us, and the pass below is vectorised (AVX2 + FMA). ---- */
typedef struct r2c_tw {
  int64_t m;
  int dbl;
  void *w; /* W_{2m}^k, k = 0 .. m/2, complex in the working precision */
  struct r2c_tw *next;
} r2c_tw;
static r2c_tw *g_r2c; /* under g_lock; never freed */

static const void *r2c_twiddles(int64_t m, int dbl) {
  pthread_mutex_lock(&g_lock);
  r2c_tw *t = g_r2c;
  while (t && !(t->m == m && t->dbl == dbl)) t = t->next;
  if (!t && (t = (r2c_tw *)calloc(1, sizeof *t)) != NULL) {
    int64_t h = m / 2 + 1;
    t->w = malloc((size_t)h * (dbl ? 16 : 8));
    if (!t->w) {
      free(t);
      t = NULL;
    } else {
      const double tp = 6.283185307179586476925286766559;
      for (int64_t k = 0; k < h; k++) {
        double a = tp * (double)k / (double)(2 * m), c = cos(a), s = -sin(a);
        if (dbl) {
          ((double *)t->w)[2 * k] = c;
          ((double *)t->w)[2 * k + 1] = s;
        } else {
          ((float *)t->w)[2 * k] = (float)c;
          ((float *)t->w)[2 * k + 1] = (float)s;
        }
      }
      t->m = m;
      t->dbl = dbl;
      t->next = g_r2c;
      g_r2c = t;
    }
  }
  pthread_mutex_unlock(&g_lock);
  return t ? t->w : NULL;
}

/* pairs k in [lo, hi) (1 <= lo, hi <= (m + 1) / 2) of one row; edge = 1 also does k = 0 and,
 * for even m, k = m / 2 */
#define DEF_R2C_POST(SUF, R)                                                                               \
  static inline void r2c_pair_##SUF(const R *z, R *o, int64_t m, const R *w, int64_t k) {                 \
    R ar = z[2 * k], ai = z[2 * k + 1], br = z[2 * (m - k)], bi = -z[2 * (m - k) + 1];                      \
    R er = (ar + br) / 2, ei = (ai + bi) / 2, dr = (ar - br) / 2, di = (ai - bi) / 2;                      \
    R orr = di, oi = -dr, wr = w[2 * k], wi = w[2 * k + 1];                                                \
    R tr = wr * orr - wi * oi, ti = wr * oi + wi * orr;                                                    \
    o[2 * k] = er + tr;                                                                                    \
    o[2 * k + 1] = ei + ti;                                                                                \
    o[2 * (m - k)] = er - tr;                                                                              \
    o[2 * (m - k) + 1] = -(ei - ti);                                                                       \
  }                                                                                                        \
  static void r2c_post_##SUF(const R *z, R *o, int64_t m, const R *w, int64_t lo, int64_t hi, int edge) { \
    if (edge) {                                                                                            \
      R zr = z[0], zi = z[1];                                                                              \
      o[0] = zr + zi;                                                                                      \
      o[1] = 0;                                                                                            \
      o[2 * m] = zr - zi;                                                                                  \
      o[2 * m + 1] = 0;                                                                                    \
      if (m % 2 == 0) {                                                                                    \
        o[m] = z[m];                                                                                       \
        o[m + 1] = -z[m + 1];                                                                              \
      }                                                                                                    \
    }                                                                                                      \
    int64_t k = lo;                                                                                        \
    R2C_VEC_##SUF                                                                                          \
    for (; k < hi; k++) r2c_pair_##SUF(z, o, m, w, k);                                                     \
  }
#if defined(__AVX2__) && defined(__FMA__)
/* 4 pairs per step: a = Z[k..k+3], b = Z[m-k-3..m-k] reversed (lanes: complex64) */
#define R2C_VEC_f                                                                                          \
  {                                                                                                        \
    const __m256 half = _mm256_set1_ps(0.5f), cj = _mm256_setr_ps(0, -0.f, 0, -0.f, 0, -0.f, 0, -0.f);     \
    for (; k + 4 <= hi && k + 3 < m - k - 3; k += 4) {                                                     \
      __m256 a = _mm256_loadu_ps(z + 2 * k);                                                               \
      __m256 b = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_loadu_ps(z + 2 * (m - k - 3))), 0x1B)); \
      b = _mm256_xor_ps(b, cj);                                                                            \
      __m256 e = _mm256_mul_ps(_mm256_add_ps(a, b), half), d = _mm256_mul_ps(_mm256_sub_ps(a, b), half);   \
      __m256 od = _mm256_xor_ps(_mm256_permute_ps(d, 0xB1), cj); /* -i d */                                 \
      __m256 wv = _mm256_loadu_ps(w + 2 * k);                                                              \
      __m256 t = _mm256_fmaddsub_ps(od, _mm256_moveldup_ps(wv), _mm256_mul_ps(_mm256_permute_ps(od, 0xB1), _mm256_movehdup_ps(wv))); \
      _mm256_storeu_ps(o + 2 * k, _mm256_add_ps(e, t));                                                    \
      __m256 y = _mm256_xor_ps(_mm256_sub_ps(e, t), cj);                                                   \
      _mm256_storeu_ps(o + 2 * (m - k - 3), _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(y), 0x1B))); \
    }                                                                                                      \
  }
/* 2 pairs per step (lanes: complex128) */
#define R2C_VEC_d                                                                                          \
  {                                                                                                        \
    const __m256d half = _mm256_set1_pd(0.5), cj = _mm256_setr_pd(0, -0., 0, -0.);                         \
    for (; k + 2 <= hi && k + 1 < m - k - 1; k += 2) {                                                     \
      __m256d a = _mm256_loadu_pd(z + 2 * k), b = _mm256_loadu_pd(z + 2 * (m - k - 1));                    \
      b = _mm256_xor_pd(_mm256_permute2f128_pd(b, b, 0x01), cj);                                           \
      __m256d e = _mm256_mul_pd(_mm256_add_pd(a, b), half), d = _mm256_mul_pd(_mm256_sub_pd(a, b), half);  \
      __m256d od = _mm256_xor_pd(_mm256_permute_pd(d, 0x5), cj);                                           \
      __m256d wv = _mm256_loadu_pd(w + 2 * k);                                                             \
      __m256d t = _mm256_fmaddsub_pd(od, _mm256_movedup_pd(wv), _mm256_mul_pd(_mm256_permute_pd(od, 0x5), _mm256_permute_pd(wv, 0xF))); \
      _mm256_storeu_pd(o + 2 * k, _mm256_add_pd(e, t));                                                    \
      __m256d y = _mm256_xor_pd(_mm256_sub_pd(e, t), cj);                                                  \
      _mm256_storeu_pd(o + 2 * (m - k - 1), _mm256_permute2f128_pd(y, y, 0x01));                           \
    }                                                                                                      \
  }
#else
#define R2C_VEC_f
#define R2C_VEC_d
#endif
DEF_R2C_POST(f, float)
DEF_R2C_POST(d, double)

static pd_status r2c_half(int dbl, int ndim, const int64_t *n, const int64_t *istr, const int64_t *ostr, int L,
                          void *in, void *out);

/* Builds the key of a transform over axes ax[0..nax) (the last one is the halved axis of r2c /
 * c2r) of an ndim tensor with logical sizes n[] (real lengths on transform axes) and element
 * strides istr / ostr (complex elements for complex sides), then runs it. */
pd_status pd_fft_exec(int kind, int dbl, int sign, int ndim, const int64_t *n, const int64_t *istr,
                      const int64_t *ostr, const int *ax, int nax, void *in, void *out, double *scale) {
  plan_key k;
  memset(&k, 0, sizeof k);
  k.kind = kind;
  k.dbl = dbl;
  k.sign = kind == K_C2C ? sign : 0;
  int64_t total = 1;
  for (int d = 0; d < ndim; d++) total *= n[d];
  if (total == 0) return PD_OK;
  k.nthreads = 1;
  int is_ax[PD_MAX_DIMS] = {0};
  for (int i = 0; i < nax; i++) {
    is_ax[ax[i]] = 1;
    k.dims[i].n = n[ax[i]];
    k.dims[i].is = istr[ax[i]];
    k.dims[i].os = ostr[ax[i]];
  }
  k.rank = nax;
  for (int d = 0; d < ndim; d++)
    if (!is_ax[d] && n[d] != 1) {
      k.how[k.howrank].n = n[d];
      k.how[k.howrank].is = istr[d];
      k.how[k.howrank].os = ostr[d];
      k.howrank++;
    }
  /* one long contiguous 1-d c2c transform (or a batch of them, n apart): the six-step form */
  if (kind == K_C2C && nax == 1 && k.dims[0].is == 1 && k.dims[0].os == 1 &&
      (k.howrank == 0 || (k.howrank == 1 && k.how[0].is == k.dims[0].n && k.how[0].os == k.dims[0].n))) {
    int done;
    PD_TRY(six_run(dbl, sign, k.dims[0].n, k.howrank ? k.how[0].n : 1, in, out, scale ? *scale : 1.0, &done));
    if (done) {
      if (scale) *scale = 1.0;
      return PD_OK;
    }
  }
  /* even-length r2c along a contiguous axis: one complex transform of half the length */
  if (kind == K_R2C && nax == 1 && k.dims[0].is == 1 && k.dims[0].os == 1 && k.dims[0].n % 2 == 0 &&
      k.dims[0].n >= g_r2c_min && g_r2c_min > 0 && (uintptr_t)in % (dbl ? 16 : 8) == 0) {
    int ok = 1;
    for (int i = 0; i < k.howrank; i++)
      if (k.how[i].is % 2) ok = 0;
    if (ok) return r2c_half(dbl, ndim, n, istr, ostr, ax[0], in, out);
  }
  /* Batch parallelism on the project's pool: the largest batch dim is cut into one chunk per
   * thread (chunk lengths a multiple of what keeps every chunk's arrays as aligned as the first),
   * each chunk runs a single-threaded plan; one parallel region, no FFTW threads. */
  int nt = pd_num_threads(), hd = -1;
  if (total <= FFT_SHORT) nt = fft_short_threads(nt);
  for (int i = 0; i < k.howrank; i++)
    if (hd < 0 || k.how[i].n > k.how[hd].n) hd = i;
  size_t ies = (size_t)(dbl ? 8 : 4) * (kind == K_R2C ? 1 : 2), oes = (size_t)(dbl ? 8 : 4) * (kind == K_C2R ? 1 : 2);
  int64_t nb = hd >= 0 ? k.how[hd].n : 1, q = nb, nchunk = 1;
  if (hd >= 0 && nt > 1 && total >= 65536 && nb >= 2) {
    int64_t m = 1; /* rows per chunk: a multiple of m keeps 64-byte alignment of both arrays */
    while (m < 64 && (((size_t)(m * k.how[hd].is) * ies) % 64 || ((size_t)(m * k.how[hd].os) * oes) % 64)) m *= 2;
    q = (nb + nt - 1) / nt;
    q = (q + m - 1) / m * m;
    if (q >= nb) q = nb;
    nchunk = (nb + q - 1) / q;
  }
  int64_t last = nb - (nchunk - 1) * q;
  void *p[2] = {NULL, NULL};
  int temp[2] = {0, 0};
  plan_key k2 = k;
  if (hd >= 0) k.how[hd].n = q;
  PD_TRY(plan_get(&k, in, out, &p[0], &temp[0]));
  if (last != q) {
    k2.how[hd].n = last;
    char *li = (char *)in + (size_t)((nchunk - 1) * q * k.how[hd].is) * ies;
    char *lo = (char *)out + (size_t)((nchunk - 1) * q * k.how[hd].os) * oes;
    PD_TRY(plan_get(&k2, li, lo, &p[1], &temp[1]));
  } else {
    p[1] = p[0];
  }
  int64_t is_hd = hd >= 0 ? k.how[hd].is : 0, os_hd = hd >= 0 ? k.how[hd].os : 0;
  /* the norm's scale of a c2c whose output is dense with the chunked dim outermost: applied to
   * each chunk right after its transform (still in cache), not in a pass of its own */
  int64_t fuse = 0; /* complex elements per chunk row (0: not fused) */
  if (kind == K_C2C && scale && *scale != 1.0) {
    int64_t ototal = 1, omax = 1;
    for (int i = 0; i < k.rank; i++) {
      ototal *= k.dims[i].n;
      if (k.dims[i].os * k.dims[i].n > omax) omax = k.dims[i].os * k.dims[i].n;
    }
    for (int i = 0; i < k.howrank; i++) {
      ototal *= k.how[i].n;
      if (k.how[i].os * k.how[i].n > omax) omax = k.how[i].os * k.how[i].n;
    }
    if (omax == ototal) fuse = hd >= 0 && os_hd * nb == ototal ? os_hd : hd < 0 ? ototal : 0;
  }
  const double fsc = fuse ? *scale : 1.0;
  if (fuse) *scale = 1.0;
  const int64_t t0 = nchunk > 1 ? fft_now_ns() : 0;
#pragma omp parallel if (nchunk > 1)
  {
    if (nchunk > 1) fft_arrive(t0);
#pragma omp for schedule(static)
  for (int64_t c = 0; c < nchunk; c++) {
    void *pc = c == nchunk - 1 ? p[1] : p[0];
    char *ci = (char *)in + (size_t)(c * q * is_hd) * ies;
    char *co = (char *)out + (size_t)(c * q * os_hd) * oes;
    if (dbl) {
      if (kind == K_C2C)
        fftw_execute_dft((fftw_plan)pc, (fftw_complex *)ci, (fftw_complex *)co);
      else if (kind == K_R2C)
        fftw_execute_dft_r2c((fftw_plan)pc, (double *)ci, (fftw_complex *)co);
      else
        fftw_execute_dft_c2r((fftw_plan)pc, (fftw_complex *)ci, (double *)co);
    } else {
      if (kind == K_C2C)
        fftwf_execute_dft((fftwf_plan)pc, (fftwf_complex *)ci, (fftwf_complex *)co);
      else if (kind == K_R2C)
        fftwf_execute_dft_r2c((fftwf_plan)pc, (float *)ci, (fftwf_complex *)co);
      else
        fftwf_execute_dft_c2r((fftwf_plan)pc, (fftwf_complex *)ci, (float *)co);
    }
    if (fuse) {
      const int64_t rows = hd < 0 ? 1 : c == nchunk - 1 ? nb - c * q : q, len = 2 * rows * fuse;
      if (dbl) {
        double *d = (double *)co;
        for (int64_t i = 0; i < len; i++) d[i] *= fsc;
      } else {
        float *d = (float *)co;
        const float f = (float)fsc;
        for (int64_t i = 0; i < len; i++) d[i] *= f;
      }
    }
  }
  }
  if (temp[0] || temp[1]) {
    pthread_mutex_lock(&g_lock);
    if (temp[0]) plan_destroy(&k, p[0]);
    if (temp[1] && p[1] != p[0]) plan_destroy(&k2, p[1]);
    pthread_mutex_unlock(&g_lock);
  }
  return PD_OK;
}

/* r2c_half of nr rows (complex input rows is apart, output rows os apart): chunks of q rows,
 * each thread runs the c2c of its chunk into its own aligned scratch tile (rows m apart: an
 * output row stride of m + 1 would make FFTW fall back to unaligned codelets, 195 against 115
 * us for 256 x 512) and the split pass from the tile into the output rows. */
static pd_status r2c_half_rows(int dbl, int64_t m, int64_t nr, int64_t is, int64_t os, const void *w, void *in,
                               void *out) {
  const size_t es = (size_t)(dbl ? 16 : 8);
  int64_t q = (int64_t)(65536 / ((size_t)m * es));
  if (q < 1) q = 1;
  int64_t a = 1; /* rows per chunk: a multiple of a keeps every chunk's input aligned like the first */
  while (a < 64 && ((size_t)(a * is) * es) % 64) a *= 2;
  q = (q + a - 1) / a * a;
  if (q > nr) q = nr;
  const int64_t nchunk = (nr + q - 1) / q, last = nr - (nchunk - 1) * q;
  int nt = pd_num_threads();
  if (2 * m * nr <= FFT_SHORT) nt = fft_short_threads(nt);
  if (nt > nchunk) nt = (int)nchunk;
  if (nt < 1) nt = 1;
  const size_t tsz = ((size_t)q * (size_t)m * es + 63) / 64 * 64;
  char *tb = (char *)pd_alloc(tsz * (size_t)nt);
  if (!tb) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[fft] out of memory (r2c scratch)");
  void *pl[2] = {NULL, NULL};
  int tmp[2] = {0, 0};
  plan_key k = c2c_rows_key(dbl, FFTW_FORWARD, m, q, is, m);
  pd_status st = plan_get(&k, in, tb, &pl[0], &tmp[0]);
  plan_key k2 = k;
  k2.how[0].n = last;
  if (st == PD_OK && last != q) st = plan_get(&k2, (char *)in + (size_t)((nchunk - 1) * q * is) * es, tb, &pl[1], &tmp[1]);
  if (st == PD_OK) {
    const int64_t hi = (m + 1) / 2, t0 = fft_now_ns();
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
      if (nt > 1) fft_arrive(t0);
      char *T = tb + tsz * (size_t)omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
      for (int64_t c = 0; c < nchunk; c++) {
        const int64_t r0 = c * q, nrow = c == nchunk - 1 ? last : q;
        void *p = nrow == q ? pl[0] : pl[1];
        char *src = (char *)in + (size_t)(r0 * is) * es;
        if (dbl)
          fftw_execute_dft((fftw_plan)p, (fftw_complex *)src, (fftw_complex *)T);
        else
          fftwf_execute_dft((fftwf_plan)p, (fftwf_complex *)src, (fftwf_complex *)T);
        for (int64_t r = 0; r < nrow; r++) {
          if (dbl)
            r2c_post_d((const double *)T + 2 * r * m, (double *)out + 2 * (r0 + r) * os, m, (const double *)w, 1, hi, 1);
          else
            r2c_post_f((const float *)T + 2 * r * m, (float *)out + 2 * (r0 + r) * os, m, (const float *)w, 1, hi, 1);
        }
      }
    }
  }
  if (tmp[0] || tmp[1]) {
    pthread_mutex_lock(&g_lock);
    if (tmp[0]) plan_destroy(&k, pl[0]);
    if (tmp[1]) plan_destroy(&k2, pl[1]);
    pthread_mutex_unlock(&g_lock);
  }
  pd_free(tb);
  return st;
}

static pd_status r2c_half(int dbl, int ndim, const int64_t *n, const int64_t *istr, const int64_t *ostr, int L,
                          void *in, void *out) {
  const int64_t m = n[L] / 2;
  int64_t n2[PD_MAX_DIMS], is2[PD_MAX_DIMS];
  for (int d = 0; d < ndim; d++) {
    n2[d] = n[d];
    is2[d] = istr[d] / 2;
  }
  n2[L] = m;
  is2[L] = 1;
  const void *w = r2c_twiddles(m, dbl);
  if (!w) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[fft] out of memory (r2c twiddles)");
  int nb = 0, bd = -1;
  for (int d = 0; d < ndim; d++)
    if (d != L && n[d] != 1) {
      nb++;
      bd = d;
    }
  if (nb == 1 && m <= 65536) return r2c_half_rows(dbl, m, n[bd], is2[bd], ostr[bd], w, in, out);
  int ax1[1] = {L};
  PD_TRY(pd_fft_exec(K_C2C, dbl, FFTW_FORWARD, ndim, n2, is2, ostr, ax1, 1, in, out, NULL));
  int hd[PD_MAX_DIMS], nh = 0;
  int64_t rows = 1;
  for (int d = 0; d < ndim; d++)
    if (d != L && n[d] != 1) {
      hd[nh++] = d;
      rows *= n[d];
    }
  const int nt = pd_num_threads();
  const int64_t hi = (m + 1) / 2, nch = rows == 1 && m >= 16384 ? 4 * (int64_t)nt : 1, per = (hi - 1 + nch - 1) / nch;
  const int64_t items = rows * nch;
#pragma omp parallel for if (items > 1 && rows * m >= 32768) schedule(static)
  for (int64_t it = 0; it < items; it++) {
    int64_t r = it / nch, c = it % nch, off = 0;
    for (int i = nh - 1; i >= 0; i--) {
      off += (r % n[hd[i]]) * ostr[hd[i]];
      r /= n[hd[i]];
    }
    int64_t lo = 1 + c * per, h2 = lo + per < hi ? lo + per : hi;
    if (dbl)
      r2c_post_d((double *)out + 2 * off, (double *)out + 2 * off, m, (const double *)w, lo, h2, c == 0);
    else
      r2c_post_f((float *)out + 2 * off, (float *)out + 2 * off, m, (const float *)w, lo, h2, c == 0);
  }
  return PD_OK;
}
