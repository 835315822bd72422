"""parameters_to_vector / vector_to_parameters (torch.nn.utils.convert_parameters)."""
from lucid import _C
from lucid.autograd.grad_mode import no_grad

Tensor = _C.Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param, old_param_device):
    if old_param_device is None:
        return param.device
    if param.device != old_param_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device


def parameters_to_vector(parameters):
    """One 1-D tensor holding every parameter's values, in order (differentiable)."""
    from lucid import cat
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.reshape(-1))
    return cat(vec)


def vector_to_parameters(vec, parameters):
    """Copies slices of the 1-D tensor `vec` into the parameters, in order."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected lucid.Tensor, but got: {type(vec).__name__}")
    param_device = None
    pointer = 0
    with no_grad():
        for param in parameters:
            param_device = _check_param_device(param, param_device)
            num_param = param.numel()
            if pointer + num_param > vec.numel():
                from lucid.errors import ShapeMismatch
                raise ShapeMismatch(f"vector_to_parameters: the vector has {vec.numel()} elements, too few for the "
                                    "parameters")
            param.copy_(vec[pointer:pointer + num_param].reshape(list(param.shape)))
            pointer += num_param
