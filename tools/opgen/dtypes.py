"""The dtype list shared by the generators: enum name, C storage type, suffix, load/store."""

# (enum, yaml name, C storage type, kernel suffix, compute type)
DTYPES = [
    ("PD_BOOL", "bool", "uint8_t", "bool", "int"),
    ("PD_UINT8", "uint8", "uint8_t", "u8", "int"),
    ("PD_INT8", "int8", "int8_t", "i8", "int"),
    ("PD_INT16", "int16", "int16_t", "i16", "int"),
    ("PD_INT32", "int32", "int32_t", "i32", "int32_t"),
    ("PD_INT64", "int64", "int64_t", "i64", "int64_t"),
    ("PD_FLOAT16", "float16", "pd_float16", "f16", "float"),
    ("PD_BFLOAT16", "bfloat16", "pd_bfloat16", "bf16", "float"),
    ("PD_FLOAT32", "float32", "float", "f32", "float"),
    ("PD_FLOAT64", "float64", "double", "f64", "double"),
    ("PD_COMPLEX64", "complex64", "pd_complex64", "c64", "pd_complex64"),
    ("PD_COMPLEX128", "complex128", "pd_complex128", "c128", "pd_complex128"),
]
NAMES = [d[1] for d in DTYPES]
BY_NAME = {d[1]: d for d in DTYPES}


def load(d, p):
    """C expression reading one element of dtype d at char* p as its compute type."""
    enum, _, ct, _, _ = d
    if enum == "PD_BOOL":
        return f"(*(const uint8_t *)({p}) != 0)"
    if enum == "PD_FLOAT16":
        return f"pd_f16_to_f32(*(const pd_float16 *)({p}))"
    if enum == "PD_BFLOAT16":
        return f"pd_bf16_to_f32(*(const pd_bfloat16 *)({p}))"
    return f"(*(const {ct} *)({p}))"


def store(d, p, v):
    """C statement writing value v (any arithmetic type) as dtype d at char* p."""
    enum, _, ct, _, _ = d
    if enum == "PD_BOOL":
        return f"*(uint8_t *)({p}) = (uint8_t)(({v}) != 0);"
    if enum == "PD_FLOAT16":
        return f"*(pd_float16 *)({p}) = pd_f32_to_f16((float)({v}));"
    if enum == "PD_BFLOAT16":
        return f"*(pd_bfloat16 *)({p}) = pd_f32_to_bf16((float)({v}));"
    return f"*({ct} *)({p}) = ({ct})({v});"
