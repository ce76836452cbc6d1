// The 'dnn' family (pd_cuda_dnn.h): convolutions on cuDNN 9, which is NOT linked: libcudnn.so.9
// (the shim that loads cuDNN's sub-libraries itself) is dlopen'd at the first convolution with
// our own prototypes of the legacy API entry points used below. Enum values are cuDNN's public
// ABI as NVIDIA documents it (cudnn_graph.h / cudnn_ops.h / cudnn_cnn.h of cuDNN 9; the report of
// helper "cudnn" lists them with sources). Pooling is in dnn_pool.cu (own kernels).
//
// Semantics are the CPU kernel's (csrc/kernels/cpu/conv.c): cross-correlation, groups, dilations,
// left / right paddings that may differ (SAME padding, Paddle's 4-value paddings: cuDNN pads
// symmetrically, so those run on a zero-padded copy of the input, or a padded gradient buffer
// that is cropped), a transposed convolution's output_padding (input positions no output window
// reaches get zero gradient), NCHW and NHWC activations (NHWC runs natively for the 16/32-bit
// floats, with the filter transposed to KRSC; float64 NHWC is permuted to NCHW), and the bias as
// one rounded add after the convolution.
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <array>
#include <map>
#include <mutex>
#include <string>
#include "dnn_common.cuh"

extern "C" const pd_cuda_runtime pd_cuda_rt_table; // runtime.cu: the caching allocator

using namespace pddnn;

namespace {

// ---------------------------------------------------------------- cuDNN's ABI (our prototypes)
typedef void *cudnnHandle_t;
typedef void *cudnnTensorDescriptor_t;
typedef void *cudnnFilterDescriptor_t;
typedef void *cudnnConvolutionDescriptor_t;
typedef int cudnnStatus_t;
enum { CUDNN_STATUS_SUCCESS = 0 };
// cudnnDataType_t
enum { CUDNN_DATA_FLOAT = 0, CUDNN_DATA_DOUBLE = 1, CUDNN_DATA_HALF = 2, CUDNN_DATA_BFLOAT16 = 9 };
// cudnnTensorFormat_t
enum { CUDNN_TENSOR_NCHW = 0, CUDNN_TENSOR_NHWC = 1 };
// cudnnConvolutionMode_t: Paddle's conv is a cross-correlation
enum { CUDNN_CONVOLUTION = 0, CUDNN_CROSS_CORRELATION = 1 };
// cudnnMathType_t
enum { CUDNN_DEFAULT_MATH = 0, CUDNN_TENSOR_OP_MATH = 1, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
       CUDNN_FMA_MATH = 3 };
// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t (one layout for the three; the algo enums
// are passed back to cuDNN as it returned them, never chosen by number here)
struct algo_perf {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism; // cudnnDeterminism_t: 0 non-deterministic, 1 deterministic
  int mathType;    // cudnnMathType_t
  int reserved[3];
};

typedef size_t (*get_version_fn)(void);
typedef const char *(*get_error_string_fn)(cudnnStatus_t);
typedef cudnnStatus_t (*create_fn)(cudnnHandle_t *);
typedef cudnnStatus_t (*set_stream_fn)(cudnnHandle_t, cudaStream_t);
typedef cudnnStatus_t (*create_desc_fn)(void **);
typedef cudnnStatus_t (*destroy_desc_fn)(void *);
typedef cudnnStatus_t (*set_tensor_nd_fn)(cudnnTensorDescriptor_t, int, int, const int *, const int *);
typedef cudnnStatus_t (*set_filter_nd_fn)(cudnnFilterDescriptor_t, int, int, int, const int *);
typedef cudnnStatus_t (*set_conv_nd_fn)(cudnnConvolutionDescriptor_t, int, const int *, const int *, const int *,
                                        int, int);
typedef cudnnStatus_t (*set_conv_int_fn)(cudnnConvolutionDescriptor_t, int);
// Get*Algorithm_v7(handle, a, b, conv, c, requested, *returned, perf[]): the descriptors in the
// order of each direction's signature (fwd: x, w, conv, y; bwd data: w, dy, conv, dx; bwd
// filter: x, dy, conv, dw)
typedef cudnnStatus_t (*get_algo_v7_fn)(cudnnHandle_t, void *, void *, cudnnConvolutionDescriptor_t, void *, int,
                                        int *, algo_perf *);
typedef cudnnStatus_t (*get_ws_fn)(cudnnHandle_t, void *, void *, cudnnConvolutionDescriptor_t, void *, int,
                                   size_t *);
// cudnnConvolutionForward(handle, alpha, xDesc, x, wDesc, w, conv, algo, ws, wsSize, beta, yDesc, y);
// BackwardData(handle, alpha, wDesc, w, dyDesc, dy, conv, algo, ws, wsSize, beta, dxDesc, dx);
// BackwardFilter(handle, alpha, xDesc, x, dyDesc, dy, conv, algo, ws, wsSize, beta, dwDesc, dw)
typedef cudnnStatus_t (*conv_run_fn)(cudnnHandle_t, const void *, void *, const void *, void *, const void *,
                                     cudnnConvolutionDescriptor_t, int, void *, size_t, const void *, void *,
                                     void *);

struct cudnn_lib {
  int ok;
  size_t version;
  char err[640];
  get_version_fn get_version;
  get_error_string_fn error_string;
  create_fn create;
  set_stream_fn set_stream;
  create_desc_fn create_tensor, create_filter, create_conv;
  destroy_desc_fn destroy_tensor, destroy_filter, destroy_conv;
  set_tensor_nd_fn set_tensor_nd;
  set_filter_nd_fn set_filter_nd;
  set_conv_nd_fn set_conv_nd;
  set_conv_int_fn set_group_count, set_math_type;
  get_algo_v7_fn algo_fwd, algo_bwd_data, algo_bwd_filter;
  get_ws_fn ws_fwd, ws_bwd_data, ws_bwd_filter;
  conv_run_fn run_fwd, run_bwd_data, run_bwd_filter;
};
cudnn_lib lib;
std::once_flag lib_once;
int allow_tf32 = 1;

// cuDNN 9's sub-libraries, in dependency order: loaded from the shim's own directory first
// (RTLD_GLOBAL) so that the shim's later dlopen by soname finds them even where that directory
// (pip's site-packages/nvidia/cudnn/lib) is not on the loader's path. Missing ones are skipped
// (the runtime-compiled engines need NVRTC).
const char *const kSubLibs[] = {"libcudnn_graph.so.9", "libcudnn_engines_precompiled.so.9",
                                "libcudnn_engines_runtime_compiled.so.9", "libcudnn_heuristic.so.9",
                                "libcudnn_ops.so.9", "libcudnn_cnn.so.9", "libcudnn_adv.so.9"};

void *try_open(const std::string &path) { return dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL); }

