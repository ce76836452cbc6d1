/* Type-generic bodies of the whole-sequence LSTM / GRU / simple-RNN kernels, included by
 * rnn_seq.c once per dtype with R (element type), FN(name) (suffixing), DT (pd_dtype), SIG,
 * TANH and SEL (vectorisable select) defined, and LSTM_FWD_BULK, LSTM_BWD_BULK, GRU_FWD_BULK:
 * vector bodies that run a cell's first units and return how many they did (0: none), the
 * loops below finishing the rest. Forward: one GEMM for the input projection of all
 * steps, then per step and thread one GEMM on h (rnn_gemm.h, weights packed once per call) for
 * its hidden-unit slice, the cell, one barrier. Backward: the reverse recurrence (cell gradient,
 * one GEMM per step for dh), then the weight and input gradients as single GEMMs over all steps. */

/* ------------------------------------------------------------------ cells (one row slice) */
static inline void FN(lstm_cell)(R *restrict gx, int64_t H, const R *restrict gh, int64_t nj,
                                 const R *restrict bias, const R *restrict cp, const R *restrict hp,
                                 R *restrict o, R *restrict cl, R *restrict hn, R *restrict cn, int valid) {
  if (!valid) {
    for (int k = 0; k < 4; k++) memset(gx + k * H, 0, sizeof(R) * (size_t)nj);
    memset(o, 0, sizeof(R) * (size_t)nj);
    memcpy(cl, cp, sizeof(R) * (size_t)nj);
    memcpy(cn, cp, sizeof(R) * (size_t)nj);
    memcpy(hn, hp, sizeof(R) * (size_t)nj);
    return;
  }
#pragma omp simd
  for (int64_t j = LSTM_FWD_BULK(gx, H, gh, nj, bias, cp, o, cl, hn, cn); j < nj; j++) {
    R i = SIG(gx[j] + bias[j] + gh[j]);
    R f = SIG(gx[H + j] + bias[H + j] + gh[nj + j]);
    R c = TANH(gx[2 * H + j] + bias[2 * H + j] + gh[2 * nj + j]);
    R og = SIG(gx[3 * H + j] + bias[3 * H + j] + gh[3 * nj + j]);
    R cv = f * cp[j] + i * c;
    R hv = og * TANH(cv);
    gx[j] = i;
    gx[H + j] = f;
    gx[2 * H + j] = c;
    gx[3 * H + j] = og;
    cl[j] = cv;
    cn[j] = cv;
    o[j] = hv;
    hn[j] = hv;
  }
}

/* d h_t is dh (the state carry) + go (the output gradient; ignored past a length, where the
 * outputs are constant zeros); writes dz (4 blocks), updates dc, sets dhn to the part of
 * d h_{t-1} that does not come through W_hh, adds dz to db. ext: d gates (activated), dcl: d
 * cells (already added to dc by the caller). */
static inline void FN(lstm_cell_bwd)(const R *restrict ga, int64_t H, const R *restrict cl,
                                     const R *restrict cp, const R *restrict ext, const R *restrict dh,
                                     const R *restrict go, R *restrict dc, R *restrict dhn, R *restrict dz,
                                     R *restrict db, int64_t nj, int valid) {
  if (!valid) {
    for (int k = 0; k < 4; k++) memset(dz + k * H, 0, sizeof(R) * (size_t)nj);
    memcpy(dhn, dh, sizeof(R) * (size_t)nj);
    return;
  }
#pragma omp simd
  for (int64_t j = LSTM_BWD_BULK(ga, H, cl, cp, ext, dh, go, dc, dhn, dz, db, nj); j < nj; j++) {
    R i = ga[j], f = ga[H + j], c = ga[2 * H + j], og = ga[3 * H + j];
    R tc = TANH(cl[j]);
    R d = dh[j] + go[j];
    R dct = dc[j] + d * og * ((R)1 - tc * tc);
    R zi = (dct * c + ext[j]) * i * ((R)1 - i);
    R zf = (dct * cp[j] + ext[H + j]) * f * ((R)1 - f);
    R zg = (dct * i + ext[2 * H + j]) * ((R)1 - c * c);
    R zo = (d * tc + ext[3 * H + j]) * og * ((R)1 - og);
    dz[j] = zi;
    dz[H + j] = zf;
    dz[2 * H + j] = zg;
    dz[3 * H + j] = zo;
    db[j] += zi;
    db[H + j] += zf;
    db[2 * H + j] += zg;
    db[3 * H + j] += zo;
    dc[j] = dct * f;
    dhn[j] = 0;
  }
}

static inline void FN(gru_cell)(R *restrict gx, int64_t H, const R *restrict gh, int64_t nj,
                                const R *restrict bx, const R *restrict bh, const R *restrict hp,
                                R *restrict hcr, R *restrict o, R *restrict hn, int valid) {
  if (!valid) {
    for (int k = 0; k < 3; k++) memset(gx + k * H, 0, sizeof(R) * (size_t)nj);
    memset(hcr, 0, sizeof(R) * (size_t)nj);
    memset(o, 0, sizeof(R) * (size_t)nj);
    memcpy(hn, hp, sizeof(R) * (size_t)nj);
    return;
  }
#pragma omp simd
  for (int64_t j = GRU_FWD_BULK(gx, H, gh, nj, bx, bh, hp, hcr, o, hn); j < nj; j++) {
    R hr = gh[j] + bh[j], hz = gh[nj + j] + bh[H + j], hc = gh[2 * nj + j] + bh[2 * H + j];
    R r = SIG(gx[j] + bx[j] + hr);
    R z = SIG(gx[H + j] + bx[H + j] + hz);
    R c = TANH(gx[2 * H + j] + bx[2 * H + j] + r * hc);
    R h = (hp[j] - c) * z + c;
    gx[j] = r;
    gx[H + j] = z;
    gx[2 * H + j] = c;
    hcr[j] = hc;
    o[j] = h;
    hn[j] = h;
  }
}

