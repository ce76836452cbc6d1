"""paddle.nn.loss (Paddle 2.6's name for the module of loss layers): the classes of
nn/layer/loss.py and nn/layer/loss26.py."""
from .layer.loss import *  # noqa: F401,F403
from .layer.loss26 import *  # noqa: F401,F403