std::string dir_of(const std::string &path) {
  size_t k = path.rfind('/');
  return k == std::string::npos ? std::string(".") : path.substr(0, k);
}

void preload_sublibs(const std::string &dir) {
  for (const char *s : kSubLibs) (void)try_open(dir + "/" + s); // absent: the shim reports what it needs
  (void)dlerror();
}

void *open_cudnn(std::string &why) {
  void *h = NULL;
  Dl_info info;
  const char *env = getenv("PADDLE_C_CUDNN_LIB"); // a path to libcudnn.so.9 (or its directory)
  if (env && *env) {
    std::string p = env;
    if (p.size() < 3 || p.compare(p.size() - 2, 2, ".9") != 0) p += "/libcudnn.so.9";
    preload_sublibs(dir_of(p));
    if ((h = try_open(p)) != NULL) return h;
  }
  // pip's layout: site-packages/paddle/libs/libpaddle_c_cuda.so, site-packages/nvidia/cudnn/lib
  // (or nvidia/cu13/lib, the CUDA 13 wheels' shared directory)
  if (dladdr((void *)&open_cudnn, &info) && info.dli_fname) {
    for (const char *sub : {"/../../nvidia/cudnn/lib", "/../../nvidia/cu13/lib"}) {
      std::string d = dir_of(info.dli_fname) + sub, p = d + "/libcudnn.so.9";
      FILE *f = fopen(p.c_str(), "rb");
      if (f) {
        fclose(f);
        preload_sublibs(d);
        if ((h = try_open(p)) != NULL) return h;
      }
    }
  }
  const char *names[] = {"libcudnn.so.9", "libcudnn.so"};
  for (const char *nm : names) {
    if ((h = try_open(nm)) != NULL) {
      // found by soname: load its sub-libraries from its directory
      void *sym = dlsym(h, "cudnnGetVersion");
      if (sym && dladdr(sym, &info) && info.dli_fname) preload_sublibs(dir_of(info.dli_fname));
      return h;
    }
  }
  const char *e = dlerror();
  why = e ? e : "not found";
  return NULL;
}

