# torchtitan/components/quantization/{__init__,float8}.py at b5bcd76c66d0: the float8 converters' configs.
from dataclasses import dataclass, field


class QuantizationConverter:
    @dataclass(kw_only=True, slots=True)
    class Config:
        model_compile_enabled: bool = False


class Float8LinearConverter(QuantizationConverter):
    @dataclass(kw_only=True, slots=True)
    class Config(QuantizationConverter.Config):
        recipe_name: str = "rowwise"
        filter_fqns: list = field(default_factory=list)
        emulate: bool = False


class Float8GroupedExpertsConverter(QuantizationConverter):
    @dataclass(kw_only=True, slots=True)
    class Config(QuantizationConverter.Config):
        pass
