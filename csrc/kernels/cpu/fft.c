/* Kernels of ops/fft.yaml on FFTW3 (Debian's libfftw3: its codelets for SSE2/AVX/AVX2/AVX-512
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
 * Replaced plans are kept (another thread may be running one) and never freed; the table holds at
 * most 4096 keys, beyond that a plan is made per call and destroyed after it.
 *
 * Threads: plans are single-threaded; a batched transform of >= 64K elements is cut along its
 * largest batch dim into one chunk per thread of the project's OpenMP pool (one parallel region
 * per call). FFTW's own threaded plans (fftw3_omp, also libgomp) were 4-10x slower here: they
 * open a parallel region per stage, and every barrier costs a time slice on this shared,
 * overloaded VM (256 x 1024 complex64: 9-24 ms on 2 threads vs 2.2 ms on one). A single
 * transform with no batch runs on one thread.
 *
 * Layouts: c2c and r2c read a contiguous input (strided inputs are copied once) and write a
 * contiguous output. c2r copies its input into a scratch half-spectrum first (FFTW's c2r
 * overwrites its input; the copy also pads / truncates the last axis to n/2+1 and conjugates for
 * forward=true). Scaling, conjugation (FFTW's r2c is always the e^-i transform: the inverse of a
 * real signal is the conjugate of the forward) and the c2r gradient's doubling are one pass over
 * the output. */
#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "../../core/pd_alloc.h"
#include "../../core/pd_iter.h"
#include "../../ops/infer_meta_fft.h"

enum { K_C2C = 0, K_R2C = 1, K_C2R = 2 };

