"""The book's build tooling (not imported by chapters): execute, run, sweep, the cache primer and
the Sphinx extension behind the status pages. Command line: ``python -m lib.build --help``."""
