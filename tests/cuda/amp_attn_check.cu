// Build (repository root, a machine with nvcc):
//   nvcc -std=c++17 -O3 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a -Icsrc/cuda -Icsrc
//     -o amp_attn_check tests/cuda/amp_attn_check.cu csrc/cuda/amp_unscale.cu csrc/cuda/attn_core.cu
//     csrc/cuda/nn_cublas.cu -cudart static -ldl
// Run on a GPU machine with libcublas.so.13 findable (LD_LIBRARY_PATH or PADDLE_C_CUBLAS_LIB):
//   ./amp_attn_check        one FAIL line per failed check, then "N checks, M failed" (exit 1 on a failure)
// Standalone GPU check (helper cuamp) of the launchers added for ops/amp.yaml (amp_unscale.cu) and
// ops/attention.yaml (attn_core.cu + nn_cublas.cu's pd_cunn_gemm_c) against host loops: the
// unscaling bit for bit against the CPU kernel's arithmetic (csrc/kernels/cpu/amp.c), the loss
// scaling rule exactly, and the whole attention forward / backward pipeline (mask broadcast,
// dropout mask, dprobs) against a double-precision host reference of attention.c's plan.
#include <cstdio>
#include <cstdlib>
#include <cstdarg>
#include <cstring>
#include <cmath>
#include <vector>
#include <random>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "pd_cuda_api.h"
#include "pd_cuda_nn.h"

static char g_err[1024];
extern "C" void pd_cu_set_error(int code, const char *fmt, ...) {
  (void)code;
  va_list ap; va_start(ap, fmt); vsnprintf(g_err, sizeof g_err, fmt, ap); va_end(ap);
}
extern "C" void *pd_cu_current_stream(void) { return NULL; }

extern "C" int pd_cuamp_unscale(int n, void *const *data, const int64_t *numel, const int *dtype,
                                const void *scale, void *found_inf);
extern "C" int pd_cuamp_update_scaling(void *loss_scaling, const void *found_inf, void *good_steps,
                                       void *bad_steps, int64_t incr_every, int64_t decr_every,
                                       float incr_ratio, float decr_ratio);
extern "C" int pd_cunn_gemm_c(int dtype, int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A,
                              int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc,
                              const pd_cuda_gemm_batch *batch, const int64_t *cstride);
extern "C" int pd_cunn_set_allow_tf32(int allow);
extern "C" int pd_cuattn_softmax(int dtype, void *s, const void *mask, int64_t B, int64_t H, int64_t Tq,
                                 int64_t Tk, int64_t Mb, int64_t Mh, double scale);
extern "C" int pd_cuattn_dropout(int dtype, const void *P, const void *m, void *D, int64_t n, double keep);
extern "C" int pd_cuattn_softmax_grad(int dtype, void *G, const void *P, const void *m, const void *dP,
                                      int64_t rows, int64_t n, double dsc, double scale);

static int fails = 0, checks = 0;
static std::mt19937 rng(7);
static double urand(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
static void fail(const char *fmt, ...) {
  va_list ap; va_start(ap, fmt); printf("FAIL "); vprintf(fmt, ap); printf("\n"); va_end(ap); fails++;
}
static void rc_ok(const char *what, int rc) {
  if (rc) fail("%s: rc %d: %s", what, rc, g_err);
  cudaError_t e = cudaDeviceSynchronize();
  if (e) { fail("%s: cuda %s", what, cudaGetErrorString(e)); exit(1); }
}
static void *dalloc(size_t n) { void *p = NULL; cudaMalloc(&p, n ? n : 1); return p; }
static void up(void *d, const void *h, size_t n) { if (n) cudaMemcpy(d, h, n, cudaMemcpyHostToDevice); }
static void down(void *h, const void *d, size_t n) { if (n) cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost); }

