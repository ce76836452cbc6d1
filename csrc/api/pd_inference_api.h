/* Paddle-C's C inference API: the function names, types and signatures of Paddle Inference's C
 * API (paddle/fluid/inference/capi_exp, pd_inference_api.h), in one header, over libpaddle_c.so
 * (no Python). Differences from Paddle's, all additive: no call aborts the process; functions
 * Paddle declares void return PD_Bool (TRUE on success), and every failure leaves a code and a
 * message for the calling thread (PD_GetLastErrorCode / PD_GetLastErrorMsg, at the end). */
#ifndef PADDLE_C_PD_INFERENCE_API_H
#define PADDLE_C_PD_INFERENCE_API_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define PADDLE_CAPI_EXPORT __declspec(dllexport)
#else
#define PADDLE_CAPI_EXPORT __attribute__((visibility("default")))
#endif

/* ownership annotations, as in Paddle: give = the caller owns the result (destroy it),
 * take = the callee takes the argument, keep = the caller keeps it */
#ifndef __pd_give
#define __pd_give
#endif
#ifndef __pd_take
#define __pd_take
#endif
#ifndef __pd_keep
#define __pd_keep
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef int8_t PD_Bool;
#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

#define PD_ENUM(type)   \
  typedef int32_t type; \
  enum

PD_ENUM(PD_PrecisionType){PD_PRECISION_FLOAT32 = 0, PD_PRECISION_INT8, PD_PRECISION_HALF,
                          PD_PRECISION_BFLOAT16 /* Paddle-C: Paddle's Python has it */};

PD_ENUM(PD_PlaceType){PD_PLACE_UNK = -1, PD_PLACE_CPU, PD_PLACE_GPU, PD_PLACE_XPU};

/* Paddle's codes up to INT8; the rest are Paddle-C's, so that every output dtype has a name */
PD_ENUM(PD_DataType){PD_DATA_UNK = -1, PD_DATA_FLOAT32, PD_DATA_INT32, PD_DATA_INT64,
                     PD_DATA_UINT8, PD_DATA_INT8, PD_DATA_FLOAT16, PD_DATA_BOOL, PD_DATA_FLOAT64};

/* Paddle-C: the codes of PD_GetLastErrorCode */
PD_ENUM(PD_ErrorCode){PD_ERROR_NONE = 0, PD_ERROR_INVALID_ARGUMENT, PD_ERROR_NOT_FOUND,
                      PD_ERROR_OUT_OF_RANGE, PD_ERROR_ALREADY_EXISTS, PD_ERROR_RESOURCE_EXHAUSTED,
                      PD_ERROR_PRECONDITION_NOT_MET, PD_ERROR_PERMISSION_DENIED,
                      PD_ERROR_EXECUTION_TIMEOUT, PD_ERROR_UNIMPLEMENTED, PD_ERROR_UNAVAILABLE,
                      PD_ERROR_FATAL, PD_ERROR_EXTERNAL, PD_ERROR_TYPE};

/* ------------------------------------------------------------------------------------ types */
typedef struct PD_Config PD_Config;
typedef struct PD_Predictor PD_Predictor;
typedef struct PD_Tensor PD_Tensor;

typedef struct PD_OneDimArrayInt32 {
  size_t size;
  int32_t* data;
} PD_OneDimArrayInt32;

typedef struct PD_OneDimArraySize {
  size_t size;
  size_t* data;
} PD_OneDimArraySize;

typedef struct PD_OneDimArrayInt64 {
  size_t size;
  int64_t* data;
} PD_OneDimArrayInt64;

typedef struct PD_OneDimArrayCstr {
  size_t size;
  char** data;
} PD_OneDimArrayCstr;

typedef struct PD_Cstr {
  size_t size; /* bytes including the terminating 0; 0 with data NULL for "" */
  char* data;
} PD_Cstr;

typedef struct PD_TwoDimArraySize {
  size_t size;
  PD_OneDimArraySize** data;
} PD_TwoDimArraySize;

