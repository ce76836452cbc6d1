/* dtype tables: sizes, names, name parsing and Paddle VarType code mapping. */
#include "pd_dtype.h"
#include <string.h>

static const size_t k_sizes[PD_NUM_DTYPES] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
static const char *k_names[PD_NUM_DTYPES] = {
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16",
    "bfloat16", "float32", "float64", "complex64", "complex128"};
/* framework.proto VarType: BOOL=0 INT16=1 INT32=2 INT64=3 FP16=4 FP32=5 FP64=6
 * UINT8=20 INT8=21 BF16=22 COMPLEX64=23 COMPLEX128=24 */
static const int k_vartype[PD_NUM_DTYPES] = {0, 20, 21, 1, 2, 3, 4, 22, 5, 6, 23, 24};

size_t pd_dtype_size(pd_dtype t) { return pd_dtype_is_valid(t) ? k_sizes[t] : 0; }
const char *pd_dtype_name(pd_dtype t) { return pd_dtype_is_valid(t) ? k_names[t] : "unknown"; }

int pd_dtype_from_name(const char *name) {
  if (!name) return -1;
  if (strncmp(name, "paddle.", 7) == 0) name += 7;
  for (int i = 0; i < PD_NUM_DTYPES; i++)
    if (strcmp(name, k_names[i]) == 0) return i;
  static const struct { const char *n; int t; } aliases[] = {
      {"float", PD_FLOAT32}, {"double", PD_FLOAT64}, {"half", PD_FLOAT16},
      {"int", PD_INT32},     {"long", PD_INT64},     {"bool_", PD_BOOL},
      {"fp16", PD_FLOAT16},  {"fp32", PD_FLOAT32},   {"fp64", PD_FLOAT64},
      {"bf16", PD_BFLOAT16}, {"uint16", PD_BFLOAT16}, {"complex", PD_COMPLEX128}};
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(name, aliases[i].n) == 0) return aliases[i].t;
  return -1;
}

int pd_dtype_from_vartype(int vt) {
  for (int i = 0; i < PD_NUM_DTYPES; i++)
    if (k_vartype[i] == vt) return i;
  return -1;
}
int pd_dtype_to_vartype(pd_dtype t) { return pd_dtype_is_valid(t) ? k_vartype[t] : -1; }