// ---------------- check_finite_and_unscale_ ----------------
static const size_t esz[] = {0, 0, 0, 0, 0, 0, 2, 2, 4, 8};
// the CPU kernel's arithmetic on one element (bits in / out), returns bad
static bool ref_unscale(int dt, void *p, int64_t i, float inv) {
  switch (dt) {
    case PD_CU_FLOAT16: { __half *h = (__half *)p; float v = __half2float(h[i]); float z = v * 0.0f; h[i] = __float2half_rn(v * inv); return z != z; }
    case PD_CU_BFLOAT16: { __nv_bfloat16 *h = (__nv_bfloat16 *)p; float v = __bfloat162float(h[i]); float z = v * 0.0f; h[i] = __float2bfloat16_rn(v * inv); return z != z; }
    case PD_CU_FLOAT32: { float *f = (float *)p; float v = f[i]; float z = v * 0.0f; f[i] = v * inv; return z != z; }
    default: { double *d = (double *)p; double v = d[i]; double z = v * 0.0; d[i] = v * (double)inv; return z != z; }
  }
}
static void set_val(int dt, void *p, int64_t i, double v) {
  switch (dt) {
    case PD_CU_FLOAT16: ((__half *)p)[i] = __float2half_rn((float)v); break;
    case PD_CU_BFLOAT16: ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn((float)v); break;
    case PD_CU_FLOAT32: ((float *)p)[i] = (float)v; break;
    default: ((double *)p)[i] = v;
  }
}
static bool same_bits(int dt, const void *a, const void *b, int64_t i) {
  const size_t s = esz[dt];
  if (memcmp((const char *)a + i * s, (const char *)b + i * s, s) == 0) return true;
  double x, y;  // NaN payloads aside
  switch (dt) {
    case PD_CU_FLOAT16: x = __half2float(((const __half *)a)[i]); y = __half2float(((const __half *)b)[i]); break;
    case PD_CU_BFLOAT16: x = __bfloat162float(((const __nv_bfloat16 *)a)[i]); y = __bfloat162float(((const __nv_bfloat16 *)b)[i]); break;
    case PD_CU_FLOAT32: x = ((const float *)a)[i]; y = ((const float *)b)[i]; break;
    default: x = ((const double *)a)[i]; y = ((const double *)b)[i];
  }
  return std::isnan(x) && std::isnan(y);
}

static void t_unscale(const char *name, std::vector<int> dts, std::vector<int64_t> ns, float scale, int n_bad) {
  const int n = (int)ns.size();
  std::vector<std::vector<char>> host(n), ref(n);
  std::vector<void *> dev(n);
  std::vector<int64_t> numel(ns);
  std::vector<int> dtype(n);
  int64_t total = 0;
  for (int i = 0; i < n; i++) total += ns[i];
  std::vector<int64_t> bad_at;
  for (int b = 0; b < n_bad && total > 0; b++) bad_at.push_back((int64_t)(urand(0, 1) * (double)total) % total);
  int64_t g = 0;
  for (int i = 0; i < n; i++) {
    const int dt = dtype[i] = dts[i % dts.size()];
    host[i].resize((size_t)ns[i] * esz[dt]);
    for (int64_t j = 0; j < ns[i]; j++, g++) {
      double v = urand(-60000, 60000) * (urand(0, 1) < 0.5 ? 1e-6 : 1.0);  // finite in float16
      for (size_t b = 0; b < bad_at.size(); b++)
        if (bad_at[b] == g) v = b % 3 == 0 ? INFINITY : b % 3 == 1 ? -INFINITY : NAN;
      set_val(dt, host[i].data(), j, v);
    }
    ref[i] = host[i];
    dev[i] = dalloc(host[i].size());
    up(dev[i], host[i].data(), host[i].size());
  }
  const float inv = 1.0f / scale;
  bool rbad = false;
  for (int i = 0; i < n; i++)
    for (int64_t j = 0; j < ns[i]; j++) rbad |= ref_unscale(dtype[i], ref[i].data(), j, inv);
  float *dscale = (float *)dalloc(4);
  bool *dfound = (bool *)dalloc(1);
  up(dscale, &scale, 4);
  cudaMemset(dfound, 0x5a, 1);
  rc_ok(name, pd_cuamp_unscale(n, dev.data(), numel.data(), dtype.data(), dscale, dfound));
  checks++;
  unsigned char found = 0x77;
  down(&found, dfound, 1);
  if (found != (rbad ? 1 : 0)) fail("%s: found_inf %d, expected %d", name, found, (int)rbad);
  for (int i = 0; i < n; i++) {
    std::vector<char> got(host[i].size());
    down(got.data(), dev[i], got.size());
    int64_t nb = 0, first = -1;
    for (int64_t j = 0; j < ns[i]; j++)
      if (!same_bits(dtype[i], got.data(), ref[i].data(), j)) { nb++; if (first < 0) first = j; }
    if (nb) fail("%s: tensor %d (dtype %d, %lld elements): %lld values differ from the CPU's, first [%lld]", name, i,
                 dtype[i], (long long)ns[i], (long long)nb, (long long)first);
    cudaFree(dev[i]);
  }
  cudaFree(dscale);
  cudaFree(dfound);
}

