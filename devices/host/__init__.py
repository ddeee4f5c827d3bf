"""The host device: real LiteRT interpreters on this machine's CPU cores, one per processor."""
