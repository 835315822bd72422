"""lucid.nn.utils: hook handles, gradient clipping, parameter/vector conversion."""
from lucid.nn.utils import hooks  # noqa: F401
from lucid.nn.utils.clip_grad import (clip_grad_norm_, clip_grad_norm, clip_grad_value_, get_total_norm,  # noqa: F401
                                      clip_grads_with_norm_)
from lucid.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from lucid.nn.utils.weight_norm import weight_norm, remove_weight_norm  # noqa: F401,E402
from lucid.nn.utils.spectral_norm import spectral_norm, remove_spectral_norm  # noqa: F401,E402
from lucid.nn.utils import rnn  # noqa: F401,E402