/* GRU cell gradient: dxp (d of the input projection, 3 blocks), dhg (d of W_hh h + b_hh),
 * dhn = the direct part dh * z; ext: d (r, z, c), ehc: d hc. */
static inline void FN(gru_cell_bwd)(const R *restrict ga, int64_t H, const R *restrict hcr,
                                    const R *restrict hp, const R *restrict ext, const R *restrict ehc,
                                    const R *restrict dh, R *restrict dhn, R *restrict dxp, R *restrict dhg,
                                    R *restrict dbi, R *restrict dbh, int64_t nj, int valid) {
  if (!valid) {
    for (int k = 0; k < 3; k++) {
      memset(dxp + k * H, 0, sizeof(R) * (size_t)nj);
      memset(dhg + k * H, 0, sizeof(R) * (size_t)nj);
    }
    memcpy(dhn, dh, sizeof(R) * (size_t)nj);
    return;
  }
#pragma omp simd
  for (int64_t j = 0; j < nj; j++) {
    R r = ga[j], z = ga[H + j], c = ga[2 * H + j], d = dh[j];
    R dcc = (d * ((R)1 - z) + ext[2 * H + j]) * ((R)1 - c * c);
    R dr = (dcc * hcr[j] + ext[j]) * r * ((R)1 - r);
    R dzz = (d * (hp[j] - c) + ext[H + j]) * z * ((R)1 - z);
    R dhc = dcc * r + ehc[j];
    dxp[j] = dr;
    dxp[H + j] = dzz;
    dxp[2 * H + j] = dcc;
    dhg[j] = dr;
    dhg[H + j] = dzz;
    dhg[2 * H + j] = dhc;
    dbi[j] += dr;
    dbi[H + j] += dzz;
    dbi[2 * H + j] += dcc;
    dbh[j] += dr;
    dbh[H + j] += dzz;
    dbh[2 * H + j] += dhc;
    dhn[j] = d * z;
  }
}

static inline void FN(rnn_cell)(const R *restrict xp, R *restrict o, const R *restrict gh, const R *restrict bias,
                                const R *restrict hp, R *restrict hn, int64_t nj, int relu, int valid) {
  if (!valid) {
    memset(o, 0, sizeof(R) * (size_t)nj);
    memcpy(hn, hp, sizeof(R) * (size_t)nj);
    return;
  }
  if (relu) {
#pragma omp simd
    for (int64_t j = 0; j < nj; j++) {
      R v = xp[j] + bias[j] + gh[j];
      v = SEL(v > 0, v, (R)0);
      o[j] = v;
      hn[j] = v;
    }
  } else {
#pragma omp simd
    for (int64_t j = 0; j < nj; j++) {
      R v = TANH(xp[j] + bias[j] + gh[j]);
      o[j] = v;
      hn[j] = v;
    }
  }
}

static inline void FN(rnn_cell_bwd)(const R *restrict y, const R *restrict dh, R *restrict dhn, R *restrict dz,
                                    R *restrict db, int64_t nj, int relu, int valid) {
  if (!valid) {
    memset(dz, 0, sizeof(R) * (size_t)nj);
    memcpy(dhn, dh, sizeof(R) * (size_t)nj);
    return;
  }
  if (relu) {
#pragma omp simd
    for (int64_t j = 0; j < nj; j++) {
      R v = SEL(y[j] > 0, dh[j], (R)0);
      dz[j] = v;
      db[j] += v;
      dhn[j] = 0;
    }
  } else {
#pragma omp simd
    for (int64_t j = 0; j < nj; j++) {
      R v = dh[j] * ((R)1 - y[j] * y[j]);
      dz[j] = v;
      db[j] += v;
      dhn[j] = 0;
    }
  }
}

/* ------------------------------------------------------------------ shared steps */
/* Thread p's share of W_hh packed for the forward step GEMM (h @ W^T restricted to its units):
 * per gate k, B[i][n] = W[(k*H + j0 + n) * H + i], at P + k * pd_rnn_packed_len(H, nj). */
static void FN(pack_fwd)(const rnn_geom *g, const R *w, int64_t j0, int64_t nj, R *P) {
  for (int k = 0; k < g->G; k++)
    FN(pd_rnn_pack)(w + (k * g->H + j0) * g->H, g->H, nj, 1, g->H, P + (size_t)k * pd_rnn_packed_len(g->H, nj));
}
/* ... and for the backward step GEMM (dz @ W restricted to its columns): B[i][n] = W[i*H + j0 + n]. */
static void FN(pack_bwd)(const rnn_geom *g, const R *w, int64_t j0, int64_t nj, R *P) {
  FN(pd_rnn_pack)(w + j0, g->G * g->H, nj, g->H, 1, P);
}
/* gates of the slice for M rows: Gp [M, G*nj] (gate-major blocks) = hp [M, H] @ W^T (packed by
 * pack_fwd); zeros without a product when hp is all zeros (h0 of a zero initial state, the usual
 * case). The units split passes all B rows, the LSTM's row split its own rows with all H units. */
