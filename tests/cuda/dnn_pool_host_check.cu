// Host-side check of the 'dnn' family's pooling element functions (csrc/cuda/dnn_pool.cuh: the
// very functions dnn_pool.cu's kernels run per element, compiled here for the host) against a
// direct transcription of csrc/kernels/cpu/pool.c (windows by win(), the forward per output, the
// backward as pool.c's scatter): 400 random geometries (1-3 spatial dims, NCHW / NHWC, max / avg,
// exclusive, ceil_mode, adaptive incl. upsampling, asymmetric pads, empty windows), float64 and
// float32 (bit-identical: same operations in the same order), with ties and NaNs in the input.
// Needs no GPU: built and run by tests/cuda/build_dnn_check.sh (nvcc as the host compiler driver).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include "dnn_pool.cuh"

using namespace pddnn;

static int64_t p3(const int64_t *v) { return v[0] * v[1] * v[2]; }

// pool.c's win() and its forward / backward loops on NCHW planes, NHWC addressed in place
template <typename T>
static void ref_pool(const PG &g, const T *x, const T *dout, T *y, int32_t *mask, T *dx) {
  const int64_t IS = p3(g.in), OS = p3(g.out);
  auto at = [&](int64_t n, int64_t c, int64_t S, int64_t s) { return g.nhwc ? (n * S + s) * g.C + c : (n * g.C + c) * S + s; };
  for (int64_t i = 0; i < g.N * g.C * IS; i++) dx[i] = 0;
  for (int64_t n = 0; n < g.N; n++)
    for (int64_t c = 0; c < g.C; c++)
      for (int64_t od = 0; od < g.out[0]; od++)
        for (int64_t oh = 0; oh < g.out[1]; oh++)
          for (int64_t ow = 0; ow < g.out[2]; ow++) {
            int64_t d0, d1, h0, h1, w0, w1, ed, eh, ew;
            win(g, 0, od, d0, d1, ed);
            win(g, 1, oh, h0, h1, eh);
            win(g, 2, ow, w0, w1, ew);
            const int64_t oi = at(n, c, OS, (od * g.out[1] + oh) * g.out[2] + ow);
            if (g.is_max) {
              T best = 0;
              int64_t bi = -1;
              for (int64_t d = d0; d < d1; d++)
                for (int64_t h = h0; h < h1; h++)
                  for (int64_t w = w0; w < w1; w++) {
                    int64_t ii = (d * g.in[1] + h) * g.in[2] + w;
                    T v = x[at(n, c, IS, ii)];
                    if (bi < 0 || v > best || (v != v && best == best)) {
                      best = v;
                      bi = ii;
                    }
                  }
              y[oi] = bi < 0 ? (T)0 : best;
              mask[oi] = bi < 0 ? -1 : (int32_t)bi;
              if (bi >= 0) dx[at(n, c, IS, bi)] += dout[oi];
            } else {
              int64_t cnt = (g.exclusive || g.adaptive) ? (d1 - d0) * (h1 - h0) * (w1 - w0) : ed * eh * ew;
              T inv = cnt > 0 ? (T)1 / (T)cnt : (T)0, acc = 0, v = dout[oi] * inv;
              for (int64_t d = d0; d < d1; d++)
                for (int64_t h = h0; h < h1; h++)
                  for (int64_t w = w0; w < w1; w++) {
                    int64_t xi = at(n, c, IS, (d * g.in[1] + h) * g.in[2] + w);
                    acc += x[xi];
                    dx[xi] += v;
                  }
              y[oi] = acc * inv;
            }
          }
}

static int64_t rint_(int64_t lo, int64_t hi) { return lo + rand() % (hi - lo + 1); }

template <typename T>
static int run_case(const PG &g, unsigned seed, const char *tname) {
  const int64_t nx = g.N * g.C * p3(g.in), ny = g.N * g.C * p3(g.out);
  std::vector<T> x(nx), dout(ny), y(ny), ry(ny), dx(nx), rdx(nx);
  std::vector<int32_t> m(ny), rm(ny);
  srand(seed);
  for (auto &v : x) v = (T)(rand() % 7 - 3) / (T)4; // few distinct values: many ties
  if (nx > 5 && rand() % 3 == 0) x[rand() % nx] = (T)NAN;
  for (auto &v : dout) v = (T)rand() / (T)RAND_MAX - (T)0.5;
  ref_pool<T>(g, x.data(), dout.data(), ry.data(), rm.data(), rdx.data());
  for (int64_t i = 0; i < ny; i++) pool_fwd_at<T>(g, x.data(), i, y.data(), m.data());
  for (int64_t i = 0; i < nx; i++) dx[i] = pool_bwd_at<T>(g, x.data(), dout.data(), i);
  auto same = [](T a, T b) { return memcmp(&a, &b, sizeof(T)) == 0 || (a != a && b != b); };
  for (int64_t i = 0; i < ny; i++)
    if (!same(y[i], ry[i]) || (g.is_max && m[i] != rm[i])) {
      printf("FAIL %s fwd seed %u at %lld: %g vs %g (mask %d vs %d)\n", tname, seed, (long long)i, (double)y[i],
             (double)ry[i], m[i], rm[i]);
      return 1;
    }
  for (int64_t i = 0; i < nx; i++)
    if (!same(dx[i], rdx[i])) {
      printf("FAIL %s bwd seed %u at %lld: %g vs %g\n", tname, seed, (long long)i, (double)dx[i], (double)rdx[i]);
      return 1;
    }
  return 0;
}

int main() {
  int fails = 0, n = 0;
  for (unsigned seed = 1; seed <= 400; seed++) {
    srand(seed * 7919u);
    PG g;
    memset(&g, 0, sizeof g);
    g.nsp = (int)rint_(1, 3);
    g.nhwc = rand() % 2;
    g.is_max = rand() % 2;
    g.exclusive = rand() % 2;
    g.adaptive = rand() % 4 == 0;
    int ceil_mode = rand() % 2;
    g.N = rint_(1, 2);
    g.C = rint_(1, 3);
    bool ok = true;
    for (int i = 0; i < 3; i++) {
      if (i >= g.nsp) {
        g.in[i] = g.k[i] = g.s[i] = g.out[i] = 1;
        continue;
      }
      g.in[i] = rint_(1, 9);
      if (g.adaptive) {
        g.k[i] = g.out[i] = rint_(1, 6); // also more outputs than inputs
        g.s[i] = 1;
        continue;
      }
      g.k[i] = rint_(1, 4);
      g.s[i] = rint_(1, 3);
      g.pl[i] = rint_(0, g.k[i] - 1);
      g.pr[i] = rint_(0, g.k[i] - 1);
      int64_t span = g.in[i] + g.pl[i] + g.pr[i] - g.k[i];
      if (span < 0) {
        ok = false;
        break;
      }
      g.out[i] = (ceil_mode ? (span + g.s[i] - 1) / g.s[i] : span / g.s[i]) + 1;
    }
    if (!ok) continue;
    n++;
    fails += run_case<double>(g, seed, "f64");
    fails += run_case<float>(g, seed, "f32");
  }
  printf("%d geometries x 2 dtypes, %d failed\n", n, fails);
  return fails ? 1 : 0;
}