typedef struct {
  int kind, dbl, sign, nthreads, align, rank, howrank, measured_flag_unused;
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
static plan_entry *g_table[NBUCKET];
static int g_count;
static int g_policy; /* 0 auto, 1 estimate, 2 measure */

static void fft_init(void) {
  fftw_init_threads();
  fftwf_init_threads();
  /* FFTW_MEASURE on 2^20 points took 23-32 s here without a limit (measured under load) */
  fftw_set_timelimit(0.5);
  fftwf_set_timelimit(0.5);
  const char *p = getenv("PADDLE_C_FFT_PLANNER");
  g_policy = p && !strcmp(p, "estimate") ? 1 : p && !strcmp(p, "measure") ? 2 : 0;
}

static uint64_t key_hash(const plan_key *k) {
  const unsigned char *b = (const unsigned char *)k;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < sizeof *k; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
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
  uint64_t h = key_hash(k) % NBUCKET;
  *temp = 0;
  pthread_mutex_lock(&g_lock);
  plan_entry *e = g_table[h];
  while (e && memcmp(&e->k, k, sizeof *k)) e = e->next;
  if (e) {
    e->uses++;
    if (!e->measured && g_policy == 0 && e->uses == 3 && k->align == 0) {
      size_t ni = key_span(k, 0), no = key_span(k, 1);
      void *si = pd_alloc(ni), *so = pd_alloc(no);
      if (si && so) {
        void *p = plan_make(k, si, so, FFTW_MEASURE);
        if (p) e->plan = p; /* the ESTIMATE plan is kept alive (leaked): it may be running */
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
    void *si = pd_alloc(ni), *so = pd_alloc(no);
    if (si && so) {
      p = plan_make(k, si, so, FFTW_MEASURE);
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

/* Builds the key of a transform over axes ax[0..nax) (the last one is the halved axis of r2c /
 * c2r) of an ndim tensor with logical sizes n[] (real lengths on transform axes) and element
 * strides istr / ostr (complex elements for complex sides), then runs it. */
static pd_status fft_exec(int kind, int dbl, int sign, int ndim, const int64_t *n, const int64_t *istr,
                          const int64_t *ostr, const int *ax, int nax, void *in, void *out) {
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
  /* Batch parallelism on the project's pool: the largest batch dim is cut into one chunk per
   * thread (chunk lengths a multiple of what keeps every chunk's arrays as aligned as the first),
   * each chunk runs a single-threaded plan; one parallel region, no FFTW threads. */
  int nt = pd_num_threads(), hd = -1;
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
#pragma omp parallel for if (nchunk > 1) schedule(static)
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
  }
  if (temp[0] || temp[1]) {
    pthread_mutex_lock(&g_lock);
    if (temp[0]) plan_destroy(&k, p[0]);
    if (temp[1] && p[1] != p[0]) plan_destroy(&k2, p[1]);
    pthread_mutex_unlock(&g_lock);
  }
  return PD_OK;
}

/* ---- one pass over an output viewed as [outer, len, inner] (contiguous): multiply by scale
 * (twice that for lo <= k < hi along len), conjugate if conj (complex), or keep the real part of
 * complex src into real dst (re = 1). ---- */
#define DEF_POST(SUF, R)                                                                                   \
  static void post_##SUF(R *d, int64_t outer, int64_t len, int64_t inner, double scale, int conj, int64_t lo, \
                         int64_t hi) {                                                                     \
    int64_t rows = outer * len;                                                                            \
    _Pragma("omp parallel for if (rows * inner >= 65536) schedule(static)") for (int64_t r = 0; r < rows; r++) { \
      int64_t k = r % len;                                                                                 \
      R s = (R)(k >= lo && k < hi ? 2 * scale : scale);                                                    \
      R sc = conj ? -s : s;                                                                                \
      R *p = d + 2 * r * inner;                                                                            \
      for (int64_t j = 0; j < inner; j++) {                                                                \
        p[2 * j] *= s;                                                                                     \
        p[2 * j + 1] *= sc;                                                                                \
      }                                                                                                    \
    }                                                                                                      \
  }                                                                                                        \
  static void scale_real_##SUF(R *d, int64_t n, double scale) {                                            \
    R s = (R)scale;                                                                                        \
    _Pragma("omp parallel for if (n >= 65536) schedule(static)") for (int64_t i = 0; i < n; i++) d[i] *= s; \
  }                                                                                                        \
  static void real_part_##SUF(R *dst, const R *src, int64_t n, double scale) {                             \
    R s = (R)scale;                                                                                        \
    _Pragma("omp parallel for if (n >= 65536) schedule(static)") for (int64_t i = 0; i < n; i++) dst[i] =   \
        src[2 * i] * s;                                                                                    \
  }
DEF_POST(f, float)
DEF_POST(d, double)

static void post(int dbl, void *d, int64_t outer, int64_t len, int64_t inner, double scale, int conj, int64_t lo,
                 int64_t hi) {
  if (scale == 1.0 && !conj && lo >= hi) return;
  if (dbl)
    post_d((double *)d, outer, len, inner, scale, conj, lo, hi);
  else
    post_f((float *)d, outer, len, inner, scale, conj, lo, hi);
}

/* Hermitian completion of a full spectrum whose entries k <= n/2 along axis L were written:
 * X[k] = conj(X[-k mod n]) over every transformed axis, for k_L > n_L/2 (contiguous out). */
#define DEF_HERM(SUF, R)                                                                                    \
  static void herm_fill_##SUF(R *o, int ndim, const int64_t *sh, const int *isax, int L) {                 \
    int64_t st[PD_MAX_DIMS];                                                                                \
    pd_contiguous_strides(ndim, sh, st);                                                                    \
    int64_t nL = sh[L], h = nL / 2 + 1, outer = 1;                                                          \
    for (int d = 0; d < ndim; d++)                                                                          \
      if (d != L) outer *= sh[d];                                                                           \
    if (h >= nL) return;                                                                                    \
    _Pragma("omp parallel for if (outer * nL >= 65536) schedule(static)") for (int64_t r = 0; r < outer; r++) { \
      int64_t rem = r, own = 0, mir = 0;                                                                    \
      for (int d = ndim - 1; d >= 0; d--) {                                                                 \
        if (d == L) continue;                                                                               \
        int64_t i = rem % sh[d];                                                                            \
        rem /= sh[d];                                                                                       \
        own += i * st[d];                                                                                   \
        mir += (isax[d] ? (sh[d] - i) % sh[d] : i) * st[d];                                                 \
      }                                                                                                     \
      for (int64_t k = h; k < nL; k++) {                                                                    \
        const R *s = o + 2 * (mir + (nL - k) * st[L]);                                                      \
        R *t = o + 2 * (own + k * st[L]);                                                                   \
        t[0] = s[0];                                                                                        \
        t[1] = -s[1];                                                                                       \
      }                                                                                                     \
    }                                                                                                       \
  }
DEF_HERM(f, float)
DEF_HERM(d, double)

static double signal_size(const int64_t *sh, const int *ax, int nax) {
  double n = 1;
  for (int i = 0; i < nax; i++) n *= (double)sh[ax[i]];
  return n;
}

static void outer_len_inner(const pd_tensor *t, int L, int64_t *outer, int64_t *inner) {
  *outer = 1;
  *inner = 1;
  for (int d = 0; d < L; d++) *outer *= t->shape[d];
  for (int d = L + 1; d < t->ndim; d++) *inner *= t->shape[d];
}

/* ---- c2c (and its grad: the other direction, same scale) ---- */
static pd_status c2c_run(const char *op, pd_tensor *x, pd_int_array axes, const char *norm, int forward, int flip,
                         pd_tensor *o) {
  int ax[PD_MAX_DIMS], nax, mode;
  PD_TRY(pd_fft_axes(op, axes, x->ndim, ax, &nax));
  PD_TRY(pd_fft_norm_mode(op, norm, forward, &mode));
  if (o->numel == 0) return PD_OK;
  int dir = flip ? !forward : forward;
  pd_tensor *xc;
  PD_TRY(pd_tensor_contiguous(x, &xc));
  int dbl = x->dtype == PD_COMPLEX128;
  pd_status s = fft_exec(K_C2C, dbl, dir ? FFTW_FORWARD : FFTW_BACKWARD, x->ndim, x->shape, xc->strides, o->strides,
                         ax, nax, pd_tensor_data(xc), pd_tensor_data(o));
  pd_tensor_release(xc);
  if (s == PD_OK) post(dbl, pd_tensor_data(o), o->numel, 1, 1, pd_fft_scale(mode, signal_size(x->shape, ax, nax)), 0, 0, 0);
  return s;
}

static pd_status fft_c2c_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_c2c_args *a = (const pd_fft_c2c_args *)args;
  (void)n_out;
  return c2c_run("fft_c2c", a->x, a->axes, a->normalization, a->forward, 0, out[0]);
}
static pd_status fft_c2c_grad_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_c2c_grad_args *a = (const pd_fft_c2c_grad_args *)args;
  (void)n_out;
  return c2c_run("fft_c2c_grad", a->out_grad, a->axes, a->normalization, a->forward, 1, out[0]);
}