static void FN(step_fwd)(const rnn_geom *g, int64_t M, const R *hp, const R *P, int64_t nj, R *Gp, int hp_zero) {
  if (hp_zero) {
    memset(Gp, 0, sizeof(R) * (size_t)(M * g->G * nj));
    return;
  }
  for (int k = 0; k < g->G; k++)
    FN(pd_rnn_gemm)(M, nj, g->H, hp, g->H, P + (size_t)k * pd_rnn_packed_len(g->H, nj), Gp + k * nj, g->G * nj, 0);
}

static int FN(all_zero)(const R *p, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (p[i] != 0) return 0;
  return 1;
}

/* h before each step (in processing order) for the slice [j0, j0+nj) of rows [b0, b1), rows as x's:
 * the previous step's output where that step was valid, else h0 (a sequence stays at h0 until its
 * first valid step). */
static void FN(build_hprev)(const rnn_geom *g, const R *out, const R *h0, R *hprev, int64_t j0, int64_t nj,
                            int64_t b0, int64_t b1) {
  const int64_t H = g->H;
  for (int64_t s = 0; s < g->T; s++) {
    const int64_t t = rg_time(g, s), tp = s ? rg_time(g, s - 1) : -1;
    for (int64_t b = b0; b < b1; b++) {
      const R *src = (s && rg_valid(g, tp, b)) ? out + rg_row(g, tp, b) * H : h0 + b * H;
      memcpy(hprev + rg_row(g, t, b) * H + j0, src + j0, sizeof(R) * (size_t)nj);
    }
  }
}

/* The hidden-unit slice [j0, j0+nj) of rows [b0, b1) of a [B, H] state: copy src into dst, or zeros
 * when src is absent (an initial gradient nobody passed). */
static void FN(slice_copy)(const rnn_geom *g, void *dst, const void *src, int64_t j0, int64_t nj, int64_t b0,
                           int64_t b1) {
  const int64_t H = g->H;
  for (int64_t b = b0; b < b1; b++) {
    R *d = (R *)dst + b * H + j0;
    if (src) memcpy(d, (const R *)src + b * H + j0, sizeof(R) * (size_t)nj);
    else memset(d, 0, sizeof(R) * (size_t)nj);
  }
}

/* C = op(A) op(B) over the whole pool; zero when the contraction is empty. */
static void FN(big_gemm)(int ta, int tb, int64_t M, int64_t N, int64_t K, const R *A, int64_t lda, const R *B,
                         int64_t ldb, R *C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    for (int64_t i = 0; i < M; i++) memset(C + i * ldc, 0, sizeof(R) * (size_t)N);
    return;
  }
  pd_gemm(DT, ta, tb, M, N, K, A, lda, B, ldb, C, ldc);
}

/* C [M, N] = A^T B with A [K, M], B [K, N] (a weight gradient over the T*B rows). float32 where
 * pd_gemm's policy picks oneDNN (AVX-512 without OpenBLAS's AVX-512 kernels): through oneDNN's matmul
 * primitive, 18% faster than its sgemm on the LSTM benchmark's 1024 x 256 x 700 and 1024 x 128 x 700
 * (AVX-512 EPYC: 0.82 vs 1.00 ms, 0.42 vs 0.49 at 2 threads). Elsewhere OpenBLAS (big_gemm): on the
 * AVX2 EPYC both of oneDNN's paths ran these A^T shapes at ~60 GFLOP/s against OpenBLAS's 115-160
 * (2 threads: 1024 x 256 x 700 5.9-6.0 vs 2.3-3.2 ms). An empty dim (pd_gemm_f32_prim declines it)
 * goes to big_gemm. */
static void FN(weight_grad)(int64_t M, int64_t N, int64_t K, const R *A, const R *B, R *C) {
  if (DT == PD_FLOAT32 && pd_gemm_f32_on_dnnl(1, 0, M, N, K, N) &&
      pd_gemm_f32_prim(1, 0, M, N, K, (const float *)(const void *)A, M, (const float *)(const void *)B, N,
                       (float *)(void *)C, N))
    return;
  FN(big_gemm)(1, 0, M, N, K, A, M, B, N, C, N);
}
/* The weight / input / bias gradients after the reverse recurrence: dz [T*B, G*H] (d of the
 * input projection), dzh (d of W_hh h_prev; == dz for LSTM and simple RNN). */
static void FN(weight_grads)(const rnn_geom *g, const rnn_io *io, const R *dz, const R *dzh, const R *hprev) {
  const int64_t TB = g->T * g->B, GH = g->G * g->H;
  FN(weight_grad)(GH, g->H, TB, dzh, hprev, (R *)io->dw_hh);
  FN(weight_grad)(GH, g->In, TB, dz, (const R *)io->x, (R *)io->dw_ih);
  if (g->need_dx) FN(big_gemm)(0, 0, TB, g->In, GH, dz, GH, (const R *)io->w_ih, g->In, (R *)io->dx, g->In);
}

static R *FN(scratch)(size_t n, int *oom) {
  R *p = (R *)pd_alloc(sizeof(R) * (n ? n : 1));
  if (!p) *oom = 1;
  return p;
}

