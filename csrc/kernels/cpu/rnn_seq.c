/* Whole-sequence recurrence kernels of ops/rnn.yaml: lstm_seq, gru_seq, simple_rnn_seq and their
 * fused *_seq_grad ops (one op per layer and direction). This file prepares contiguous inputs,
 * the lengths and the thread split, and instantiates rnn_seq_tmpl.h for float32 and float64
 * (float64 runs on one thread). PADDLE_C_RNN_THREADS=n caps the threads of the recurrence. */
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"
#include "pd_vmath.h"
#include "pd_gemm.h"
#include "rnn_seq.h"
#include "../../core/pd_alloc.h"

/* ------------------------------------------------------------------ contention */
/* The steps of a recurrence run in lockstep (one barrier per step, ~60 us apart), so when another
 * process takes a core from one of our threads the other one stalls at every barrier: measured
 * with one competing busy process, 2 threads took 28 ms for the LSTM benchmark's fwd+bwd where one
 * thread takes ~18. When the threads of a call spent over a quarter of its loop waiting, the next
 * calls run the recurrence on one thread (8 calls, doubling up to 64 while it keeps happening),
 * then try again. The thread count does not change results (each hidden unit is computed the same
 * way whichever thread owns it). PADDLE_C_RNN_THREADS fixes the count and turns this off. */
static atomic_int solo_left = 0, solo_backoff = 8;

static void rnn_note_contention(const rnn_geom *g, const rnn_tstat *ts) {
  if (g->nt < 2) return;
  double worst = 0;
  for (int p = 0; p < g->nt; p++)
    if (ts[p].busy > 0 && ts[p].wait / ts[p].busy > worst) worst = ts[p].wait / ts[p].busy;
  if (worst > 0.25) {
    const int b = atomic_load(&solo_backoff);
    atomic_store(&solo_left, b);
    atomic_store(&solo_backoff, b < 64 ? 2 * b : 64);
  } else if (worst < 0.05) {
    atomic_store(&solo_backoff, 8);
  }
}

/* The LSTM recurrence split by batch rows instead of hidden units (rnn_seq_tmpl.h lstm_*_rows): each
 * thread runs its rows' whole recurrence with all of W_hh (its own packed copy), so no step waits on
 * a barrier or reads state the other thread wrote; the same bits as the units split. Taken where
 * W_hh fits a core's L2 (<= 1 MB: LSTM H <= 256) and every thread gets two rows: issue 21's LSTM
 * 128 -> 256 B20 fwd+bwd level on one core complex (3.84 vs 3.82 ms), 0.92 of the time across two
 * (4.49 vs 4.87); H 128 B 64 0.97 / 0.82; H 512 B 32 (W_hh 4 MB, streamed per step from L3) 1.02 on
 * one complex, hence the limit. PADDLE_C_RNN_SPLIT=rows / units (read per call) forces one. */
static int rnn_rows_mode(const rnn_geom *g) {
  if (g->nt < 2 || g->B < 2 * g->nt) return 0;
  const char *e = getenv("PADDLE_C_RNN_SPLIT");
  if (e && !strcmp(e, "rows")) return 1;
  if (e && !strcmp(e, "units")) return 0;
  return (double)g->G * (double)g->H * (double)g->H * 4.0 <= (double)(1 << 20);
}

/* ------------------------------------------------------------------ instantiation */
/* float32 cell activations from one pd_vexpf and one division each: absolute error ~1e-7 (the
 * relative error of tanh near 0 is larger than pd_vtanhf's 1-2 ulp, which evaluates both expm1
 * and exp); the forward cell costs 5.2 instead of 8.0 ns per hidden unit (one core). Inputs are
 * finite: pd_vexpf clamps, so +-inf pre-activations saturate to 0/1 and -1/1. */
static inline __attribute__((always_inline)) float cell_sigmoidf(float x) { return 1.0f / (1.0f + pd_vexpf(-x)); }
static inline __attribute__((always_inline)) float cell_tanhf(float x) {
  return 1.0f - 2.0f / (1.0f + pd_vexpf(2.0f * x));
}
#if defined(__AVX2__) && defined(__FMA__)
#include "rnn_cell_simd.h"
#define LSTM_FWD_BULK rc_lstm_fwd_bulk
#define LSTM_BWD_BULK rc_lstm_bwd_bulk
#define GRU_FWD_BULK rc_gru_fwd_bulk
#else
#define LSTM_FWD_BULK(...) 0
#define LSTM_BWD_BULK(...) 0
#define GRU_FWD_BULK(...) 0
#endif
#define R float
#define FN(n) n##_f32
#define DT PD_FLOAT32
#define SIG cell_sigmoidf
#define TANH cell_tanhf
#define SEL pd_vm_self
#include "rnn_seq_tmpl.h"
#undef R
#undef FN
#undef DT
#undef SIG
#undef TANH
#undef SEL
#undef LSTM_FWD_BULK
#undef LSTM_BWD_BULK
#undef GRU_FWD_BULK

