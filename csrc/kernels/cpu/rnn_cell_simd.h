/* Vector float32 bodies of the LSTM and GRU cells, one source for both ISA copies of rnn_seq.c (8
 * floats per vector in the AVX2/FMA copy, 16 in the AVX-512 one; rnn_seq.c includes this for the
 * float32 instantiation of rnn_seq_tmpl.h; the template's plain loops finish the last nj % RC_W
 * units and run float64). The plain loops compile to one 8-wide vector per iteration whose exp ->
 * divide -> exp chain (~140 dependent-in-order uops) fills Zen 3's FP scheduler, so one iteration
 * barely overlaps the next: 5.3 ns per hidden unit for the LSTM forward cell. Here every step is
 * applied to NV = 4 independent vectors side by side (32 units), which keeps both FMA pipes busy:
 * 2.7 ns per unit (measured alone, one core, 20 rows x 128 units, 35 steps). A reciprocal estimate
 * plus a Newton step instead of the divisions measured no faster, so the divisions stay exact.
 *
 * exp: Cody-Waite reduction by ln2 and the same degree-8 Taylor polynomial as pd_vexpf
 * (pd_vmath.h), with one 2^k scaling: the input is clamped to [-87, 88], where 2^k stays a normal
 * float, which is all sigmoid and tanh need (exp(-87) ~ 1.6e-38 against 1). The clamp keeps NaN
 * (max/min return their second operand when one is NaN, so x goes second), and a NaN pre-
 * activation gives a NaN gate as the plain loops do. */
#ifndef PD_RNN_CELL_SIMD_H
#define PD_RNN_CELL_SIMD_H
#include <immintrin.h>
#include <stdint.h>

/* The vector width: 16 floats in the AVX-512 copy of rnn_seq.c (zmm), 8 in the AVX2 copy. */
#if defined(__AVX512F__)
typedef __m512 rcv;
typedef __m512i rcvi;
#define RC_W 16
#define RC_(op) _mm512_##op
#define RC_CAST_I _mm512_castps_si512
#define RC_CAST_F _mm512_castsi512_ps
#else
typedef __m256 rcv;
typedef __m256i rcvi;
#define RC_W 8
#define RC_(op) _mm256_##op
#define RC_CAST_I _mm256_castps_si256
#define RC_CAST_F _mm256_castsi256_ps
#endif
#define RC_INL static inline __attribute__((always_inline))
#define RC_NV 4 /* vectors side by side */

RC_INL rcv rc_set(float v) { return RC_(set1_ps)(v); }
RC_INL rcv rc_ld(const float *p) { return RC_(loadu_ps)(p); }

/* x[u] <- exp(x[u]) for u < nv */
RC_INL void rc_exp(rcv *x, int nv) {
  const rcv magic = rc_set(12582912.0f); /* 1.5 * 2^23: adding it rounds to an integer */
  rcv t[RC_NV], kk[RC_NV], r[RC_NV], p[RC_NV];
  for (int u = 0; u < nv; u++) {
    x[u] = RC_(min_ps)(rc_set(88.0f), RC_(max_ps)(rc_set(-87.0f), x[u]));
    t[u] = RC_(fmadd_ps)(x[u], rc_set(1.44269504088896341f), magic);
  }
  for (int u = 0; u < nv; u++) kk[u] = RC_(sub_ps)(t[u], magic);
  for (int u = 0; u < nv; u++) r[u] = RC_(fmadd_ps)(kk[u], rc_set(-0.693145751953125f), x[u]);
  for (int u = 0; u < nv; u++) r[u] = RC_(fmadd_ps)(kk[u], rc_set(-1.428606765330187e-06f), r[u]);
  for (int u = 0; u < nv; u++) p[u] = rc_set(2.48015873e-05f);
  static const float c[8] = {1.98412698e-04f, 1.38888889e-03f, 8.33333333e-03f, 4.16666667e-02f,
                             1.66666667e-01f, 0.5f, 1.0f, 1.0f};
  for (int i = 0; i < 8; i++)
    for (int u = 0; u < nv; u++) p[u] = RC_(fmadd_ps)(p[u], r[u], rc_set(c[i]));
  for (int u = 0; u < nv; u++) {
    const rcvi k = RC_(sub_epi32)(RC_CAST_I(t[u]), RC_CAST_I(magic));
    const rcvi e = RC_(slli_epi32)(RC_(add_epi32)(k, RC_(set1_epi32)(127)), 23);
    x[u] = RC_(mul_ps)(p[u], RC_CAST_F(e));
  }
}
/* 1 / (1 + e) */
RC_INL rcv rc_inv1p(rcv e) { return RC_(div_ps)(rc_set(1.0f), RC_(add_ps)(rc_set(1.0f), e)); }
/* x[u] <- sigmoid(x[u]) = 1 / (1 + exp(-x)) */
RC_INL void rc_sigmoid(rcv *x, int nv) {
  for (int u = 0; u < nv; u++) x[u] = RC_(sub_ps)(RC_(setzero_ps)(), x[u]);
  rc_exp(x, nv);
  for (int u = 0; u < nv; u++) x[u] = rc_inv1p(x[u]);
}
/* x[u] <- tanh(x[u]) = 1 - 2 / (1 + exp(2x)) */
RC_INL void rc_tanh(rcv *x, int nv) {
  for (int u = 0; u < nv; u++) x[u] = RC_(add_ps)(x[u], x[u]);
  rc_exp(x, nv);
  for (int u = 0; u < nv; u++) x[u] = RC_(fnmadd_ps)(rc_set(2.0f), rc_inv1p(x[u]), rc_set(1.0f));
}