/* ------------------------------------------------------------------ LSTM */
/* the forward recurrence with thread p on batch rows [b0, b1) and all hidden units (rnn_rows_mode) */
static int FN(lstm_fwd_rows)(const rnn_geom *g, const rnn_io *io, const R *bias, int h0_zero, R *hst) {
  const int64_t T = g->T, B = g->B, H = g->H, GH = 4 * H;
  R *gates = (R *)io->res0, *cells = (R *)io->res1, *out = (R *)io->out;
  const R *h0 = (const R *)io->h0, *c0 = (const R *)io->c0, *w_hh = (const R *)io->w_hh;
  R *cst = hst + 2 * B * H;
  const size_t wlen = (size_t)g->G * pd_rnn_packed_len(H, H);
  int oom = 0;
#pragma omp parallel num_threads(g->nt)
  {
    const int p = omp_get_thread_num(), n = omp_get_num_threads();
    const int64_t b0 = B * p / n, b1 = B * (p + 1) / n, nb = b1 - b0;
    R *W = (R *)pd_alloc(sizeof(R) * wlen), *Gp = (R *)pd_alloc(sizeof(R) * (size_t)(nb * GH + 1));
    if (!W || !Gp) {
#pragma omp atomic write
      oom = 1;
    } else {
      FN(pack_fwd)(g, w_hh, 0, H, W); /* each thread its own copy: read from its own caches */
      for (int64_t s = 0; s < T && nb > 0; s++) {
        const int64_t t = rg_time(g, s);
        const R *hp = s ? hst + ((s - 1) & 1) * B * H : h0, *cp = s ? cst + ((s - 1) & 1) * B * H : c0;
        R *hn = hst + (s & 1) * B * H, *cn = cst + (s & 1) * B * H;
        FN(step_fwd)(g, nb, hp + b0 * H, W, H, Gp, s == 0 && h0_zero);
        for (int64_t b = b0; b < b1; b++) {
          const int64_t r = rg_row(g, t, b), o = b * H;
          FN(lstm_cell)(gates + r * GH, H, Gp + (b - b0) * GH, H, bias, cp + o, hp + o, out + r * H, cells + r * H,
                        hn + o, cn + o, rg_valid(g, t, b));
        }
      }
      const R *hl = T ? hst + ((T - 1) & 1) * B * H : h0, *cl = T ? cst + ((T - 1) & 1) * B * H : c0;
      FN(slice_copy)(g, io->h_n, hl, 0, H, b0, b1);
      FN(slice_copy)(g, io->c_n, cl, 0, H, b0, b1);
    }
    pd_free(W);
    pd_free(Gp);
  }
  return oom ? -1 : 0;
}

/* the reverse recurrence by batch rows (as lstm_fwd_rows); db summed afterwards from dz in the
 * units split's order (steps from the last, rows in order), so it has the same bits; zb: GH zeros */
static int FN(lstm_bwd_rows)(const rnn_geom *g, const rnn_io *io, R *dz, R *hprev, R *st, const R *zb) {
  const int64_t T = g->T, B = g->B, H = g->H, GH = 4 * H;
  const R *gates = (const R *)io->res0, *cells = (const R *)io->res1, *out = (const R *)io->out;
  const R *h0 = (const R *)io->h0, *c0 = (const R *)io->c0, *w_hh = (const R *)io->w_hh;
  const R *dout = (const R *)io->dout, *dga = (const R *)io->dres0, *dcl = (const R *)io->dres1;
  R *db = (R *)io->db_ih;
  const size_t wlen = pd_rnn_packed_len(GH, H);
  int oom = 0;
#pragma omp parallel num_threads(g->nt)
  {
    const int p = omp_get_thread_num(), n = omp_get_num_threads();
    const int64_t b0 = B * p / n, b1 = B * (p + 1) / n, nb = b1 - b0;
    /* sink: the cell's bias-gradient sums, unused here (db is summed below) */
    R *W = (R *)pd_alloc(sizeof(R) * wlen), *sink = (R *)pd_alloc(sizeof(R) * (size_t)GH);
    if (!W || !sink) {
#pragma omp atomic write
      oom = 1;
    } else {
      R *dh = st, *dhn = st + B * H, *dc = st + 2 * B * H;
      memset(sink, 0, sizeof(R) * (size_t)GH); /* no stray subnormals or NaNs to add to */
      FN(pack_bwd)(g, w_hh, 0, H, W);
      FN(build_hprev)(g, out, h0, hprev, 0, H, b0, b1);
      FN(slice_copy)(g, dh, io->dh_n, 0, H, b0, b1);
      FN(slice_copy)(g, dc, io->dc_n, 0, H, b0, b1);
      for (int64_t s = T - 1; s >= 0 && nb > 0; s--) {
        const int64_t t = rg_time(g, s);
        for (int64_t b = b0; b < b1; b++) {
          const int64_t r = rg_row(g, t, b), o = b * H;
          const R *cp = s ? cells + rg_row(g, rg_time(g, s - 1), b) * H : c0 + o;
          if (dcl)
            for (int64_t j = 0; j < H; j++) dc[o + j] += dcl[r * H + j];
          FN(lstm_cell_bwd)(gates + r * GH, H, cells + r * H, cp, dga ? dga + r * GH : zb, dh + o, dout ? dout + r * H : zb,
                            dc + o, dhn + o, dz + r * GH, sink, H, rg_valid(g, t, b));
        }
        if (s || g->need_dh0)
          FN(pd_rnn_gemm)(nb, H, GH, dz + rg_row(g, t, b0) * GH, rg_bstride(g) * GH, W, dhn + b0 * H, H, 1);
        R *tmp = dh;
        dh = dhn;
        dhn = tmp;
      }
      if (g->need_dh0) {
        FN(slice_copy)(g, io->dh0, dh, 0, H, b0, b1);
        FN(slice_copy)(g, io->dc0, dc, 0, H, b0, b1);
      }
    }
    pd_free(W);
    pd_free(sink);
#pragma omp barrier
    /* db = the sum of dz over the valid rows, steps from the last, rows in order: each thread a range of
     * the columns, in chunks of up to 1024 (the sums in L1) with the rows outer, so each row's part is
     * one contiguous run (column blocks of 64 walked the 700 rows of the benchmark's dz, 4 KB apart, 16
     * times: 67-120 us per thread). Each column's sum is the same sequence of additions either way. */
    if (!oom) {
      const int64_t cb = (GH + 15) / 16, c0 = cb * p / n * 16, c1e = cb * (p + 1) / n * 16, c1 = c1e < GH ? c1e : GH;
      R acc[1024];
      for (int64_t k0 = c0; k0 < c1; k0 += 1024) {
        const int64_t kn = c1 - k0 < 1024 ? c1 - k0 : 1024;
        for (int64_t k = 0; k < kn; k++) acc[k] = 0;
        for (int64_t s = T - 1; s >= 0; s--) {
          const int64_t t = rg_time(g, s);
          for (int64_t b = 0; b < B; b++) {
            if (!rg_valid(g, t, b)) continue;
            const R *zr = dz + rg_row(g, t, b) * GH + k0;
            for (int64_t k = 0; k < kn; k++) acc[k] += zr[k];
          }
        }
        for (int64_t k = 0; k < kn; k++) db[k0 + k] = acc[k];
      }
    }
  }
  return oom ? -1 : 0;
}

