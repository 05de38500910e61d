# torchtitan/models/deepseek_v3/mtp.py at b5bcd76c66d0: MTPLoss's config.
from dataclasses import dataclass


class MTPLoss:
    @dataclass(kw_only=True, slots=True)
    class Config:
        mtp_scale: float = 0.3
        global_vocab_size: int | None = None
