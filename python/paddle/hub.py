"""paddle.hub (Paddle 2.6): list / help / load of a repository's hubconf.py entry points
(implemented in paddle.hapi.hub)."""
from .hapi.hub import help, list, load  # noqa: F401

__all__ = ['list', 'help', 'load']
