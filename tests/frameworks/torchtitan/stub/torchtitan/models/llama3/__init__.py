# torchtitan/models/llama3/__init__.py at b5bcd76c66d0: model_registry's signature and the flavors'
# layer counts and vocab (_8b, _70b, _405b: 32, 80, 126 layers; vocab 128256).
from torchtitan.components.quantization import Float8LinearConverter
from torchtitan.models.common.model_spec import ModelSpec, check_converters

_LAYERS = {"8B": 32, "70B": 80, "405B": 126}


def model_registry(flavor, attn_backend="flex", tp_gemm_backend="default", converters=None):
    if attn_backend not in {"sdpa", "flex", "varlen"}:
        raise ValueError(f"attn_backend {attn_backend}")
    check_converters(converters, (Float8LinearConverter.Config,))
    return ModelSpec(name="llama3", flavor=flavor, layers=_LAYERS[flavor], vocab_size=128256,
                     converters=list(converters or []))
