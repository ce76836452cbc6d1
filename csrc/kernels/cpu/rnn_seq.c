/* Whole-sequence recurrence kernels of ops/rnn.yaml: lstm_seq, gru_seq, simple_rnn_seq and their
 * fused *_seq_grad ops (one op per layer and direction). This file prepares contiguous inputs,
 * the lengths and the thread split, and instantiates rnn_seq_tmpl.h for float32 and float64
 * (float64 runs on one thread). PADDLE_C_RNN_THREADS=n caps the threads of the recurrence. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"
#include "pd_vmath.h"
#include "pd_gemm.h"
#include "rnn_seq.h"
#include "../../core/pd_alloc.h"

/* ------------------------------------------------------------------ instantiation */
#define R float
#define FN(n) n##_f32
#define DT PD_FLOAT32
#define SIG pd_vsigmoidf
#define TANH pd_vtanhf
#define SEL pd_vm_self
#include "rnn_seq_tmpl.h"
#undef R
#undef FN
#undef DT
#undef SIG
#undef TANH
#undef SEL

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
  *len = NULL;
  if (seq_len) {
    int64_t *l = (int64_t *)pd_alloc(sizeof(int64_t) * (size_t)(g->B ? g->B : 1));
    if (!l) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    const char *p = (const char *)pd_tensor_data(seq_len);
    const size_t es = pd_dtype_size(seq_len->dtype);
    for (int64_t b = 0; b < g->B; b++) l[b] = pd_load_as_int64(p + b * seq_len->strides[0] * (int64_t)es, seq_len->dtype);
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
  rnn_io io = {.x = hold(&h, a->x), .h0 = hold(&h, a->h0), .c0 = hold(&h, a->c0), .w_ih = hold(&h, a->w_ih),
               .w_hh = hold(&h, a->w_hh), .b_ih = hold(&h, a->b_ih), .b_hh = hold(&h, a->b_hh),
               .out = pd_tensor_data(out[0]), .h_n = pd_tensor_data(out[1]), .c_n = pd_tensor_data(out[2]),
               .res0 = pd_tensor_data(out[3]), .res1 = pd_tensor_data(out[4])};
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
  rnn_io io = {.x = hold(&h, a->x), .h0 = hold(&h, a->h0), .w_ih = hold(&h, a->w_ih), .w_hh = hold(&h, a->w_hh),
               .b_ih = hold(&h, a->b_ih), .b_hh = hold(&h, a->b_hh), .out = pd_tensor_data(out[0]),
               .h_n = pd_tensor_data(out[1]), .res0 = pd_tensor_data(out[2]), .res1 = pd_tensor_data(out[3])};
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
  rnn_io io = {.x = hold(&h, a->x), .h0 = hold(&h, a->h0), .w_ih = hold(&h, a->w_ih), .w_hh = hold(&h, a->w_hh),
               .b_ih = hold(&h, a->b_ih), .b_hh = hold(&h, a->b_hh), .out = pd_tensor_data(out[0]),
               .h_n = pd_tensor_data(out[1])};
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
  holder h = {.n = 0, .st = PD_OK};
  rnn_io io = {.x = hold(&h, a->x), .h0 = hold(&h, a->h0), .c0 = hold(&h, a->c0), .w_ih = hold(&h, a->w_ih),
               .w_hh = hold(&h, a->w_hh), .out = (void *)hold(&h, a->out), .res0 = (void *)hold(&h, a->gates),
               .res1 = (void *)hold(&h, a->cells), .dout = hold(&h, a->dout), .dh_n = hold(&h, a->dh_n),
               .dc_n = hold(&h, a->dc_n), .dres0 = hold(&h, a->dgates), .dres1 = hold(&h, a->dcells),
               .dx = pd_tensor_data(out[0]), .dh0 = pd_tensor_data(out[1]), .dc0 = pd_tensor_data(out[2]),
               .dw_ih = pd_tensor_data(out[3]), .dw_hh = pd_tensor_data(out[4]), .db_ih = pd_tensor_data(out[5])};
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
  holder h = {.n = 0, .st = PD_OK};
  rnn_io io = {.x = hold(&h, a->x), .h0 = hold(&h, a->h0), .w_ih = hold(&h, a->w_ih), .w_hh = hold(&h, a->w_hh),
               .out = (void *)hold(&h, a->out), .res0 = (void *)hold(&h, a->gates), .res1 = (void *)hold(&h, a->hc),
               .dout = hold(&h, a->dout), .dh_n = hold(&h, a->dh_n), .dres0 = hold(&h, a->dgates),
               .dres1 = hold(&h, a->dhc), .dx = pd_tensor_data(out[0]), .dh0 = pd_tensor_data(out[1]),
               .dw_ih = pd_tensor_data(out[2]), .dw_hh = pd_tensor_data(out[3]), .db_ih = pd_tensor_data(out[4]),
               .db_hh = pd_tensor_data(out[5])};
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
  holder h = {.n = 0, .st = PD_OK};
  rnn_io io = {.x = hold(&h, a->x), .h0 = hold(&h, a->h0), .w_ih = hold(&h, a->w_ih), .w_hh = hold(&h, a->w_hh),
               .out = (void *)hold(&h, a->out), .dout = hold(&h, a->dout), .dh_n = hold(&h, a->dh_n),
               .dx = pd_tensor_data(out[0]), .dh0 = pd_tensor_data(out[1]), .dw_ih = pd_tensor_data(out[2]),
               .dw_hh = pd_tensor_data(out[3]), .db_ih = pd_tensor_data(out[4])};
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
