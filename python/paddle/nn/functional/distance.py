"""Distance functionals: pairwise_distance (p-norm of x - y + epsilon along the last axis)."""
from ...framework.param import Tensor

__all__ = ["pairwise_distance"]


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """||x - y + epsilon||_p over the last axis."""
    import paddle
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        raise TypeError("[pairwise_distance] expected x and y to be paddle.Tensor")
    return paddle.norm(x - y + epsilon, p=float(p), axis=-1, keepdim=keepdim)
