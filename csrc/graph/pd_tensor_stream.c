/* Reader and writer of Paddle's LoDTensor stream (see pd_tensor_stream.h for the layout).
 * The TensorDesc protobuf is decoded by hand (two fields; dims packed or not) so that this
 * file needs no generated code; every length is bounds-checked before it is used. */
#include "pd_tensor_stream.h"
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the tensor stream reader assumes a little-endian host (Paddle's files are little-endian)"
#endif

#define PD_STREAM_MAX_DESC (1 << 20)

static pd_status need(size_t len, size_t pos, size_t n, const char *what, const char *field) {
  if (pos > len || len - pos < n)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[tensor_stream] %s: truncated or corrupt file: %s needs %zu bytes at offset "
                        "%zu but only %zu remain",
                        what, field, n, pos, pos > len ? (size_t)0 : len - pos);
  return PD_OK;
}

/* protobuf varint at p[*i .. end) */
static int varint(const uint8_t *p, size_t end, size_t *i, uint64_t *v) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*i >= end) return 0;
    uint8_t b = p[(*i)++];
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return 1;
    }
  }
  return 0;
}

static pd_status bad_desc(const char *what, const char *why) {
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: corrupt TensorDesc: %s", what, why);
}

static pd_status parse_desc(const uint8_t *p, size_t n, const char *what, int *vartype, int *ndim,
                            int64_t *dims) {
  size_t i = 0;
  int have_type = 0;
  *ndim = 0;
  while (i < n) {
    uint64_t key, v;
    if (!varint(p, n, &i, &key)) return bad_desc(what, "bad field key");
    uint64_t field = key >> 3, wire = key & 7;
    if (field == 1 && wire == 0) {
      if (!varint(p, n, &i, &v)) return bad_desc(what, "bad data_type");
      *vartype = (int)v;
      have_type = 1;
    } else if (field == 2 && (wire == 0 || wire == 2)) {
      size_t end = n;
      if (wire == 2) {
        uint64_t sz;
        if (!varint(p, n, &i, &sz) || sz > n - i) return bad_desc(what, "bad packed dims");
        end = i + sz;
      }
      do {
        if (!varint(p, end, &i, &v)) return bad_desc(what, "bad dim");
        if (*ndim >= PD_MAX_DIMS) return bad_desc(what, "more than 9 dims");
        dims[(*ndim)++] = (int64_t)v;
      } while (wire == 2 && i < end);
    } else {
      /* unknown field: skip by wire type */
      if (wire == 0) {
        if (!varint(p, n, &i, &v)) return bad_desc(what, "bad field");
      } else if (wire == 1) {
        if (n - i < 8) return bad_desc(what, "bad field");
        i += 8;
      } else if (wire == 2) {
        if (!varint(p, n, &i, &v) || v > n - i) return bad_desc(what, "bad field");
        i += (size_t)v;
      } else if (wire == 5) {
        if (n - i < 4) return bad_desc(what, "bad field");
        i += 4;
      } else {
        return bad_desc(what, "unsupported wire type");
      }
    }
  }
  if (!have_type) return bad_desc(what, "no data_type");
  return PD_OK;
}

