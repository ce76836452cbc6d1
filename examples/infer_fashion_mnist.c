/* The README's main job, served from C: loads the Fashion-MNIST classifier that
 * examples/train_fashion_mnist.py trained and saved as an inference model, through Paddle-C's C
 * inference API alone (pd_inference_api.h, libpaddle_inference_c.so: no Python), classifies the
 * 10000 test images (the IDX files, gzip'd as Debian ships them) in batches and prints the
 * accuracy. The images are scaled like the Python side (Normalize(mean=0, std=256): x / 256).
 *
 * Build (scripts/setup.sh does this):
 *   cc -O2 examples/infer_fashion_mnist.c $(pkg-config --cflags --libs paddle_inference_c) -lz
 * Usage: infer_fashion_mnist MODEL.pdmodel MODEL.pdiparams IMAGES.gz LABELS.gz */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "pd_inference_api.h"

static unsigned char *gunzip(const char *path, size_t *len) {
  gzFile f = gzopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 20, n = 0;
  unsigned char *buf = (unsigned char *)malloc(cap);
  for (;;) {
    if (n == cap) buf = (unsigned char *)realloc(buf, cap *= 2);
    int got = gzread(f, buf + n, (unsigned)(cap - n));
    if (got <= 0) break;
    n += (size_t)got;
  }
  gzclose(f);
  *len = n;
  return buf;
}

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int fail(const char *what) {
  fprintf(stderr, "%s failed: %s\n", what, PD_GetLastErrorMsg());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s MODEL.pdmodel MODEL.pdiparams IMAGES.gz LABELS.gz\n", argv[0]);
    return 2;
  }
  size_t ni, nl;
  unsigned char *img = gunzip(argv[3], &ni), *lab = gunzip(argv[4], &nl);
  if (!img || !lab || ni < 16 || nl < 8 || be32(img) != 2051 || be32(lab) != 2049) {
    fprintf(stderr, "cannot read the IDX files %s / %s\n", argv[3], argv[4]);
    return 1;
  }
  const int n = (int)be32(img + 4), rows = (int)be32(img + 8), cols = (int)be32(img + 12);
  if ((int)be32(lab + 4) != n || ni < 16 + (size_t)n * rows * cols || nl < 8 + (size_t)n) {
    fprintf(stderr, "the IDX files do not match\n");
    return 1;
  }

  PD_Config *cfg = PD_ConfigCreate();
  if (!PD_ConfigSetModel(cfg, argv[1], argv[2])) return fail("PD_ConfigSetModel");
  PD_ConfigDisableGpu(cfg);
  PD_ConfigSetCpuMathLibraryNumThreads(cfg, 2);
  PD_Predictor *pred = PD_PredictorCreate(cfg);
  PD_ConfigDestroy(cfg);
  if (!pred) return fail("PD_PredictorCreate");
  PD_OneDimArrayCstr *in_names = PD_PredictorGetInputNames(pred), *out_names = PD_PredictorGetOutputNames(pred);
  PD_Tensor *x = PD_PredictorGetInputHandle(pred, in_names->data[0]);
  PD_Tensor *y = PD_PredictorGetOutputHandle(pred, out_names->data[0]);
  if (!x || !y) return fail("getting the input/output handles");

  enum { BATCH = 256 };
  float *batch = (float *)malloc(sizeof(float) * BATCH * rows * cols);
  int correct = 0;
  for (int start = 0; start < n; start += BATCH) {
    int b = n - start < BATCH ? n - start : BATCH;
    for (size_t k = 0; k < (size_t)b * rows * cols; k++)
      batch[k] = (float)img[16 + (size_t)start * rows * cols + k] / 256.0f;
    int32_t shape[4] = {b, 1, rows, cols};
    if (!PD_TensorReshape(x, 4, shape) || !PD_TensorCopyFromCpuFloat(x, batch)) return fail("setting the input");
    if (!PD_PredictorRun(pred)) return fail("PD_PredictorRun");
    PD_PlaceType place;
    int32_t size;
    const float *logits = PD_TensorDataFloat(y, &place, &size);
    if (!logits || size % b) return fail("reading the output");
    int classes = size / b;
    for (int i = 0; i < b; i++) {
      int best = 0;
      for (int c = 1; c < classes; c++)
        if (logits[i * classes + c] > logits[i * classes + best]) best = c;
      correct += best == lab[8 + start + i];
    }
  }
  printf("C inference (%s): accuracy %.4f (%d of %d test images)\n", argv[1], (double)correct / n, correct, n);
  free(batch);
  PD_TensorDestroy(x);
  PD_TensorDestroy(y);
  PD_OneDimArrayCstrDestroy(in_names);
  PD_OneDimArrayCstrDestroy(out_names);
  PD_PredictorDestroy(pred);
  free(img);
  free(lab);
  return 0;
}
