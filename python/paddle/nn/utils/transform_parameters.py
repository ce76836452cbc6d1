"""parameters_to_vector / vector_to_parameters: all parameters flattened into one 1-D tensor
and back (values copied in order)."""

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters, name=None):
    """A 1-D tensor concatenating every parameter, flattened (differentiable)."""
    import paddle
    ps = list(parameters)
    if not ps:
        raise ValueError("parameters_to_vector: received no parameters")
    return paddle.concat([paddle.reshape(p, [-1]) for p in ps])


def vector_to_parameters(vec, parameters, name=None):
    """Copies consecutive slices of the 1-D vec into the parameters (in place)."""
    import paddle
    ps = list(parameters)
    if len(vec.shape) != 1:
        raise ValueError(f"vector_to_parameters: expected a 1-D vec, received shape {vec.shape}")
    total = sum(int(p.size) for p in ps)
    if total != vec.shape[0]:
        raise ValueError(f"vector_to_parameters: vec has {vec.shape[0]} elements, the parameters {total}")
    with paddle.no_grad():
        off = 0
        for p in ps:
            n = int(p.size)
            p.set_value(paddle.reshape(vec[off:off + n], p.shape).numpy())
            off += n