pd_status pd_tensor_stream_read(const uint8_t *buf, size_t len, size_t *pos, const char *what,
                                pd_tensor **out, int *lod_levels) {
  size_t i = *pos;
  uint32_t u32;
  uint64_t u64;
  int32_t i32;
  *out = NULL;
  PD_TRY(need(len, i, 4, what, "the LoDTensor version"));
  memcpy(&u32, buf + i, 4);
  i += 4;
  if (u32 != 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[tensor_stream] %s: unsupported LoDTensor version %u at offset %zu (expected 0)",
                        what, u32, i - 4);
  PD_TRY(need(len, i, 8, what, "the LoD level count"));
  memcpy(&u64, buf + i, 8);
  i += 8;
  if (u64 > 64)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[tensor_stream] %s: corrupt LoD level count %llu at offset %zu", what,
                        (unsigned long long)u64, i - 8);
  int levels = (int)u64;
  for (int l = 0; l < levels; l++) {
    PD_TRY(need(len, i, 8, what, "a LoD level size"));
    memcpy(&u64, buf + i, 8);
    i += 8;
    if (u64 % 8) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: LoD level size %llu is not a multiple of 8", what, (unsigned long long)u64);
    PD_TRY(need(len, i, (size_t)u64, what, "a LoD level"));
    i += (size_t)u64;
  }
  PD_TRY(need(len, i, 4, what, "the tensor version"));
  memcpy(&u32, buf + i, 4);
  i += 4;
  if (u32 != 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[tensor_stream] %s: unsupported tensor version %u (expected 0)", what, u32);
  PD_TRY(need(len, i, 4, what, "the TensorDesc size"));
  memcpy(&i32, buf + i, 4);
  i += 4;
  if (i32 < 0 || i32 > PD_STREAM_MAX_DESC)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: corrupt TensorDesc size %d", what, i32);
  PD_TRY(need(len, i, (size_t)i32, what, "the TensorDesc"));
  int vartype = -1, ndim = 0;
  int64_t dims[PD_MAX_DIMS];
  PD_TRY(parse_desc(buf + i, (size_t)i32, what, &vartype, &ndim, dims));
  i += (size_t)i32;
  int dt = pd_dtype_from_vartype(vartype);
  if (dt < 0)
    return pd_set_error(PD_ERR_UNIMPLEMENTED,
                        "[tensor_stream] %s: data type code %d (framework.proto VarType.Type) is not "
                        "supported", what, vartype);
  if (ndim == 0) dims[ndim++] = 1; /* Paddle 2.3 has no 0-D tensors */
  size_t esz = pd_dtype_size((pd_dtype)dt);
  uint64_t numel = 1;
  for (int d = 0; d < ndim; d++) {
    if (dims[d] < 0 || (dims[d] > 0 && numel > (UINT64_MAX / 2) / (uint64_t)dims[d]))
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: corrupt dim %lld", what,
                          (long long)dims[d]);
    numel *= (uint64_t)dims[d];
  }
  if (numel > (UINT64_MAX / 2) / esz)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: tensor too large", what);
  size_t nbytes = (size_t)(numel * esz);
  PD_TRY(need(len, i, nbytes, what, "the tensor data"));
  pd_tensor *t;
  PD_TRY(pd_tensor_empty((pd_dtype)dt, ndim, dims, &t));
  if (nbytes) memcpy(pd_tensor_data(t), buf + i, nbytes);
  i += nbytes;
  *pos = i;
  *out = t;
  if (lod_levels) *lod_levels = levels;
  return PD_OK;
}

static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}
static uint8_t *put_varint(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

/* TensorDesc as the real framework writes it: data_type, then each dim as its own field 2. */
static size_t desc_size(const pd_tensor *t) {
  size_t n = 1 + varint_len((uint64_t)pd_dtype_to_vartype(t->dtype));
  for (int d = 0; d < t->ndim; d++) n += 1 + varint_len((uint64_t)t->shape[d]);
  return n;
}

size_t pd_tensor_stream_size(const pd_tensor *t) {
  return 4 + 8 + 4 + 4 + desc_size(t) + (size_t)t->numel * pd_dtype_size(t->dtype);
}

pd_status pd_tensor_stream_write(const pd_tensor *t, uint8_t *dst, size_t cap, size_t *written) {
  size_t n = pd_tensor_stream_size(t);
  if (cap < n)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] buffer of %zu bytes, need %zu", cap, n);
  pd_tensor *c;
  PD_TRY(pd_tensor_contiguous((pd_tensor *)t, &c));
  uint8_t *p = dst;
  uint32_t zero32 = 0;
  uint64_t zero64 = 0;
  memcpy(p, &zero32, 4);
  p += 4;
  memcpy(p, &zero64, 8); /* no LoD */
  p += 8;
  memcpy(p, &zero32, 4);
  p += 4;
  int32_t ds = (int32_t)desc_size(t);
  memcpy(p, &ds, 4);
  p += 4;
  *p++ = 0x08;
  p = put_varint(p, (uint64_t)pd_dtype_to_vartype(t->dtype));
  for (int d = 0; d < t->ndim; d++) {
    *p++ = 0x10;
    p = put_varint(p, (uint64_t)t->shape[d]);
  }
  size_t nb = (size_t)t->numel * pd_dtype_size(t->dtype);
  if (nb) memcpy(p, pd_tensor_data(c), nb);
  p += nb;
  pd_tensor_release(c);
  *written = (size_t)(p - dst);
  return PD_OK;
}
