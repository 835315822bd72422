"""lucid.nn.functional, resampling: interpolate/upsample, grid_sample, affine_grid, pixel_shuffle, channel_shuffle, distances."""
__all__ = []