void load_lib() {
  std::string why;
  void *h = open_cudnn(why);
  if (!h) {
    snprintf(lib.err, sizeof lib.err,
             "cuDNN is not available: could not load libcudnn.so.9 (%s); install it with `pip install "
             "nvidia-cudnn-cu13` (or set PADDLE_C_CUDNN_LIB to libcudnn.so.9's path)", why.c_str());
    return;
  }
#define SYM(field, type, name)                                      \
  do {                                                              \
    lib.field = (type)dlsym(h, name);                               \
    if (!lib.field) {                                               \
      snprintf(lib.err, sizeof lib.err, "cuDNN is not usable: libcudnn.so.9 lacks %s (need cuDNN 9 with its " \
               "legacy convolution API; pip install nvidia-cudnn-cu13)", name); \
      return;                                                       \
    }                                                               \
  } while (0)
  SYM(get_version, get_version_fn, "cudnnGetVersion");
  SYM(error_string, get_error_string_fn, "cudnnGetErrorString");
  SYM(create, create_fn, "cudnnCreate");
  SYM(set_stream, set_stream_fn, "cudnnSetStream");
  SYM(create_tensor, create_desc_fn, "cudnnCreateTensorDescriptor");
  SYM(create_filter, create_desc_fn, "cudnnCreateFilterDescriptor");
  SYM(create_conv, create_desc_fn, "cudnnCreateConvolutionDescriptor");
  SYM(destroy_tensor, destroy_desc_fn, "cudnnDestroyTensorDescriptor");
  SYM(destroy_filter, destroy_desc_fn, "cudnnDestroyFilterDescriptor");
  SYM(destroy_conv, destroy_desc_fn, "cudnnDestroyConvolutionDescriptor");
  SYM(set_tensor_nd, set_tensor_nd_fn, "cudnnSetTensorNdDescriptor");
  SYM(set_filter_nd, set_filter_nd_fn, "cudnnSetFilterNdDescriptor");
  SYM(set_conv_nd, set_conv_nd_fn, "cudnnSetConvolutionNdDescriptor");
  SYM(set_group_count, set_conv_int_fn, "cudnnSetConvolutionGroupCount");
  SYM(set_math_type, set_conv_int_fn, "cudnnSetConvolutionMathType");
  SYM(algo_fwd, get_algo_v7_fn, "cudnnGetConvolutionForwardAlgorithm_v7");
  SYM(algo_bwd_data, get_algo_v7_fn, "cudnnGetConvolutionBackwardDataAlgorithm_v7");
  SYM(algo_bwd_filter, get_algo_v7_fn, "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
  SYM(ws_fwd, get_ws_fn, "cudnnGetConvolutionForwardWorkspaceSize");
  SYM(ws_bwd_data, get_ws_fn, "cudnnGetConvolutionBackwardDataWorkspaceSize");
  SYM(ws_bwd_filter, get_ws_fn, "cudnnGetConvolutionBackwardFilterWorkspaceSize");
  SYM(run_fwd, conv_run_fn, "cudnnConvolutionForward");
  SYM(run_bwd_data, conv_run_fn, "cudnnConvolutionBackwardData");
  SYM(run_bwd_filter, conv_run_fn, "cudnnConvolutionBackwardFilter");
#undef SYM
  lib.version = lib.get_version();
  if (lib.version < 90000 || lib.version >= 100000) {
    snprintf(lib.err, sizeof lib.err,
             "cuDNN %zu found, cuDNN 9 is needed (pip install nvidia-cudnn-cu13)", lib.version);
    return;
  }
  lib.ok = 1;
}

int cudnn_fail(cudnnStatus_t st, const char *what) {
  pd_cu_set_error(PD_CU_ERR_LIBRARY, "%s failed: %s (cudnnStatus %d)", what,
                  lib.error_string ? lib.error_string(st) : "?", st);
  return -1;
}
#define CK(call, what)                                  \
  do {                                                  \
    cudnnStatus_t st_ = (call);                         \
    if (st_ != CUDNN_STATUS_SUCCESS) return cudnn_fail(st_, what); \
  } while (0)

#define PD_MAX_GPUS 64
// one handle per device per thread, bound to the current stream at each use
cudnnHandle_t get_handle(int *dev_out) {
  static thread_local cudnnHandle_t handles[PD_MAX_GPUS];
  std::call_once(lib_once, load_lib);
  if (!lib.ok) {
    pd_cu_set_error(PD_CU_ERR_LIBRARY, "%s", lib.err);
    return NULL;
  }
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= PD_MAX_GPUS) {
    (void)cudaGetLastError();
    pd_cu_set_error(PD_CU_ERR_NO_DEVICE, "conv: no current CUDA device");
    return NULL;
  }
  *dev_out = dev;
  if (!handles[dev]) {
    cudnnHandle_t h = NULL;
    cudnnStatus_t st = lib.create(&h);
    if (st != CUDNN_STATUS_SUCCESS) {
      cudnn_fail(st, "cudnnCreate");
      return NULL;
    }
    handles[dev] = h;
  }
  cudnnStatus_t st = lib.set_stream(handles[dev], stream());
  if (st != CUDNN_STATUS_SUCCESS) {
    cudnn_fail(st, "cudnnSetStream");
    return NULL;
  }
  return handles[dev];
}

// ---------------------------------------------------------------- helper kernels
// dst[n, c, p] = src[n, c, p + off] per spatial dim (0 outside src): zero padding (off < 0) and
// cropping (off > 0) between buffers of different spatial extents, NCHW or NHWC.
struct rewin_args {
  int64_t N, C, dsp[3], ssp[3], off[3];
  int nhwc;
};
template <typename T>
__global__ void rewin_kernel(rewin_args a, const T *__restrict__ src, T *__restrict__ dst, int64_t n) {
  const int64_t DS = a.dsp[0] * a.dsp[1] * a.dsp[2], SS = a.ssp[0] * a.ssp[1] * a.ssp[2];
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int64_t c, sp, nn;
    if (a.nhwc) {
      c = i % a.C;
      sp = (i / a.C) % DS;
      nn = i / (a.C * DS);
    } else {
      sp = i % DS;
      c = (i / DS) % a.C;
      nn = i / (DS * a.C);
    }
    int64_t p2 = sp % a.dsp[2], p1 = (sp / a.dsp[2]) % a.dsp[1], p0 = sp / (a.dsp[2] * a.dsp[1]);
    int64_t q0 = p0 + a.off[0], q1 = p1 + a.off[1], q2 = p2 + a.off[2];
    T v = 0;
    if (q0 >= 0 && q0 < a.ssp[0] && q1 >= 0 && q1 < a.ssp[1] && q2 >= 0 && q2 < a.ssp[2]) {
      int64_t sq = (q0 * a.ssp[1] + q1) * a.ssp[2] + q2;
      v = a.nhwc ? src[(nn * SS + sq) * a.C + c] : src[(nn * a.C + c) * SS + sq];
    }
    dst[i] = v;
  }
}

// [A, B, C] -> [A, C, B]
template <typename T>
__global__ void permute021_kernel(const T *__restrict__ src, T *__restrict__ dst, int64_t A, int64_t B, int64_t C) {
  const int64_t n = A * B * C;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int64_t b = i % B, c = (i / B) % C, a = i / (B * C); // dst index order: a, c, b
    dst[i] = src[(a * B + b) * C + c];
  }
}

