// matmul of the 'nn' family on cuBLAS, which is NOT linked: libcublas.so.13 (else libcublas.so)
// is dlopen'd at the first GEMM with our own prototypes of the few entry points used. The enum
// values below are cuBLAS's public ABI (cublas_api.h as documented by NVIDIA); cudaDataType_t
// comes from the CUDA runtime's own library_types.h.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mutex>
#include <library_types.h>
#include "nn_common.cuh"
#include "pd_cuda_nn.h"

namespace {

typedef void *cublasHandle_t;
typedef int cublasStatus_t;
enum { CUBLAS_STATUS_SUCCESS = 0 };
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };                               // cublasOperation_t
enum { CUBLAS_DEFAULT_MATH = 0 };                                        // cublasMath_t
enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_64F = 70, CUBLAS_COMPUTE_32F_FAST_TF32 = 77 };
enum { CUBLAS_GEMM_DEFAULT = -1 };                                       // cublasGemmAlgo_t

typedef cublasStatus_t (*create_fn)(cublasHandle_t *);
typedef cublasStatus_t (*set_stream_fn)(cublasHandle_t, cudaStream_t);
typedef cublasStatus_t (*set_math_fn)(cublasHandle_t, int);
typedef cublasStatus_t (*gemm_ex_fn)(cublasHandle_t, int, int, int, int, int, const void *,
                                     const void *, cudaDataType_t, int, const void *,
                                     cudaDataType_t, int, const void *, void *, cudaDataType_t,
                                     int, int, int);
typedef cublasStatus_t (*gemm_sb_fn)(cublasHandle_t, int, int, int, int, int, const void *,
                                     const void *, cudaDataType_t, int, long long, const void *,
                                     cudaDataType_t, int, long long, const void *, void *,
                                     cudaDataType_t, int, long long, int, int, int);

struct cublas_lib {
  int ok;
  char err[512];
  create_fn create;
  set_stream_fn set_stream;
  set_math_fn set_math;
  gemm_ex_fn gemm_ex;
  gemm_sb_fn gemm_sb;
};
cublas_lib lib;
std::once_flag lib_once;
int allow_tf32 = 1;

