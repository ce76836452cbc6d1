"""softmax_mask_fuse and softmax_mask_fuse_upper_triangle (fused kernels in C)."""
from paddle import _C_ops


def softmax_mask_fuse(x, mask, name=None):
    r"""softmax(x + mask) over the last axis.

    Args:
        x (Tensor): [batch, heads, q, k], float16/float32/float64.
        mask (Tensor): [batch, 1, q, k], x's dtype (broadcast over heads).
    """
    return _C_ops.fused_softmax_mask(x, mask)


def softmax_mask_fuse_upper_triangle(x):
    r"""Causal softmax over the last axis: entries above the diagonal (k > q) are masked out.

    Args:
        x (Tensor): [batch, heads, q, q], float16/float32/float64.
    """
    return _C_ops.fused_softmax_mask_upper_triangle(x)