static pd_status FN(lstm_fwd)(const rnn_geom *g, const rnn_io *io) {
  const int64_t T = g->T, B = g->B, H = g->H, GH = 4 * H, nt = g->nt, njm = g->njmax;
  R *gates = (R *)io->res0, *cells = (R *)io->res1, *out = (R *)io->out;
  const R *h0 = (const R *)io->h0, *c0 = (const R *)io->c0, *w_hh = (const R *)io->w_hh;
  int oom = 0;
  const int rows = rnn_rows_mode(g); /* the rows split packs its own weights per thread */
  size_t off[RNN_MAX_THREADS + 1];
  R *bias = FN(scratch)((size_t)GH, &oom), *wp = rows ? NULL : FN(scratch)(rnn_pack_offsets(g, 1, off), &oom);
  R *gs = rows ? NULL : FN(scratch)((size_t)(nt * B * 4 * njm), &oom), *hst = FN(scratch)((size_t)(4 * B * H), &oom);
  if (oom) goto done;
  R *cst = hst + 2 * B * H;
  for (int64_t k = 0; k < GH; k++)
    bias[k] = (io->b_ih ? ((const R *)io->b_ih)[k] : 0) + (io->b_hh ? ((const R *)io->b_hh)[k] : 0);
  /* the input projections of all steps go into `gates`; the cell activates them in place */
  FN(big_gemm)(0, 1, T * B, GH, g->In, (const R *)io->x, g->In, (const R *)io->w_ih, g->In, gates, GH);
  const int h0_zero = FN(all_zero)(h0, B * H);
  if (rows) {
    oom = FN(lstm_fwd_rows)(g, io, bias, h0_zero, hst) < 0;
    goto done;
  }
  rnn_tstat ts[RNN_MAX_THREADS];
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const int p = omp_get_thread_num();
    double wait = 0, t_start = 0;
    const int64_t j0 = g->jb[p], nj = g->jb[p + 1] - j0;
    R *W = wp + off[p];
    FN(pack_fwd)(g, w_hh, j0, nj, W);
    R *Gp = gs + p * B * 4 * njm;
    t_start = omp_get_wtime();
    for (int64_t s = 0; s < T; s++) {
      const int64_t t = rg_time(g, s);
      const R *hp = s ? hst + ((s - 1) & 1) * B * H : h0, *cp = s ? cst + ((s - 1) & 1) * B * H : c0;
      R *hn = hst + (s & 1) * B * H, *cn = cst + (s & 1) * B * H;
      if (nj > 0) FN(step_fwd)(g, B, hp, W, nj, Gp, s == 0 && h0_zero);
      for (int64_t b = 0; b < B; b++) {
        const int64_t r = rg_row(g, t, b), o = b * H + j0;
        FN(lstm_cell)(gates + r * GH + j0, H, Gp + b * 4 * nj, nj, bias + j0, cp + o, hp + o, out + r * H + j0,
                      cells + r * H + j0, hn + o, cn + o, rg_valid(g, t, b));
      }
      RNN_BARRIER(wait);
    }
    ts[p].wait = wait;
    ts[p].busy = omp_get_wtime() - t_start;
    const R *hl = T ? hst + ((T - 1) & 1) * B * H : h0, *cl = T ? cst + ((T - 1) & 1) * B * H : c0;
    FN(slice_copy)(g, io->h_n, hl, j0, nj, 0, g->B);
    FN(slice_copy)(g, io->c_n, cl, j0, nj, 0, g->B);
  }
  rnn_note_contention(g, ts);
done:
  pd_free(bias);
  pd_free(wp);
  pd_free(gs);
  pd_free(hst);
  if (oom) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[lstm_seq] out of memory");
  return PD_OK;
}

