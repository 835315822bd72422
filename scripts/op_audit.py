"""Which functions of PyTorch's op-library families (issue 4) lucid lacks: dir(torch), dir(torch.Tensor)
and dir(torch.linalg) against lucid's, minus the names that belong elsewhere (nn, random, creation,
sparse/quantized, compiler and backend internals).

    .venv/bin/python scripts/op_audit.py
"""
import re

import torch

import lucid

# other families or issues: nn (activations, losses, conv/pool/norm/rnn, dropout), random and creation,
# sparse / quantized / mkldnn / cudnn / miopen / fbgemm internals, autocast, compiler and JIT, storage,
# devices, deterministic/anomaly switches, signal windows and FFTs
OUT_OF_SCOPE = re.compile(
    r"^(adaptive_|affine_grid|alpha_dropout|avg_pool|batch_norm|bilinear|binary_cross|celu|channel_shuffle|"
    r"constant_pad|conv|cosine_embedding|cosine_similarity|ctc_loss|cudnn|dropout|embedding|feature_|group_norm|"
    r"gru|hardshrink|hinge|instance_norm|kl_div|layer_norm|log_softmax|lstm|margin_ranking|max_pool|miopen|"
    r"mkldnn|native_|pairwise_distance|pdist|pixel_|poisson_nll|prelu|rms_norm|rnn_|rrelu|selu|softmax|"
    r"threshold|triplet_margin|grid_sampler|norm_except_dim|"
    r"bernoulli|binomial|multinomial|normal|poisson|rand|"
    r"empty|from_file|frombuffer|asarray|scalar_tensor|range|.*_window|stft|istft|"
    r"sparse|.*indices_copy|values_copy|ccol|crow|col_indices|row_indices|to_sparse|to_dense|coalesce|is_coalesced|"
    r"dense_dim|sparse_dim|smm|dsmm|hsmm|hspmm|saddmm|spmm|sspaddmm|q_|quantize|quantized|dequantize|int_repr|"
    r"qscheme|fake_quantize|choose_qparams|fused_moving|fbgemm|"
    r"autocast|.*autocast|compile|compiled_with|fork|wait|vmap|while_loop|cond$|sym_|parse_|import_ir|"
    r"merge_type|unify_type|classproperty|thread_safe|typename|get_file_path|prepare_multiprocessing|profiler_|"
    r"set_|get_|is_anomaly|is_autocast|is_deterministic|are_deterministic|use_deterministic|is_warn_always|"
    r"init_num_threads|is_vulkan|is_distributed|is_inference|is_storage|hash_tensor|to_dlpack|"
    r"apply_|map_|map2_|as_subclass|storage|untyped_storage|record_stream|register_post|reinforce|module_load|"
    r"new$|volatile|name$|layout|const_data_ptr|dim_order|grad_dtype|get_device|"
    r"ipu|xpu|mtia|is_ipu|is_maia|is_meta|is_mkldnn|is_mps|is_mtia|is_nested|is_quantized|is_sparse|is_vulkan|"
    r"is_xla|is_xpu|is_set_to|to_mkldnn|to_padded_tensor|nonzero_static|resize_as_sparse_|sparse_mask|"
    r"segment_reduce|slice_inverse|chalf|LinAlgError|common_notes)")


def missing(torch_obj, lucid_obj):
    import types
    names = {n for n in dir(torch_obj) if not n.startswith("_")}
    if isinstance(torch_obj, types.ModuleType):   # functions only (no classes, submodules, constants)
        names = {n for n in names if callable(getattr(torch_obj, n, None))
                 and not isinstance(getattr(torch_obj, n), type)}
    return sorted(n for n in names - set(dir(lucid_obj)) if not OUT_OF_SCOPE.match(n))


if __name__ == "__main__":
    for title, t, lu in (("torch", torch, lucid), ("Tensor", torch.Tensor, lucid.Tensor),
                         ("torch.linalg", torch.linalg, lucid.linalg)):
        m = missing(t, lu)
        print(f"{title}: {len(m)} missing")
        print("  " + " ".join(m))
