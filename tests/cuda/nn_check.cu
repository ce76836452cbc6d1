// Build: nvcc -std=c++17 -O3 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a -Icsrc/cuda \
//   -o nn_check tests/cuda/nn_check.cu csrc/cuda/nn.cu csrc/cuda/nn_reduce.cu csrc/cuda/nn_cublas.cu -cudart static -ldl
// Run on a GPU machine with libcublas.so.13 on LD_LIBRARY_PATH: ./nn_check (checks), ./nn_check perf (timings).
// Standalone GPU check of the nn family's launchers against plain CPU loops (double).
// Links csrc/cuda/nn*.cu with stand-ins for runtime.cu's error / stream / allocator.
#include <cstdio>
#include <cstdlib>
#include <cstdarg>
#include <cmath>
#include <vector>
#include <random>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "../../csrc/cuda/pd_cuda_api.h"
#include "../../csrc/cuda/pd_cuda_nn.h"

static char g_err[1024];
static int g_code;
extern "C" void pd_cu_set_error(int code, const char *fmt, ...) {
  va_list ap; va_start(ap, fmt); vsnprintf(g_err, sizeof g_err, fmt, ap); va_end(ap); g_code = code;
}
extern "C" void *pd_cu_current_stream(void) { return NULL; }
static void *t_alloc(int, size_t n) { void *p = NULL; cudaMalloc(&p, n ? n : 1); return p; }
static void t_free(int, void *p) { cudaFree(p); }
static int t_memcpy(void *d, const void *s, size_t n, int kind) {
  return cudaMemcpy(d, s, n, kind == PD_CU_D2H ? cudaMemcpyDeviceToHost : kind == PD_CU_H2D ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice) == cudaSuccess ? 0 : -1;
}
static pd_cuda_runtime make_rt() { pd_cuda_runtime r = {}; r.alloc = t_alloc; r.free = t_free; r.memcpy = t_memcpy; return r; }
extern "C" const pd_cuda_runtime pd_cuda_rt_table = make_rt();
extern "C" const pd_cuda_nn pd_cuda_nn_table;
static const pd_cuda_nn *NN = &pd_cuda_nn_table;

static int fails = 0, checks = 0;
static std::mt19937 rng(1);
static std::vector<double> randv(size_t n, double lo = -1, double hi = 1) {
  std::uniform_real_distribution<double> d(lo, hi); std::vector<double> v(n); for (auto &x : v) x = d(rng); return v;
}
template <typename T> static T cv(double v) { return (T)v; }
template <> __half cv<__half>(double v) { return __float2half((float)v); }
template <> __nv_bfloat16 cv<__nv_bfloat16>(double v) { return __float2bfloat16((float)v); }
template <typename T> static double bk(T v) { return (double)v; }
template <> double bk<__half>(__half v) { return __half2float(v); }
template <> double bk<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> struct Dev {
  T *p = NULL; size_t n;
  Dev(const std::vector<double> &v) : n(v.size()) { std::vector<T> h(n); for (size_t i = 0; i < n; i++) h[i] = cv<T>(v[i]); cudaMalloc(&p, n * sizeof(T) + 16); cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice); }
  Dev(size_t n_) : n(n_) { cudaMalloc(&p, n * sizeof(T) + 16); cudaMemset(p, 0xff, n * sizeof(T) + 16); }
  std::vector<double> get() { std::vector<T> h(n); cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost); std::vector<double> v(n); for (size_t i = 0; i < n; i++) v[i] = bk<T>(h[i]); return v; }
  ~Dev() { cudaFree(p); }
};
// rounds host values to T
template <typename T> static std::vector<double> rnd(std::vector<double> v) { for (auto &x : v) x = bk<T>(cv<T>(x)); return v; }

static void cmp(const char *what, const std::vector<double> &got, const std::vector<double> &ref, double rtol, double atol) {
  checks++;
  double worst = 0; size_t wi = 0; int bad = 0;
  if (got.size() != ref.size()) { printf("FAIL %s size %zu vs %zu\n", what, got.size(), ref.size()); fails++; return; }
  for (size_t i = 0; i < got.size(); i++) {
    double e = fabs(got[i] - ref[i]), lim = atol + rtol * fabs(ref[i]);
    bool nanok = std::isnan(got[i]) && std::isnan(ref[i]);
    if (!nanok && (!(e <= lim))) { bad++; if (!(e / (lim > 0 ? lim : 1) <= worst)) { worst = e / (lim > 0 ? lim : 1); wi = i; } }
  }
  if (bad) { fails++; printf("FAIL %s: %d bad, e.g. [%zu] got %.9g ref %.9g\n", what, bad, wi, got[wi], ref[wi]); }
}
static void rc_ok(const char *what, int rc) { if (rc) { fails++; printf("FAIL %s: rc %d: %s\n", what, rc, g_err); } cudaError_t e = cudaDeviceSynchronize(); if (e) { fails++; printf("FAIL %s: cuda %s\n", what, cudaGetErrorString(e)); exit(1);} }