static pd_status FN(lstm_bwd)(const rnn_geom *g, const rnn_io *io) {
  const int64_t T = g->T, B = g->B, H = g->H, GH = 4 * H, TB = T * B;
  const R *gates = (const R *)io->res0, *cells = (const R *)io->res1, *out = (const R *)io->out;
  const R *h0 = (const R *)io->h0, *c0 = (const R *)io->c0, *w_hh = (const R *)io->w_hh;
  const R *dout = (const R *)io->dout, *dga = (const R *)io->dres0, *dcl = (const R *)io->dres1;
  R *db = (R *)io->db_ih;
  int oom = 0;
  R *dz = FN(scratch)((size_t)(TB * GH), &oom), *hprev = FN(scratch)((size_t)(TB * H), &oom);
  R *st = FN(scratch)((size_t)(3 * B * H), &oom), *zb = FN(scratch)((size_t)GH, &oom);
  const int rows = rnn_rows_mode(g); /* the rows split packs its own weights per thread */
  size_t off[RNN_MAX_THREADS + 1];
  R *wp = rows ? NULL : FN(scratch)(rnn_pack_offsets(g, 0, off), &oom);
  if (oom) goto done;
  memset(zb, 0, sizeof(R) * (size_t)GH);
  if (rows) {
    if (FN(lstm_bwd_rows)(g, io, dz, hprev, st, zb) < 0) {
      oom = 1;
      goto done;
    }
    FN(weight_grads)(g, io, dz, dz, hprev);
    goto done;
  }
  rnn_tstat ts[RNN_MAX_THREADS];
#pragma omp parallel num_threads(g->nt) if (g->nt > 1)
  {
    const int p = omp_get_thread_num();
    double wait = 0, t_start = 0;
    const int64_t j0 = g->jb[p], nj = g->jb[p + 1] - j0;
    R *dh = st, *dhn = st + B * H, *dc = st + 2 * B * H, *W = wp + off[p];
    FN(pack_bwd)(g, w_hh, j0, nj, W);
    FN(build_hprev)(g, out, h0, hprev, j0, nj, 0, g->B);
    FN(slice_copy)(g, dh, io->dh_n, j0, nj, 0, g->B);
    FN(slice_copy)(g, dc, io->dc_n, j0, nj, 0, g->B);
    for (int k = 0; k < 4; k++) memset(db + k * H + j0, 0, sizeof(R) * (size_t)nj);
    t_start = omp_get_wtime();
    for (int64_t s = T - 1; s >= 0; s--) {
      const int64_t t = rg_time(g, s);
      for (int64_t b = 0; b < B; b++) {
        const int64_t r = rg_row(g, t, b), o = b * H + j0;
        const R *cp = s ? cells + rg_row(g, rg_time(g, s - 1), b) * H + j0 : c0 + o;
        if (dcl)
          for (int64_t j = 0; j < nj; j++) dc[o + j] += dcl[r * H + j0 + j];
        FN(lstm_cell_bwd)(gates + r * GH + j0, H, cells + r * H + j0, cp, dga ? dga + r * GH + j0 : zb + j0,
                          dh + o, dout ? dout + r * H + j0 : zb, dc + o, dhn + o, dz + r * GH + j0, db + j0, nj,
                          rg_valid(g, t, b));
      }
      RNN_BARRIER(wait);
      if (nj > 0 && (s || g->need_dh0))
        FN(pd_rnn_gemm)(B, nj, GH, dz + rg_row(g, t, 0) * GH, rg_bstride(g) * GH, W, dhn + j0, H, 1);
      R *tmp = dh;
      dh = dhn;
      dhn = tmp;
    }
    ts[p].wait = wait;
    ts[p].busy = omp_get_wtime() - t_start;
    if (g->need_dh0) {
      FN(slice_copy)(g, io->dh0, dh, j0, nj, 0, g->B);
      FN(slice_copy)(g, io->dc0, dc, j0, nj, 0, g->B);
    }
  }
  rnn_note_contention(g, ts);
  FN(weight_grads)(g, io, dz, dz, hprev);
done:
  pd_free(dz);
  pd_free(hprev);
  pd_free(st);
  pd_free(wp);
  pd_free(zb);
  if (oom) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[lstm_seq_grad] out of memory");
  return PD_OK;
}

/* ------------------------------------------------------------------ GRU */
static pd_status FN(gru_fwd)(const rnn_geom *g, const rnn_io *io) {
  const int64_t T = g->T, B = g->B, H = g->H, GH = 3 * H, nt = g->nt, njm = g->njmax;
  R *gates = (R *)io->res0, *hc = (R *)io->res1, *out = (R *)io->out;
  const R *h0 = (const R *)io->h0, *w_hh = (const R *)io->w_hh;
  int oom = 0;
  size_t off[RNN_MAX_THREADS + 1];
  R *bias = FN(scratch)((size_t)(2 * GH), &oom), *wp = FN(scratch)(rnn_pack_offsets(g, 1, off), &oom);
  R *gs = FN(scratch)((size_t)(nt * B * 3 * njm), &oom), *hst = FN(scratch)((size_t)(2 * B * H), &oom);
  if (oom) goto done;
  for (int64_t k = 0; k < GH; k++) {
    bias[k] = io->b_ih ? ((const R *)io->b_ih)[k] : 0;
    bias[GH + k] = io->b_hh ? ((const R *)io->b_hh)[k] : 0;
  }
  FN(big_gemm)(0, 1, T * B, GH, g->In, (const R *)io->x, g->In, (const R *)io->w_ih, g->In, gates, GH);
  const int h0_zero = FN(all_zero)(h0, B * H);
  rnn_tstat ts[RNN_MAX_THREADS];
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const int p = omp_get_thread_num();
    double wait = 0, t_start = 0;
    const int64_t j0 = g->jb[p], nj = g->jb[p + 1] - j0;
    R *W = wp + off[p];
    FN(pack_fwd)(g, w_hh, j0, nj, W);
    R *Gp = gs + p * B * 3 * njm;
    t_start = omp_get_wtime();
    for (int64_t s = 0; s < T; s++) {
      const int64_t t = rg_time(g, s);
      const R *hp = s ? hst + ((s - 1) & 1) * B * H : h0;
      R *hn = hst + (s & 1) * B * H;
      if (nj > 0) FN(step_fwd)(g, B, hp, W, nj, Gp, s == 0 && h0_zero);
      for (int64_t b = 0; b < B; b++) {
        const int64_t r = rg_row(g, t, b), o = b * H + j0;
        FN(gru_cell)(gates + r * GH + j0, H, Gp + b * 3 * nj, nj, bias + j0, bias + GH + j0, hp + o,
                     hc + r * H + j0, out + r * H + j0, hn + o, rg_valid(g, t, b));
      }
      RNN_BARRIER(wait);
    }
    ts[p].wait = wait;
    ts[p].busy = omp_get_wtime() - t_start;
    const R *hl = T ? hst + ((T - 1) & 1) * B * H : h0;
    FN(slice_copy)(g, io->h_n, hl, j0, nj, 0, g->B);
  }
  rnn_note_contention(g, ts);
