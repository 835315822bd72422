"""default_collate / default_convert (torch.utils.data._utils.collate's rules): tensors and NumPy
arrays are stacked, Python floats become float64 tensors, ints int64, bools bool; strings pass
through; dicts, namedtuples and sequences are collated element-wise."""
import collections
import re

from lucid import _C

Tensor = _C.Tensor

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                  "lists; found {}")


def _is_numpy(x):
    return type(x).__module__ == "numpy"


def default_convert(data):
    """Converts NumPy arrays and scalars to tensors, recursively; leaves everything else alone."""
    from lucid._creation import as_tensor
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data) and elem_type.__name__ != "str_" and elem_type.__name__ != "string_":
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy_mapping(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def copy_mapping(data):
    import copy
    return copy.copy(data)


def _collate_tensors(batch):
    from lucid import stack
    return stack(list(batch), 0)


def default_collate(batch):
    """Collates a list of samples into a batch (see the module docstring)."""
    from lucid._creation import as_tensor, tensor
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, Tensor):
        return _collate_tensors(batch)
    if _is_numpy(elem) and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ in ("ndarray", "memmap"):
            if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
                raise TypeError(default_collate_err_msg_format.format(elem.dtype))
            return _collate_tensors([as_tensor(b) for b in batch])
        if elem.shape == ():  # numpy scalars
            return as_tensor(__import__("numpy").array(batch))
    if isinstance(elem, bool):
        return tensor(list(batch), dtype=_C.bool)
    if isinstance(elem, float):
        return tensor(list(batch), dtype=_C.float64)
    if isinstance(elem, int):
        return tensor(list(batch), dtype=_C.int64)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy_mapping(elem)
                clone.update({key: default_collate([d[key] for d in batch]) for key in elem})
                return clone
            return elem_type({key: default_collate([d[key] for d in batch]) for key in elem})
        except TypeError:
            return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        try:
            return elem_type([default_collate(samples) for samples in transposed])
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))