// ---------------- update_loss_scaling_ ----------------
static void t_update(float scale, bool found, int good, int bad, int64_t incr_every, int64_t decr_every, float incr, float decr) {
  float rs = scale; int rg = good, rb = bad;
  if (found) {
    rg = 0; rb += 1;
    if (rb == decr_every) { float s = rs * decr; rs = s < 1.0f ? 1.0f : s; rb = 0; }
  } else {
    rb = 0; rg += 1;
    if (rg == incr_every) { float s = rs * incr; if (std::isfinite(s)) rs = s; rg = 0; }
  }
  float *ds = (float *)dalloc(4); bool *df = (bool *)dalloc(1); int *dg = (int *)dalloc(4), *db = (int *)dalloc(4);
  up(ds, &scale, 4); up(df, &found, 1); up(dg, &good, 4); up(db, &bad, 4);
  rc_ok("update_loss_scaling_", pd_cuamp_update_scaling(ds, df, dg, db, incr_every, decr_every, incr, decr));
  float gs; int gg, gb;
  down(&gs, ds, 4); down(&gg, dg, 4); down(&gb, db, 4);
  checks++;
  if (memcmp(&gs, &rs, 4) || gg != rg || gb != rb)
    fail("update_loss_scaling_(%g, %d, %d, %d): got (%g, %d, %d), expected (%g, %d, %d)", scale, (int)found, good, bad, gs,
         gg, gb, rs, rg, rb);
  cudaFree(ds); cudaFree(df); cudaFree(dg); cudaFree(db);
}

// ---------------- attention_core ----------------
template <typename T> static std::vector<T> cvt(const std::vector<double> &v) { return std::vector<T>(v.begin(), v.end()); }
template <typename T> static T *todev(const std::vector<double> &v) { auto h = cvt<T>(v); T *d = (T *)dalloc(h.size() * sizeof(T)); up(d, h.data(), h.size() * sizeof(T)); return d; }
template <typename T> static std::vector<double> fromdev(const T *d, size_t n) { std::vector<T> h(n); down(h.data(), d, n * sizeof(T)); return std::vector<double>(h.begin(), h.end()); }
static void cmp(const char *what, const std::vector<double> &got, const std::vector<double> &ref, double tol) {
  checks++;
  double scale = 1; for (double r : ref) if (std::isfinite(r) && fabs(r) > scale) scale = fabs(r);
  int64_t nb = 0, first = -1;
  for (size_t i = 0; i < got.size(); i++) {
    if (std::isnan(got[i]) && std::isnan(ref[i])) continue;
    if (!(fabs(got[i] - ref[i]) <= tol * scale + tol * fabs(ref[i]))) { nb++; if (first < 0) first = (int64_t)i; }
  }
  if (nb) fail("%s: %lld of %zu differ, first [%lld] got %.10g ref %.10g", what, (long long)nb, got.size(), (long long)first,
               got[first], ref[first]);
}

struct Geo { int64_t B, Tq, Tk, H, E, Ev, hd, hdv, Mb, Mh; };