done:
  pd_free(bias);
  pd_free(wp);
  pd_free(gs);
  pd_free(hst);
  if (oom) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[gru_seq] out of memory");
  return PD_OK;
}

static pd_status FN(gru_bwd)(const rnn_geom *g, const rnn_io *io) {
  const int64_t T = g->T, B = g->B, H = g->H, GH = 3 * H, TB = T * B;
  const R *gates = (const R *)io->res0, *hcs = (const R *)io->res1, *out = (const R *)io->out;
  const R *h0 = (const R *)io->h0, *w_hh = (const R *)io->w_hh;
  const R *dout = (const R *)io->dout, *dga = (const R *)io->dres0, *dhc = (const R *)io->dres1;
  R *dbi = (R *)io->db_ih, *dbh = (R *)io->db_hh;
  int oom = 0;
  R *dxp = FN(scratch)((size_t)(TB * GH), &oom), *dhg = FN(scratch)((size_t)(TB * GH), &oom);
  R *hprev = FN(scratch)((size_t)(TB * H), &oom), *st = FN(scratch)((size_t)(2 * B * H), &oom);
  R *zb = FN(scratch)((size_t)GH, &oom);
  size_t off[RNN_MAX_THREADS + 1];
  R *wp = FN(scratch)(rnn_pack_offsets(g, 0, off), &oom);
  if (oom) goto done;
  memset(zb, 0, sizeof(R) * (size_t)GH);
  rnn_tstat ts[RNN_MAX_THREADS];
#pragma omp parallel num_threads(g->nt) if (g->nt > 1)
  {
    const int p = omp_get_thread_num();
    double wait = 0, t_start = 0;
    const int64_t j0 = g->jb[p], nj = g->jb[p + 1] - j0;
    R *dh = st, *dhn = st + B * H, *W = wp + off[p];
    FN(pack_bwd)(g, w_hh, j0, nj, W);
    FN(build_hprev)(g, out, h0, hprev, j0, nj, 0, g->B);
    FN(slice_copy)(g, dh, io->dh_n, j0, nj, 0, g->B);
    for (int k = 0; k < 3; k++) {
      memset(dbi + k * H + j0, 0, sizeof(R) * (size_t)nj);
      memset(dbh + k * H + j0, 0, sizeof(R) * (size_t)nj);
    }
    t_start = omp_get_wtime();
    for (int64_t s = T - 1; s >= 0; s--) {
      const int64_t t = rg_time(g, s);
      for (int64_t b = 0; b < B; b++) {
        const int64_t r = rg_row(g, t, b), o = b * H + j0;
        const int v = rg_valid(g, t, b);
        if (dout && v) /* outputs past a length are constant zeros */
          for (int64_t j = 0; j < nj; j++) dh[o + j] += dout[r * H + j0 + j];
        FN(gru_cell_bwd)(gates + r * GH + j0, H, hcs + r * H + j0, hprev + r * H + j0,
                         dga ? dga + r * GH + j0 : zb + j0, dhc ? dhc + r * H + j0 : zb, dh + o, dhn + o,
                         dxp + r * GH + j0, dhg + r * GH + j0, dbi + j0, dbh + j0, nj, v);
      }
      RNN_BARRIER(wait);
      if (nj > 0 && (s || g->need_dh0))
        FN(pd_rnn_gemm)(B, nj, GH, dhg + rg_row(g, t, 0) * GH, rg_bstride(g) * GH, W, dhn + j0, H, 1);
      R *tmp = dh;
      dh = dhn;
      dhn = tmp;
    }
    ts[p].wait = wait;
    ts[p].busy = omp_get_wtime() - t_start;
    if (g->need_dh0) FN(slice_copy)(g, io->dh0, dh, j0, nj, 0, g->B);
  }
  rnn_note_contention(g, ts);
  FN(weight_grads)(g, io, dxp, dhg, hprev);
done:
  pd_free(dxp);
  pd_free(dhg);
  pd_free(hprev);
  pd_free(st);
  pd_free(wp);
  pd_free(zb);
  if (oom) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[gru_seq_grad] out of memory");
  return PD_OK;
}