// ---------- gemm ----------
template <typename T>
static void t_gemm(int dt, int ta, int tb, int64_t M, int64_t N, int64_t K, std::vector<int64_t> bx, std::vector<int64_t> by, double tol) {
  // x batch shape bx (right aligned with by), matrices contiguous
  int nb = (int)std::max(bx.size(), by.size());
  std::vector<int64_t> bo(nb);
  for (int d = 0; d < nb; d++) { int ix = d - (nb - (int)bx.size()), iy = d - (nb - (int)by.size()); int64_t a = ix >= 0 ? bx[ix] : 1, b = iy >= 0 ? by[iy] : 1; bo[d] = a > b ? a : b; }
  int64_t nx = 1, ny = 1, no = 1; for (auto v : bx) nx *= v; for (auto v : by) ny *= v; for (auto v : bo) no *= v;
  auto xv = rnd<T>(randv(nx * M * K)), yv = rnd<T>(randv(ny * K * N));
  Dev<T> X(xv), Y(yv), C(no * M * N);
  pd_cuda_gemm_batch b = {}; b.nb = nb;
  std::vector<int64_t> sx(bx.size()), sy(by.size());
  { int64_t s = M * K; for (int d = (int)bx.size() - 1; d >= 0; d--) { sx[d] = s; s *= bx[d]; } s = K * N; for (int d = (int)by.size() - 1; d >= 0; d--) { sy[d] = s; s *= by[d]; } }
  for (int d = 0; d < nb; d++) { int ix = d - (nb - (int)bx.size()), iy = d - (nb - (int)by.size()); b.shape[d] = bo[d];
    b.astride[d] = ix >= 0 && bx[ix] != 1 ? sx[ix] : 0; b.bstride[d] = iy >= 0 && by[iy] != 1 ? sy[iy] : 0; }
  rc_ok("gemm", NN->gemm(dt, ta, tb, M, N, K, X.p, ta ? M : K, Y.p, tb ? K : N, C.p, &b));
  std::vector<double> ref(no * M * N);
  for (int64_t o = 0; o < no; o++) {
    int64_t rem = o, ox = 0, oy = 0;
    for (int d = nb - 1; d >= 0; d--) { int64_t i = rem % bo[d]; rem /= bo[d]; ox += i * b.astride[d]; oy += i * b.bstride[d]; }
    for (int64_t i = 0; i < M; i++) for (int64_t j = 0; j < N; j++) { double s = 0;
      for (int64_t k = 0; k < K; k++) s += xv[ox + (ta ? k * M + i : i * K + k)] * yv[oy + (tb ? j * K + k : k * N + j)];
      ref[o * M * N + i * N + j] = s; }
  }
  char name[128]; snprintf(name, sizeof name, "gemm dt%d ta%d tb%d %lldx%lldx%lld nb%d", dt, ta, tb, (long long)M, (long long)N, (long long)K, nb);
  cmp(name, C.get(), ref, tol, tol);
}

// ---------- reduce ----------
template <typename T>
static void t_red(int dt, int kind, std::vector<int64_t> shape, unsigned mask, int odt, double tol, bool perm = false, double lo = -1, double hi = 1) {
  int nd = (int)shape.size(); int64_t n = 1; for (auto v : shape) n *= v;
  auto xv = rnd<T>(randv(n, lo, hi));
  if (dt <= PD_CU_INT64) for (auto &v : xv) v = std::floor(v * 5);
  Dev<T> X(xv);
  pd_cuda_tensor t = {}; t.data = X.p; t.dtype = dt; t.ndim = nd; t.numel = n;
  // contiguous strides, or (perm) a transposed view: memory laid out with dims reversed
  { int64_t s = 1; if (!perm) for (int d = nd - 1; d >= 0; d--) { t.shape[d] = shape[d]; t.strides[d] = s; s *= shape[d]; }
    else for (int d = 0; d < nd; d++) { t.shape[d] = shape[d]; t.strides[d] = s; s *= shape[d]; } }
  int64_t nout = 1, R = 1; for (int d = 0; d < nd; d++) { if ((mask >> d) & 1) R *= shape[d]; else nout *= shape[d]; }
  std::vector<double> ref(nout);
  for (int64_t o = 0; o < nout; o++) {
    double acc = kind == PD_CU_RED_PROD || kind == PD_CU_RED_ALL ? 1 : kind == PD_CU_RED_MAX ? -INFINITY : kind == PD_CU_RED_MIN ? INFINITY : 0;
    double mx = -INFINITY; std::vector<double> vals;
    for (int64_t r = 0; r < R; r++) {
      int64_t ro = o, rr = r, off = 0;
      for (int d = nd - 1; d >= 0; d--) { int64_t i; if ((mask >> d) & 1) { i = rr % shape[d]; rr /= shape[d]; } else { i = ro % shape[d]; ro /= shape[d]; } off += i * t.strides[d]; }
      double v = xv[off]; vals.push_back(v);
      switch (kind) { case PD_CU_RED_SUM: case PD_CU_RED_MEAN: acc += v; break; case PD_CU_RED_PROD: acc *= v; break;
        case PD_CU_RED_MAX: acc = std::max(acc, v); break; case PD_CU_RED_MIN: acc = std::min(acc, v); break;
        case PD_CU_RED_ALL: acc = acc && v != 0; break; case PD_CU_RED_ANY: acc = acc || v != 0; break; case PD_CU_RED_LOGSUMEXP: mx = std::max(mx, v); break; }
    }
    if (kind == PD_CU_RED_MEAN) acc /= (double)R;
    if (kind == PD_CU_RED_LOGSUMEXP) { double s = 0; for (double v : vals) s += exp(v - mx); acc = mx + log(s); }
    ref[o] = acc;
  }
  std::vector<double> got;
#define GETAS(TT) { Dev<TT> O(nout); rc_ok("reduce", NN->reduce(kind, &t, mask, O.p, odt)); got = O.get(); }
  switch (odt) { case PD_CU_BOOL: GETAS(uint8_t) break; case PD_CU_INT32: GETAS(int32_t) break; case PD_CU_INT16: GETAS(int16_t) break; case PD_CU_INT64: GETAS(int64_t) break;
    case PD_CU_FLOAT16: GETAS(__half) break; case PD_CU_BFLOAT16: GETAS(__nv_bfloat16) break; case PD_CU_FLOAT32: GETAS(float) break; case PD_CU_FLOAT64: GETAS(double) break; }
  char name[160]; snprintf(name, sizeof name, "reduce kind%d dt%d odt%d nd%d mask%u perm%d n%lld", kind, dt, odt, nd, mask, (int)perm, (long long)n);
  cmp(name, got, ref, tol, tol);
}

// ---------- softmax ----------
template <typename T>
static void t_softmax(int dt, int64_t outer, int64_t n, int64_t inner, int lg, double tol) {
  auto xv = rnd<T>(randv(outer * n * inner, -5, 5));
  Dev<T> X(xv), Y(xv.size());
  rc_ok("softmax", NN->softmax(dt, X.p, Y.p, outer, n, inner, lg));
  std::vector<double> ref(xv.size());
  for (int64_t o = 0; o < outer; o++) for (int64_t i = 0; i < inner; i++) {
    double m = -INFINITY, s = 0; for (int64_t j = 0; j < n; j++) m = std::max(m, xv[(o * n + j) * inner + i]);
    for (int64_t j = 0; j < n; j++) s += exp(xv[(o * n + j) * inner + i] - m);
    for (int64_t j = 0; j < n; j++) { double v = xv[(o * n + j) * inner + i]; ref[(o * n + j) * inner + i] = lg ? v - m - log(s) : exp(v - m) / s; }
  }
  char name[128]; snprintf(name, sizeof name, "softmax dt%d %lldx%lldx%lld log%d", dt, (long long)outer, (long long)n, (long long)inner, lg);
  cmp(name, Y.get(), ref, tol, tol);
}