typedef struct PD_IOInfo {
  PD_Cstr* name;
  PD_OneDimArrayInt64* shape; /* the program's declaration: -1 for a size known at run time */
  PD_DataType dtype;
} PD_IOInfo;

typedef struct PD_IOInfos {
  size_t size;
  PD_IOInfo** io_info;
} PD_IOInfos;

/* ----------------------------------------------------------------------------------- config */
PADDLE_CAPI_EXPORT extern __pd_give PD_Config* PD_ConfigCreate(void);
PADDLE_CAPI_EXPORT extern void PD_ConfigDestroy(__pd_take PD_Config* pd_config);
/* the combined model: program file (.pdmodel) and parameters file (.pdiparams) */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSetModel(__pd_keep PD_Config* pd_config,
                                                    const char* prog_file_path,
                                                    const char* params_file_path);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSetProgFile(__pd_keep PD_Config* pd_config,
                                                       const char* prog_file_path);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSetParamsFile(__pd_keep PD_Config* pd_config,
                                                         const char* params_file_path);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSetOptimCacheDir(__pd_keep PD_Config* pd_config,
                                                            const char* opt_cache_dir);
/* a directory holding `__model__` and one file per parameter (Paddle 1.x), or `__params__`;
 * a directory holding inference.pdmodel + inference.pdiparams (or model.*) also works */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSetModelDir(__pd_keep PD_Config* pd_config,
                                                       const char* model_dir);