/* ---- r2c: forward (e^-i) onesided transform into o (onesided or full: the half is written with
 * o's strides, the rest completed by symmetry), conjugated for forward=false ---- */
static pd_status r2c_into(pd_tensor *x, const int *ax, int nax, int onesided, int conj, double scale, pd_tensor *o) {
  if (o->numel == 0) return PD_OK;
  pd_tensor *xc;
  PD_TRY(pd_tensor_contiguous(x, &xc));
  int dbl = x->dtype == PD_FLOAT64;
  pd_status s = fft_exec(K_R2C, dbl, 0, x->ndim, x->shape, xc->strides, o->strides, ax, nax, pd_tensor_data(xc),
                         pd_tensor_data(o));
  pd_tensor_release(xc);
  if (s != PD_OK) return s;
  int L = ax[nax - 1];
  if (!onesided) {
    int isax[PD_MAX_DIMS] = {0};
    for (int i = 0; i < nax; i++) isax[ax[i]] = 1;
    if (dbl)
      herm_fill_d((double *)pd_tensor_data(o), o->ndim, o->shape, isax, L);
    else
      herm_fill_f((float *)pd_tensor_data(o), o->ndim, o->shape, isax, L);
  }
  post(dbl, pd_tensor_data(o), o->numel, 1, 1, scale, conj, 0, 0);
  return PD_OK;
}

static pd_status fft_r2c_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_r2c_args *a = (const pd_fft_r2c_args *)args;
  (void)n_out;
  int ax[PD_MAX_DIMS], nax, mode;
  PD_TRY(pd_fft_axes("fft_r2c", a->axes, a->x->ndim, ax, &nax));
  PD_TRY(pd_fft_norm_mode("fft_r2c", a->normalization, a->forward, &mode));
  return r2c_into(a->x, ax, nax, a->onesided, !a->forward, pd_fft_scale(mode, signal_size(a->x->shape, ax, nax)),
                  out[0]);
}