// ---------- cross entropy ----------
template <typename T>
static void t_ce(int dt, int64_t outer, int64_t n, int64_t inner, int soft, int64_t ig, bool badlabel = false) {
  int64_t rows = outer * inner;
  auto xv = randv(outer * n * inner, -3, 3);
  std::vector<double> lab;
  if (soft) lab = randv(outer * n * inner, 0, 1);
  else { lab.resize(rows); for (auto &v : lab) v = (double)(rng() % n); if (rows > 2) lab[1] = (double)ig; if (badlabel) lab[0] = (double)n; }
  Dev<T> X(xv), SM(xv.size()), L(rows);
  Dev<T> LS(soft ? lab : std::vector<double>(1));
  Dev<int64_t> LH(soft ? std::vector<double>(1) : lab);
  int rc = NN->ce_softmax(dt, X.p, soft ? (void *)LS.p : (void *)LH.p, PD_CU_INT64, soft, ig, SM.p, L.p, outer, n, inner);
  cudaDeviceSynchronize();
  if (badlabel) { checks++; if (rc == 0 || g_code != PD_CU_ERR_INVALID) { fails++; printf("FAIL ce bad label not reported\n"); } else printf("ok: bad label -> %s\n", g_err); return; }
  rc_ok("ce", rc);
  std::vector<double> rs(xv.size()), rl(rows);
  auto dl = randv(rows), q = randv(xv.size());
  std::vector<double> rdx(xv.size());
  for (int64_t o = 0; o < outer; o++) for (int64_t i = 0; i < inner; i++) {
    int64_t r = o * inner + i; auto at = [&](int64_t j) { return (o * n + j) * inner + i; };
    double m = -INFINITY, s = 0; for (int64_t j = 0; j < n; j++) m = std::max(m, xv[at(j)]);
    for (int64_t j = 0; j < n; j++) s += exp(xv[at(j)] - m);
    double lse = m + log(s);
    for (int64_t j = 0; j < n; j++) rs[at(j)] = exp(xv[at(j)] - m) / s;
    if (soft) { double a = 0; for (int64_t j = 0; j < n; j++) a += lab[at(j)] * (lse - xv[at(j)]); rl[r] = a; }
    else { int64_t h = (int64_t)lab[r]; rl[r] = h == ig ? 0 : lse - xv[at(h)]; }
    double rr = 0; for (int64_t j = 0; j < n; j++) rr += q[at(j)] * rs[at(j)];
    if (soft) { double sl = 0; for (int64_t j = 0; j < n; j++) sl += lab[at(j)]; for (int64_t j = 0; j < n; j++) rdx[at(j)] = rs[at(j)] * (dl[r] * sl - rr + q[at(j)]) - lab[at(j)] * dl[r]; }
    else { int64_t h = (int64_t)lab[r]; double c = (h == ig ? 0 : dl[r]) - rr; for (int64_t j = 0; j < n; j++) rdx[at(j)] = rs[at(j)] * (c + q[at(j)]); if (h != ig) rdx[at(h)] -= dl[r]; }
  }
  char name[128]; snprintf(name, sizeof name, "ce dt%d %lldx%lldx%lld soft%d", dt, (long long)outer, (long long)n, (long long)inner, soft);
  double tol = dt == PD_CU_FLOAT32 ? 2e-5 : 1e-12;
  cmp(name, SM.get(), rs, tol, tol); cmp(name, L.get(), rl, tol, tol);
  // grad with the exact softmax values of the reference
  Dev<T> S2(rs), DL(dl), Q(q), DX(xv.size());
  rc_ok("ce_grad", NN->ce_softmax_grad(dt, soft ? (void *)LS.p : (void *)LH.p, PD_CU_INT64, soft, ig, S2.p, DL.p, Q.p, DX.p, outer, n, inner));
  cmp("ce_grad", DX.get(), rdx, tol, tol);
}

// ---------- layer norm ----------
template <typename T>
static void t_ln(int dt, int64_t R, int64_t D, double tol) {
  auto xv = randv(R * D, -2, 3), sc = randv(D, 0.5, 1.5), bi = randv(D), dy = randv(R * D);
  double eps = 1e-5;
  Dev<T> X(xv), S(sc), B(bi), Y(R * D), MO(R), VO(R);
  rc_ok("ln", NN->layer_norm(dt, R, D, X.p, S.p, B.p, Y.p, MO.p, VO.p, eps));
  std::vector<double> ry(R * D), rm(R), rv(R), rdx(R * D), rds(D, 0), rdb(D, 0);
  for (int64_t r = 0; r < R; r++) {
    double m = 0, v = 0; for (int64_t j = 0; j < D; j++) m += xv[r * D + j]; m /= D;
    for (int64_t j = 0; j < D; j++) v += (xv[r * D + j] - m) * (xv[r * D + j] - m); v /= D;
    rm[r] = m; rv[r] = v; double inv = 1 / sqrt(v + eps);
    double ga = 0, gb = 0;
    for (int64_t j = 0; j < D; j++) { double xh = (xv[r * D + j] - m) * inv; ry[r * D + j] = xh * sc[j] + bi[j]; double g = dy[r * D + j] * sc[j]; ga += g; gb += g * xh; rds[j] += dy[r * D + j] * xh; rdb[j] += dy[r * D + j]; }
    ga /= D; gb /= D;
    for (int64_t j = 0; j < D; j++) { double xh = (xv[r * D + j] - m) * inv; rdx[r * D + j] = inv * (dy[r * D + j] * sc[j] - ga - xh * gb); }
  }
  cmp("ln y", Y.get(), ry, tol, tol); cmp("ln mean", MO.get(), rm, tol, tol); cmp("ln var", VO.get(), rv, tol, tol);
  Dev<T> DY(dy), DX(R * D), DS(D), DB(D);
  rc_ok("ln_grad", NN->layer_norm_grad(dt, R, D, X.p, S.p, MO.p, VO.p, DY.p, DX.p, DS.p, DB.p, eps, NULL, NULL));
  cmp("ln dx", DX.get(), rdx, tol * 10, tol * 10); cmp("ln dscale", DS.get(), rds, tol * 10, tol * 10); cmp("ln dbias", DB.get(), rdb, tol * 10, tol * 10);
}