// y[n, o, sp] += b[o] (one rounded add; 16-bit floats through float)
template <typename T>
__global__ void bias_kernel(T *__restrict__ y, const T *__restrict__ b, int64_t O, int64_t S, int nhwc, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int64_t o = nhwc ? i % O : (i / S) % O;
    y[i] = from_acc<T>(add_rn(to_acc(y[i]), to_acc(b[o])));
  }
}

template <typename F>
int by_size(size_t esz, F f) {
  switch (esz) {
    case 1: return f((uint8_t)0);
    case 2: return f((uint16_t)0);
    case 4: return f((uint32_t)0);
    case 8: return f((uint64_t)0);
    default: pd_cu_set_error(PD_CU_ERR_INVALID, "dnn: element size %zu", esz); return -1;
  }
}

int permute021_impl(size_t esz, int64_t A, int64_t B, int64_t C, const void *src, void *dst) {
  const int64_t n = A * B * C;
  if (n == 0) return 0;
  return by_size(esz, [&](auto z) {
    typedef decltype(z) U;
    permute021_kernel<U><<<grid_for(n), kThreads, 0, stream()>>>((const U *)src, (U *)dst, A, B, C);
    return launch_check("permute021");
  });
}

int rewin(size_t esz, const rewin_args &a, const void *src, void *dst) {
  const int64_t n = a.N * a.C * a.dsp[0] * a.dsp[1] * a.dsp[2];
  if (n == 0) return 0;
  return by_size(esz, [&](auto z) {
    typedef decltype(z) U;
    // bit copies: zero is all-zero bits for every float type
    rewin_kernel<U><<<grid_for(n), kThreads, 0, stream()>>>(a, (const U *)src, (U *)dst, n);
    return launch_check("conv padding copy");
  });
}

int bias_add(int dtype, const pd_cuda_conv_geom *g, void *y, const void *b) {
  const int64_t S = g->out[0] * g->out[1] * g->out[2], n = g->N * g->O * S;
  if (n == 0) return 0;
  switch (dtype) {
#define CASE(code, T)                                                                               \
  case code:                                                                                        \
    bias_kernel<T><<<grid_for(n), kThreads, 0, stream()>>>((T *)y, (const T *)b, g->O, S, g->nhwc, n); \
    return launch_check("conv bias");
    CASE(PD_CU_FLOAT16, __half)
    CASE(PD_CU_BFLOAT16, __nv_bfloat16)
    CASE(PD_CU_FLOAT32, float)
    CASE(PD_CU_FLOAT64, double)
#undef CASE
    default: pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "conv: dtype code %d", dtype); return -1;
  }
}

// ---------------------------------------------------------------- device scratch (the caching allocator)
struct scratch {
  int dev;
  void *p = NULL;
  explicit scratch(int d) : dev(d) {}
  void *get(size_t n) {
    p = pd_cuda_rt_table.alloc(dev, n);
    return p;
  }
  ~scratch() {
    if (p) pd_cuda_rt_table.free(dev, p);
  }
  scratch(const scratch &) = delete;
  scratch &operator=(const scratch &) = delete;
};

// ---------------------------------------------------------------- descriptors, algorithms
enum { MODE_FWD = 0, MODE_BWD_DATA = 1, MODE_BWD_FILTER = 2 };

// What one cuDNN call sees: the x-side buffer has spatial extent xin, symmetric padding pad.
struct plan {
  int mode, dtype, nhwc, ns;
  int64_t N, C, O, G, xin[3], out[3], k[3], s[3], d[3], pad[3];
};

struct descs {
  cudnnTensorDescriptor_t x = NULL, y = NULL;
  cudnnFilterDescriptor_t w = NULL;
  cudnnConvolutionDescriptor_t conv = NULL;
  ~descs() {
    if (x) lib.destroy_tensor(x);
    if (y) lib.destroy_tensor(y);
    if (w) lib.destroy_filter(w);
    if (conv) lib.destroy_conv(conv);
  }
};

int cudnn_dtype(int dtype) {
  switch (dtype) {
    case PD_CU_FLOAT16: return CUDNN_DATA_HALF;
    case PD_CU_BFLOAT16: return CUDNN_DATA_BFLOAT16;
    case PD_CU_FLOAT32: return CUDNN_DATA_FLOAT;
    default: return CUDNN_DATA_DOUBLE;
  }
}
// the math type Paddle asks for: tensor ops for the 16-bit floats, TF32 allowed or FMA only for float
int wanted_math(int dtype) {
  if (dtype == PD_CU_FLOAT16 || dtype == PD_CU_BFLOAT16) return CUDNN_TENSOR_OP_MATH;
  if (dtype == PD_CU_FLOAT32) return allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;
}
// a candidate's math type is acceptable: float without TF32 takes FMA kernels only
bool math_ok(int dtype, int math) {
  if (dtype == PD_CU_FLOAT32 && !allow_tf32) return math == CUDNN_FMA_MATH;
  return true;
}

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

int set_act(cudnnTensorDescriptor_t d, const plan &p, int64_t ch, const int64_t *sp) {
  int dims[5], strides[5];
  int64_t S = 1;
  for (int i = 0; i < p.ns; i++) S *= sp[i];
  int64_t numel = p.N * ch * S;
  if (!fits_int(numel)) {
    pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "conv: a tensor of %lld elements exceeds cuDNN's 32-bit descriptors",
                    (long long)numel);
    return -1;
  }
  dims[0] = (int)p.N;
  dims[1] = (int)ch;
  for (int i = 0; i < p.ns; i++) dims[2 + i] = (int)sp[i];
  // strides in elements
  int64_t st[5];
  if (p.nhwc) {
    st[1] = 1;
    int64_t acc = ch;
    for (int i = p.ns - 1; i >= 0; i--) {
      st[2 + i] = acc;
      acc *= sp[i];
    }
    st[0] = acc;
  } else {
    int64_t acc = 1;
    for (int i = p.ns - 1; i >= 0; i--) {
      st[2 + i] = acc;
      acc *= sp[i];
    }
    st[1] = acc;
    st[0] = acc * ch;
  }
  for (int i = 0; i < 2 + p.ns; i++) strides[i] = (int)(st[i] > 0 ? st[i] : 1);
  CK(lib.set_tensor_nd(d, cudnn_dtype(p.dtype), 2 + p.ns, dims, strides), "cudnnSetTensorNdDescriptor");
  return 0;
}

