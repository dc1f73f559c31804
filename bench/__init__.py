"""`make bench`: a registry of benchmark cases, one module per area; see docs/benchmarks.md."""