// ---------- batch norm ----------
template <typename T>
static void t_bn(int dt, int64_t A, int64_t C, int64_t B, int train, double tol) {
  int64_t n = A * C * B; double eps = 1e-5, mom = 0.9;
  auto xv = randv(n, -1, 2), sc = randv(C, 0.5, 1.5), bi = randv(C), rmv = randv(C), rvv = randv(C, 0.5, 2), dy = randv(n);
  Dev<T> X(xv), S(sc), Bi(bi), RM(rmv), RV(rvv), Y(n), SM(C), SI(C);
  rc_ok("bn", NN->batch_norm(dt, A, C, B, X.p, RM.p, RV.p, S.p, Bi.p, Y.p, SM.p, SI.p, train, mom, eps));
  std::vector<double> mean(C), var(C), ry(n), rrm(C), rrv(C), rsi(C), dsc(C), dbi(C), rdx(n);
  double M = (double)(A * B);
  for (int64_t c = 0; c < C; c++) {
    double s = 0, s2 = 0; for (int64_t a = 0; a < A; a++) for (int64_t b = 0; b < B; b++) s += xv[(a * C + c) * B + b];
    double m = s / M; for (int64_t a = 0; a < A; a++) for (int64_t b = 0; b < B; b++) { double d = xv[(a * C + c) * B + b] - m; s2 += d * d; }
    double v = s2 / M;
    if (train) { rrm[c] = mom * rmv[c] + (1 - mom) * m; rrv[c] = mom * rvv[c] + (1 - mom) * v; } else { rrm[c] = rmv[c]; rrv[c] = rvv[c]; m = rmv[c]; v = rvv[c]; }
    mean[c] = m; var[c] = v; double inv = 1 / sqrt(v + eps); rsi[c] = inv;
    double sd = 0, sdx = 0;
    for (int64_t a = 0; a < A; a++) for (int64_t b = 0; b < B; b++) { int64_t i = (a * C + c) * B + b; ry[i] = (xv[i] - m) * inv * sc[c] + bi[c]; sd += dy[i]; sdx += dy[i] * (xv[i] - m) * inv; }
    dsc[c] = sdx; dbi[c] = sd;
    for (int64_t a = 0; a < A; a++) for (int64_t b = 0; b < B; b++) { int64_t i = (a * C + c) * B + b; double xh = (xv[i] - m) * inv;
      rdx[i] = sc[c] * inv * (dy[i] - sd / M - xh * sdx / M); }
  }
  char name[96]; snprintf(name, sizeof name, "bn dt%d %lldx%lldx%lld train%d", dt, (long long)A, (long long)C, (long long)B, train);
  cmp(name, Y.get(), ry, tol, tol); cmp("bn saved_mean", SM.get(), mean, tol, tol); cmp("bn invstd", SI.get(), rsi, tol, tol);
  cmp("bn run_mean", RM.get(), rrm, tol, tol); cmp("bn run_var", RV.get(), rrv, tol, tol);
  if (train) {
    Dev<T> DY(dy), DX(n), DS(C), DB(C), DM(C), DV(C);
    rc_ok("bn_grad", NN->batch_norm_grad(dt, A, C, B, X.p, S.p, SM.p, SI.p, DY.p, DX.p, DS.p, DB.p, DM.p, DV.p, 0, NULL, NULL));
    cmp("bn dx", DX.get(), rdx, tol * 10, tol * 10); cmp("bn dscale", DS.get(), dsc, tol * 10, tol * 10); cmp("bn dbias", DB.get(), dbi, tol * 10, tol * 10);
  }
}

