"""ESC-50 environmental sound classification (2000 5-second clips, 50 classes, 5 folds).

Paddle downloads the archive into DATA_HOME; Paddle-C has no network access, so the archive
must already be extracted under DATA_HOME (ESC-50-master/), or archive={'url': <local path or
file:// URL of ESC-50-master.zip>, 'md5': <md5 or None>} given; otherwise a RuntimeError names
the URL and where to place the file."""
import collections
import os

from ._common import data_home, fetch_archive
from .dataset import AudioClassificationDataset


class ESC50(AudioClassificationDataset):
    """ESC50(mode='train', split=1, feat_type='raw', archive=None, **kwargs): mode 'train' holds
    the four folds other than split, any other mode the fold split."""

    archive = {
        'url': 'https://paddleaudio.bj.bcebos.com/datasets/ESC-50-master.zip',
        'md5': '7771e4b9d86d0945acce719c7a59305a',
    }
    label_list = [
        'Dog', 'Rooster', 'Pig', 'Cow', 'Frog', 'Cat', 'Hen', 'Insects (flying)', 'Sheep', 'Crow',
        'Rain', 'Sea waves', 'Crackling fire', 'Crickets', 'Chirping birds', 'Water drops', 'Wind',
        'Pouring water', 'Toilet flush', 'Thunderstorm',
        'Crying baby', 'Sneezing', 'Clapping', 'Breathing', 'Coughing', 'Footsteps', 'Laughing',
        'Brushing teeth', 'Snoring', 'Drinking, sipping',
        'Door knock', 'Mouse click', 'Keyboard typing', 'Door, wood creaks', 'Can opening',
        'Washing machine', 'Vacuum cleaner', 'Clock alarm', 'Clock tick', 'Glass breaking',
        'Helicopter', 'Chainsaw', 'Siren', 'Car horn', 'Engine', 'Train', 'Church bells', 'Airplane',
        'Fireworks', 'Hand saw',
    ]
    meta = os.path.join('ESC-50-master', 'meta', 'esc50.csv')
    meta_info = collections.namedtuple(
        'META_INFO', ('filename', 'fold', 'target', 'category', 'esc10', 'src_file', 'take'))
    audio_path = os.path.join('ESC-50-master', 'audio')

    def __init__(self, mode='train', split=1, feat_type='raw', archive=None, **kwargs):
        assert split in range(1, 6), \
            f'The selected split should be integer, and 1 <= split <= 5, but got {split}'
        if archive is not None:
            self.archive = archive
        files, labels = self._get_data(mode, split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)

    def _get_meta_info(self):
        with open(os.path.join(data_home(), self.meta), 'r') as rf:
            return [self.meta_info(*line.strip().split(',')) for line in rf.readlines()[1:]]

    def _get_data(self, mode, split):
        home = data_home()
        if not os.path.isdir(os.path.join(home, self.audio_path)) or \
                not os.path.isfile(os.path.join(home, self.meta)):
            fetch_archive(self.archive, home)
        files, labels = [], []
        for sample in self._get_meta_info():
            filename, fold, target = sample[0], sample[1], sample[2]
            if (mode == 'train') == (int(fold) != split):
                files.append(os.path.join(home, self.audio_path, filename))
                labels.append(int(target))
        return files, labels
