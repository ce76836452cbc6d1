"""Where the audio datasets live (DATA_HOME, Paddle's ~/.cache/paddle/dataset) and how their
archives are obtained (paddle.utils.download: local paths and file:// URLs; http(s) raises a
RuntimeError naming the URL, since Paddle-C never downloads)."""
import os

DATA_HOME = os.path.expanduser(os.path.join('~', '.cache', 'paddle', 'dataset'))


def data_home():
    return DATA_HOME


def fetch_archive(archive, home):
    from paddle.utils.download import get_path_from_url
    return get_path_from_url(archive['url'], home, archive.get('md5'), decompress=True)