// Where libcublas.so.13 may be: $PADDLE_C_CUBLAS_LIB, the loader's path, pip's nvidia-cublas
// wheel beside our own package (site-packages/nvidia/{cu13,cublas}/lib, found from this
// library's own path: site-packages/paddle/libs/), $CUDA_HOME, the usual toolkit folders.
void *try_open(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
void *open_cublas() {
  void *h;
  const char *env = getenv("PADDLE_C_CUBLAS_LIB");
  if (env && *env && (h = try_open(env)) != NULL) return h;
  if ((h = try_open("libcublas.so.13")) != NULL) return h;
  char buf[4096];
  Dl_info info;
  if (dladdr((void *)&open_cublas, &info) && info.dli_fname) {
    snprintf(buf, sizeof buf, "%s", info.dli_fname);
    char *slash = strrchr(buf, '/');
    if (slash) {
      *slash = 0;  // .../paddle/libs
      const char *rel[] = {"/../../nvidia/cu13/lib/libcublas.so.13", "/../../nvidia/cublas/lib/libcublas.so.13"};
      for (const char *r : rel) {
        char p[4096 + 64];
        snprintf(p, sizeof p, "%s%s", buf, r);
        if ((h = try_open(p)) != NULL) return h;
      }
    }
  }
  const char *home = getenv("CUDA_HOME");
  if (home && *home) {
    snprintf(buf, sizeof buf, "%s/lib64/libcublas.so.13", home);
    if ((h = try_open(buf)) != NULL) return h;
  }
  const char *fixed[] = {"/usr/local/cuda/lib64/libcublas.so.13",
                         "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13",
                         "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublas.so.13",
                         "libcublas.so"};
  for (const char *f : fixed)
    if ((h = try_open(f)) != NULL) return h;
  return NULL;
}

void load_lib() {
  void *h = open_cublas();
  if (!h) {
    const char *e = dlerror();
    snprintf(lib.err, sizeof lib.err,
             "cuBLAS is not available: could not load libcublas.so.13 (%s); install it with "
             "`pip install nvidia-cublas` (CUDA 13), put the CUDA toolkit's lib64 on "
             "LD_LIBRARY_PATH, or name the file in PADDLE_C_CUBLAS_LIB", e ? e : "not found");
    return;
  }
  lib.create = (create_fn)dlsym(h, "cublasCreate_v2");
  lib.set_stream = (set_stream_fn)dlsym(h, "cublasSetStream_v2");
  lib.set_math = (set_math_fn)dlsym(h, "cublasSetMathMode");
  lib.gemm_ex = (gemm_ex_fn)dlsym(h, "cublasGemmEx");
  lib.gemm_sb = (gemm_sb_fn)dlsym(h, "cublasGemmStridedBatchedEx");
  if (!lib.create || !lib.set_stream || !lib.set_math || !lib.gemm_ex || !lib.gemm_sb) {
    snprintf(lib.err, sizeof lib.err,
             "cuBLAS is not usable: libcublas lacks cublasCreate_v2 / cublasSetStream_v2 / "
             "cublasSetMathMode / cublasGemmEx / cublasGemmStridedBatchedEx");
    return;
  }
  lib.ok = 1;
}

#define PD_MAX_GPUS 64
// one handle per device per thread
cublasHandle_t get_handle(int *dev_out) {
  static thread_local cublasHandle_t handles[PD_MAX_GPUS];
  std::call_once(lib_once, load_lib);
  if (!lib.ok) {
    pd_cu_set_error(PD_CU_ERR_LIBRARY, "%s", lib.err);
    return NULL;
  }
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= PD_MAX_GPUS) {
    pd_cu_set_error(PD_CU_ERR_NO_DEVICE, "matmul: no current CUDA device");
    return NULL;
  }
  *dev_out = dev;
  if (!handles[dev]) {
    cublasHandle_t h = NULL;
    cublasStatus_t st = lib.create(&h);
    if (st != CUBLAS_STATUS_SUCCESS) {
      pd_cu_set_error(PD_CU_ERR_LIBRARY, "cublasCreate failed on GPU %d (cublasStatus %d)", dev, st);
      return NULL;
    }
    lib.set_math(h, CUBLAS_DEFAULT_MATH);
    handles[dev] = h;
  }
  cublasStatus_t st = lib.set_stream(handles[dev], pdnn::stream());
  if (st != CUBLAS_STATUS_SUCCESS) {
    pd_cu_set_error(PD_CU_ERR_LIBRARY, "cublasSetStream failed (cublasStatus %d)", st);
    return NULL;
  }
  return handles[dev];
}

int gemm_status(cublasStatus_t st, const char *what) {
  if (st == CUBLAS_STATUS_SUCCESS) return 0;
  pd_cu_set_error(PD_CU_ERR_LIBRARY, "matmul: %s failed (cublasStatus %d)", what, st);
  return -1;
}

} // namespace

