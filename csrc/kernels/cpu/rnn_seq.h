/* Shared pieces of the whole-sequence recurrence kernels (rnn_seq.c, rnn_seq_tmpl.h): the
 * geometry (steps, batch, sizes, processing order, lengths, layout of the [B, T, F] / [T, B, F]
 * tensors) and the split of the hidden units across threads. Each thread owns a slice of hidden
 * units for the whole sequence (its rows of W_hh stay in its cache, the cell needs no extra
 * synchronisation), so a step costs one GEMM per thread plus one barrier. */
#ifndef PD_RNN_SEQ_H
#define PD_RNN_SEQ_H
#include <stdint.h>
#include "rnn_gemm.h"

#define RNN_MAX_THREADS 64

typedef struct {
  int64_t T, B, H, In; /* In: input size */
  int G;            /* gate blocks: 4 (LSTM), 3 (GRU), 1 (simple RNN) */
  int reverse, time_major, relu, need_dx, need_dh0;
  int nt;           /* threads */
  int64_t njmax;    /* widest slice */
  int64_t jb[RNN_MAX_THREADS + 1]; /* thread p owns hidden units [jb[p], jb[p+1]) */
  const int64_t *len; /* [B] sequence lengths, or NULL (all T) */
} rnn_geom;

/* Raw pointers of one call (contiguous data; NULL where absent). res0/res1 are the reserve
 * outputs (LSTM: gates, cells; GRU: gates, hc) and dres0/dres1 their incoming gradients. */
typedef struct {
  const void *x, *h0, *c0, *w_ih, *w_hh, *b_ih, *b_hh;
  void *out, *h_n, *c_n, *res0, *res1;
  const void *dout, *dh_n, *dc_n, *dres0, *dres1;
  void *dx, *dh0, *dc0, *dw_ih, *dw_hh, *db_ih, *db_hh;
} rnn_io;

/* row of step t, batch b in every [B, T, F] (time-major: [T, B, F]) buffer of a call: x, out,
 * dout, dx, the reserves and the per-step scratch all follow x's layout, so nothing is
 * transposed (the weight gradients sum over rows in any order they agree on). A step's rows
 * are rg_bstride rows apart. */
static inline int64_t rg_row(const rnn_geom *g, int64_t t, int64_t b) {
  return g->time_major ? t * g->B + b : b * g->T + t;
}
static inline int64_t rg_bstride(const rnn_geom *g) { return g->time_major ? 1 : g->T; }
/* time index of processing step s */
static inline int64_t rg_time(const rnn_geom *g, int64_t s) { return g->reverse ? g->T - 1 - s : s; }
static inline int rg_valid(const rnn_geom *g, int64_t t, int64_t b) { return !g->len || t < g->len[b]; }

/* Per-thread time of one recurrence: waiting at the per-step barriers, and the whole loop. */
typedef struct {
  double wait, busy;
} rnn_tstat;

/* A barrier that adds the time spent in it to w (seconds). */
#define RNN_BARRIER(w)                 \
  do {                                 \
    const double q_ = omp_get_wtime(); \
    _Pragma("omp barrier")             \
    (w) += omp_get_wtime() - q_;       \
  } while (0)

/* Offsets (elements) of each thread's packed W_hh: forward (per gate, H x nj) or backward
 * (G*H x nj); returns the total. */
static inline size_t rnn_pack_offsets(const rnn_geom *g, int fwd, size_t *off) {
  off[0] = 0;
  for (int p = 0; p < g->nt; p++) {
    const int64_t nj = g->jb[p + 1] - g->jb[p];
    off[p + 1] = off[p] + (fwd ? (size_t)g->G * pd_rnn_packed_len(g->H, nj) : pd_rnn_packed_len(g->G * g->H, nj));
  }
  return off[g->nt];
}

#endif
