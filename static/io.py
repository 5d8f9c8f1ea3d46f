"""paddle.static.io: saving and loading programs, persistables and inference models
(re-exports; the code lives in runtime/io.py)."""
from ..runtime.io import (deserialize_persistables, deserialize_program, is_persistable,
                          load_from_file, load_program_state, load_vars, normalize_program,
                          save_to_file, save_vars, serialize_persistables, set_program_state,
                          static_load as load,
                          static_load_inference_model as load_inference_model,
                          static_save as save, static_save_inference_model as save_inference_model,
                          static_serialize_program as serialize_program)

__all__ = ["deserialize_persistables", "deserialize_program", "is_persistable", "load_from_file",
           "load_program_state", "load_vars", "normalize_program", "save_to_file", "save_vars",
           "serialize_persistables", "set_program_state", "load", "load_inference_model",
           "save", "save_inference_model", "serialize_program"]
