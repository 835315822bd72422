"""lucid.nn: Upsample, PixelShuffle/Unshuffle, ChannelShuffle, distance layers."""
__all__ = []
