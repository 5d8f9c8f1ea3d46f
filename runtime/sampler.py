"""paddle.io samplers: the index streams a DataLoader draws batches by (plain Python, numpy's
global random state, as Paddle's)."""
from __future__ import annotations

import numbers

import numpy as np


class Sampler:
    """Base: yields indices into `data_source`."""

    def __init__(self, data_source=None) -> None:
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class SequenceSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order of the indices (or `num_samples` draws with replacement); `generator`,
    when given, supplies the indices itself."""

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None,
                 generator=None) -> None:
        super().__init__(data_source)
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement must be a bool, got {replacement!r}")
        self.replacement, self.generator = replacement, generator
        self._num_samples = num_samples
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"RandomSampler: num_samples must be a positive int, got "
                             f"{self.num_samples!r}")
        if not replacement and self.num_samples > len(data_source):
            raise ValueError(f"RandomSampler: {self.num_samples} samples without replacement "
                             f"from {len(data_source)}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        if self.generator is not None:
            for _, index in zip(range(self.num_samples), self.generator):
                yield index
            return
        n = len(self.data_source)
        if self.replacement:
            yield from np.random.randint(0, n, self.num_samples).tolist()
        else:
            yield from np.random.permutation(n)[:self.num_samples].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices) -> None:
        if len(indices) == 0:
            raise ValueError("SubsetRandomSampler: indices must not be empty")
        super().__init__(None)
        self.indices = list(indices)

    def __iter__(self):
        return iter([self.indices[i] for i in np.random.permutation(len(self.indices))])

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probabilities proportional to `weights`."""

    def __init__(self, weights, num_samples: int, replacement: bool = True) -> None:
        if not isinstance(num_samples, numbers.Integral) or isinstance(num_samples, bool) \
                or num_samples <= 0:
            raise ValueError(f"WeightedRandomSampler: num_samples must be a positive int, got "
                             f"{num_samples!r}")
        if not isinstance(replacement, bool):
            raise ValueError(f"WeightedRandomSampler: replacement must be a bool, got "
                             f"{replacement!r}")
        super().__init__(None)
        self.weights = np.asarray(weights, dtype=np.float64).reshape(-1)
        self.num_samples, self.replacement = int(num_samples), replacement

    def __iter__(self):
        w = self.weights
        assert (w >= 0).all(), "WeightedRandomSampler: weights must be >= 0"
        assert w.sum() > 0, "WeightedRandomSampler: weights must not all be 0"
        assert self.replacement or (w > 0).sum() >= self.num_samples, \
            (f"WeightedRandomSampler: {self.num_samples} samples without replacement from "
             f"{(w > 0).sum()} positive weights")
        return iter(np.random.choice(len(w), self.num_samples, replace=self.replacement,
                                     p=w / w.sum()).tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of `batch_size` indices from `sampler` (or from a sequential or random sampler of
    `dataset`), the last one shorter unless `drop_last`."""

    def __init__(self, dataset=None, sampler=None, shuffle: bool = False, batch_size: int = 1,
                 drop_last: bool = False) -> None:
        assert (dataset is None) != (sampler is None), \
            "BatchSampler: give either a dataset or a sampler"
        if sampler is not None:
            assert not shuffle, "BatchSampler: shuffle is the sampler's choice when one is given"
        else:
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        assert isinstance(batch_size, int) and batch_size > 0, \
            f"BatchSampler: batch_size must be a positive int, got {batch_size!r}"
        assert isinstance(drop_last, bool), "BatchSampler: drop_last must be a bool"
        super().__init__(dataset)
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