/* ------------------------------------------------------------------ simple RNN */
static pd_status FN(rnn_fwd)(const rnn_geom *g, const rnn_io *io) {
  const int64_t T = g->T, B = g->B, H = g->H, nt = g->nt, njm = g->njmax;
  R *out = (R *)io->out;
  const R *h0 = (const R *)io->h0, *w_hh = (const R *)io->w_hh;
  int oom = 0;
  size_t off[RNN_MAX_THREADS + 1];
  R *bias = FN(scratch)((size_t)H, &oom), *gs = FN(scratch)((size_t)(nt * B * njm), &oom);
  R *wp = FN(scratch)(rnn_pack_offsets(g, 1, off), &oom);
  R *hst = FN(scratch)((size_t)(2 * B * H), &oom), *xp = FN(scratch)((size_t)(T * B * H), &oom);
  if (oom) goto done;
  for (int64_t k = 0; k < H; k++)
    bias[k] = (io->b_ih ? ((const R *)io->b_ih)[k] : 0) + (io->b_hh ? ((const R *)io->b_hh)[k] : 0);
  FN(big_gemm)(0, 1, T * B, H, g->In, (const R *)io->x, g->In, (const R *)io->w_ih, g->In, xp, H);
  const int h0_zero = FN(all_zero)(h0, B * H);
  rnn_tstat ts[RNN_MAX_THREADS];
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const int p = omp_get_thread_num();
    double wait = 0, t_start = 0;
    const int64_t j0 = g->jb[p], nj = g->jb[p + 1] - j0;
    R *Gp = gs + p * B * njm, *W = wp + off[p];
    FN(pack_fwd)(g, w_hh, j0, nj, W);
    t_start = omp_get_wtime();
    for (int64_t s = 0; s < T; s++) {
      const int64_t t = rg_time(g, s);
      const R *hp = s ? hst + ((s - 1) & 1) * B * H : h0;
      R *hn = hst + (s & 1) * B * H;
      if (nj > 0) FN(step_fwd)(g, B, hp, W, nj, Gp, s == 0 && h0_zero);
      for (int64_t b = 0; b < B; b++) {
        const int64_t r = rg_row(g, t, b), o = b * H + j0;
        FN(rnn_cell)(xp + r * H + j0, out + r * H + j0, Gp + b * nj, bias + j0, hp + o, hn + o, nj, g->relu,
                     rg_valid(g, t, b));
      }
      RNN_BARRIER(wait);
    }
    ts[p].wait = wait;
    ts[p].busy = omp_get_wtime() - t_start;
    const R *hl = T ? hst + ((T - 1) & 1) * B * H : h0;
    FN(slice_copy)(g, io->h_n, hl, j0, nj, 0, g->B);
  }
  rnn_note_contention(g, ts);
done:
  pd_free(bias);
  pd_free(gs);
  pd_free(wp);
  pd_free(hst);
  pd_free(xp);
  if (oom) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[simple_rnn_seq] out of memory");
  return PD_OK;
}

static pd_status FN(rnn_bwd)(const rnn_geom *g, const rnn_io *io) {
  const int64_t T = g->T, B = g->B, H = g->H, TB = T * B;
  const R *out = (const R *)io->out, *h0 = (const R *)io->h0, *w_hh = (const R *)io->w_hh;
  const R *dout = (const R *)io->dout;
  R *db = (R *)io->db_ih;
  int oom = 0;
  R *dz = FN(scratch)((size_t)(TB * H), &oom), *hprev = FN(scratch)((size_t)(TB * H), &oom);
  R *st = FN(scratch)((size_t)(2 * B * H), &oom);
  size_t off[RNN_MAX_THREADS + 1];
  R *wp = FN(scratch)(rnn_pack_offsets(g, 0, off), &oom);
  if (oom) goto done;
  rnn_tstat ts[RNN_MAX_THREADS];
#pragma omp parallel num_threads(g->nt) if (g->nt > 1)
  {
    const int p = omp_get_thread_num();
    double wait = 0, t_start = 0;
    const int64_t j0 = g->jb[p], nj = g->jb[p + 1] - j0;
    R *dh = st, *dhn = st + B * H, *W = wp + off[p];
    FN(pack_bwd)(g, w_hh, j0, nj, W);
    FN(build_hprev)(g, out, h0, hprev, j0, nj, 0, g->B);
    FN(slice_copy)(g, dh, io->dh_n, j0, nj, 0, g->B);
    memset(db + j0, 0, sizeof(R) * (size_t)nj);
    t_start = omp_get_wtime();
    for (int64_t s = T - 1; s >= 0; s--) {
      const int64_t t = rg_time(g, s);
      for (int64_t b = 0; b < B; b++) {
        const int64_t r = rg_row(g, t, b), o = b * H + j0;
        const int v = rg_valid(g, t, b);
        if (dout && v) /* outputs past a length are constant zeros */
          for (int64_t j = 0; j < nj; j++) dh[o + j] += dout[r * H + j0 + j];
        FN(rnn_cell_bwd)(out + r * H + j0, dh + o, dhn + o, dz + r * H + j0, db + j0, nj, g->relu, v);
      }
      RNN_BARRIER(wait);
      if (nj > 0 && (s || g->need_dh0))
        FN(pd_rnn_gemm)(B, nj, H, dz + rg_row(g, t, 0) * H, rg_bstride(g) * H, W, dhn + j0, H, 1);
      R *tmp = dh;
      dh = dhn;
      dhn = tmp;
    }
    ts[p].wait = wait;
    ts[p].busy = omp_get_wtime() - t_start;
    if (g->need_dh0) FN(slice_copy)(g, io->dh0, dh, j0, nj, 0, g->B);
  }
  rnn_note_contention(g, ts);
  FN(weight_grads)(g, io, dz, dz, hprev);
done:
  pd_free(dz);
  pd_free(hprev);
  pd_free(st);
  pd_free(wp);
  if (oom) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[simple_rnn_seq_grad] out of memory");
  return PD_OK;
}
