/* What the C inference API's files share (pd_infer_*.c): the config, the loaded model (program +
 * scope of persistables, shared read-only by a predictor and its clones), a predictor's inputs and
 * outputs (refcounted, so tensor handles outlive their predictor), and the thread's API error. */
#ifndef PD_INFER_INTERNAL_H
#define PD_INFER_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>
#include "pd_inference_api.h"
#include "../graph/pd_executor.h"
#include "../graph/pd_program.h"
#include "../graph/pd_scope.h"

struct PD_Config {
  char *prog_file, *params_file, *model_dir, *opt_cache_dir;
  uint8_t *prog_buf, *params_buf;
  size_t prog_len, params_len;
  int from_memory;
  int ir_optim, ir_debug, mkldnn, bf16, bf16_asked, memory_optim, profile, glog_off, specify_input_names;
  int feed_fetch_ops, valid, fc_padding, mkldnn_cache_capacity, threads;
  int n_passes;
  char **passes; /* the analysis passes, in order */
  int use_gpu, gpu_device, cudnn; /* EnableUseGpu (only where pd_device finds a GPU), EnableCudnn */
  uint64_t gpu_pool_mb;           /* EnableUseGpu's memory_pool_init_size_mb */
};

/* the loaded (and optimized) model: shared by a predictor and its clones */
typedef struct pd_infer_model {
  atomic_long ref;
  pd_program *prog;
  pd_scope *scope;            /* persistables; read-only once the model is built */
  int n_in, n_out;
  char **in_names, **out_names;
  int n_written;              /* persistables some op writes: each predictor keeps its own copy */
  char **written;
  int threads, memory_optim, bf16;
  int layout;                 /* blocked activations between oneDNN ops (IR optim + oneDNN on) */
  int dev;                    /* PD_CPU, or the GPU the predictor runs on (EnableUseGpu) */
  pthread_mutex_t mu;         /* plan compilation (reads the program: one at a time) */
  struct pd_conv_wstore *wstore; /* the filters' reorders and transforms, shared by every plan of the
                                    predictor, its clones and a split batch's parts (conv_dnnl.h) */
} pd_infer_model;

typedef struct {
  int ndim;                   /* -1: no Reshape yet */
  int64_t shape[PD_MAX_DIMS];
  pd_tensor *t;               /* the data, or NULL */
  pd_lod lod;
} pd_infer_input;

/* a predictor's inputs and outputs */
typedef struct pd_infer_io {
  atomic_long ref;
  pd_infer_model *m;
  pd_infer_input *in;         /* m->n_in */
  pd_value *out;              /* m->n_out, after a run */
} pd_infer_io;

#define PD_DP_MAX 8 /* threads a batch is split across, at most */
#define DP_SIZES 4    /* batch sizes whose split / whole choice a predictor keeps */

/* the split / whole choice for batch size n (pd_infer_predictor.c dp_want): pick -1 while measuring */
typedef struct {
  int64_t n;
  int pick, runs[2];
  uint64_t best[2]; /* ns: [0] whole, [1] split */
} dp_rec;

struct PD_Predictor {
  pd_infer_io *io;
  pd_executor *exe;
  pd_scope *local;            /* child of the model's scope: written persistables, run-time kids */
  int mb;                     /* micro-batch: larger batches run in chunks of mb samples (0: never) */
  unsigned char *mb_kind;     /* per output: 1 one row group per sample, 2 rows (pd_infer_mbatch.c) */
  /* a split micro-batched program: the front in chunks, then the tail on the whole batch */
  pd_program *mb_front, *mb_tail;
  pd_executor *mb_fexe, *mb_texe;
  int mb_nlive, mb_ntin;      /* the front's fetches (values live across the cut); the tail's feeds */
  char **mb_live, **mb_tin;
  /* batches split across the threads (pd_infer_predictor.c dp_run): each sample computed on its own
   * (the micro-batch analysis), and the clones that run the other parts, made on first use */
  int dp_ok;
  PD_Predictor *dp_twin[PD_DP_MAX - 1];
  dp_rec dp_rec[DP_SIZES];
  int dp_next;
};

struct PD_Tensor {
  pd_infer_io *io;
  int is_input, idx;
};

/* the thread's API error (pd_infer_util.c) */
void pd_api_clear(void);
/* records the internal status/message as the API error; returns 0 (FALSE) for convenience */
int pd_api_fail(pd_status s);
int pd_api_failf(pd_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

char *pd_api_strdup(const char *s);
PD_Cstr *pd_api_cstr(const char *s);
PD_OneDimArrayCstr *pd_api_cstr_array(int n, char *const *names);
PD_DataType pd_api_dtype_out(int dtype);          /* pd_dtype -> PD_DataType */
int pd_api_dtype_in(PD_DataType t);               /* PD_DataType -> pd_dtype, -1 unknown */

/* loading (pd_infer_load.c): reads the config's model into a new model (ref 1) */
pd_status pd_infer_model_load(const PD_Config *c, pd_infer_model **out);
void pd_infer_model_release(pd_infer_model *m);
void pd_infer_io_release(pd_infer_io *io);
int pd_infer_cpu_has_bf16(void);

/* micro-batches (pd_infer_mbatch.c): the chunk size for m's program (0: whole batches only),
 * filling out_kind[m->n_out]; a chunked run (1, *err its status) or 0 (declined, nothing changed) */
int pd_infer_mbatch_analyse(const pd_infer_model *m, unsigned char *out_kind, int *cut, int *indep);
/* joins n values of one output along dim 0 into dst (plain, contiguous; check_rows: each part has
 * chunk_n[c] rows): PD_OK, an error, or -1 where the parts cannot be joined (dst untouched) */
pd_status pd_infer_mbatch_join(pd_value *parts, int n, int check_rows, const int64_t *chunk_n, pd_value *dst);
/* the batch N of io's inputs where they can be split along dim 0 (all set, plain, contiguous, on
 * the CPU, without a LoD, of one dim 0), else -1 */
int64_t pd_infer_split_batch(const pd_infer_io *io);
/* PADDLE_C_INFER_LAYOUT=trace (read per call): the [mbatch] and [dp] lines on stderr */
int pd_infer_trace_on(void);
int pd_infer_mbatch_run(PD_Predictor *p, int k, pd_status *err);
/* splits p's program at op index cut (pd_infer_mbatch_analyse's) into the chunked front and the
 * whole-batch tail, each with its own executor; pd_infer_mbatch_free releases them */
pd_status pd_infer_mbatch_split(PD_Predictor *p, int cut);
void pd_infer_mbatch_free(PD_Predictor *p);

#endif