PADDLE_CAPI_EXPORT extern const char* PD_ConfigGetModelDir(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern const char* PD_ConfigGetProgFile(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern const char* PD_ConfigGetParamsFile(__pd_keep PD_Config* pd_config);
/* the model from memory (the buffers are copied) */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSetModelBuffer(__pd_keep PD_Config* pd_config,
                                                          const char* prog_buffer,
                                                          size_t prog_buffer_size,
                                                          const char* params_buffer,
                                                          size_t params_buffer_size);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigModelFromMemory(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigDisableFCPadding(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigUseFcPadding(__pd_keep PD_Config* pd_config);
/* EnableUseGpu: the predictor runs on GPU device_id where the CUDA backend (libpaddle_c_cuda.so)
 * finds a GPU; elsewhere it records nothing and fails with PD_ERROR_UNAVAILABLE (the predictor
 * runs on the CPU). Float32 only (Half / Bfloat16 / Int8: PD_ERROR_UNIMPLEMENTED). On a GPU,
 * inputs are copied to the device at Run, outputs stay there (CopyToCpu copies back; Data
 * returns the device pointer with place PD_PLACE_GPU); the oneDNN-only fusion passes are skipped.
 * UseGpu / GpuDeviceId / MemoryPoolInitSizeMb report what EnableUseGpu recorded. */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigEnableUseGpu(__pd_keep PD_Config* pd_config,
                                                        uint64_t memory_pool_init_size_mb,
                                                        int32_t device_id,
                                                        PD_PrecisionType precision_mode);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigDisableGpu(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigUseGpu(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern int32_t PD_ConfigGpuDeviceId(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern int32_t PD_ConfigMemoryPoolInitSizeMb(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern float PD_ConfigFractionOfGpuMemoryForPool(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigEnableCudnn(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigCudnnEnabled(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigUseXpu(__pd_keep PD_Config* pd_config);
/* ONNX Runtime, TensorRT and Lite are absent: Enable* fail with PD_ERROR_UNAVAILABLE */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigEnableONNXRuntime(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigDisableONNXRuntime(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigONNXRuntimeEnabled(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigEnableTensorRtEngine(
    __pd_keep PD_Config* pd_config, int64_t workspace_size, int32_t max_batch_size,
    int32_t min_subgraph_size, PD_PrecisionType precision, PD_Bool use_static,
    PD_Bool use_calib_mode);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigTensorRtEngineEnabled(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigLiteEngineEnabled(__pd_keep PD_Config* pd_config);
/* analysis passes (on by default; PD_ConfigAllPasses lists them) */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSwitchIrOptim(__pd_keep PD_Config* pd_config, PD_Bool x);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigIrOptim(__pd_keep PD_Config* pd_config);
/* writes the program after each pass to <optim cache dir or the model's dir>/ir_debug/
 * NN_<pass>.pdmodel (a ProgramDesc, readable by paddle.static.deserialize_program) and
 * NN_<pass>.txt (the program as text); PADDLE_C_IR_DEBUG_DIR overrides the directory */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSwitchIrDebug(__pd_keep PD_Config* pd_config, PD_Bool x);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigDeletePass(__pd_keep PD_Config* pd_config, const char* pass);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigInsertPass(__pd_keep PD_Config* pd_config, size_t idx,
                                                      const char* pass);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigAppendPass(__pd_keep PD_Config* pd_config, const char* pass);
PADDLE_CAPI_EXPORT extern __pd_give PD_OneDimArrayCstr* PD_ConfigAllPasses(__pd_keep PD_Config* pd_config);
/* oneDNN: Paddle-C's convolutions always use it; the switch is recorded for Summary */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigEnableMKLDNN(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSetMkldnnCacheCapacity(__pd_keep PD_Config* pd_config,
                                                                  int32_t capacity);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigMkldnnEnabled(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSetMkldnnOp(__pd_keep PD_Config* pd_config, size_t ops_num,
                                                       const char** op_list);
/* bfloat16: the CPU's support is read with cpuid at run time. Without AVX512_BF16 / AMX-BF16 the
 * call fails with PD_ERROR_UNAVAILABLE, says so, records nothing and the predictor runs in
 * float32; with them the predictor's convolutions run on the bf16 units (bfloat16 inputs and
 * weights, float32 sums and outputs; the weights converted once per predictor). */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigEnableMkldnnBfloat16(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigMkldnnBfloat16Enabled(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSetBfloat16Op(__pd_keep PD_Config* pd_config, size_t ops_num,
                                                         const char** op_list);
/* int8 quantization is not implemented: these fail with PD_ERROR_UNIMPLEMENTED */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigEnableMkldnnQuantizer(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigMkldnnQuantizerEnabled(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigEnableMkldnnInt8(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigMkldnnInt8Enabled(__pd_keep PD_Config* pd_config);
/* threads of each Run (OpenMP; default 1, as in Paddle) */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSetCpuMathLibraryNumThreads(
    __pd_keep PD_Config* pd_config, int32_t cpu_math_library_num_threads);
PADDLE_CAPI_EXPORT extern int32_t PD_ConfigGetCpuMathLibraryNumThreads(__pd_keep PD_Config* pd_config);
/* the memory plan (one workspace for all temporaries, reuse by liveness): off by default, as in
 * Paddle; without it each temporary is freed after its last reader */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigEnableMemoryOptim(__pd_keep PD_Config* pd_config, PD_Bool x);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigMemoryOptimEnabled(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigEnableProfile(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigProfileEnabled(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigDisableGlogInfo(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigGlogInfoDisabled(__pd_keep PD_Config* pd_config);
/* inputs fed by name (always so here; recorded) */
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSwitchSpecifyInputNames(__pd_keep PD_Config* pd_config,
                                                                   PD_Bool x);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSpecifyInputName(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSwitchUseFeedFetchOps(__pd_keep PD_Config* pd_config,
                                                                 PD_Bool x);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigUseFeedFetchOpsEnabled(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigSetInvalid(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigIsValid(__pd_keep PD_Config* pd_config);
PADDLE_CAPI_EXPORT extern PD_Bool PD_ConfigPartiallyRelease(__pd_keep PD_Config* pd_config);
/* the settings as text, a table like Paddle's */
PADDLE_CAPI_EXPORT extern __pd_give PD_Cstr* PD_ConfigSummary(__pd_keep PD_Config* pd_config);

/* -------------------------------------------------------------------------------- predictor */
/* Loads the model, runs the analysis passes and compiles the program. The config stays the
 * caller's (destroy it when done; Paddle marks it __pd_take, and destroying it or not is safe). */
PADDLE_CAPI_EXPORT extern __pd_give PD_Predictor* PD_PredictorCreate(__pd_keep PD_Config* pd_config);
/* A predictor sharing the weights (read-only) with its own inputs, outputs and plan: clones may
 * run in different threads at the same time. */
PADDLE_CAPI_EXPORT extern __pd_give PD_Predictor* PD_PredictorClone(__pd_keep PD_Predictor* pd_predictor);
PADDLE_CAPI_EXPORT extern __pd_give PD_OneDimArrayCstr* PD_PredictorGetInputNames(
    __pd_keep PD_Predictor* pd_predictor);
PADDLE_CAPI_EXPORT extern __pd_give PD_IOInfos* PD_PredictorGetInputInfos(
    __pd_keep PD_Predictor* pd_predictor);
PADDLE_CAPI_EXPORT extern __pd_give PD_OneDimArrayCstr* PD_PredictorGetOutputNames(
    __pd_keep PD_Predictor* pd_predictor);
PADDLE_CAPI_EXPORT extern __pd_give PD_IOInfos* PD_PredictorGetOutputInfos(
    __pd_keep PD_Predictor* pd_predictor);
PADDLE_CAPI_EXPORT extern size_t PD_PredictorGetInputNum(__pd_keep PD_Predictor* pd_predictor);
PADDLE_CAPI_EXPORT extern size_t PD_PredictorGetOutputNum(__pd_keep PD_Predictor* pd_predictor);
/* handles stay valid after the predictor is destroyed (they keep what they need alive) */
PADDLE_CAPI_EXPORT extern __pd_give PD_Tensor* PD_PredictorGetInputHandle(
    __pd_keep PD_Predictor* pd_predictor, const char* name);
PADDLE_CAPI_EXPORT extern __pd_give PD_Tensor* PD_PredictorGetOutputHandle(
    __pd_keep PD_Predictor* pd_predictor, const char* name);
/* Runs with the inputs set through the input handles; every input must have data. */
PADDLE_CAPI_EXPORT extern PD_Bool PD_PredictorRun(__pd_keep PD_Predictor* pd_predictor);
/* gives the memory plan's workspace (the intermediate values) back; inputs and outputs stay */
PADDLE_CAPI_EXPORT extern PD_Bool PD_PredictorClearIntermediateTensor(__pd_keep PD_Predictor* pd_predictor);
/* gives the workspace and the allocator's cached blocks back; returns the bytes released */
PADDLE_CAPI_EXPORT extern uint64_t PD_PredictorTryShrinkMemory(__pd_keep PD_Predictor* pd_predictor);
PADDLE_CAPI_EXPORT extern void PD_PredictorDestroy(__pd_take PD_Predictor* pd_predictor);
/* "version: ...\ncommit: ...\nbranch: ..." like Paddle's (static storage) */
PADDLE_CAPI_EXPORT extern const char* PD_GetVersion(void);
/* Paddle-C: registers the custom operators of a library built against pd_extension.h (its
 * PD_CUSTOM_OP_LIBRARY table), so models that use them load; call before PD_PredictorCreate. A
 * program linked against such a library needs no call: its table is found when a model names
 * an operator that is not built in. */
PADDLE_CAPI_EXPORT extern PD_Bool PD_LoadCustomOpLibrary(const char* path);

/* ----------------------------------------------------------------------------------- tensor */
PADDLE_CAPI_EXPORT extern void PD_TensorDestroy(__pd_take PD_Tensor* pd_tensor);
/* Sets an input's shape; checked against the program (rank, fixed sizes). */
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorReshape(__pd_keep PD_Tensor* pd_tensor, size_t shape_size,
                                                   int32_t* shape);
/* An input's buffer of the shape set by Reshape, to fill in place. */
PADDLE_CAPI_EXPORT extern float* PD_TensorMutableDataFloat(__pd_keep PD_Tensor* pd_tensor, PD_PlaceType place);
PADDLE_CAPI_EXPORT extern int64_t* PD_TensorMutableDataInt64(__pd_keep PD_Tensor* pd_tensor, PD_PlaceType place);
PADDLE_CAPI_EXPORT extern int32_t* PD_TensorMutableDataInt32(__pd_keep PD_Tensor* pd_tensor, PD_PlaceType place);
PADDLE_CAPI_EXPORT extern uint8_t* PD_TensorMutableDataUint8(__pd_keep PD_Tensor* pd_tensor, PD_PlaceType place);
PADDLE_CAPI_EXPORT extern int8_t* PD_TensorMutableDataInt8(__pd_keep PD_Tensor* pd_tensor, PD_PlaceType place);
/* The data (zero copy; valid until the next Run, Reshape or ClearIntermediateTensor); *size gets
 * the element count. NULL when the dtype differs or there is no data. */
PADDLE_CAPI_EXPORT extern float* PD_TensorDataFloat(__pd_keep PD_Tensor* pd_tensor, PD_PlaceType* place,
                                                    int32_t* size);
PADDLE_CAPI_EXPORT extern int64_t* PD_TensorDataInt64(__pd_keep PD_Tensor* pd_tensor, PD_PlaceType* place,
                                                      int32_t* size);
PADDLE_CAPI_EXPORT extern int32_t* PD_TensorDataInt32(__pd_keep PD_Tensor* pd_tensor, PD_PlaceType* place,
                                                      int32_t* size);
PADDLE_CAPI_EXPORT extern uint8_t* PD_TensorDataUint8(__pd_keep PD_Tensor* pd_tensor, PD_PlaceType* place,
                                                      int32_t* size);
PADDLE_CAPI_EXPORT extern int8_t* PD_TensorDataInt8(__pd_keep PD_Tensor* pd_tensor, PD_PlaceType* place,
                                                    int32_t* size);
/* Copies an input in (shape from Reshape; the dtype must be the program's). */
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyFromCpuFloat(__pd_keep PD_Tensor* pd_tensor, const float* data);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyFromCpuInt64(__pd_keep PD_Tensor* pd_tensor, const int64_t* data);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyFromCpuInt32(__pd_keep PD_Tensor* pd_tensor, const int32_t* data);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyFromCpuUint8(__pd_keep PD_Tensor* pd_tensor, const uint8_t* data);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyFromCpuInt8(__pd_keep PD_Tensor* pd_tensor, const int8_t* data);
/* Copies the data out (an output after Run, or an input); the dtype must match. */
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyToCpuFloat(__pd_keep PD_Tensor* pd_tensor, float* data);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyToCpuInt64(__pd_keep PD_Tensor* pd_tensor, int64_t* data);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyToCpuInt32(__pd_keep PD_Tensor* pd_tensor, int32_t* data);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyToCpuUint8(__pd_keep PD_Tensor* pd_tensor, uint8_t* data);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyToCpuInt8(__pd_keep PD_Tensor* pd_tensor, int8_t* data);
/* Paddle-C (Paddle's C++ Tensor::ShareExternalData): an input that reads the caller's buffer
 * without a copy; the buffer must stay valid and unchanged until the next Run returns. */
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorShareExternalDataFloat(__pd_keep PD_Tensor* pd_tensor, const float* data,
                                                                  size_t shape_size, const int32_t* shape,
                                                                  PD_PlaceType place);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorShareExternalDataInt64(__pd_keep PD_Tensor* pd_tensor, const int64_t* data,
                                                                  size_t shape_size, const int32_t* shape,
                                                                  PD_PlaceType place);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorShareExternalDataInt32(__pd_keep PD_Tensor* pd_tensor, const int32_t* data,
                                                                  size_t shape_size, const int32_t* shape,
                                                                  PD_PlaceType place);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorShareExternalDataUint8(__pd_keep PD_Tensor* pd_tensor, const uint8_t* data,
                                                                  size_t shape_size, const int32_t* shape,
                                                                  PD_PlaceType place);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorShareExternalDataInt8(__pd_keep PD_Tensor* pd_tensor, const int8_t* data,
                                                                 size_t shape_size, const int32_t* shape,
                                                                 PD_PlaceType place);
/* Paddle-C: the same for any PD_DataType (float16 / bool / float64 too), as raw bytes; CopyToCpuRaw
 * checks that nbytes is the data's byte size */
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyFromCpuRaw(__pd_keep PD_Tensor* pd_tensor, const void* data,
                                                          PD_DataType dtype);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorCopyToCpuRaw(__pd_keep PD_Tensor* pd_tensor, void* data, size_t nbytes);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorShareExternalDataRaw(__pd_keep PD_Tensor* pd_tensor, const void* data,
                                                                size_t shape_size, const int32_t* shape,
                                                                PD_DataType dtype);
/* the shape of the data (an input's Reshape before data is set) */
PADDLE_CAPI_EXPORT extern __pd_give PD_OneDimArrayInt32* PD_TensorGetShape(__pd_keep PD_Tensor* pd_tensor);
PADDLE_CAPI_EXPORT extern PD_Bool PD_TensorSetLod(__pd_keep PD_Tensor* pd_tensor,
                                                  __pd_keep PD_TwoDimArraySize* lod);
PADDLE_CAPI_EXPORT extern __pd_give PD_TwoDimArraySize* PD_TensorGetLod(__pd_keep PD_Tensor* pd_tensor);
PADDLE_CAPI_EXPORT extern const char* PD_TensorGetName(__pd_keep PD_Tensor* pd_tensor);
/* the data's dtype, else the program's */
PADDLE_CAPI_EXPORT extern PD_DataType PD_TensorGetDataType(__pd_keep PD_Tensor* pd_tensor);

/* ------------------------------------------------------------------------------------ utils */
PADDLE_CAPI_EXPORT extern void PD_OneDimArrayInt32Destroy(__pd_take PD_OneDimArrayInt32* array);
PADDLE_CAPI_EXPORT extern void PD_OneDimArrayInt64Destroy(__pd_take PD_OneDimArrayInt64* array);
PADDLE_CAPI_EXPORT extern void PD_OneDimArrayCstrDestroy(__pd_take PD_OneDimArrayCstr* array);
PADDLE_CAPI_EXPORT extern void PD_OneDimArraySizeDestroy(__pd_take PD_OneDimArraySize* array);
PADDLE_CAPI_EXPORT extern void PD_TwoDimArraySizeDestroy(__pd_take PD_TwoDimArraySize* array);
PADDLE_CAPI_EXPORT extern void PD_CstrDestroy(__pd_take PD_Cstr* cstr);
PADDLE_CAPI_EXPORT extern void PD_IOInfoDestroy(__pd_take PD_IOInfo* io_info);
PADDLE_CAPI_EXPORT extern void PD_IOInfosDestroy(__pd_take PD_IOInfos* io_infos);

/* ----------------------------------------------------------------------- errors (Paddle-C) */
/* Every API call except the Destroy functions (which cannot fail and leave it as it was) first
 * clears the calling thread's error; a call that fails sets it. So right
 * after a call, PD_GetLastErrorCode() is PD_ERROR_NONE exactly when that call succeeded, and
 * PD_GetLastErrorMsg() says what went wrong ("" when nothing did; valid until the thread's next
 * API call). Calls that return a pointer return NULL on failure; PD_Bool calls return FALSE;
 * size/int getters return 0 (check the code). */
PADDLE_CAPI_EXPORT extern PD_ErrorCode PD_GetLastErrorCode(void);
PADDLE_CAPI_EXPORT extern const char* PD_GetLastErrorMsg(void);
PADDLE_CAPI_EXPORT extern void PD_ClearLastError(void);
/* byte size of one element; 0 for PD_DATA_UNK */
PADDLE_CAPI_EXPORT extern size_t PD_GetNumBytesOfDataType(PD_DataType dtype);
/* TRUE when this CPU can run the bfloat16 mode (AVX512_BF16 or AMX-BF16, read with cpuid) */
PADDLE_CAPI_EXPORT extern PD_Bool PD_CpuHasBfloat16(void);

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif
