"""fluidc's benchmarks: `python bench/run.py [overhead|mlp|all]` or `python -m bench`.

Speed is measured here and never in the tests. See bench/run.py.
"""