int make_descs(const plan &p, descs &D) {
  CK(lib.create_tensor(&D.x), "cudnnCreateTensorDescriptor");
  CK(lib.create_tensor(&D.y), "cudnnCreateTensorDescriptor");
  CK(lib.create_filter(&D.w), "cudnnCreateFilterDescriptor");
  CK(lib.create_conv(&D.conv), "cudnnCreateConvolutionDescriptor");
  if (set_act(D.x, p, p.C, p.xin) || set_act(D.y, p, p.O, p.out)) return -1;
  int fd[5], pad[3], str[3], dil[3];
  fd[0] = (int)p.O;
  fd[1] = (int)(p.C / p.G);
  for (int i = 0; i < p.ns; i++) {
    fd[2 + i] = (int)p.k[i];
    pad[i] = (int)p.pad[i];
    str[i] = (int)p.s[i];
    dil[i] = (int)p.d[i];
  }
  CK(lib.set_filter_nd(D.w, cudnn_dtype(p.dtype), p.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, 2 + p.ns, fd),
     "cudnnSetFilterNdDescriptor");
  const int compute = p.dtype == PD_CU_FLOAT64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  CK(lib.set_conv_nd(D.conv, p.ns, pad, str, dil, CUDNN_CROSS_CORRELATION, compute),
     "cudnnSetConvolutionNdDescriptor");
  CK(lib.set_group_count(D.conv, (int)p.G), "cudnnSetConvolutionGroupCount");
  CK(lib.set_math_type(D.conv, wanted_math(p.dtype)), "cudnnSetConvolutionMathType");
  return 0;
}

// the algorithm (and math type) chosen per shape key, direction and TF32 policy
typedef std::array<int64_t, 32> plan_key;
struct choice {
  int algo, math;
};
std::mutex cache_mu;
std::map<plan_key, choice> cache;

plan_key key_of(const plan &p, int dev) {
  plan_key k{};
  int i = 0;
  k[i++] = p.mode;
  k[i++] = p.dtype;
  k[i++] = p.nhwc;
  k[i++] = p.ns;
  k[i++] = p.N;
  k[i++] = p.C;
  k[i++] = p.O;
  k[i++] = p.G;
  for (int j = 0; j < 3; j++) {
    k[i++] = p.xin[j];
    k[i++] = p.k[j];
    k[i++] = p.s[j];
    k[i++] = p.d[j];
    k[i++] = p.pad[j];
  }
  k[i++] = p.dtype == PD_CU_FLOAT32 ? allow_tf32 : 0;
  k[i++] = dev;
  return k;
}

// cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t values of the FFT and Winograd algorithms:
// fwd FFT 4, FFT_TILING 5, WINOGRAD 6, WINOGRAD_NONFUSED 7; bwd data FFT 2, FFT_TILING 3, WINOGRAD 4,
// WINOGRAD_NONFUSED 5; bwd filter FFT 2, WINOGRAD 4, WINOGRAD_NONFUSED 5, FFT_TILING 6
bool is_transform_algo(int mode, int algo) {
  if (mode == MODE_FWD) return algo >= 4 && algo <= 7;
  if (mode == MODE_BWD_DATA) return algo >= 2 && algo <= 5;
  return algo == 2 || (algo >= 4 && algo <= 6);
}

