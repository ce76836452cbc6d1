/* C unit tests of the sparse tensor kernels (ops/sparse_tensor.yaml, csrc/kernels/cpu/
 * sparse_tensor.c) against naive dense loops: CSR @ dense (a full 64-float tile plus a ragged
 * tail, empty rows, float32 and float64), its transpose, SDDMM, COO coalescing and the CSR <-> COO
 * index conversions; and every malformed index array rejected with INVALID_ARGUMENT. The
 * ASan/UBSan build runs it with leak detection, so the error paths give back what they took. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "autograd/pd_autograd.h"
#include "ops/generated/pd_ops_gen.h"
#include "pd_test.h"

static pd_tensor *mk(pd_dtype dt, int ndim, const int64_t *shape, const void *data) {
  pd_tensor *t = NULL;
  if (pd_tensor_empty(dt, ndim, shape, &t) != PD_OK) return NULL;
  if (t->numel) memcpy(pd_tensor_data(t), data, pd_dtype_size(dt) * (size_t)t->numel);
  return t;
}

static int run(int op, const void *args, pd_tensor **o0, pd_tensor **o1) {
  pd_tensor *buf[4], **o = buf;
  int n = -4;
  if (pd_op_run(op, args, &o, &n) != PD_OK) return 0;
  *o0 = o[0];
  if (o1) *o1 = o[1];
  else
    for (int i = 1; i < n; i++) pd_tensor_release(o[i]);
  return 1;
}

static uint64_t lcg = 12345;
static double rnd(void) {
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg >> 11) / 9007199254740992.0 - 0.5;
}

enum { M = 9, K = 7, NNZ_MAX = M * K };

/* a random CSR pattern of M x K (row 3 empty), values in double */
static int64_t make_csr(int64_t *rp, int64_t *ci, double *v) {
  int64_t p = 0;
  rp[0] = 0;
  for (int64_t i = 0; i < M; i++) {
    for (int64_t j = 0; j < K; j++)
      if (i != 3 && rnd() > 0.1) {
        ci[p] = j;
        v[p++] = rnd();
      }
    rp[i + 1] = p;
  }
  return p;
}

static void test_spmm_mm_t_sddmm_match_dense(void) {
  int64_t rp[M + 1], ci[NNZ_MAX];
  double v[NNZ_MAX];
  int64_t nnz = make_csr(rp, ci, v);
  const int64_t ns[3] = {64, 70, 5};
  for (int dti = 0; dti < 2; dti++) {
    pd_dtype dt = dti ? PD_FLOAT64 : PD_FLOAT32;
    double tol = dti ? 1e-12 : 1e-5;
    for (int q = 0; q < 3; q++) {
      int64_t N = ns[q], ys[2] = {K, N}, gs[2] = {M, N}, ls[1] = {K}, nr = M + 1;
      double *y = malloc(sizeof(double) * (size_t)(K * N)), *g = malloc(sizeof(double) * (size_t)(M * N));
      float *yf = malloc(sizeof(float) * (size_t)(K * N)), *gf = malloc(sizeof(float) * (size_t)(M * N));
      float vf[NNZ_MAX];
      for (int64_t i = 0; i < K * N; i++) yf[i] = (float)(y[i] = rnd());
      for (int64_t i = 0; i < M * N; i++) gf[i] = (float)(g[i] = rnd());
      for (int64_t p = 0; p < nnz; p++) vf[p] = (float)v[p];
      if (!dti) {
        for (int64_t i = 0; i < K * N; i++) y[i] = yf[i];
        for (int64_t i = 0; i < M * N; i++) g[i] = gf[i];
      }
      double vv[NNZ_MAX]; /* the values the kernel sees */
      for (int64_t p = 0; p < nnz; p++) vv[p] = dti ? v[p] : (double)vf[p];
      pd_tensor *crows = mk(PD_INT64, 1, &nr, rp), *cols = mk(PD_INT64, 1, &nnz, ci);
      pd_tensor *vals = mk(dt, 1, &nnz, dti ? (const void *)v : (const void *)vf);
      pd_tensor *yt = mk(dt, 2, ys, dti ? (const void *)y : (const void *)yf);
      pd_tensor *gt = mk(dt, 2, gs, dti ? (const void *)g : (const void *)gf);
      pd_tensor *like = mk(PD_INT64, 1, ls, rp);
      pd_tensor *out = NULL, *out_t = NULL, *sd = NULL;
      pd_sparse_csr_mm_args ma = {crows, cols, vals, yt};
      pd_sparse_csr_mm_t_args ta = {crows, cols, vals, gt, like};
      /* sddmm(x = g [M, N], yt = y [K, N]): out[p] = g[row p] . y[cols[p]] */
      pd_tensor *yK = mk(dt, 2, ys, dti ? (const void *)y : (const void *)yf);
      pd_sparse_sddmm_args sa = {crows, cols, gt, yK};
      CHECK(run(PD_OP_SPARSE_CSR_MM, &ma, &out, NULL));
      CHECK(run(PD_OP_SPARSE_CSR_MM_T, &ta, &out_t, NULL));
      CHECK(run(PD_OP_SPARSE_SDDMM, &sa, &sd, NULL));
      int ok = out && out_t && sd;
      for (int64_t i = 0; ok && i < M; i++)
        for (int64_t n = 0; n < N; n++) {
          double want = 0;
          for (int64_t p = rp[i]; p < rp[i + 1]; p++) want += vv[p] * y[ci[p] * N + n];
          double got = dti ? ((double *)pd_tensor_data(out))[i * N + n] : ((float *)pd_tensor_data(out))[i * N + n];
          if (fabs(got - want) > tol * (1 + fabs(want))) ok = 0;
        }
      CHECK(ok);
      ok = out_t != NULL;
      for (int64_t k = 0; ok && k < K; k++)
        for (int64_t n = 0; n < N; n++) {
          double want = 0;
          for (int64_t i = 0; i < M; i++)
            for (int64_t p = rp[i]; p < rp[i + 1]; p++)
              if (ci[p] == k) want += vv[p] * g[i * N + n];
          double got = dti ? ((double *)pd_tensor_data(out_t))[k * N + n] : ((float *)pd_tensor_data(out_t))[k * N + n];
          if (fabs(got - want) > tol * (1 + fabs(want))) ok = 0;
        }
      CHECK(ok);
      ok = sd != NULL;
      for (int64_t i = 0; ok && i < M; i++)
        for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
          double want = 0;
          for (int64_t n = 0; n < N; n++) want += g[i * N + n] * y[ci[p] * N + n];
          double got = dti ? ((double *)pd_tensor_data(sd))[p] : ((float *)pd_tensor_data(sd))[p];
          if (fabs(got - want) > tol * (1 + fabs(want))) ok = 0;
        }
      CHECK(ok);
      pd_tensor *objs[] = {crows, cols, vals, yt, gt, like, out, out_t, sd, yK};
      for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) pd_tensor_release(objs[i]);
      free(y);
      free(g);
      free(yf);
      free(gf);
    }
  }
}

static void test_coalesce_and_conversions(void) {
  /* (1,2) (0,1) (1,2) (0,0) in a 2 x 3: sorted unique (0,0) (0,1) (1,2) */
  int64_t is[2] = {2, 4}, shp[2] = {2, 3};
  const int64_t ix[8] = {1, 0, 1, 0, 2, 1, 2, 0};
  pd_tensor *t = mk(PD_INT64, 2, is, ix), *oi = NULL, *map = NULL;
  pd_sparse_coo_coalesce_index_args ca = {t, {shp, 2}};
  CHECK(run(PD_OP_SPARSE_COO_COALESCE_INDEX, &ca, &oi, &map));
  const int64_t want_i[6] = {0, 0, 1, 0, 1, 2}, want_m[4] = {2, 1, 2, 0};
  CHECK(oi && oi->shape[1] == 3 && !memcmp(pd_tensor_data(oi), want_i, sizeof want_i));
  CHECK(map && !memcmp(pd_tensor_data(map), want_m, sizeof want_m));
  /* COO (coalesced) -> crows -> COO again */
  pd_tensor *crows = NULL, *back = NULL;
  pd_sparse_coo_to_csr_crows_args ra = {oi, {shp, 2}};
  CHECK(oi && run(PD_OP_SPARSE_COO_TO_CSR_CROWS, &ra, &crows, NULL));
  const int64_t want_r[3] = {0, 2, 3};
  CHECK(crows && !memcmp(pd_tensor_data(crows), want_r, sizeof want_r));
  int64_t three = 3;
  pd_tensor *cols = mk(PD_INT64, 1, &three, want_i + 3);
  pd_sparse_csr_to_coo_index_args ba = {crows, cols, {shp, 2}};
  CHECK(crows && run(PD_OP_SPARSE_CSR_TO_COO_INDEX, &ba, &back, NULL));
  CHECK(back && !memcmp(pd_tensor_data(back), want_i, sizeof want_i));
  pd_tensor *objs[] = {t, oi, map, crows, cols, back};
  for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) pd_tensor_release(objs[i]);
}

