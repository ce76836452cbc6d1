"""viterbi_decode and ViterbiDecoder (the viterbi_decode op, csrc/kernels/cpu/viterbi.c)."""
from paddle import _C_ops
from ..nn import Layer


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True, name=None):
    r"""Highest-scoring tag sequence of a linear-chain CRF.

    Args:
        potentials (Tensor): [batch, seq_len, num_tags] float32/float64 emission scores.
        transition_params (Tensor): [num_tags, num_tags]; trans[i, j] scores tag i -> tag j.
        lengths (Tensor): [batch] int64 sequence lengths.
        include_bos_eos_tag (bool): when True, row num_tags - 1 of the transitions scores the
            first tag (start) and row num_tags - 2 the last tag (stop), as in Paddle.

    Returns:
        (scores [batch], paths [batch, max(lengths)] int64, 0 past each sequence's end)
    """
    scores, path = _C_ops.viterbi_decode(potentials, transition_params, lengths,
                                         bool(include_bos_eos_tag))
    return scores, path


class ViterbiDecoder(Layer):
    r"""Layer form of viterbi_decode holding the transition matrix.

    Args:
        transitions (Tensor): [num_tags, num_tags].
        include_bos_eos_tag (bool): see viterbi_decode. Default True.
    """

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials, lengths):
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag,
                              self.name)