// Runs one cuDNN convolution of plan p: FWD y = conv(a = x, b = w); BWD_DATA dx(c) from (a = dy,
// b = w); BWD_FILTER dw(c) from (a = x, b = dy). Buffers are dense in p's layout; w in KCRS
// (NCHW plan) or KRSC (NHWC plan).
int cudnn_conv(const plan &p, const void *a, const void *b, void *c) {
  int dev = 0;
  cudnnHandle_t h = get_handle(&dev);
  if (!h) return -1;
  descs D;
  if (make_descs(p, D)) return -1;
  get_algo_v7_fn get_algo = p.mode == MODE_FWD ? lib.algo_fwd : p.mode == MODE_BWD_DATA ? lib.algo_bwd_data
                                                                                         : lib.algo_bwd_filter;
  get_ws_fn get_ws = p.mode == MODE_FWD ? lib.ws_fwd : p.mode == MODE_BWD_DATA ? lib.ws_bwd_data : lib.ws_bwd_filter;
  conv_run_fn run = p.mode == MODE_FWD ? lib.run_fwd : p.mode == MODE_BWD_DATA ? lib.run_bwd_data : lib.run_bwd_filter;
  // descriptor order of the three signatures
  void *d1, *d2, *d3;
  if (p.mode == MODE_FWD) { d1 = D.x; d2 = D.w; d3 = D.y; }
  else if (p.mode == MODE_BWD_DATA) { d1 = D.w; d2 = D.y; d3 = D.x; }
  else { d1 = D.x; d2 = D.y; d3 = D.w; }
  const float f1 = 1.0f, f0 = 0.0f;
  const double g1 = 1.0, g0 = 0.0;
  const void *one = p.dtype == PD_CU_FLOAT64 ? (const void *)&g1 : (const void *)&f1;
  const void *zero = p.dtype == PD_CU_FLOAT64 ? (const void *)&g0 : (const void *)&f0;

  auto attempt = [&](int algo, int math, cudnnStatus_t *st) -> int { // 0 ran, 1 try another, -1 error
    *st = lib.set_math_type(D.conv, math);
    if (*st != CUDNN_STATUS_SUCCESS) return 1;
    size_t ws = 0;
    *st = get_ws(h, d1, d2, D.conv, d3, algo, &ws);
    if (*st != CUDNN_STATUS_SUCCESS) return 1;
    scratch buf(dev);
    void *wp = NULL;
    if (ws > 0 && (wp = buf.get(ws)) == NULL) return 1; // this algorithm's workspace does not fit
    *st = run(h, one, d1, a, d2, b, D.conv, algo, wp, ws, zero, d3, c);
    return *st == CUDNN_STATUS_SUCCESS ? 0 : 1;
  };

  const plan_key key = key_of(p, dev);
  {
    choice ch;
    bool hit = false;
    {
      std::lock_guard<std::mutex> lk(cache_mu);
      auto it = cache.find(key);
      if (it != cache.end()) {
        ch = it->second;
        hit = true;
      }
    }
    cudnnStatus_t st;
    if (hit && attempt(ch.algo, ch.math, &st) == 0) return launch_check("cudnn convolution");
  }
  algo_perf perf[16];
  int got = 0;
  memset(perf, 0, sizeof perf);
  CK(get_algo(h, d1, d2, D.conv, d3, 16, &got, perf), "cudnnGetConvolution*Algorithm_v7");
  cudnnStatus_t last = CUDNN_STATUS_SUCCESS;
  int tried = 0;
  // float32 with TF32 off is the exact mode (the GPU sweep's 1e-5): FFT / Winograd algorithms (whose
  // transforms round differently) only when no direct / GEMM algorithm runs
  const bool strict = p.dtype == PD_CU_FLOAT32 && !allow_tf32;
  for (int pass = strict ? 0 : 1; pass < 2; pass++)
    for (int i = 0; i < got && i < 16; i++) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS || !math_ok(p.dtype, perf[i].mathType)) continue;
      if (strict && (pass == 0) == is_transform_algo(p.mode, perf[i].algo)) continue;
      tried++;
      int r = attempt(perf[i].algo, perf[i].mathType, &last);
      if (r == 0) {
        std::lock_guard<std::mutex> lk(cache_mu);
        cache[key] = choice{perf[i].algo, perf[i].mathType};
        return launch_check("cudnn convolution");
      }
    }
  const char *what = p.mode == MODE_FWD ? "cudnnConvolutionForward"
                     : p.mode == MODE_BWD_DATA ? "cudnnConvolutionBackwardData" : "cudnnConvolutionBackwardFilter";
  if (tried == 0) {
    pd_cu_set_error(PD_CU_ERR_UNSUPPORTED,
                    "conv: cuDNN offers no algorithm for this convolution (dtype code %d, %s, groups %lld%s)",
                    p.dtype, p.nhwc ? "NHWC" : "NCHW", (long long)p.G,
                    p.dtype == PD_CU_FLOAT32 && !allow_tf32 ? ", TF32 off" : "");
    return -1;
  }
  if (last == CUDNN_STATUS_SUCCESS) { // every candidate's workspace failed to allocate
    pd_cu_set_error(PD_CU_ERR_OOM, "conv: out of memory for every cuDNN algorithm's workspace");
    return -1;
  }
  return cudnn_fail(last, what);
}

// ---------------------------------------------------------------- the launchers
int64_t prod3(const int64_t *v) { return v[0] * v[1] * v[2]; }

int check_dtype(int dtype, const char *what) {
  if (dtype == PD_CU_FLOAT16 || dtype == PD_CU_BFLOAT16 || dtype == PD_CU_FLOAT32 || dtype == PD_CU_FLOAT64) return 0;
  pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "%s: dtype code %d is not supported on GPU", what, dtype);
  return -1;
}

int zero_fill(void *p, size_t n) {
  if (n == 0) return 0;
  cudaError_t e = cudaMemsetAsync(p, 0, n, stream());
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    pd_cu_set_error(PD_CU_ERR_LAUNCH, "conv: cudaMemsetAsync: %s", cudaGetErrorString(e));
    return -1;
  }
  return 0;
}

int current_dev() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return dev;
}

int conv_any(int mode, int dtype, const pd_cuda_conv_geom *g, const void *a, const void *b, const void *bias, void *c);
int conv_layout(int mode, int dtype, const pd_cuda_conv_geom *g, const void *a, const void *b, const void *bias,
                void *c);

