"""Validation: every rule checked over the stage graph, every problem a coded finding.

The pipeline (:func:`trackkit.checks.pipeline.validate`) lays a stage out, builds its graph
and runs the checks of the modules beside it; :mod:`trackkit.checks.catalogue` holds every
finding code, :mod:`trackkit.checks.fixes` the mechanical fixes.
"""