extern "C" int pd_cunn_set_allow_tf32(int allow) {
  int prev = allow_tf32;
  allow_tf32 = allow != 0;
  return prev;
}

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: cuBLAS gets (B, A) with m = N,
// n = M. A row-major matrix with row stride ld is, column-major, its transpose with the same ld.
extern "C" int pd_cunn_gemm(int dtype, int ta, int tb, int64_t M, int64_t N, int64_t K,
                            const void *A, int64_t lda, const void *B, int64_t ldb, void *C,
                            const pd_cuda_gemm_batch *batch) {
  cudaDataType_t dt;
  int compute;
  float f1 = 1.0f, f0 = 0.0f;
  double d1 = 1.0, d0 = 0.0;
  const void *one = &f1, *zero = &f0;
  size_t isz;
  switch (dtype) {
    case PD_CU_FLOAT16: dt = CUDA_R_16F; compute = CUBLAS_COMPUTE_32F; isz = 2; break;
    case PD_CU_BFLOAT16: dt = CUDA_R_16BF; compute = CUBLAS_COMPUTE_32F; isz = 2; break;
    case PD_CU_FLOAT32:
      dt = CUDA_R_32F;
      compute = allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      isz = 4;
      break;
    case PD_CU_FLOAT64: dt = CUDA_R_64F; compute = CUBLAS_COMPUTE_64F; one = &d1; zero = &d0; isz = 8; break;
    default:
      pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "matmul: dtype %d is not supported on GPU", dtype);
      return -1;
  }
  if (M <= 0 || N <= 0 || K <= 0) return 0;
  if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX) {
    pd_cu_set_error(PD_CU_ERR_INVALID, "matmul: dims above 2^31 are not supported");
    return -1;
  }
  // cuBLAS wants ld >= the stored row length even where only one row exists
  const int64_t arow = ta ? M : K, brow = tb ? K : N;
  if (lda < arow) lda = arow;
  if (ldb < brow) ldb = brow;
  int dev;
  cublasHandle_t h = get_handle(&dev);
  if (!h) return -1;
  const int opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  // batch: merge dims where both operands stay evenly strided; the innermost merged dim goes to
  // the strided-batched call, the rest is a host loop
  int nb = 0;
  int64_t bs[PD_CUDA_MAX_DIMS], as_[PD_CUDA_MAX_DIMS], bb[PD_CUDA_MAX_DIMS];
  if (batch) {
    for (int d = 0; d < batch->nb; d++) {
      if (batch->shape[d] == 1) continue;
      if (nb > 0 && as_[nb - 1] == batch->astride[d] * batch->shape[d] &&
          bb[nb - 1] == batch->bstride[d] * batch->shape[d]) {
        bs[nb - 1] *= batch->shape[d];
        as_[nb - 1] = batch->astride[d];
        bb[nb - 1] = batch->bstride[d];
        continue;
      }
      bs[nb] = batch->shape[d];
      as_[nb] = batch->astride[d];
      bb[nb] = batch->bstride[d];
      nb++;
    }
  }
  for (int d = 0; d < nb; d++)
    if (bs[d] == 0) return 0;
  const int64_t mn = M * N;
  if (nb == 0) {
    return gemm_status(lib.gemm_ex(h, opb, opa, (int)N, (int)M, (int)K, one, B, dt, (int)ldb, A, dt,
                                   (int)lda, zero, C, dt, (int)N, compute, CUBLAS_GEMM_DEFAULT),
                       "cublasGemmEx");
  }
  // A shared by none and B shared by all batches with A's rows evenly spaced: one GEMM
  if (nb == 1 && bb[0] == 0 && !ta && as_[0] == M * lda && bs[0] * M <= INT32_MAX) {
    return gemm_status(lib.gemm_ex(h, opb, opa, (int)N, (int)(M * bs[0]), (int)K, one, B, dt,
                                   (int)ldb, A, dt, (int)lda, zero, C, dt, (int)N, compute,
                                   CUBLAS_GEMM_DEFAULT),
                       "cublasGemmEx");
  }
  const int64_t inner = bs[nb - 1];
  int64_t outer = 1;
  for (int d = 0; d < nb - 1; d++) outer *= bs[d];
  const char *ap = (const char *)A, *bp = (const char *)B;
  char *cp = (char *)C;
  for (int64_t o = 0; o < outer; o++) {
    int64_t rem = o, oa = 0, ob = 0;
    for (int d = nb - 2; d >= 0; d--) {
      int64_t i = rem % bs[d];
      rem /= bs[d];
      oa += i * as_[d];
      ob += i * bb[d];
    }
    for (int64_t b0 = 0; b0 < inner; b0 += 65535) {  // batchCount is an int; stay modest
      const int64_t cnt = inner - b0 < 65535 ? inner - b0 : 65535;
      const int64_t a_off = oa + b0 * as_[nb - 1], b_off = ob + b0 * bb[nb - 1];
      const int64_t c_off = (o * inner + b0) * mn;
      cublasStatus_t st = lib.gemm_sb(h, opb, opa, (int)N, (int)M, (int)K, one,
                                      bp + b_off * (int64_t)isz, dt, (int)ldb, (long long)bb[nb - 1],
                                      ap + a_off * (int64_t)isz, dt, (int)lda, (long long)as_[nb - 1],
                                      zero, cp + c_off * (int64_t)isz, dt, (int)N, (long long)mn,
                                      (int)cnt, compute, CUBLAS_GEMM_DEFAULT);
      if (gemm_status(st, "cublasGemmStridedBatchedEx")) return -1;
    }
  }
  return 0;
}