// float64 NHWC: run in NCHW between permutes (cuDNN's double kernels are NCHW ones)
int conv_via_nchw(int mode, int dtype, const pd_cuda_conv_geom *g, const void *a, const void *b, const void *bias,
                  void *c) {
  const size_t esz = dtype_size(dtype);
  const int dev = current_dev();
  pd_cuda_conv_geom h = *g;
  h.nhwc = 0;
  const int64_t Sin = prod3(g->in), Sout = prod3(g->out);
  // a: x [N, Sin, C] (FWD, BWD_FILTER) or dy [N, Sout, O] (BWD_DATA); b: w (FWD, BWD_DATA) or dy (BWD_FILTER)
  const int64_t aS = mode == MODE_BWD_DATA ? Sout : Sin, aC = mode == MODE_BWD_DATA ? g->O : g->C;
  scratch ta(dev), tb(dev), tc(dev);
  void *pa = ta.get((size_t)(g->N * aS * aC) * esz);
  if (!pa || permute021_impl(esz, g->N, aS, aC, a, pa)) return -1;
  const void *pb = b;
  if (mode == MODE_BWD_FILTER) {
    void *q = tb.get((size_t)(g->N * Sout * g->O) * esz);
    if (!q || permute021_impl(esz, g->N, Sout, g->O, b, q)) return -1;
    pb = q;
  }
  if (mode == MODE_BWD_FILTER) return conv_any(mode, dtype, &h, pa, pb, NULL, c); // dw has no layout
  const int64_t cS = mode == MODE_FWD ? Sout : Sin, cC = mode == MODE_FWD ? g->O : g->C;
  void *pc = tc.get((size_t)(g->N * cS * cC) * esz);
  if (!pc) return -1;
  if (conv_any(mode, dtype, &h, pa, pb, NULL, pc)) return -1;
  if (permute021_impl(esz, g->N, cC, cS, pc, c)) return -1;
  return mode == MODE_FWD && bias ? bias_add(dtype, g, c, bias) : 0;
}

int conv_any(int mode, int dtype, const pd_cuda_conv_geom *g, const void *a, const void *b, const void *bias, void *c) {
  if (check_dtype(dtype, "conv")) return -1;
  if (g->nsp < 1 || g->nsp > 3 || g->G < 1 || g->C % g->G || g->O % g->G) {
    pd_cu_set_error(PD_CU_ERR_INVALID, "conv: bad geometry (nsp %d, C %lld, O %lld, groups %lld)", g->nsp,
                    (long long)g->C, (long long)g->O, (long long)g->G);
    return -1;
  }
  const size_t esz = dtype_size(dtype);
  const int64_t Sin = prod3(g->in), Sout = prod3(g->out), K = prod3(g->k);
  const int64_t nx = g->N * g->C * Sin, ny = g->N * g->O * Sout, nw = g->O * (g->C / g->G) * K;
  const int64_t nc = mode == MODE_FWD ? ny : mode == MODE_BWD_DATA ? nx : nw;
  if (nc == 0) return 0;
  if (nx == 0 || ny == 0 || nw == 0) { // an empty sum: zeros (+ bias)
    if (zero_fill(c, (size_t)nc * esz)) return -1;
    return mode == MODE_FWD && bias ? bias_add(dtype, g, c, bias) : 0;
  }
  if (g->nhwc && dtype == PD_CU_FLOAT64) return conv_via_nchw(mode, dtype, g, a, b, bias, c);
  if (g->nhwc) { // native NHWC; where cuDNN declines (no algorithm / not supported), NCHW between permutes
    const int rc = conv_layout(mode, dtype, g, a, b, bias, c);
    if (rc == 0 || pd_cuda_rt_table.last_error_code() == PD_CU_ERR_OOM ||
        pd_cuda_rt_table.last_error_code() == PD_CU_ERR_LAUNCH)
      return rc;
    return conv_via_nchw(mode, dtype, g, a, b, bias, c);
  }
  return conv_layout(mode, dtype, g, a, b, bias, c);
}