// the CPU kernel's plan in double: P, out; then dq, dk, dv
static void ref_attn(const Geo &g, const std::vector<double> &q, const std::vector<double> &k, const std::vector<double> &v,
                     const std::vector<double> *mask, const std::vector<unsigned char> *dm, double keep, double scale,
                     const std::vector<double> &dO, const std::vector<double> *dP, std::vector<double> &P,
                     std::vector<double> &out, std::vector<double> &dq, std::vector<double> &dk, std::vector<double> &dv) {
  const int64_t TT = g.Tq * g.Tk;
  P.assign(g.B * g.H * TT, 0); out.assign(g.B * g.Tq * g.Ev, 0);
  dq.assign(q.size(), 0); dk.assign(k.size(), 0); dv.assign(v.size(), 0);
  for (int64_t b = 0; b < g.B; b++)
    for (int64_t h = 0; h < g.H; h++) {
      const int64_t bh = b * g.H + h;
      double *S = &P[bh * TT];
      for (int64_t i = 0; i < g.Tq; i++) {
        double mx = -INFINITY;
        for (int64_t j = 0; j < g.Tk; j++) {
          double s = 0;
          for (int64_t d = 0; d < g.hd; d++) s += q[(b * g.Tq + i) * g.E + h * g.hd + d] * k[(b * g.Tk + j) * g.E + h * g.hd + d];
          s *= scale;
          if (mask) s += (*mask)[(((g.Mb > 1 ? b : 0) * g.Mh + (g.Mh > 1 ? h : 0)) * g.Tq + i) * g.Tk + j];
          S[i * g.Tk + j] = s;
          mx = s > mx ? s : mx;
        }
        double sum = 0;
        for (int64_t j = 0; j < g.Tk; j++) sum += (S[i * g.Tk + j] = exp(S[i * g.Tk + j] - mx));
        for (int64_t j = 0; j < g.Tk; j++) S[i * g.Tk + j] /= sum;
      }
      std::vector<double> A(TT), G(TT);
      for (int64_t e = 0; e < TT; e++) A[e] = dm ? ((*dm)[bh * TT + e] ? S[e] / keep : 0) : S[e];
      for (int64_t i = 0; i < g.Tq; i++)
        for (int64_t c = 0; c < g.hdv; c++) {
          double s = 0;
          for (int64_t j = 0; j < g.Tk; j++) s += A[i * g.Tk + j] * v[(b * g.Tk + j) * g.Ev + h * g.hdv + c];
          out[(b * g.Tq + i) * g.Ev + h * g.hdv + c] = s;
        }
      // backward
      for (int64_t j = 0; j < g.Tk; j++)
        for (int64_t c = 0; c < g.hdv; c++) {
          double s = 0;
          for (int64_t i = 0; i < g.Tq; i++) s += A[i * g.Tk + j] * dO[(b * g.Tq + i) * g.Ev + h * g.hdv + c];
          dv[(b * g.Tk + j) * g.Ev + h * g.hdv + c] = s;
        }
      for (int64_t i = 0; i < g.Tq; i++) {
        double acc = 0;
        for (int64_t j = 0; j < g.Tk; j++) {
          double s = 0;
          for (int64_t c = 0; c < g.hdv; c++) s += dO[(b * g.Tq + i) * g.Ev + h * g.hdv + c] * v[(b * g.Tk + j) * g.Ev + h * g.hdv + c];
          if (dm) s = (*dm)[bh * TT + i * g.Tk + j] ? s / keep : 0;
          if (dP) s += (*dP)[bh * TT + i * g.Tk + j];
          G[i * g.Tk + j] = s;
          acc += s * S[i * g.Tk + j];
        }
        for (int64_t j = 0; j < g.Tk; j++) G[i * g.Tk + j] = S[i * g.Tk + j] * (G[i * g.Tk + j] - acc) * scale;
      }
      for (int64_t i = 0; i < g.Tq; i++)
        for (int64_t d = 0; d < g.hd; d++) {
          double s = 0;
          for (int64_t j = 0; j < g.Tk; j++) s += G[i * g.Tk + j] * k[(b * g.Tk + j) * g.E + h * g.hd + d];
          dq[(b * g.Tq + i) * g.E + h * g.hd + d] = s;
        }
      for (int64_t j = 0; j < g.Tk; j++)
        for (int64_t d = 0; d < g.hd; d++) {
          double s = 0;
          for (int64_t i = 0; i < g.Tq; i++) s += G[i * g.Tk + j] * q[(b * g.Tq + i) * g.E + h * g.hd + d];
          dk[(b * g.Tk + j) * g.E + h * g.hd + d] = s;
        }
    }
}

