/* Paddle's program file (.pdmodel, __model__: a serialized framework.proto ProgramDesc) <->
 * pd_program. Reading never trusts the bytes: protobuf-c decodes under a memory budget that
 * grows with the input, then every count, name, dtype code, dim, LoD level and block reference
 * is checked, so a corrupt or hostile file gives an error, not a crash or a huge allocation.
 * Writing is deterministic (fields in number order, blocks/vars/ops/slots/attributes in the
 * program's order) and keeps which optional fields a read file had (pd_var.pb_has ...), so
 * read -> write gives back Paddle's bytes and read -> write -> read -> write is a fixed point. */
#ifndef PD_PROGRAM_IO_H
#define PD_PROGRAM_IO_H
#include <stddef.h>
#include <stdint.h>
#include "pd_program.h"

/* protobuf's own limit: a message must be under 2 GiB */
#define PD_PROGRAM_MAX_BYTES ((size_t)INT32_MAX)

/* Parses a ProgramDesc; a new program in *out. */
pd_status pd_program_parse(const uint8_t *buf, size_t len, pd_program **out);
/* Serializes p; *out is malloc'd (caller frees), *len its size. */
pd_status pd_program_serialize(const pd_program *p, uint8_t **out, size_t *len);

#endif