static void test_malformed_indices_rejected(void) {
  int64_t three = 3, two = 2, four = 4, shp[2] = {2, 3}, ys[2] = {3, 2};
  const double vd[3] = {1, 2, 3}, yd[6] = {0};
  pd_tensor *vals = mk(PD_FLOAT64, 1, &three, vd), *y = mk(PD_FLOAT64, 2, ys, yd), *o = NULL, *o2 = NULL;
  const int64_t bad_crows[4][3] = {{0, 2, 1}, {1, 2, 3}, {0, 1, 4}, {0, 1, 2}};
  const int64_t bad_cols[4][3] = {{0, 1, 2}, {0, 1, 2}, {0, 1, 2}, {0, 3, 1}};
  for (int c = 0; c < 4; c++) {
    pd_tensor *cr = mk(PD_INT64, 1, &three, bad_crows[c]), *cl = mk(PD_INT64, 1, &three, bad_cols[c]);
    pd_sparse_csr_mm_args ma = {cr, cl, vals, y};
    CHECK(!run(PD_OP_SPARSE_CSR_MM, &ma, &o, NULL) && pd_last_status() == PD_ERR_INVALID_ARGUMENT);
    pd_sparse_csr_to_coo_index_args ba = {cr, cl, {shp, 2}};
    CHECK(!run(PD_OP_SPARSE_CSR_TO_COO_INDEX, &ba, &o, NULL) && pd_last_status() == PD_ERR_INVALID_ARGUMENT);
    pd_tensor_release(cr);
    pd_tensor_release(cl);
  }
  /* cols and values of different lengths, crows of the wrong length */
  const int64_t cr_ok[3] = {0, 1, 2}, cl2[2] = {0, 1}, cr4[4] = {0, 1, 2, 2};
  pd_tensor *cr = mk(PD_INT64, 1, &three, cr_ok), *cl = mk(PD_INT64, 1, &two, cl2), *cr_long = mk(PD_INT64, 1, &four, cr4);
  pd_sparse_csr_mm_args ma = {cr, cl, vals, y};
  CHECK(!run(PD_OP_SPARSE_CSR_MM, &ma, &o, NULL) && pd_last_status() == PD_ERR_INVALID_ARGUMENT);
  pd_sparse_csr_to_coo_index_args ba = {cr_long, cl, {shp, 2}};
  CHECK(!run(PD_OP_SPARSE_CSR_TO_COO_INDEX, &ba, &o, NULL) && pd_last_status() == PD_ERR_INVALID_ARGUMENT);
  /* COO indices out of range, and unsorted rows into coo_to_csr */
  int64_t is[2] = {2, 2};
  const int64_t oob[4] = {0, 2, 0, 1}, unsorted[4] = {1, 0, 0, 0};
  pd_tensor *ti = mk(PD_INT64, 2, is, oob), *tu = mk(PD_INT64, 2, is, unsorted);
  pd_sparse_coo_coalesce_index_args ca = {ti, {shp, 2}};
  CHECK(!run(PD_OP_SPARSE_COO_COALESCE_INDEX, &ca, &o, &o2) && pd_last_status() == PD_ERR_INVALID_ARGUMENT);
  pd_sparse_coo_to_csr_crows_args ra = {tu, {shp, 2}};
  CHECK(!run(PD_OP_SPARSE_COO_TO_CSR_CROWS, &ra, &o, NULL) && pd_last_status() == PD_ERR_INVALID_ARGUMENT);
  pd_tensor *objs[] = {vals, y, cr, cl, cr_long, ti, tu};
  for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) pd_tensor_release(objs[i]);
}

int main(void) {
  pd_autograd_init();
  RUN(test_spmm_mm_t_sddmm_match_dense);
  RUN(test_coalesce_and_conversions);
  RUN(test_malformed_indices_rejected);
  return PD_TEST_RESULT();
}
