// The pooling element functions of the 'dnn' family (dnn_pool.cu's kernels call them per output
// / input element; tests/cuda/dnn_pool_host_check.cu runs the same functions on the host): pool.c's
// window rules and order of operations. See dnn_pool.cu.
#ifndef PD_DNN_POOL_CUH
#define PD_DNN_POOL_CUH
#include "dnn_common.cuh"

namespace pddnn {

typedef pd_cuda_pool_geom PG;

PD_HD void win(const PG &g, int i, int64_t o, int64_t &lo, int64_t &hi, int64_t &ext) {
  if (g.adaptive) {
    lo = o * g.in[i] / g.out[i];
    hi = ((o + 1) * g.in[i] + g.out[i] - 1) / g.out[i];
    ext = hi - lo;
    return;
  }
  int64_t s = o * g.s[i] - g.pl[i], e = s + g.k[i];
  if (e > g.in[i] + g.pr[i]) e = g.in[i] + g.pr[i];
  ext = e - s;
  lo = s < 0 ? 0 : s;
  hi = e > g.in[i] ? g.in[i] : e;
}

// the first maximum of window [d0,d1) x [h0,h1) x [w0,w1) of plane xb (element ii at xb[ii * step])
template <typename T>
PD_HD int64_t argmax_win(const PG &g, const T *xb, int64_t step, int64_t d0, int64_t d1, int64_t h0, int64_t h1,
                         int64_t w0, int64_t w1, typename acc_of<T>::type &best) {
  typedef typename acc_of<T>::type A;
  best = A(0);
  int64_t bi = -1;
  for (int64_t d = d0; d < d1; d++)
    for (int64_t h = h0; h < h1; h++)
      for (int64_t w = w0; w < w1; w++) {
        const int64_t ii = (d * g.in[1] + h) * g.in[2] + w;
        const A v = to_acc(xb[ii * step]);
        if (bi < 0 || v > best || (v != v && best == best)) {
          best = v;
          bi = ii;
        }
      }
  return bi;
}

// output element i (in y's memory order): y[i] and the mask value
template <typename T>
PD_HD void pool_fwd_at(const PG &g, const T *x, int64_t i, T *y, int32_t *mask) {
  typedef typename acc_of<T>::type A;
  const int64_t IS = g.in[0] * g.in[1] * g.in[2], OS = g.out[0] * g.out[1] * g.out[2];
  int64_t c, o, nn;
  if (g.nhwc) {
    c = i % g.C;
    o = (i / g.C) % OS;
    nn = i / (g.C * OS);
  } else {
    o = i % OS;
    c = (i / OS) % g.C;
    nn = i / (OS * g.C);
  }
  const int64_t ow = o % g.out[2], oh = (o / g.out[2]) % g.out[1], od = o / (g.out[2] * g.out[1]);
  int64_t d0, d1, h0, h1, w0, w1, ed, eh, ew;
  win(g, 0, od, d0, d1, ed);
  win(g, 1, oh, h0, h1, eh);
  win(g, 2, ow, w0, w1, ew);
  const T *xb = g.nhwc ? x + nn * IS * g.C + c : x + (nn * g.C + c) * IS;
  const int64_t step = g.nhwc ? g.C : 1;
  if (g.is_max) {
    A best;
    const int64_t bi = argmax_win(g, xb, step, d0, d1, h0, h1, w0, w1, best);
    y[i] = from_acc<T>(bi < 0 ? A(0) : best);
    if (mask) mask[i] = bi < 0 ? -1 : (int32_t)bi;
  } else {
    const int64_t cnt = (g.exclusive || g.adaptive) ? (d1 - d0) * (h1 - h0) * (w1 - w0) : ed * eh * ew;
    const A inv = cnt > 0 ? A(1) / (A)cnt : A(0);
    A acc = A(0);
    for (int64_t d = d0; d < d1; d++)
      for (int64_t h = h0; h < h1; h++)
        for (int64_t w = w0; w < w1; w++) acc = add_rn(acc, to_acc(xb[((d * g.in[1] + h) * g.in[2] + w) * step]));
    y[i] = from_acc<T>(mul_rn(acc, inv));
  }
}

// outputs whose window may contain input position p along dim i: [lo, hi] (checked by win)
PD_HD void out_range(const PG &g, int i, int64_t p, int64_t &lo, int64_t &hi) {
  if (g.adaptive) {
    lo = p * g.out[i] / g.in[i] - 1;
    hi = ((p + 1) * g.out[i] + g.in[i] - 1) / g.in[i];
  } else {
    const int64_t a = p + g.pl[i] - g.k[i] + 1;
    lo = a <= 0 ? 0 : (a + g.s[i] - 1) / g.s[i];
    hi = (p + g.pl[i]) / g.s[i];
  }
  if (lo < 0) lo = 0;
  if (hi > g.out[i] - 1) hi = g.out[i] - 1;
}

// input element i (in x's memory order): the gradient, summed in increasing output order
template <typename T>
PD_HD T pool_bwd_at(const PG &g, const T *x, const T *dout, int64_t i) {
  typedef typename acc_of<T>::type A;
  const int64_t IS = g.in[0] * g.in[1] * g.in[2], OS = g.out[0] * g.out[1] * g.out[2];
  int64_t c, ii, nn;
  if (g.nhwc) {
    c = i % g.C;
    ii = (i / g.C) % IS;
    nn = i / (g.C * IS);
  } else {
    ii = i % IS;
    c = (i / IS) % g.C;
    nn = i / (IS * g.C);
  }
  const int64_t pw = ii % g.in[2], ph = (ii / g.in[2]) % g.in[1], pd = ii / (g.in[2] * g.in[1]);
  const T *xb = g.nhwc ? x + nn * IS * g.C + c : x + (nn * g.C + c) * IS;
  const T *db = g.nhwc ? dout + nn * OS * g.C + c : dout + (nn * g.C + c) * OS;
  const int64_t step = g.nhwc ? g.C : 1;
  int64_t a0, b0, a1, b1, a2, b2;
  out_range(g, 0, pd, a0, b0);
  out_range(g, 1, ph, a1, b1);
  out_range(g, 2, pw, a2, b2);
  A acc = A(0);
  for (int64_t od = a0; od <= b0; od++) {
    int64_t d0, d1, ed;
    win(g, 0, od, d0, d1, ed);
    if (pd < d0 || pd >= d1) continue;
    for (int64_t oh = a1; oh <= b1; oh++) {
      int64_t h0, h1, eh;
      win(g, 1, oh, h0, h1, eh);
      if (ph < h0 || ph >= h1) continue;
      for (int64_t ow = a2; ow <= b2; ow++) {
        int64_t w0, w1, ew;
        win(g, 2, ow, w0, w1, ew);
        if (pw < w0 || pw >= w1) continue;
        const int64_t oi = (od * g.out[1] + oh) * g.out[2] + ow;
        const A dv = to_acc(db[oi * step]);
        if (g.is_max) {
          A best;
          if (argmax_win(g, xb, step, d0, d1, h0, h1, w0, w1, best) == ii) acc = add_rn(acc, dv);
        } else {
          const int64_t cnt = (g.exclusive || g.adaptive) ? (d1 - d0) * (h1 - h0) * (w1 - w0) : ed * eh * ew;
          const A inv = cnt > 0 ? A(1) / (A)cnt : A(0);
          acc = add_rn(acc, mul_rn(dv, inv));
        }
      }
    }
  }
  return from_acc<T>(acc);
}

} // namespace pddnn
#endif
