/* Paddle's LoDTensor stream: the binary layout that save/save_combine write (each tensor of a
 * .pdiparams file, paddle.save(..., use_binary_format=True)). Readers never trust the bytes:
 * every size is checked against what is left, so a corrupt file gives an error, not a crash.
 * Layout: u32 version(0), u64 lod_level_count, per level (u64 nbytes, nbytes of u64 offsets),
 *         u32 tensor version(0), i32 desc size, TensorDesc protobuf {1: data_type, 2: dims},
 *         raw little-endian data (numel * element size). */
#ifndef PD_TENSOR_STREAM_H
#define PD_TENSOR_STREAM_H
#include <stddef.h>
#include <stdint.h>
#include "../core/pd_tensor.h"

/* Reads one tensor starting at buf[*pos]; advances *pos past it. The LoD (level offsets) is
 * validated and skipped; its level count goes to *lod_levels when not NULL. `what` names the
 * source in error messages (a file name). New contiguous tensor in *out. */
pd_status pd_tensor_stream_read(const uint8_t *buf, size_t len, size_t *pos, const char *what,
                                pd_tensor **out, int *lod_levels);

/* Bytes pd_tensor_stream_write needs for t (no LoD). */
size_t pd_tensor_stream_size(const pd_tensor *t);
/* Writes t (any strides) at dst[0 .. cap); *written gets the byte count. */
pd_status pd_tensor_stream_write(const pd_tensor *t, uint8_t *dst, size_t cap, size_t *written);

#endif