// pd_cunn_gemm with C's layout given (added for attention_core, helper cuamp): C[b] row-major with
// row stride ldc, batch b at sum_d i_d * cstride[d] (cstride has batch->nb entries; NULL when
// batch is NULL or has no dims). Batch dims merge where A, B and C all stay evenly strided; the
// innermost goes to one strided-batched call, the rest is a host loop.
extern "C" int pd_cunn_gemm_c(int dtype, int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A,
                              int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc,
                              const pd_cuda_gemm_batch *batch, const int64_t *cstride) {
  cudaDataType_t dt;
  int compute;
  float f1 = 1.0f, f0 = 0.0f;
  double d1 = 1.0, d0 = 0.0;
  const void *one = &f1, *zero = &f0;
  size_t isz;
  switch (dtype) {
    case PD_CU_FLOAT16: dt = CUDA_R_16F; compute = CUBLAS_COMPUTE_32F; isz = 2; break;
    case PD_CU_BFLOAT16: dt = CUDA_R_16BF; compute = CUBLAS_COMPUTE_32F; isz = 2; break;
    case PD_CU_FLOAT32:
      dt = CUDA_R_32F;
      compute = allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      isz = 4;
      break;
    case PD_CU_FLOAT64: dt = CUDA_R_64F; compute = CUBLAS_COMPUTE_64F; one = &d1; zero = &d0; isz = 8; break;
    default:
      pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "matmul: dtype %d is not supported on GPU", dtype);
      return -1;
  }
  if (M <= 0 || N <= 0 || K <= 0) return 0;
  if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX) {
    pd_cu_set_error(PD_CU_ERR_INVALID, "matmul: dims above 2^31 are not supported");
    return -1;
  }
  const int64_t arow = ta ? M : K, brow = tb ? K : N;
  if (lda < arow) lda = arow;
  if (ldb < brow) ldb = brow;
  if (ldc < N) ldc = N;
  int dev;
  cublasHandle_t h = get_handle(&dev);
  if (!h) return -1;
  const int opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  int nb = 0;
  int64_t bs[PD_CUDA_MAX_DIMS], as_[PD_CUDA_MAX_DIMS], bb[PD_CUDA_MAX_DIMS], cs[PD_CUDA_MAX_DIMS];
  if (batch && cstride) {
    for (int d = 0; d < batch->nb; d++) {
      if (batch->shape[d] == 1) continue;
      if (nb > 0 && as_[nb - 1] == batch->astride[d] * batch->shape[d] &&
          bb[nb - 1] == batch->bstride[d] * batch->shape[d] && cs[nb - 1] == cstride[d] * batch->shape[d]) {
        bs[nb - 1] *= batch->shape[d];
        as_[nb - 1] = batch->astride[d];
        bb[nb - 1] = batch->bstride[d];
        cs[nb - 1] = cstride[d];
        continue;
      }
      bs[nb] = batch->shape[d];
      as_[nb] = batch->astride[d];
      bb[nb] = batch->bstride[d];
      cs[nb] = cstride[d];
      nb++;
    }
  }
  for (int d = 0; d < nb; d++)
    if (bs[d] == 0) return 0;
  if (nb == 0) {
    return gemm_status(lib.gemm_ex(h, opb, opa, (int)N, (int)M, (int)K, one, B, dt, (int)ldb, A, dt,
                                   (int)lda, zero, C, dt, (int)ldc, compute, CUBLAS_GEMM_DEFAULT),
                       "cublasGemmEx");
  }
  const int64_t inner = bs[nb - 1];
  int64_t outer = 1;
  for (int d = 0; d < nb - 1; d++) outer *= bs[d];
  const char *ap = (const char *)A, *bp = (const char *)B;
  char *cp = (char *)C;
  for (int64_t o = 0; o < outer; o++) {
    int64_t rem = o, oa = 0, ob = 0, oc = 0;
    for (int d = nb - 2; d >= 0; d--) {
      int64_t i = rem % bs[d];
      rem /= bs[d];
      oa += i * as_[d];
      ob += i * bb[d];
      oc += i * cs[d];
    }
    for (int64_t b0 = 0; b0 < inner; b0 += 65535) {
      const int64_t cnt = inner - b0 < 65535 ? inner - b0 : 65535;
      const int64_t a_off = oa + b0 * as_[nb - 1], b_off = ob + b0 * bb[nb - 1], c_off = oc + b0 * cs[nb - 1];
      cublasStatus_t st = lib.gemm_sb(h, opb, opa, (int)N, (int)M, (int)K, one,
                                      bp + b_off * (int64_t)isz, dt, (int)ldb, (long long)bb[nb - 1],
                                      ap + a_off * (int64_t)isz, dt, (int)lda, (long long)as_[nb - 1],
                                      zero, cp + c_off * (int64_t)isz, dt, (int)ldc, (long long)cs[nb - 1],
                                      (int)cnt, compute, CUBLAS_GEMM_DEFAULT);
      if (gemm_status(st, "cublasGemmStridedBatchedEx")) return -1;
    }
  }
  return 0;
}