#define LSTM_FWD_BULK(...) 0
#define LSTM_BWD_BULK(...) 0
#define GRU_FWD_BULK(...) 0
#define R double
#define FN(n) n##_f64
#define DT PD_FLOAT64
#define SIG pd_vsigmoid
#define TANH pd_vtanh
#define SEL pd_vm_seld
#include "rnn_seq_tmpl.h"

/* ------------------------------------------------------------------ preparation */
typedef struct {
  pd_tensor *t[20];
  int n;
  pd_status st;
} holder;

/* Data pointer of t made contiguous (a retained reference or a copy kept in h); NULL for NULL. */
static const void *hold(holder *h, pd_tensor *t) {
  if (!t || h->st != PD_OK) return NULL;
  pd_tensor *c;
  if (pd_tensor_is_contiguous(t)) {
    pd_tensor_retain(t);
    c = t;
  } else if ((h->st = pd_tensor_contiguous(t, &c)) != PD_OK) {
    return NULL;
  }
  h->t[h->n++] = c;
  return pd_tensor_data(c);
}

static void holder_free(holder *h) {
  for (int i = 0; i < h->n; i++) pd_tensor_release(h->t[i]);
}

static int max_threads(void) {
  static int cap = -1;
  if (cap < 0) {
    const char *e = getenv("PADDLE_C_RNN_THREADS");
    cap = e && atoi(e) > 0 ? atoi(e) : 0;
  }
  int n = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (cap && n > cap) n = cap;
  if (!cap && n > 1 && atomic_load(&solo_left) > 0) { /* contended lately: one thread */
    atomic_fetch_sub(&solo_left, 1);
    n = 1;
  }
  return n > RNN_MAX_THREADS ? RNN_MAX_THREADS : n;
}

/* Splits the hidden units across threads: a thread needs >= 16 units (a cache line of floats,
 * slices start on multiples of 16) and enough GEMM work per step to pay for a barrier. */
static void partition(rnn_geom *g, int threaded) {
  int nt = threaded ? max_threads() : 1;
  const double step = 2.0 * (double)g->B * g->G * (double)g->H * (double)g->H;
  while (nt > 1 && (step / nt < 1.5e5 || g->H / nt < 16)) nt--;
  g->nt = nt;
  g->jb[0] = 0;
  for (int p = 1; p < nt; p++) {
    int64_t j = (g->H * p / nt + 8) / 16 * 16;
    g->jb[p] = j < g->jb[p - 1] ? g->jb[p - 1] : (j > g->H ? g->H : j);
  }
  g->jb[nt] = g->H;
  g->njmax = 0;
  for (int p = 0; p < nt; p++)
    if (g->jb[p + 1] - g->jb[p] > g->njmax) g->njmax = g->jb[p + 1] - g->jb[p];
}

static pd_status geom_init(rnn_geom *g, const pd_tensor *x, const pd_tensor *w_hh, int G, int reverse,
                           int time_major, pd_tensor *seq_len, int64_t **len) {
  memset(g, 0, sizeof *g);
  g->T = x->shape[time_major ? 0 : 1];
  g->B = x->shape[time_major ? 1 : 0];
  g->In = x->shape[2];
  g->H = w_hh->shape[1];
  g->G = G;
  g->reverse = reverse != 0;
  g->time_major = time_major != 0;
  g->need_dx = 1;
  g->need_dh0 = 1;
  *len = NULL;
  if (seq_len) {
    int64_t *l = (int64_t *)pd_alloc(sizeof(int64_t) * (size_t)(g->B ? g->B : 1));
    if (!l) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    const char *p = (const char *)pd_tensor_data(seq_len);
    const size_t es = pd_dtype_size(seq_len->dtype);
    for (int64_t b = 0; b < g->B; b++)
      l[b] = pd_load_as_int64(p + b * seq_len->strides[0] * (int64_t)es, seq_len->dtype);
    *len = l;
    g->len = l;
  }
  partition(g, 1);
  return PD_OK;
}

#define RUN(fn, f64, g, io) ((f64) ? fn##_f64(g, io) : fn##_f32(g, io))

