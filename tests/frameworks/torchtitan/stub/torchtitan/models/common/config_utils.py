# torchtitan/models/common/config_utils.py at b5bcd76c66d0.
def decoder_vocab_size(model_spec):
    return model_spec.vocab_size
