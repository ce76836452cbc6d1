"""paddle.framework.random (Paddle 2.6's module of the seed functions): the global generator's seed and
state, and _manual_program_seed, which Paddle's own tests call to seed the static programs."""
from ..tensor.random import get_rng_state, seed, set_rng_state  # noqa: F401


def get_cuda_rng_state():
    """The CUDA generators' states: none in a CPU build."""
    return []


def set_cuda_rng_state(state_list):
    """Sets the CUDA generators' states: nothing to set in a CPU build."""
    return None


def _manual_program_seed(seed):
    """Seeds the default main and startup programs (their random_seed, which their random ops
    read), as Paddle's helper of the same name does."""
    from ..static import default_main_program, default_startup_program
    default_main_program().random_seed = seed
    default_startup_program().random_seed = seed


__all__ = []
