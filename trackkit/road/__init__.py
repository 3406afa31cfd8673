"""The road model of both series: hex grid, centre lines, lanes and spaces."""