/* ------------------------------------------------------------------ forward ops */
static pd_status lstm_seq_run(const void *args, pd_tensor **out, int f64) {
  const pd_lstm_seq_args *a = (const pd_lstm_seq_args *)args;
  rnn_geom g;
  int64_t *len;
  PD_TRY(geom_init(&g, a->x, a->w_hh, 4, (int)a->reverse, (int)a->time_major, a->seq_len, &len));
  holder h = {.n = 0, .st = PD_OK};
  rnn_io io = {0};
  io.x = hold(&h, a->x);
  io.h0 = hold(&h, a->h0);
  io.c0 = hold(&h, a->c0);
  io.w_ih = hold(&h, a->w_ih);
  io.w_hh = hold(&h, a->w_hh);
  io.b_ih = hold(&h, a->b_ih);
  io.b_hh = hold(&h, a->b_hh);
  io.out = pd_tensor_data(out[0]);
  io.h_n = pd_tensor_data(out[1]);
  io.c_n = pd_tensor_data(out[2]);
  io.res0 = pd_tensor_data(out[3]);
  io.res1 = pd_tensor_data(out[4]);
  pd_status st = h.st == PD_OK ? RUN(lstm_fwd, f64, &g, &io) : h.st;
  holder_free(&h);
  pd_free(len);
  return st;
}

static pd_status gru_seq_run(const void *args, pd_tensor **out, int f64) {
  const pd_gru_seq_args *a = (const pd_gru_seq_args *)args;
  rnn_geom g;
  int64_t *len;
  PD_TRY(geom_init(&g, a->x, a->w_hh, 3, (int)a->reverse, (int)a->time_major, a->seq_len, &len));
  holder h = {.n = 0, .st = PD_OK};
  rnn_io io = {0};
  io.x = hold(&h, a->x);
  io.h0 = hold(&h, a->h0);
  io.w_ih = hold(&h, a->w_ih);
  io.w_hh = hold(&h, a->w_hh);
  io.b_ih = hold(&h, a->b_ih);
  io.b_hh = hold(&h, a->b_hh);
  io.out = pd_tensor_data(out[0]);
  io.h_n = pd_tensor_data(out[1]);
  io.res0 = pd_tensor_data(out[2]);
  io.res1 = pd_tensor_data(out[3]);
  pd_status st = h.st == PD_OK ? RUN(gru_fwd, f64, &g, &io) : h.st;
  holder_free(&h);
  pd_free(len);
  return st;
}

static pd_status simple_rnn_seq_run(const void *args, pd_tensor **out, int f64) {
  const pd_simple_rnn_seq_args *a = (const pd_simple_rnn_seq_args *)args;
  rnn_geom g;
  int64_t *len;
  PD_TRY(geom_init(&g, a->x, a->w_hh, 1, (int)a->reverse, (int)a->time_major, a->seq_len, &len));
  g.relu = strcmp(a->activation, "relu") == 0;
  holder h = {.n = 0, .st = PD_OK};
  rnn_io io = {0};
  io.x = hold(&h, a->x);
  io.h0 = hold(&h, a->h0);
  io.w_ih = hold(&h, a->w_ih);
  io.w_hh = hold(&h, a->w_hh);
  io.b_ih = hold(&h, a->b_ih);
  io.b_hh = hold(&h, a->b_hh);
  io.out = pd_tensor_data(out[0]);
  io.h_n = pd_tensor_data(out[1]);
  pd_status st = h.st == PD_OK ? RUN(rnn_fwd, f64, &g, &io) : h.st;
  holder_free(&h);
  pd_free(len);
  return st;
}

/* ------------------------------------------------------------------ grad ops */
static pd_status lstm_seq_grad_run(const void *args, pd_tensor **out, int f64) {
  const pd_lstm_seq_grad_args *a = (const pd_lstm_seq_grad_args *)args;
  rnn_geom g;
  int64_t *len;
  PD_TRY(geom_init(&g, a->x, a->w_hh, 4, (int)a->reverse, (int)a->time_major, a->seq_len, &len));
  g.need_dx = a->need_dx != 0;
  g.need_dh0 = a->need_dh0 != 0;
  holder h = {.n = 0, .st = PD_OK};
  rnn_io io = {0};
  io.x = hold(&h, a->x);
  io.h0 = hold(&h, a->h0);
  io.c0 = hold(&h, a->c0);
  io.w_ih = hold(&h, a->w_ih);
  io.w_hh = hold(&h, a->w_hh);
  io.out = (void *)hold(&h, a->out);
  io.res0 = (void *)hold(&h, a->gates);
  io.res1 = (void *)hold(&h, a->cells);
  io.dout = hold(&h, a->dout);
  io.dh_n = hold(&h, a->dh_n);
  io.dc_n = hold(&h, a->dc_n);
  io.dres0 = hold(&h, a->dgates);
  io.dres1 = hold(&h, a->dcells);
  io.dx = pd_tensor_data(out[0]);
  io.dh0 = pd_tensor_data(out[1]);
  io.dc0 = pd_tensor_data(out[2]);
  io.dw_ih = pd_tensor_data(out[3]);
  io.dw_hh = pd_tensor_data(out[4]);
  io.db_ih = pd_tensor_data(out[5]);
  pd_status st = h.st == PD_OK ? RUN(lstm_bwd, f64, &g, &io) : h.st;
  holder_free(&h);
  pd_free(len);
  return st;
}

