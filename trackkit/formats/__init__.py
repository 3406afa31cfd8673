"""Stage files: native YAML/JSON (``trackkit-stage/1``), Rekee JSON and ``.rgt``.

Reading detects the format from the content; every unusable input raises
:class:`~trackkit.errors.InputError` naming the file and the place. :func:`load_source`
also keeps the way back from a place in the stage to the file's key path and line
(:class:`StageSource`), for findings. The writers of the editor formats take tiles that are
already placed: this layer comes before the placement layer (:mod:`trackkit.stage.assemble`) and
may not import it, so :mod:`trackkit.formats.write`, which comes after both, lays the stage out
first. :func:`write_text_atomic` never leaves a half-written file.
"""

from trackkit.formats.files import (
    ACCEPTED_FORMATS,
    InputKind,
    StageFormat,
    check_output_folder,
    detect_format,
    format_for_path,
    load_source,
    load_stage,
    parse_source,
    parse_stage,
    write_bytes_atomic,
    write_text_atomic,
)
from trackkit.formats.source import MAX_FILE_BYTES, MAX_YAML_EVENTS, MAX_YAML_NODES, StageSource

__all__ = [
    "ACCEPTED_FORMATS",
    "MAX_FILE_BYTES",
    "MAX_YAML_EVENTS",
    "MAX_YAML_NODES",
    "InputKind",
    "StageFormat",
    "StageSource",
    "check_output_folder",
    "detect_format",
    "format_for_path",
    "load_source",
    "load_stage",
    "parse_source",
    "parse_stage",
    "write_bytes_atomic",
    "write_text_atomic",
]