/* --------------------------------------------------------------- LSTM forward */
/* Units [j, j + RC_W nv) of lstm_cell (rnn_seq_tmpl.h has the reference loop and the layout). */
RC_INL void rc_lstm_fwd(float *restrict gx, int64_t H, const float *restrict gh, int64_t nj,
                        const float *restrict bias, const float *restrict cp, float *restrict o,
                        float *restrict cl, float *restrict hn, float *restrict cn, int64_t j, int nv) {
  rcv z[4][RC_NV], cv[RC_NV], th[RC_NV];
  for (int g = 0; g < 4; g++)
    for (int u = 0; u < nv; u++) {
      const int64_t q = j + RC_W * u;
      z[g][u] = RC_(add_ps)(RC_(add_ps)(rc_ld(gx + g * H + q), rc_ld(bias + g * H + q)), rc_ld(gh + g * nj + q));
    }
  rc_sigmoid(z[0], nv);
  rc_sigmoid(z[1], nv);
  rc_tanh(z[2], nv);
  rc_sigmoid(z[3], nv);
  for (int u = 0; u < nv; u++) {
    cv[u] = RC_(fmadd_ps)(z[1][u], rc_ld(cp + j + RC_W * u), RC_(mul_ps)(z[0][u], z[2][u]));
    th[u] = cv[u];
  }
  rc_tanh(th, nv);
  for (int u = 0; u < nv; u++) {
    const int64_t q = j + RC_W * u;
    const rcv hv = RC_(mul_ps)(z[3][u], th[u]);
    for (int g = 0; g < 4; g++) RC_(storeu_ps)(gx + g * H + q, z[g][u]);
    RC_(storeu_ps)(cl + q, cv[u]);
    RC_(storeu_ps)(cn + q, cv[u]);
    RC_(storeu_ps)(o + q, hv);
    RC_(storeu_ps)(hn + q, hv);
  }
}
/* the vector part of lstm_cell: returns the units done (a multiple of RC_W) */
static inline int64_t rc_lstm_fwd_bulk(float *restrict gx, int64_t H, const float *restrict gh, int64_t nj,
                                       const float *restrict bias, const float *restrict cp, float *restrict o,
                                       float *restrict cl, float *restrict hn, float *restrict cn) {
  int64_t j = 0;
  for (; j + RC_W * RC_NV <= nj; j += RC_W * RC_NV) rc_lstm_fwd(gx, H, gh, nj, bias, cp, o, cl, hn, cn, j, RC_NV);
  for (; j + RC_W <= nj; j += RC_W) rc_lstm_fwd(gx, H, gh, nj, bias, cp, o, cl, hn, cn, j, 1);
  return j;
}