// conv_any in g's own layout (NHWC natively)
int conv_layout(int mode, int dtype, const pd_cuda_conv_geom *g, const void *a, const void *b, const void *bias,
                void *c) {
  const size_t esz = dtype_size(dtype);
  const int64_t K = prod3(g->k), nw = g->O * (g->C / g->G) * K;
  const int dev = current_dev();

  plan p;
  memset(&p, 0, sizeof p);
  p.mode = mode;
  p.dtype = dtype;
  p.nhwc = g->nhwc;
  p.ns = g->nsp < 2 ? 2 : g->nsp;
  p.N = g->N;
  p.C = g->C;
  p.O = g->O;
  p.G = g->G;
  bool direct = true;
  int64_t L[3];
  for (int i = 0; i < 3; i++) {
    p.out[i] = g->out[i];
    p.k[i] = g->k[i];
    p.s[i] = g->s[i];
    p.d[i] = g->d[i];
    const int64_t ext = g->d[i] * (g->k[i] - 1) + 1;
    L[i] = (g->out[i] - 1) * g->s[i] + ext; // the input extent the windows of out reach (padded coordinates)
    if (i < g->nsp) {
      if (g->pl[i] < 0 || g->pr[i] < 0 || g->s[i] < 1 || g->d[i] < 1 || g->k[i] < 1 || g->out[i] < 1 ||
          L[i] > g->in[i] + g->pl[i] + g->pr[i]) {
        pd_cu_set_error(PD_CU_ERR_INVALID, "conv: inconsistent geometry in spatial dim %d", i);
        return -1;
      }
      if (g->pl[i] != g->pr[i] || (g->in[i] + 2 * g->pl[i] - ext) / g->s[i] + 1 != g->out[i]) direct = false;
    }
  }
  for (int i = 0; i < 3; i++) {
    p.xin[i] = direct ? g->in[i] : L[i];
    p.pad[i] = direct ? g->pl[i] : 0;
  }
  for (int i = 0; i < p.ns; i++)
    if (!fits_int(p.xin[i]) || !fits_int(p.out[i]) || !fits_int(p.k[i]) || !fits_int(p.s[i]) ||
        !fits_int(p.d[i]) || !fits_int(p.pad[i]) || !fits_int(p.C) || !fits_int(p.O) || !fits_int(p.N)) {
      pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "conv: sizes exceed cuDNN's 32-bit descriptors");
      return -1;
    }
  const int64_t Cg = g->C / g->G, Sx = prod3(p.xin);
  rewin_args rw;
  memset(&rw, 0, sizeof rw);
  rw.N = g->N;
  rw.C = g->C;
  rw.nhwc = g->nhwc;
  scratch xbuf(dev), wbuf(dev), cbuf(dev);

  // the x side: FWD / BWD_FILTER read x (a zero-padded copy when not direct)
  const void *xa = a;
  if (!direct && mode != MODE_BWD_DATA) {
    void *q = xbuf.get((size_t)(g->N * g->C * Sx) * esz);
    if (!q) return -1;
    for (int i = 0; i < 3; i++) {
      rw.dsp[i] = p.xin[i];
      rw.ssp[i] = g->in[i];
      rw.off[i] = i < g->nsp ? -g->pl[i] : 0;
    }
    if (rewin(esz, rw, a, q)) return -1;
    xa = q;
  }
  // the filter: KRSC for NHWC plans (a copy; 1x1 kernels are the same bytes)
  const void *wa = mode == MODE_BWD_FILTER ? NULL : b;
  const bool wt = g->nhwc && K > 1;
  if (wt && mode != MODE_BWD_FILTER) {
    void *q = wbuf.get((size_t)nw * esz);
    if (!q || permute021_impl(esz, g->O, Cg, K, b, q)) return -1;
    wa = q;
  }

  if (mode == MODE_FWD) {
    if (cudnn_conv(p, xa, wa, c)) return -1;
    return bias ? bias_add(dtype, g, c, bias) : 0;
  }
  if (mode == MODE_BWD_DATA) {
    void *dx = c;
    if (!direct && (dx = cbuf.get((size_t)(g->N * g->C * Sx) * esz)) == NULL) return -1;
    if (cudnn_conv(p, a, wa, dx)) return -1;
    if (direct) return 0;
    for (int i = 0; i < 3; i++) { // crop the padded gradient (positions no window reaches: 0)
      rw.dsp[i] = g->in[i];
      rw.ssp[i] = p.xin[i];
      rw.off[i] = i < g->nsp ? g->pl[i] : 0;
    }
    return rewin(esz, rw, dx, c);
  }
  // BWD_FILTER: dw (KRSC for NHWC, then back to KCRS)
  void *dw = c;
  if (wt && (dw = wbuf.get((size_t)nw * esz)) == NULL) return -1;
  if (cudnn_conv(p, xa, b, dw)) return -1;
  return wt ? permute021_impl(esz, g->O, K, Cg, dw, c) : 0;
}

} // namespace

extern "C" int pd_cudnn_conv_fwd(int dtype, const pd_cuda_conv_geom *g, const void *x, const void *w,
                                 const void *bias, void *y) {
  return conv_any(MODE_FWD, dtype, g, x, w, bias, y);
}
extern "C" int pd_cudnn_conv_bwd_data(int dtype, const pd_cuda_conv_geom *g, const void *dy, const void *w,
                                      void *dx) {
  return conv_any(MODE_BWD_DATA, dtype, g, dy, w, NULL, dx);
}
extern "C" int pd_cudnn_conv_bwd_filter(int dtype, const pd_cuda_conv_geom *g, const void *x, const void *dy,
                                        void *dw) {
  return conv_any(MODE_BWD_FILTER, dtype, g, x, dy, NULL, dw);
}
extern "C" int pd_cudnn_set_allow_tf32(int allow) {
  int prev = allow_tf32;
  allow_tf32 = allow != 0;
  return prev;
}
extern "C" int pd_cudnn_version(size_t *version) {
  std::call_once(lib_once, load_lib);
  if (!lib.ok) {
    pd_cu_set_error(PD_CU_ERR_LIBRARY, "%s", lib.err);
    return -1;
  }
  if (version) *version = lib.version;
  return 0;
}
extern "C" int pd_cudnn_permute021(size_t esz, int64_t A, int64_t B, int64_t C, const void *src, void *dst) {
  return permute021_impl(esz, A, B, C, src, dst);
}

// pooling launchers: dnn_pool.cu
extern "C" int pd_dnn_pool_fwd(int dtype, const pd_cuda_pool_geom *g, const void *x, void *y, int32_t *mask);
extern "C" int pd_dnn_pool_bwd(int dtype, const pd_cuda_pool_geom *g, const void *x, const void *dout, void *dx);
extern "C" int pd_dnn_unpool(int dtype, int64_t P, int64_t SS, int64_t BS, const void *small, const void *idx,
                             int idx_dtype, void *big, int accumulate);
extern "C" int pd_dnn_pool_gather(int dtype, int64_t P, int64_t SS, int64_t BS, const void *big, const void *idx,
                                  int idx_dtype, void *small);

extern "C" const pd_cuda_dnn pd_cuda_dnn_table = {
    pd_cudnn_conv_fwd, pd_cudnn_conv_bwd_data, pd_cudnn_conv_bwd_filter, pd_cudnn_set_allow_tf32, pd_cudnn_version,
    pd_dnn_pool_fwd,   pd_dnn_pool_bwd,        pd_dnn_unpool,            pd_dnn_pool_gather,      pd_cudnn_permute021,
};