static int bgemm(int dt, int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A, int64_t lda, int64_t a0, int64_t a1,
                 const void *B, int64_t ldb, int64_t b0, int64_t b1, void *C, int64_t ldc, int64_t c0, int64_t c1, const Geo &g) {
  pd_cuda_gemm_batch bt = {};
  bt.nb = 2; bt.shape[0] = g.B; bt.shape[1] = g.H;
  bt.astride[0] = a0; bt.astride[1] = a1; bt.bstride[0] = b0; bt.bstride[1] = b1;
  const int64_t cs[2] = {c0, c1};
  return pd_cunn_gemm_c(dt, ta, tb, M, N, K, A, lda, B, ldb, C, ldc, &bt, cs);
}

// the glue's sequence (csrc/kernels/gpu/attn.c) on device buffers
template <typename T>
static void t_attn(const char *name, int dt, Geo g, bool with_mask, double p, bool with_dp, double tol) {
  g.hd = g.E / g.H; g.hdv = g.Ev / g.H;
  const int64_t TT = g.Tq * g.Tk, nP = g.B * g.H * TT;
  auto rv = [](size_t n) { std::vector<double> v(n); for (auto &x : v) x = urand(-1, 1); return v; };
  auto q = rv(g.B * g.Tq * g.E), k = rv(g.B * g.Tk * g.E), v = rv(g.B * g.Tk * g.Ev), dO = rv(g.B * g.Tq * g.Ev);
  std::vector<double> mask = rv(with_mask ? g.Mb * g.Mh * TT : 0), dPv = rv(with_dp ? nP : 0);
  if (with_mask) for (size_t i = 0; i < mask.size(); i += 7) mask[i] = -1e9;  // masked-out positions
  // round the inputs to T so both sides see the same values
  for (auto *vec : {&q, &k, &v, &dO, &mask, &dPv}) for (auto &x : *vec) x = (double)(T)x;
  std::vector<unsigned char> dm(nP);
  for (auto &m : dm) m = urand(0, 1) >= p;
  const double keep = (double)(p > 0 ? 1.0f - (float)p : 1.0f);
  const double dsc = dt == PD_CU_FLOAT64 ? 1.0 / keep : (double)(1.0f / (float)keep);
  const double scale = (double)(T)0.37;
  std::vector<double> P, out, dq, dk, dv;
  ref_attn(g, q, k, v, with_mask ? &mask : nullptr, p > 0 ? &dm : nullptr, keep, scale, dO, with_dp ? &dPv : nullptr, P, out, dq,
           dk, dv);
  T *Q = todev<T>(q), *K = todev<T>(k), *V = todev<T>(v), *DO = todev<T>(dO);
  T *MK = with_mask ? todev<T>(mask) : nullptr, *DP = with_dp ? todev<T>(dPv) : nullptr;
  unsigned char *DM = (unsigned char *)dalloc(nP); up(DM, dm.data(), nP);
  T *Pd = (T *)dalloc(nP * sizeof(T)), *O = (T *)dalloc(out.size() * sizeof(T)), *D = (T *)dalloc(nP * sizeof(T));
  T *G = (T *)dalloc(nP * sizeof(T)), *dQ = (T *)dalloc(q.size() * sizeof(T)), *dK = (T *)dalloc(k.size() * sizeof(T));
  T *dV = (T *)dalloc(v.size() * sizeof(T));
  char what[256];
  snprintf(what, sizeof what, "%s forward", name);
  rc_ok(what, bgemm(dt, 0, 1, g.Tq, g.Tk, g.hd, Q, g.E, g.Tq * g.E, g.hd, K, g.E, g.Tk * g.E, g.hd, Pd, g.Tk, g.H * TT, TT, g));
  rc_ok(what, pd_cuattn_softmax(dt, Pd, MK, g.B, g.H, g.Tq, g.Tk, g.Mb, g.Mh, scale));
  const T *A = Pd;
  if (p > 0) { rc_ok(what, pd_cuattn_dropout(dt, Pd, DM, D, nP, keep)); A = D; }
  rc_ok(what, bgemm(dt, 0, 0, g.Tq, g.hdv, g.Tk, A, g.Tk, g.H * TT, TT, V, g.Ev, g.Tk * g.Ev, g.hdv, O, g.Ev, g.Tq * g.Ev, g.hdv, g));
  snprintf(what, sizeof what, "%s probs", name); cmp(what, fromdev(Pd, nP), P, tol);
  snprintf(what, sizeof what, "%s out", name); cmp(what, fromdev(O, out.size()), out, tol);
  snprintf(what, sizeof what, "%s backward", name);
  rc_ok(what, bgemm(dt, 1, 0, g.Tk, g.hdv, g.Tq, A, g.Tk, g.H * TT, TT, DO, g.Ev, g.Tq * g.Ev, g.hdv, dV, g.Ev, g.Tk * g.Ev, g.hdv, g));
  rc_ok(what, bgemm(dt, 0, 1, g.Tq, g.Tk, g.hdv, DO, g.Ev, g.Tq * g.Ev, g.hdv, V, g.Ev, g.Tk * g.Ev, g.hdv, G, g.Tk, g.H * TT, TT, g));
  rc_ok(what, pd_cuattn_softmax_grad(dt, G, Pd, p > 0 ? DM : nullptr, DP, g.B * g.H * g.Tq, g.Tk, dsc, scale));
  rc_ok(what, bgemm(dt, 0, 0, g.Tq, g.hd, g.Tk, G, g.Tk, g.H * TT, TT, K, g.E, g.Tk * g.E, g.hd, dQ, g.E, g.Tq * g.E, g.hd, g));
  rc_ok(what, bgemm(dt, 1, 0, g.Tk, g.hd, g.Tq, G, g.Tk, g.H * TT, TT, Q, g.E, g.Tq * g.E, g.hd, dK, g.E, g.Tk * g.E, g.hd, g));
  snprintf(what, sizeof what, "%s dq", name); cmp(what, fromdev(dQ, q.size()), dq, tol);
  snprintf(what, sizeof what, "%s dk", name); cmp(what, fromdev(dK, k.size()), dk, tol);
  snprintf(what, sizeof what, "%s dv", name); cmp(what, fromdev(dV, v.size()), dv, tol);
  for (void *x : {(void *)Q, (void *)K, (void *)V, (void *)DO, (void *)MK, (void *)DP, (void *)DM, (void *)Pd, (void *)O, (void *)D,
                  (void *)G, (void *)dQ, (void *)dK, (void *)dV})
    if (x) cudaFree(x);
}

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) { printf("no GPU: skipped\n"); return 0; }
  // check_finite_and_unscale_
  t_unscale("unscale f32 clean", {PD_CU_FLOAT32}, {3, 4, 5}, 4.0f, 0);
  t_unscale("unscale empty list", {PD_CU_FLOAT32}, {}, 2.0f, 0);
  t_unscale("unscale with empties", {PD_CU_FLOAT32, PD_CU_FLOAT16}, {0, 17, 0, 1}, 3.0f, 0);
  t_unscale("unscale mixed clean", {PD_CU_FLOAT16, PD_CU_BFLOAT16, PD_CU_FLOAT32, PD_CU_FLOAT64}, {1000, 70001, 4097, 33}, 1024.0f, 0);
  t_unscale("unscale mixed inf/nan", {PD_CU_FLOAT16, PD_CU_BFLOAT16, PD_CU_FLOAT32, PD_CU_FLOAT64}, {1000, 70001, 4097, 33}, 65536.0f, 3);
  t_unscale("unscale odd scale", {PD_CU_FLOAT32, PD_CU_FLOAT64, PD_CU_BFLOAT16}, {5000, 5000, 5000}, 3.3f, 0);
  {  // more tensors than one launch takes (48): clean, then one bad element somewhere
    std::vector<int64_t> ns(130);
    for (size_t i = 0; i < ns.size(); i++) ns[i] = (int64_t)(i * 37 % 301);
    t_unscale("unscale 130 tensors", {PD_CU_FLOAT32, PD_CU_FLOAT16, PD_CU_FLOAT64, PD_CU_BFLOAT16}, ns, 128.0f, 0);
    t_unscale("unscale 130 tensors, bad", {PD_CU_FLOAT32, PD_CU_FLOAT16, PD_CU_FLOAT64, PD_CU_BFLOAT16}, ns, 128.0f, 1);
  }
  t_unscale("unscale large f16", {PD_CU_FLOAT16}, {(int64_t)1 << 24}, 32768.0f, 1);
  // update_loss_scaling_
  t_update(1024.0f, true, 3, 1, 1000, 2, 2.0f, 0.5f);
  t_update(1024.0f, true, 3, 0, 1000, 2, 2.0f, 0.5f);
  t_update(1.5f, true, 0, 1, 1000, 2, 2.0f, 0.5f);
  t_update(1024.0f, false, 1, 1, 2, 2, 2.0f, 0.5f);
  t_update(1024.0f, false, 0, 1, 2, 2, 2.0f, 0.5f);
  t_update(3e38f, false, 1, 0, 2, 2, 2.0f, 0.5f);
  // attention_core: exact float32 GEMMs (TF32 off, as the op sweep runs)
  pd_cunn_set_allow_tf32(0);
  t_attn<double>("attn f64 plain", PD_CU_FLOAT64, Geo{2, 3, 5, 2, 4, 6, 0, 0, 1, 1}, false, 0.0, false, 1e-10);
  t_attn<double>("attn f64 mask [1,H]", PD_CU_FLOAT64, Geo{2, 3, 5, 2, 4, 4, 0, 0, 1, 2}, true, 0.0, false, 1e-10);
  t_attn<double>("attn f64 mask [B,1]", PD_CU_FLOAT64, Geo{3, 4, 4, 3, 6, 3, 0, 0, 3, 1}, true, 0.0, true, 1e-10);
  t_attn<double>("attn f64 dropout", PD_CU_FLOAT64, Geo{2, 7, 9, 4, 16, 8, 0, 0, 2, 4}, true, 0.3, true, 1e-10);
  t_attn<double>("attn f64 Tq=1", PD_CU_FLOAT64, Geo{4, 1, 1, 2, 4, 4, 0, 0, 1, 1}, false, 0.0, false, 1e-10);
  t_attn<float>("attn f32 plain", PD_CU_FLOAT32, Geo{2, 3, 5, 2, 4, 6, 0, 0, 1, 1}, false, 0.0, false, 1e-5);
  t_attn<float>("attn f32 dropout", PD_CU_FLOAT32, Geo{2, 7, 9, 4, 16, 8, 0, 0, 2, 4}, true, 0.1, true, 1e-5);
  t_attn<float>("attn f32 bert-ish", PD_CU_FLOAT32, Geo{2, 128, 128, 12, 768, 768, 0, 0, 2, 1}, true, 0.1, false, 1e-4);
  t_attn<float>("attn f32 long rows", PD_CU_FLOAT32, Geo{1, 3, 1000, 1, 8, 8, 0, 0, 1, 1}, false, 0.0, false, 1e-5);
  printf("%d checks, %d failed\n", checks, fails);
  return fails ? 1 : 0;
}
