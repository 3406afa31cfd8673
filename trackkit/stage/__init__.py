"""A stage laid out on the grid, its tokens, and the graph of its spaces."""
