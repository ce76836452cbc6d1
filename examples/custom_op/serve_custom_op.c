/* Serves a model that uses custom operators through the C inference API, no Python:
 *   serve_custom_op MODEL.pdmodel MODEL.pdiparams INPUT.f32 ROWS COLS [OPS_LIBRARY.so]
 * reads ROWS x COLS float32 values (raw, row-major) as the model's first input, runs it and prints
 * the first output's values, one per line. The custom operators come from OPS_LIBRARY.so when
 * given (PD_LoadCustomOpLibrary), otherwise from a library this program was linked against (its
 * PD_CUSTOM_OP_LIBRARY table is found by itself). Built by tests/python/test_custom_op.py with
 * `cc serve_custom_op.c $(pkg-config --cflags --libs paddle_inference_c) [-L. -lcustom_ops]`. */
#include <stdio.h>
#include <stdlib.h>
#include "pd_inference_api.h"

static int fail(const char *what) {
  fprintf(stderr, "%s failed: %s\n", what, PD_GetLastErrorMsg());
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s MODEL.pdmodel MODEL.pdiparams INPUT.f32 ROWS COLS [OPS_LIBRARY.so]\n", argv[0]);
    return 2;
  }
  if (argc > 6 && !PD_LoadCustomOpLibrary(argv[6])) return fail("PD_LoadCustomOpLibrary");
  int32_t shape[2] = {atoi(argv[4]), atoi(argv[5])};
  size_t n = (size_t)shape[0] * (size_t)shape[1];
  float *in = (float *)malloc(n * sizeof(float));
  FILE *f = fopen(argv[3], "rb");
  if (!in || !f || fread(in, sizeof(float), n, f) != n) {
    fprintf(stderr, "cannot read %zu floats from %s\n", n, argv[3]);
    return 1;
  }
  fclose(f);
  PD_Config *cfg = PD_ConfigCreate();
  if (!PD_ConfigSetModel(cfg, argv[1], argv[2])) return fail("PD_ConfigSetModel");
  PD_ConfigDisableGpu(cfg);
  PD_Predictor *pred = PD_PredictorCreate(cfg);
  PD_ConfigDestroy(cfg);
  if (!pred) return fail("PD_PredictorCreate");
  PD_OneDimArrayCstr *in_names = PD_PredictorGetInputNames(pred), *out_names = PD_PredictorGetOutputNames(pred);
  PD_Tensor *x = PD_PredictorGetInputHandle(pred, in_names->data[0]);
  PD_Tensor *y = PD_PredictorGetOutputHandle(pred, out_names->data[0]);
  if (!PD_TensorReshape(x, 2, shape) || !PD_TensorCopyFromCpuFloat(x, in)) return fail("setting the input");
  if (!PD_PredictorRun(pred)) return fail("PD_PredictorRun");
  PD_OneDimArrayInt32 *os = PD_TensorGetShape(y);
  size_t m = 1;
  for (size_t k = 0; k < os->size; k++) m *= (size_t)os->data[k];
  float *out = (float *)malloc(m * sizeof(float));
  if (!out || !PD_TensorCopyToCpuFloat(y, out)) return fail("reading the output");
  for (size_t k = 0; k < m; k++) printf("%.9g\n", out[k]);
  free(out);
  free(in);
  PD_OneDimArrayInt32Destroy(os);
  PD_TensorDestroy(x);
  PD_TensorDestroy(y);
  PD_OneDimArrayCstrDestroy(in_names);
  PD_OneDimArrayCstrDestroy(out_names);
  PD_PredictorDestroy(pred);
  return 0;
}