/* r2c's adjoint: Re(c2c of the zero-padded out_grad in the other direction), same scale. */
static pd_status fft_r2c_grad_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_r2c_grad_args *a = (const pd_fft_r2c_grad_args *)args;
  (void)n_out;
  int ax[PD_MAX_DIMS], nax, mode;
  PD_TRY(pd_fft_axes("fft_r2c_grad", a->axes, a->x->ndim, ax, &nax));
  PD_TRY(pd_fft_norm_mode("fft_r2c_grad", a->normalization, a->forward, &mode));
  pd_tensor *o = out[0], *g = a->out_grad;
  if (o->numel == 0) return PD_OK;
  int L = ax[nax - 1];
  for (int d = 0; d < o->ndim; d++)
    if (d != L && g->shape[d] != o->shape[d])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fft_r2c_grad] out_grad's dim %d is %lld, expected %lld", d,
                          (long long)g->shape[d], (long long)o->shape[d]);
  pd_tensor *full = NULL, *res = NULL, *dv = NULL, *sv = NULL;
  pd_status s = pd_tensor_zeros(g->dtype, o->ndim, o->shape, &full);
  int64_t sh[PD_MAX_DIMS];
  memcpy(sh, o->shape, sizeof(int64_t) * (size_t)o->ndim);
  sh[L] = g->shape[L] < o->shape[L] ? g->shape[L] : o->shape[L];
  if (s == PD_OK) s = pd_tensor_view(full, o->ndim, sh, full->strides, full->offset, &dv);
  if (s == PD_OK) s = pd_tensor_view(g, o->ndim, sh, g->strides, g->offset, &sv);
  if (s == PD_OK) s = pd_tensor_copy_(dv, sv);
  if (s == PD_OK) s = pd_tensor_empty(g->dtype, o->ndim, o->shape, &res);
  int dbl = g->dtype == PD_COMPLEX128;
  if (s == PD_OK)
    s = fft_exec(K_C2C, dbl, a->forward ? FFTW_BACKWARD : FFTW_FORWARD, o->ndim, o->shape, full->strides, res->strides,
                 ax, nax, pd_tensor_data(full), pd_tensor_data(res));
  if (s == PD_OK) {
    double sc = pd_fft_scale(mode, signal_size(o->shape, ax, nax));
    if (dbl)
      real_part_d((double *)pd_tensor_data(o), (const double *)pd_tensor_data(res), o->numel, sc);
    else
      real_part_f((float *)pd_tensor_data(o), (const float *)pd_tensor_data(res), o->numel, sc);
  }
  if (dv) pd_tensor_release(dv);
  if (sv) pd_tensor_release(sv);
  if (full) pd_tensor_release(full);
  if (res) pd_tensor_release(res);
  return s;
}

/* ---- c2r: the half spectrum (x's first n/2+1 entries along the last axis, zero-padded) into a
 * scratch copy, conjugated for forward=true, then FFTW's c2r (e^+i) ---- */
static pd_status fft_c2r_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_c2r_args *a = (const pd_fft_c2r_args *)args;
  (void)n_out;
  int ax[PD_MAX_DIMS], nax, mode;
  pd_tensor *x = a->x, *o = out[0];
  PD_TRY(pd_fft_axes("fft_c2r", a->axes, x->ndim, ax, &nax));
  PD_TRY(pd_fft_norm_mode("fft_c2r", a->normalization, a->forward, &mode));
  if (o->numel == 0) return PD_OK;
  int L = ax[nax - 1];
  int64_t h = o->shape[L] / 2 + 1, sh[PD_MAX_DIMS], cp[PD_MAX_DIMS];
  memcpy(sh, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  sh[L] = h;
  memcpy(cp, sh, sizeof cp);
  cp[L] = x->shape[L] < h ? x->shape[L] : h;
  pd_tensor *half = NULL, *dv = NULL, *sv = NULL;
  pd_status s = cp[L] < h ? pd_tensor_zeros(x->dtype, x->ndim, sh, &half) : pd_tensor_empty(x->dtype, x->ndim, sh, &half);
  if (s == PD_OK) s = pd_tensor_view(half, x->ndim, cp, half->strides, half->offset, &dv);
  if (s == PD_OK) s = pd_tensor_view(x, x->ndim, cp, x->strides, x->offset, &sv);
  if (s == PD_OK) s = pd_tensor_copy_(dv, sv);
  int dbl = x->dtype == PD_COMPLEX128;
  if (s == PD_OK && a->forward) post(dbl, pd_tensor_data(half), half->numel, 1, 1, 1.0, 1, 0, 0);
  if (s == PD_OK)
    s = fft_exec(K_C2R, dbl, 0, o->ndim, o->shape, half->strides, o->strides, ax, nax, pd_tensor_data(half),
                 pd_tensor_data(o));
  if (s == PD_OK) {
    double sc = pd_fft_scale(mode, signal_size(o->shape, ax, nax));
    if (sc != 1.0) {
      if (dbl)
        scale_real_d((double *)pd_tensor_data(o), o->numel, sc);
      else
        scale_real_f((float *)pd_tensor_data(o), o->numel, sc);
    }
  }
  if (dv) pd_tensor_release(dv);
  if (sv) pd_tensor_release(sv);
  if (half) pd_tensor_release(half);
  return s;
}

/* c2r's adjoint (Paddle's rule): r2c of out_grad in the other direction with the same scale,
 * entries 1 .. n - (n/2+1) along the last axis doubled (they stand for two conjugate entries),
 * written into x's shape (zeros past n/2+1). */
static pd_status fft_c2r_grad_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_c2r_grad_args *a = (const pd_fft_c2r_grad_args *)args;
  (void)n_out;
  int ax[PD_MAX_DIMS], nax, mode;
  pd_tensor *g = a->out_grad, *o = out[0];
  PD_TRY(pd_fft_axes("fft_c2r_grad", a->axes, g->ndim, ax, &nax));
  PD_TRY(pd_fft_norm_mode("fft_c2r_grad", a->normalization, a->forward, &mode));
  if (o->numel == 0) return PD_OK;
  int L = ax[nax - 1];
  for (int d = 0; d < o->ndim; d++)
    if (d != L && g->shape[d] != o->shape[d])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fft_c2r_grad] out_grad's dim %d is %lld, expected %lld", d,
                          (long long)g->shape[d], (long long)o->shape[d]);
  int64_t n = g->shape[L], h = n / 2 + 1, m = o->shape[L];
  double sc = pd_fft_scale(mode, signal_size(g->shape, ax, nax));
  int dbl = g->dtype == PD_FLOAT64;
  int64_t outer, inner;
  outer_len_inner(o, L, &outer, &inner);
  if (m == h) {
    PD_TRY(r2c_into(g, ax, nax, 1, 0, 1.0, o));
    post(dbl, pd_tensor_data(o), outer, m, inner, sc, a->forward, 1, n - h + 1);
    return PD_OK;
  }
  int64_t sh[PD_MAX_DIMS];
  memcpy(sh, o->shape, sizeof(int64_t) * (size_t)o->ndim);
  sh[L] = h;
  pd_tensor *hb = NULL, *dv = NULL, *sv = NULL;
  pd_status s = pd_tensor_empty(o->dtype, o->ndim, sh, &hb);
  if (s == PD_OK) s = r2c_into(g, ax, nax, 1, 0, 1.0, hb);
  if (s == PD_OK) {
    int64_t ho, hi;
    outer_len_inner(hb, L, &ho, &hi);
    post(dbl, pd_tensor_data(hb), ho, h, hi, sc, a->forward, 1, n - h + 1);
    s = pd_tensor_fill_(o, 0, 0);
  }
  sh[L] = m < h ? m : h;
  if (s == PD_OK) s = pd_tensor_view(o, o->ndim, sh, o->strides, o->offset, &dv);
  if (s == PD_OK) s = pd_tensor_view(hb, o->ndim, sh, hb->strides, hb->offset, &sv);
  if (s == PD_OK) s = pd_tensor_copy_(dv, sv);
  if (dv) pd_tensor_release(dv);
  if (sv) pd_tensor_release(sv);
  if (hb) pd_tensor_release(hb);
  return s;
}

#define STAMP(OP, IMPL)                                                                                  \
  pd_status pd_kernel_##OP##_c64(const void *args, pd_tensor **out, int n_out) { return IMPL(args, out, n_out); } \
  pd_status pd_kernel_##OP##_c128(const void *args, pd_tensor **out, int n_out) { return IMPL(args, out, n_out); }
STAMP(fft_c2c, fft_c2c_impl)
STAMP(fft_c2c_grad, fft_c2c_grad_impl)
STAMP(fft_r2c, fft_r2c_impl)
STAMP(fft_r2c_grad, fft_r2c_grad_impl)
STAMP(fft_c2r, fft_c2r_impl)
STAMP(fft_c2r_grad, fft_c2r_grad_impl)
