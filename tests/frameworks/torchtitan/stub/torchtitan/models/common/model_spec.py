# What this stub keeps of torchtitan/protocols/model_spec.py's ModelSpec: the name and flavor, and what
# the checks read (layers, vocab, whether it routes experts), with the converters given.
from dataclasses import dataclass, field


@dataclass(kw_only=True, slots=True)
class ModelSpec:
    name: str
    flavor: str
    layers: int
    vocab_size: int
    moe: bool = False
    num_mtp_layers: int = 0
    converters: list = field(default_factory=list)


def check_converters(converters, allowed):
    for c in converters or []:
        if not isinstance(c, allowed):
            raise TypeError(f"converter {type(c).__qualname__} is not one this stub checks")
