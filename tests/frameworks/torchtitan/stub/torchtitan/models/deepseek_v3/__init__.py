# torchtitan/models/deepseek_v3/__init__.py at b5bcd76c66d0: model_registry's signature; the 671B
# flavor has 61 layers and vocab 129280.
from torchtitan.components.quantization import Float8GroupedExpertsConverter, Float8LinearConverter
from torchtitan.models.common.model_spec import ModelSpec, check_converters

_LAYERS = {"671B": 61, "16B": 27}


def model_registry(flavor, attn_backend="flex", moe_comm_backend="standard", non_blocking_capacity_factor=None,
                   converters=None, num_mtp_layers=0):
    check_converters(converters, (Float8LinearConverter.Config, Float8GroupedExpertsConverter.Config))
    return ModelSpec(name="deepseek_v3", flavor=flavor, layers=_LAYERS[flavor], vocab_size=129280, moe=True,
                     num_mtp_layers=num_mtp_layers, converters=list(converters or []))
