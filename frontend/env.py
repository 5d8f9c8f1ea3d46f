"""Numbers read from environment variables, with one error naming the variable when malformed."""
import os


def env_number(name: str, default: float, unit: str, positive: bool = False) -> float:
    """float(os.environ[name]), or `default` when unset or blank; ValueError naming `name` and
    its `unit` when the value is not a number (or not positive, where `positive`)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of {unit}, got {raw!r}") from None
    if positive and not value > 0:
        raise ValueError(f"{name} must be a positive number of {unit}, got {raw!r}")
    return value
