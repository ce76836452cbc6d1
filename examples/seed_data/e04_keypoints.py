"""Seed E4 assumes a keypoint dataset (train_dataset / val_dataset) it never defines: a small
synthetic one, used by `run_seed.py e04_facenet_resnet50 --pre "$(cat examples/seed_data/e04_keypoints.py)"`:
images with a bright square whose centre is every keypoint (15 (x, y) pairs = 30 targets)."""
class KeypointData(paddle.io.Dataset):
    """Synthetic faces: a bright square whose corners and centre are the keypoints."""
    def __init__(self, n, seed):
        rng = np.random.RandomState(seed)
        self.x = rng.rand(n, 3, 32, 32).astype("float32") * 0.1
        self.y = np.zeros((n, 30), "float32")
        for i in range(n):
            cx, cy = rng.uniform(0.3, 0.7, 2)
            r0, c0 = int(cy * 32) - 4, int(cx * 32) - 4
            self.x[i, :, r0:r0 + 8, c0:c0 + 8] += 1.0
            self.y[i] = np.tile([cx, cy], 15) + rng.normal(0, 0.01, 30)
    def __getitem__(self, i):
        return self.x[i], self.y[i]
    def __len__(self):
        return len(self.x)
train_dataset = KeypointData(512, 0)
val_dataset = KeypointData(64, 1)