// ---------- edge cases ----------
static void t_edges() {
  // NaN propagates through max and softmax; all-(-inf) softmax rows
  std::vector<double> xv = {1, NAN, 3, 4, -INFINITY, -INFINITY, 2, 5};
  Dev<float> X(xv);
  pd_cuda_tensor t = {}; t.data = X.p; t.dtype = PD_CU_FLOAT32; t.ndim = 2; t.numel = 8; t.shape[0] = 2; t.shape[1] = 4; t.strides[0] = 4; t.strides[1] = 1;
  { Dev<float> O(2); rc_ok("max nan", NN->reduce(PD_CU_RED_MAX, &t, 2, O.p, PD_CU_FLOAT32)); cmp("max nan", O.get(), {NAN, 5}, 0, 0); }
  { Dev<float> O(4); rc_ok("max nan col", NN->reduce(PD_CU_RED_MAX, &t, 1, O.p, PD_CU_FLOAT32)); cmp("max nan col", O.get(), {1, NAN, 3, 5}, 0, 0); }
  { Dev<float> O(2); rc_ok("any nan", NN->reduce(PD_CU_RED_ANY, &t, 2, O.p, PD_CU_BOOL)); }
  // empty reduction: sum 0, mean NaN, prod 1
  pd_cuda_tensor e = t; e.shape[1] = 0; e.numel = 0;
  { Dev<float> O(2); rc_ok("sum empty", NN->reduce(PD_CU_RED_SUM, &e, 2, O.p, PD_CU_FLOAT32)); cmp("sum empty", O.get(), {0, 0}, 0, 0); }
  { Dev<float> O(2); rc_ok("mean empty", NN->reduce(PD_CU_RED_MEAN, &e, 2, O.p, PD_CU_FLOAT32)); cmp("mean empty", O.get(), {NAN, NAN}, 0, 0); }
  { Dev<float> O(2); rc_ok("prod empty", NN->reduce(PD_CU_RED_PROD, &e, 2, O.p, PD_CU_FLOAT32)); cmp("prod empty", O.get(), {1, 1}, 0, 0); }
  // softmax of a row holding NaN -> NaN row; a row of -inf -> NaN (0/0) as the CPU
  std::vector<double> sv = {1, 2, NAN, 0, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
  Dev<float> S(sv), Y(8);
  rc_ok("softmax nan", NN->softmax(PD_CU_FLOAT32, S.p, Y.p, 2, 4, 1, 0));
  auto y = Y.get(); checks++; int bad = 0; for (double v : y) bad += !std::isnan(v); if (bad) { fails++; printf("FAIL softmax nan rows: %d non-nan\n", bad); }
  // logsumexp of an all -inf row: -inf (c = 0, log(0))
  pd_cuda_tensor l = t; l.data = S.p;
  { Dev<float> O(2); rc_ok("lse", NN->reduce(PD_CU_RED_LOGSUMEXP, &l, 2, O.p, PD_CU_FLOAT32)); auto o = O.get(); checks++; if (!(std::isnan(o[0]) && std::isinf(o[1]) && o[1] < 0)) { fails++; printf("FAIL lse edge %g %g\n", o[0], o[1]); } }
  // ce with int32 labels
  std::vector<double> lg = {1, 2, 3, 0.5, 0.1, -1}, lab = {2, 0};
  Dev<float> LG(lg), SM(6), LO(2); Dev<int32_t> LB(lab);
  rc_ok("ce i32", NN->ce_softmax(PD_CU_FLOAT32, LG.p, LB.p, PD_CU_INT32, 0, -100, SM.p, LO.p, 2, 3, 1));
  double l0 = log(exp(1.) + exp(2.) + exp(3.)) - 3, l1 = log(exp(0.5) + exp(0.1) + exp(-1.)) - 0.5;
  cmp("ce i32", LO.get(), {l0, l1}, 1e-6, 1e-6);
  // batch_norm_grad with use_global_stats
  int64_t A = 3, C = 2, B = 4, n = A * C * B;
  auto xv2 = randv(n), dy = randv(n), sc = randv(C, 0.5, 1.5), sm = randv(C), si = randv(C, 0.5, 2);
  Dev<double> X2(xv2), DY(dy), SC(sc), SMn(sm), SI(si), DX(n), DS(C), DB(C), DM(C), DV(C);
  rc_ok("bn global", NN->batch_norm_grad(PD_CU_FLOAT64, A, C, B, X2.p, SC.p, SMn.p, SI.p, DY.p, DX.p, DS.p, DB.p, DM.p, DV.p, 1, NULL, NULL));
  std::vector<double> rdx(n), rdm(C), rdv(C);
  for (int64_t c = 0; c < C; c++) { double sd = 0, sx = 0; for (int64_t a = 0; a < A; a++) for (int64_t b = 0; b < B; b++) { int64_t i = (a * C + c) * B + b; sd += dy[i]; sx += dy[i] * (xv2[i] - sm[c]) * si[c]; rdx[i] = dy[i] * sc[c] * si[c]; }
    rdm[c] = -sc[c] * si[c] * sd; rdv[c] = -0.5 * si[c] * si[c] * sc[c] * sx; }
  cmp("bn global dx", DX.get(), rdx, 1e-12, 1e-12); cmp("bn global dm", DM.get(), rdm, 1e-12, 1e-12); cmp("bn global dv", DV.get(), rdv, 1e-12, 1e-12);
}


// ---------- reduce2: var / std / norms / argmax ----------
static void t_red2() {
  const int64_t R0 = 6, C0 = 37; auto xv = randv(R0 * C0, -2, 2);
  xv[5] = xv[9];  // a tie in row 0
  Dev<float> X(xv);
  pd_cuda_tensor t = {}; t.data = X.p; t.dtype = PD_CU_FLOAT32; t.ndim = 2; t.numel = R0 * C0; t.shape[0] = R0; t.shape[1] = C0; t.strides[0] = C0; t.strides[1] = 1;
  for (int axis = 0; axis < 2; axis++) {
    const int64_t no = axis ? R0 : C0, nr = axis ? C0 : R0;
    auto at = [&](int64_t o, int64_t r) { return axis ? xv[o * C0 + r] : xv[r * C0 + o]; };
    std::vector<double> var(no), sd(no), fro(no), p3(no), pinf(no), am(no), an(no), p0(no);
    for (int64_t o = 0; o < no; o++) {
      double m = 0; for (int64_t r = 0; r < nr; r++) m += at(o, r); m /= nr;
      double v = 0, f = 0, q = 0, mx = 0, c0 = 0; int64_t bi = 0, bn = 0;
      for (int64_t r = 0; r < nr; r++) { double x = at(o, r); v += (x - m) * (x - m); f += x * x; q += pow(fabs(x), 3); mx = std::max(mx, fabs(x)); c0 += x != 0;
        if (x > at(o, bi)) bi = r; if (x < at(o, bn)) bn = r; }
      var[o] = v / (nr - 1); sd[o] = sqrt(v / nr); fro[o] = sqrt(f); p3[o] = pow(q, 1.0 / 3); pinf[o] = mx; am[o] = bi; an[o] = bn; p0[o] = c0;
    }
    unsigned mask = 1u << axis;
    { Dev<float> O(no); rc_ok("var", NN->reduce2(PD_CU_RED_VAR, &t, mask, O.p, PD_CU_FLOAT32, 1)); cmp("var", O.get(), var, 1e-5, 1e-6); }
    { Dev<float> O(no); rc_ok("std", NN->reduce2(PD_CU_RED_STD, &t, mask, O.p, PD_CU_FLOAT32, 0)); cmp("std", O.get(), sd, 1e-5, 1e-6); }
    { Dev<float> O(no); rc_ok("fro", NN->reduce2(PD_CU_RED_FROBENIUS, &t, mask, O.p, PD_CU_FLOAT32, 2)); cmp("fro", O.get(), fro, 1e-5, 1e-6); }
    { Dev<float> O(no); rc_ok("p3", NN->reduce2(PD_CU_RED_PNORM, &t, mask, O.p, PD_CU_FLOAT32, 3)); cmp("p3", O.get(), p3, 1e-5, 1e-6); }
    { Dev<float> O(no); rc_ok("pinf", NN->reduce2(PD_CU_RED_PNORM, &t, mask, O.p, PD_CU_FLOAT32, INFINITY)); cmp("pinf", O.get(), pinf, 1e-6, 0); }
    { Dev<float> O(no); rc_ok("p0", NN->reduce2(PD_CU_RED_PNORM, &t, mask, O.p, PD_CU_FLOAT32, 0)); cmp("p0", O.get(), p0, 0, 0); }
    { Dev<int64_t> O(no); rc_ok("argmax", NN->reduce2(PD_CU_RED_ARGMAX, &t, mask, O.p, PD_CU_INT64, 0)); cmp("argmax", O.get(), am, 0, 0); }
    { Dev<int32_t> O(no); rc_ok("argmin", NN->reduce2(PD_CU_RED_ARGMIN, &t, mask, O.p, PD_CU_INT32, 0)); cmp("argmin", O.get(), an, 0, 0); }
  }
  // argmax over a long row (split path) with ties and a NaN: the first NaN wins
  std::vector<double> lv(300000, 1.0); lv[1234] = 7; lv[250000] = 7; 
  Dev<float> L(lv); pd_cuda_tensor l = {}; l.data = L.p; l.dtype = PD_CU_FLOAT32; l.ndim = 1; l.numel = 300000; l.shape[0] = 300000; l.strides[0] = 1;
  { Dev<int64_t> O(1); rc_ok("argmax long", NN->reduce2(PD_CU_RED_ARGMAX, &l, 1, O.p, PD_CU_INT64, 0)); cmp("argmax long", O.get(), {1234}, 0, 0); }
  lv[200000] = NAN; lv[290000] = NAN; Dev<float> L2(lv); l.data = L2.p;
  { Dev<int64_t> O(1); rc_ok("argmax nan", NN->reduce2(PD_CU_RED_ARGMAX, &l, 1, O.p, PD_CU_INT64, 0)); cmp("argmax nan", O.get(), {200000}, 0, 0); }
  // argmax of int64 in a transposed view (flatten order is logical)
  std::vector<double> iv = {3, 9, 2, 9, 1, 0};  // memory of a [3,2] stored transposed: logical [2,3]
  Dev<int64_t> I(iv); pd_cuda_tensor it = {}; it.data = I.p; it.dtype = PD_CU_INT64; it.ndim = 2; it.numel = 6; it.shape[0] = 2; it.shape[1] = 3; it.strides[0] = 1; it.strides[1] = 2;
  // logical = [[3, 2, 1], [9, 9, 0]] -> flat argmax 3
  { Dev<int64_t> O(1); rc_ok("argmax flat", NN->reduce2(PD_CU_RED_ARGMAX, &it, 3, O.p, PD_CU_INT64, 0)); cmp("argmax flat", O.get(), {3}, 0, 0); }
}

// ---------- timing ----------
template <typename F> static float timeit(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  f(); cudaDeviceSynchronize();
  cudaEventRecord(a); for (int i = 0; i < 20; i++) f(); cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b); return ms / 20;
}
static void t_perf() {
  const int64_t R = 4096, D = 4096, n = R * D;
  Dev<float> X(n), Y(n), O(D), M(R), V(R), S(D);
  cudaMemset(X.p, 0, n * 4);
  pd_cuda_tensor t = {}; t.data = X.p; t.dtype = PD_CU_FLOAT32; t.ndim = 2; t.numel = n; t.shape[0] = R; t.shape[1] = D; t.strides[0] = D; t.strides[1] = 1;
  float ms;
  ms = timeit([&] { NN->reduce(PD_CU_RED_SUM, &t, 2, O.p, PD_CU_FLOAT32); }); printf("perf sum rows [4096,4096]->[4096]: %.3f ms, %.0f GB/s\n", ms, n * 4 / ms / 1e6);
  ms = timeit([&] { NN->reduce(PD_CU_RED_SUM, &t, 1, O.p, PD_CU_FLOAT32); }); printf("perf sum cols [4096,4096]->[4096]: %.3f ms, %.0f GB/s\n", ms, n * 4 / ms / 1e6);
  ms = timeit([&] { NN->reduce(PD_CU_RED_SUM, &t, 3, O.p, PD_CU_FLOAT32); }); printf("perf sum all [4096,4096]: %.3f ms, %.0f GB/s\n", ms, n * 4 / ms / 1e6);
  ms = timeit([&] { NN->softmax(PD_CU_FLOAT32, X.p, Y.p, R, D, 1, 0); }); printf("perf softmax [4096,4096]: %.3f ms, %.0f GB/s\n", ms, 2 * n * 4 / ms / 1e6);
  ms = timeit([&] { NN->softmax(PD_CU_FLOAT32, X.p, Y.p, 65536, 10, 1, 1); }); printf("perf log_softmax [65536,10]: %.3f ms\n", ms);
  ms = timeit([&] { NN->layer_norm(PD_CU_FLOAT32, 16384, 1024, X.p, S.p, S.p, Y.p, M.p, V.p, 1e-5); }); printf("perf layer_norm [16384,1024]: %.3f ms, %.0f GB/s\n", ms, 2 * n * 4 / ms / 1e6);
  ms = timeit([&] { NN->layer_norm_grad(PD_CU_FLOAT32, 16384, 1024, X.p, S.p, M.p, V.p, X.p, Y.p, O.p, O.p + 1024, 1e-5, NULL, NULL); }); printf("perf layer_norm_grad [16384,1024]: %.3f ms, %.0f GB/s\n", ms, 3 * n * 4 / ms / 1e6);
  Dev<float> RM(256), RV(256), SM(256), SI(256);
  ms = timeit([&] { NN->batch_norm(PD_CU_FLOAT32, 64, 256, 1024, X.p, RM.p, RV.p, S.p, S.p, Y.p, SM.p, SI.p, 1, 0.9, 1e-5); }); printf("perf batch_norm NCHW [64,256,32,32]: %.3f ms, %.0f GB/s (4 passes)\n", ms, 4 * n * 4 / ms / 1e6);
  ms = timeit([&] { NN->batch_norm(PD_CU_FLOAT32, 65536, 256, 1, X.p, RM.p, RV.p, S.p, S.p, Y.p, SM.p, SI.p, 1, 0.9, 1e-5); }); printf("perf batch_norm NHWC [65536 rows,256]: %.3f ms, %.0f GB/s (4 passes)\n", ms, 4 * n * 4 / ms / 1e6);
  ms = timeit([&] { NN->batch_norm_grad(PD_CU_FLOAT32, 64, 256, 1024, X.p, S.p, SM.p, SI.p, X.p, Y.p, O.p, O.p + 256, O.p + 512, O.p + 768, 0, NULL, NULL); }); printf("perf batch_norm_grad NCHW: %.3f ms, %.0f GB/s (5 passes)\n", ms, 5 * n * 4 / ms / 1e6);
  const int64_t G = 4096;
  Dev<float> A(G * G), B(G * G), Cm(G * G);
  cudaMemset(A.p, 0, G * G * 4); cudaMemset(B.p, 0, G * G * 4);
  NN->set_allow_tf32(1);
  ms = timeit([&] { NN->gemm(PD_CU_FLOAT32, 0, 0, G, G, G, A.p, G, B.p, G, Cm.p, NULL); }); printf("perf gemm f32 tf32 4096^3: %.3f ms, %.0f TFLOP/s\n", ms, 2.0 * G * G * G / ms / 1e9);
  NN->set_allow_tf32(0);
  ms = timeit([&] { NN->gemm(PD_CU_FLOAT32, 0, 0, G, G, G, A.p, G, B.p, G, Cm.p, NULL); }); printf("perf gemm f32 strict 4096^3: %.3f ms, %.0f TFLOP/s\n", ms, 2.0 * G * G * G / ms / 1e9);
  ms = timeit([&] { NN->gemm(PD_CU_BFLOAT16, 0, 0, G, G, G, A.p, G, B.p, G, Cm.p, NULL); }); printf("perf gemm bf16 4096^3: %.3f ms, %.0f TFLOP/s\n", ms, 2.0 * G * G * G / ms / 1e9);
  cudaError_t e = cudaDeviceSynchronize(); if (e) { fails++; printf("FAIL perf: %s\n", cudaGetErrorString(e)); }
}

