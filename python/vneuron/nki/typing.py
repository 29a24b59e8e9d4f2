"""vneuron.nki.typing: NKI's tensor type, used as a placeholder argument.

`kernel(tensor[[250, 512], nl.float32])` (what nki.benchmark examples do) traces the
kernel for an input of that shape and dtype; the benchmark runs it on random data.
`x: tensor` as an annotation is accepted and means nothing more.
"""

from vneuron.nki import _dtypes


class tensor:
    """tensor[shape, dtype]: a placeholder for an input of that shape and dtype."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype

    def __class_getitem__(cls, item):
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError("tensor[shape, dtype], e.g. tensor[[250, 512], nl.float32]")
        shape, dt = item
        if isinstance(shape, int):
            shape = (shape,)
        d = _dtypes.of(dt)
        if d is None:
            raise TypeError(f"tensor[...]: {dt!r} is not a dtype")
        return cls(shape, d)

    def __repr__(self):
        return f"tensor[{list(self.shape)}, {self.dtype}]"
