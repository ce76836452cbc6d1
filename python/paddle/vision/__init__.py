"""paddle.vision: image transforms, datasets, detection ops (vision.ops) and the image backend
switch (Paddle 2.x).
vision.models is imported only when that package is present."""
import os as _os

from . import datasets  # noqa: F401
from . import ops  # noqa: F401
from . import transforms  # noqa: F401
from .image import get_image_backend, image_load, set_image_backend  # noqa: F401

if _os.path.isdir(_os.path.join(_os.path.dirname(__file__), "models")):
    from . import models  # noqa: F401
    from .models import *  # noqa: F401,F403

__all__ = ['set_image_backend', 'get_image_backend', 'image_load']