static pd_status gru_seq_grad_run(const void *args, pd_tensor **out, int f64) {
  const pd_gru_seq_grad_args *a = (const pd_gru_seq_grad_args *)args;
  rnn_geom g;
  int64_t *len;
  PD_TRY(geom_init(&g, a->x, a->w_hh, 3, (int)a->reverse, (int)a->time_major, a->seq_len, &len));
  g.need_dx = a->need_dx != 0;
  g.need_dh0 = a->need_dh0 != 0;
  holder h = {.n = 0, .st = PD_OK};
  rnn_io io = {0};
  io.x = hold(&h, a->x);
  io.h0 = hold(&h, a->h0);
  io.w_ih = hold(&h, a->w_ih);
  io.w_hh = hold(&h, a->w_hh);
  io.out = (void *)hold(&h, a->out);
  io.res0 = (void *)hold(&h, a->gates);
  io.res1 = (void *)hold(&h, a->hc);
  io.dout = hold(&h, a->dout);
  io.dh_n = hold(&h, a->dh_n);
  io.dres0 = hold(&h, a->dgates);
  io.dres1 = hold(&h, a->dhc);
  io.dx = pd_tensor_data(out[0]);
  io.dh0 = pd_tensor_data(out[1]);
  io.dw_ih = pd_tensor_data(out[2]);
  io.dw_hh = pd_tensor_data(out[3]);
  io.db_ih = pd_tensor_data(out[4]);
  io.db_hh = pd_tensor_data(out[5]);
  pd_status st = h.st == PD_OK ? RUN(gru_bwd, f64, &g, &io) : h.st;
  holder_free(&h);
  pd_free(len);
  return st;
}

static pd_status simple_rnn_seq_grad_run(const void *args, pd_tensor **out, int f64) {
  const pd_simple_rnn_seq_grad_args *a = (const pd_simple_rnn_seq_grad_args *)args;
  rnn_geom g;
  int64_t *len;
  PD_TRY(geom_init(&g, a->x, a->w_hh, 1, (int)a->reverse, (int)a->time_major, a->seq_len, &len));
  g.relu = strcmp(a->activation, "relu") == 0;
  g.need_dx = a->need_dx != 0;
  g.need_dh0 = a->need_dh0 != 0;
  holder h = {.n = 0, .st = PD_OK};
  rnn_io io = {0};
  io.x = hold(&h, a->x);
  io.h0 = hold(&h, a->h0);
  io.w_ih = hold(&h, a->w_ih);
  io.w_hh = hold(&h, a->w_hh);
  io.out = (void *)hold(&h, a->out);
  io.dout = hold(&h, a->dout);
  io.dh_n = hold(&h, a->dh_n);
  io.dx = pd_tensor_data(out[0]);
  io.dh0 = pd_tensor_data(out[1]);
  io.dw_ih = pd_tensor_data(out[2]);
  io.dw_hh = pd_tensor_data(out[3]);
  io.db_ih = pd_tensor_data(out[4]);
  pd_status st = h.st == PD_OK ? RUN(rnn_bwd, f64, &g, &io) : h.st;
  holder_free(&h);
  pd_free(len);
  return st;
}

#define ENTRIES(op)                                                                            \
  pd_status pd_kernel_##op##_f32(const void *args, pd_tensor **out, int n_out) {              \
    (void)n_out;                                                                               \
    return op##_run(args, out, 0);                                                             \
  }                                                                                            \
  pd_status pd_kernel_##op##_f64(const void *args, pd_tensor **out, int n_out) {              \
    (void)n_out;                                                                               \
    return op##_run(args, out, 1);                                                             \
  }
ENTRIES(lstm_seq)
ENTRIES(gru_seq)
ENTRIES(simple_rnn_seq)
ENTRIES(lstm_seq_grad)
ENTRIES(gru_seq_grad)
ENTRIES(simple_rnn_seq_grad)