int main(int argc, char **argv) {
  if (argc > 1) { t_perf(); return 0; }
  t_edges();
  t_red2();
  { // cumsum along axis 0 of [3, 4] exclusive + reverse, and along the last axis; cumprod of ints
    std::vector<double> xv = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}; Dev<float> X(xv), Y(12);
    rc_ok("cumsum", NN->scan(PD_CU_FLOAT32, 0, X.p, Y.p, 1, 3, 4, 1, 1));
    cmp("cumsum excl rev", Y.get(), {14, 16, 18, 20, 9, 10, 11, 12, 0, 0, 0, 0}, 0, 0);
    rc_ok("cumsum rows", NN->scan(PD_CU_FLOAT32, 0, X.p, Y.p, 3, 4, 1, 0, 0));
    cmp("cumsum rows", Y.get(), {1, 3, 6, 10, 5, 11, 18, 26, 9, 19, 30, 42}, 0, 0);
    Dev<int64_t> I(xv), IO(12);
    rc_ok("cumprod", NN->scan(PD_CU_INT64, 1, I.p, IO.p, 2, 6, 1, 0, 0));
    cmp("cumprod", IO.get(), {1, 2, 6, 24, 120, 720, 7, 56, 504, 5040, 55440, 665280}, 0, 0);
  }
  { // dot over rows of a [5, 300] against a transposed y
    auto xv = randv(1500), yv = randv(1500); Dev<float> X(xv), Y(yv), O(5);
    rc_ok("dot", NN->dot(PD_CU_FLOAT32, X.p, Y.p, 5, 300, 300, 1, 1, 5, O.p));
    std::vector<double> ref(5); for (int r = 0; r < 5; r++) { double a = 0; for (int i = 0; i < 300; i++) a += (double)(float)xv[r * 300 + i] * (double)(float)yv[r + i * 5]; ref[r] = a; }
    cmp("dot", O.get(), ref, 1e-6, 1e-6);
    std::vector<double> iv = {1, 2, 3, 4, 5, 6}; Dev<int32_t> I(iv), IO(2);
    rc_ok("dot i32", NN->dot(PD_CU_INT32, I.p, I.p, 2, 3, 3, 1, 3, 1, IO.p)); cmp("dot i32", IO.get(), {14, 77}, 0, 0);
  }
  NN->set_allow_tf32(0);
  // gemm
  t_gemm<float>(PD_CU_FLOAT32, 0, 0, 3, 5, 4, {}, {}, 1e-5);
  t_gemm<float>(PD_CU_FLOAT32, 1, 1, 7, 6, 9, {2, 3}, {3}, 1e-5);
  t_gemm<float>(PD_CU_FLOAT32, 1, 0, 4, 5, 3, {2, 1}, {3}, 1e-5);
  t_gemm<float>(PD_CU_FLOAT32, 0, 1, 2, 5, 4, {3}, {1}, 1e-5);
  t_gemm<float>(PD_CU_FLOAT32, 0, 0, 1, 1, 4, {}, {}, 1e-5);
  t_gemm<float>(PD_CU_FLOAT32, 0, 0, 64, 48, 784, {}, {}, 1e-5);
  t_gemm<float>(PD_CU_FLOAT32, 0, 0, 5, 6, 7, {4}, {}, 1e-5);  // fold
  t_gemm<double>(PD_CU_FLOAT64, 1, 0, 3, 4, 5, {2, 1, 3}, {2, 3}, 1e-12);
  t_gemm<__half>(PD_CU_FLOAT16, 0, 0, 3, 6, 4, {3}, {}, 5e-3);
  t_gemm<__nv_bfloat16>(PD_CU_BFLOAT16, 0, 1, 33, 17, 65, {2}, {2}, 2e-2);
  NN->set_allow_tf32(1);
  t_gemm<float>(PD_CU_FLOAT32, 0, 0, 128, 128, 256, {}, {}, 3e-2);  // TF32: ~1e-3 relative per product
  // reductions
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_SUM, {3, 4, 5}, 2, PD_CU_FLOAT32, 1e-5);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_SUM, {3, 4, 5}, 5, PD_CU_FLOAT32, 1e-5);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_SUM, {2000, 3}, 1, PD_CU_FLOAT32, 1e-4);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_SUM, {200000, 10}, 1, PD_CU_FLOAT32, 1e-4);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_SUM, {3, 400000}, 2, PD_CU_FLOAT32, 1e-4);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_SUM, {1000003}, 1, PD_CU_FLOAT32, 1e-4);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_SUM, {5, 3, 4, 6}, 13, PD_CU_FLOAT32, 1e-5);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_SUM, {5, 3, 4, 6}, 13, PD_CU_FLOAT32, 1e-5, true);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_MEAN, {4, 3, 2, 9}, 13, PD_CU_FLOAT32, 1e-5);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_MEAN, {64, 10}, 3, PD_CU_FLOAT32, 1e-5);
  t_red<double>(PD_CU_FLOAT64, PD_CU_RED_MEAN, {3, 4}, 3, PD_CU_FLOAT64, 1e-12);
  t_red<__half>(PD_CU_FLOAT16, PD_CU_RED_SUM, {3, 4, 5, 7}, 13, PD_CU_FLOAT16, 1e-2);
  t_red<__nv_bfloat16>(PD_CU_BFLOAT16, PD_CU_RED_MEAN, {30, 70}, 2, PD_CU_BFLOAT16, 1e-2);
  t_red<int32_t>(PD_CU_INT32, PD_CU_RED_SUM, {3, 4, 5}, 5, PD_CU_INT64, 0);
  t_red<int64_t>(PD_CU_INT64, PD_CU_RED_SUM, {2, 3}, 3, PD_CU_INT64, 0);
  t_red<int16_t>(PD_CU_INT16, PD_CU_RED_SUM, {4, 3, 2, 5}, 10, PD_CU_INT16, 0);
  t_red<uint8_t>(PD_CU_BOOL, PD_CU_RED_SUM, {2, 3}, 3, PD_CU_INT64, 0, false, 0, 0.4);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_PROD, {3, 4, 5}, 2, PD_CU_FLOAT32, 1e-5, false, 0.5, 1.5);
  t_red<int64_t>(PD_CU_INT64, PD_CU_RED_PROD, {3, 4}, 1, PD_CU_INT64, 0, false, 0.2, 0.6);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_MAX, {3, 4, 5}, 5, PD_CU_FLOAT32, 0);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_MAX, {300, 40}, 1, PD_CU_FLOAT32, 0);
  t_red<int64_t>(PD_CU_INT64, PD_CU_RED_MAX, {2, 3, 17}, 5, PD_CU_INT64, 0);
  t_red<int32_t>(PD_CU_INT32, PD_CU_RED_MIN, {3, 4}, 3, PD_CU_INT32, 0);
  t_red<__half>(PD_CU_FLOAT16, PD_CU_RED_MIN, {3, 4}, 2, PD_CU_FLOAT16, 0);
  t_red<double>(PD_CU_FLOAT64, PD_CU_RED_MAX, {2, 3, 17}, 5, PD_CU_FLOAT64, 0, true);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_ALL, {3, 4, 5}, 2, PD_CU_BOOL, 0, false, 0, 1.1);
  t_red<uint8_t>(PD_CU_BOOL, PD_CU_RED_ANY, {3, 4, 5}, 5, PD_CU_BOOL, 0, false, 0, 0.3);
  t_red<int32_t>(PD_CU_INT32, PD_CU_RED_ANY, {3, 4, 5}, 5, PD_CU_BOOL, 0, false, 0, 0.3);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_LOGSUMEXP, {3, 4, 5}, 2, PD_CU_FLOAT32, 1e-6);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_LOGSUMEXP, {3, 4, 5}, 5, PD_CU_FLOAT32, 1e-6);
  t_red<double>(PD_CU_FLOAT64, PD_CU_RED_LOGSUMEXP, {2, 3}, 3, PD_CU_FLOAT64, 1e-12, false, 500, 600);
  t_red<float>(PD_CU_FLOAT32, PD_CU_RED_SUM, {7}, 0, PD_CU_FLOAT32, 0);
  // softmax
  for (int lg = 0; lg < 2; lg++) {
    t_softmax<float>(PD_CU_FLOAT32, 12, 5, 1, lg, 1e-6);
    t_softmax<float>(PD_CU_FLOAT32, 3, 4, 5, lg, 1e-6);
    t_softmax<float>(PD_CU_FLOAT32, 7, 3000, 1, lg, 1e-6);
    t_softmax<double>(PD_CU_FLOAT64, 3, 40, 2, lg, 1e-12);
    t_softmax<__half>(PD_CU_FLOAT16, 6, 33, 1, lg, 3e-3);
    t_softmax<__nv_bfloat16>(PD_CU_BFLOAT16, 6, 33, 3, lg, 2e-2);
  }
  // ce
  t_ce<float>(PD_CU_FLOAT32, 6, 5, 1, 0, -100);
  t_ce<float>(PD_CU_FLOAT32, 6, 5, 1, 0, 2);
  t_ce<float>(PD_CU_FLOAT32, 4, 5, 1, 1, -100);
  t_ce<double>(PD_CU_FLOAT64, 2, 5, 3, 0, -100);
  t_ce<double>(PD_CU_FLOAT64, 2, 70, 3, 1, -100);
  t_ce<float>(PD_CU_FLOAT32, 4, 5, 1, 0, -100, true);
  // ln
  t_ln<float>(PD_CU_FLOAT32, 3, 20, 1e-5);
  t_ln<float>(PD_CU_FLOAT32, 300, 768, 1e-5);
  t_ln<double>(PD_CU_FLOAT64, 5, 7, 1e-12);
  // bn
  t_bn<float>(PD_CU_FLOAT32, 4, 3, 10, 1, 1e-5);
  t_bn<float>(PD_CU_FLOAT32, 40, 3, 1, 1, 1e-5);
  t_bn<float>(PD_CU_FLOAT32, 64, 16, 196, 1, 1e-5);
  t_bn<float>(PD_CU_FLOAT32, 20000, 8, 1, 1, 1e-5);
  t_bn<float>(PD_CU_FLOAT32, 4, 3, 10, 0, 1e-5);
  t_bn<double>(PD_CU_FLOAT64, 3, 2, 4, 1, 1e-12);
  printf("%d checks, %d failures\n", checks, fails);
  return fails != 0;
}
