"""The tile library: every published face, and faces described in words."""
