"""The rest of the unary family (neg, sgn, logit, erfinv, lgamma, digamma, polygamma, round, sinc, is*,
nan_to_num, clamp/clip, logical_not, bitwise_not, real/imag/angle/conj, deg2rad/rad2deg): module
functions (bound in C++, bindings/unary.cpp) and the in-place Tensor methods."""
from lucid import _C
from lucid._dtypes import can_cast

_FUNCS = ("neg", "negative", "positive", "sgn", "bitwise_not", "logical_not", "isnan", "isinf", "isfinite",
          "isneginf", "isposinf", "signbit", "isreal", "erfinv", "lgamma", "digamma", "polygamma", "sinc",
          "deg2rad", "rad2deg", "round", "logit", "nan_to_num", "clamp", "clip", "clamp_min", "clamp_max", "real",
          "imag", "angle", "conj", "conj_physical", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "view_as_real",
          "view_as_complex")
for _name in _FUNCS:
    globals()[_name] = getattr(_C, _name)

__all__ = list(_FUNCS)


def _inplace(name):
    fn = getattr(_C.Tensor, name)

    def method(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        if out.dtype is not self.dtype and not can_cast(out.dtype, self.dtype):
            raise RuntimeError(f"{name}_: result type {out.dtype} can't be cast to the desired output type "
                               f"{self.dtype}")
        if tuple(out.shape) != tuple(self.shape):
            raise RuntimeError(f"{name}_: output with shape {tuple(self.shape)} doesn't match the broadcast shape "
                               f"{tuple(out.shape)}")
        return self.copy_(out)
    method.__name__ = name + "_"
    method.__doc__ = f"In-place {name}: self.copy_(self.{name}(...)) (bumps the version, recorded by autograd)."
    return method


def _clamp_inplace(name):
    general = _inplace(name)
    params = {"clamp": ("min", "max"), "clip": ("min", "max"), "clamp_min": ("min",), "clamp_max": ("max",)}[name]

    def method(self, *args, **kwargs):
        # straight into self (no temporary, no copy) when no autograd record is needed; else clamp + copy_
        if len(args) <= len(params) and all(k in params for k in kwargs) and not any(p in kwargs for p in params[:len(args)]):
            b = dict(zip(params, args), **kwargs)
            if b.get("min") is not None or b.get("max") is not None:
                try:
                    done = _C._clamp_inplace(self, b.get("min"), b.get("max"))
                except TypeError:
                    done = False
                if done:
                    return self
        if self.requires_grad and not self.is_leaf:
            # recorded: clamp a snapshot (its backward saves its input, which the write would change)
            out = getattr(_C.Tensor, name)(self.clone(), *args, **kwargs)
            if out.dtype is self.dtype and tuple(out.shape) == tuple(self.shape):
                return self.copy_(out)
        return general(self, *args, **kwargs)
    method.__name__ = name + "_"
    method.__doc__ = general.__doc__
    return method


for _name in ("neg", "negative", "sgn", "bitwise_not", "logical_not", "erfinv", "lgamma", "digamma", "polygamma",
              "sinc", "deg2rad", "rad2deg", "round", "logit", "nan_to_num", "clamp", "clip", "clamp_min", "clamp_max",
              "conj_physical"):
    setattr(_C.Tensor, _name + "_", _clamp_inplace(_name) if _name in ("clamp", "clip", "clamp_min", "clamp_max")
            else _inplace(_name))
# in-place spellings of the aliases in lucid/_ops.py
for _alias, _target in (("absolute_", "abs_"), ("arcsin_", "asin_"), ("arccos_", "acos_"), ("arctan_", "atan_"),
                        ("arcsinh_", "asinh_"), ("arccosh_", "acosh_"), ("arctanh_", "atanh_"), ("fix_", "trunc_")):
    setattr(_C.Tensor, _alias, getattr(_C.Tensor, _target))

# out= on the module functions (PyTorch's semantics, lucid/_out.py)
from lucid import _out  # noqa: E402
_out.install(globals(), ("neg", "negative", "sgn", "bitwise_not", "logical_not", "isneginf", "isposinf", "signbit",
                         "erfinv", "lgamma", "digamma", "polygamma", "sinc", "deg2rad", "rad2deg", "round", "logit",
                         "nan_to_num", "clamp", "clip", "clamp_min", "clamp_max", "angle", "conj_physical"),
             direct={n: _out.unary_direct("neg" if n == "negative" else n)
                     for n in ("neg", "negative", "erfinv", "lgamma", "digamma", "sinc", "deg2rad", "rad2deg", "round")},
             overlap=True)