/* --------------------------------------------------------------- LSTM backward */
RC_INL void rc_lstm_bwd(const float *restrict ga, int64_t H, const float *restrict cl, const float *restrict cp,
                        const float *restrict ext, const float *restrict dh, const float *restrict go,
                        float *restrict dc, float *restrict dhn, float *restrict dz, float *restrict db, int64_t j,
                        int nv) {
  rcv tc[RC_NV];
  const rcv one = rc_set(1.0f);
  for (int u = 0; u < nv; u++) tc[u] = rc_ld(cl + j + RC_W * u);
  rc_tanh(tc, nv);
  for (int u = 0; u < nv; u++) {
    const int64_t q = j + RC_W * u;
    const rcv i = rc_ld(ga + q), f = rc_ld(ga + H + q), c = rc_ld(ga + 2 * H + q), og = rc_ld(ga + 3 * H + q);
    const rcv d = RC_(add_ps)(rc_ld(dh + q), rc_ld(go + q));
    const rcv dct = RC_(fmadd_ps)(RC_(mul_ps)(d, og), RC_(fnmadd_ps)(tc[u], tc[u], one), rc_ld(dc + q));
    const rcv zi = RC_(mul_ps)(RC_(mul_ps)(RC_(fmadd_ps)(dct, c, rc_ld(ext + q)), i), RC_(sub_ps)(one, i));
    const rcv zf =
        RC_(mul_ps)(RC_(mul_ps)(RC_(fmadd_ps)(dct, rc_ld(cp + q), rc_ld(ext + H + q)), f), RC_(sub_ps)(one, f));
    const rcv zg = RC_(mul_ps)(RC_(fmadd_ps)(dct, i, rc_ld(ext + 2 * H + q)), RC_(fnmadd_ps)(c, c, one));
    const rcv zo =
        RC_(mul_ps)(RC_(mul_ps)(RC_(fmadd_ps)(d, tc[u], rc_ld(ext + 3 * H + q)), og), RC_(sub_ps)(one, og));
    RC_(storeu_ps)(dz + q, zi);
    RC_(storeu_ps)(dz + H + q, zf);
    RC_(storeu_ps)(dz + 2 * H + q, zg);
    RC_(storeu_ps)(dz + 3 * H + q, zo);
    RC_(storeu_ps)(db + q, RC_(add_ps)(rc_ld(db + q), zi));
    RC_(storeu_ps)(db + H + q, RC_(add_ps)(rc_ld(db + H + q), zf));
    RC_(storeu_ps)(db + 2 * H + q, RC_(add_ps)(rc_ld(db + 2 * H + q), zg));
    RC_(storeu_ps)(db + 3 * H + q, RC_(add_ps)(rc_ld(db + 3 * H + q), zo));
    RC_(storeu_ps)(dc + q, RC_(mul_ps)(dct, f));
    RC_(storeu_ps)(dhn + q, RC_(setzero_ps)());
  }
}
static inline int64_t rc_lstm_bwd_bulk(const float *restrict ga, int64_t H, const float *restrict cl,
                                       const float *restrict cp, const float *restrict ext, const float *restrict dh,
                                       const float *restrict go, float *restrict dc, float *restrict dhn,
                                       float *restrict dz, float *restrict db, int64_t nj) {
  int64_t j = 0;
  for (; j + RC_W * RC_NV <= nj; j += RC_W * RC_NV) rc_lstm_bwd(ga, H, cl, cp, ext, dh, go, dc, dhn, dz, db, j, RC_NV);
  for (; j + RC_W <= nj; j += RC_W) rc_lstm_bwd(ga, H, cl, cp, ext, dh, go, dc, dhn, dz, db, j, 1);
  return j;
}

/* --------------------------------------------------------------- GRU forward */
RC_INL void rc_gru_fwd(float *restrict gx, int64_t H, const float *restrict gh, int64_t nj, const float *restrict bx,
                       const float *restrict bh, const float *restrict hp, float *restrict hcr, float *restrict o,
                       float *restrict hn, int64_t j, int nv) {
  rcv r[RC_NV], z[RC_NV], c[RC_NV], hc[RC_NV];
  for (int u = 0; u < nv; u++) {
    const int64_t q = j + RC_W * u;
    const rcv hr = RC_(add_ps)(rc_ld(gh + q), rc_ld(bh + q));
    const rcv hz = RC_(add_ps)(rc_ld(gh + nj + q), rc_ld(bh + H + q));
    hc[u] = RC_(add_ps)(rc_ld(gh + 2 * nj + q), rc_ld(bh + 2 * H + q));
    r[u] = RC_(add_ps)(RC_(add_ps)(rc_ld(gx + q), rc_ld(bx + q)), hr);
    z[u] = RC_(add_ps)(RC_(add_ps)(rc_ld(gx + H + q), rc_ld(bx + H + q)), hz);
  }
  rc_sigmoid(r, nv);
  rc_sigmoid(z, nv);
  for (int u = 0; u < nv; u++) {
    const int64_t q = j + RC_W * u;
    c[u] = RC_(fmadd_ps)(r[u], hc[u], RC_(add_ps)(rc_ld(gx + 2 * H + q), rc_ld(bx + 2 * H + q)));
  }
  rc_tanh(c, nv);
  for (int u = 0; u < nv; u++) {
    const int64_t q = j + RC_W * u;
    const rcv h = RC_(fmadd_ps)(RC_(sub_ps)(rc_ld(hp + q), c[u]), z[u], c[u]);
    RC_(storeu_ps)(gx + q, r[u]);
    RC_(storeu_ps)(gx + H + q, z[u]);
    RC_(storeu_ps)(gx + 2 * H + q, c[u]);
    RC_(storeu_ps)(hcr + q, hc[u]);
    RC_(storeu_ps)(o + q, h);
    RC_(storeu_ps)(hn + q, h);
  }
}
static inline int64_t rc_gru_fwd_bulk(float *restrict gx, int64_t H, const float *restrict gh, int64_t nj,
                                      const float *restrict bx, const float *restrict bh, const float *restrict hp,
                                      float *restrict hcr, float *restrict o, float *restrict hn) {
  int64_t j = 0;
  for (; j + RC_W * RC_NV <= nj; j += RC_W * RC_NV) rc_gru_fwd(gx, H, gh, nj, bx, bh, hp, hcr, o, hn, j, RC_NV);
  for (; j + RC_W <= nj; j += RC_W) rc_gru_fwd(gx, H, gh, nj, bx, bh, hp, hcr, o, hn, j, 1);
  return j;
}

#undef RC_INL
#undef RC_
#undef RC_CAST_I
#undef RC_CAST_F
#endif
