"""paddle.geometric.sampling: sample_neighbors (the C kernel of
paddle.incubate.graph_sample_neighbors)."""
from .. import incubate as _incubate

__all__ = ["sample_neighbors"]


def sample_neighbors(row, colptr, input_nodes, sample_size=-1, eids=None, return_eids=False, perm_buffer=None,
                     name=None):
    """Samples up to sample_size neighbours (all with -1) of each input node of a CSC graph:
    (neighbors, count[, eids])."""
    return _incubate.graph_sample_neighbors(row, colptr, input_nodes, eids=eids, perm_buffer=perm_buffer,
                                            sample_size=sample_size, return_eids=return_eids,
                                            flag_perm_buffer=perm_buffer is not None)
