"""torchaudio's models for the zoo (tests/aoti_zoo.py): speech encoders (wav2vec 2.0, HuBERT's and
XLS-R's layouts, WavLM), Conformer, Emformer and its RNN-T, source separation (Conv-TasNet, Hybrid
Demucs), vocoder and recognisers (WaveRNN, DeepSpeech, Wav2Letter), speech-quality predictors (SQUIM)
and torchaudio's spectral front ends, at small widths with random weights (no download).

torchaudio is imported only by the compiling child, from the model's source text. PyPI's torchaudio
2.11 wheel is a CUDA build whose extension does not load beside this machine's CPU torch 2.13;
scripts/torchaudio_models_only/ makes its pure-Python models importable here. Where torchaudio is
absent (CI) every entry's compile is recorded as the library's absence and its row is SKIPPED.

Sizes are small (a quarter of a second at 16 kHz, a few dozen frames) so that a model compiles in
under a minute on one core; each keeps its architecture's own layers. Per-utterance lengths come from
an input wherever torchaudio computes with them as tensors (wav2vec 2.0's padding mask, Conformer's
and Emformer's output lengths). Where it turns the longest length into a size with ``.item()``
(Conformer's and a batched Emformer's padding masks, Emformer's streaming state) export or inductor
refuses it: the entries below say what each does instead, or why it is left out.
"""

from __future__ import annotations

from aoti_zoo import Input, ZooModel
from torchvision_zoo import _rescaled

_ATOL = 1e-4
_WAVE = (Input((2, 4000)),)
# wav2vec 2.0's convolutional feature extractor at a small width: 5 layers, a stride of 80 in all
# (400 samples -> 5 frames), 32 channels
_CONV = "[(32, 10, 5), (32, 3, 2), (32, 3, 2), (32, 2, 2), (32, 2, 2)]"
_ENCODER = ("encoder_embed_dim=64, encoder_projection_dropout=0.0, encoder_pos_conv_kernel=16,"
            " encoder_pos_conv_groups=4, encoder_num_layers=2, encoder_num_heads=4,"
            " encoder_attention_dropout=0.0, encoder_ff_interm_features=128, encoder_ff_interm_dropout=0.0,"
            " encoder_dropout=0.0, encoder_layer_drop=0.0")


def _wav2vec2(builder: str, mode: str, norm_first: bool, extra: str = "") -> str:
    return (f"import torchaudio\nself.m = torchaudio.models.{builder}(extractor_mode={mode!r},"
            f" extractor_conv_layer_config={_CONV}, extractor_conv_bias={norm_first}, {_ENCODER},"
            f" encoder_layer_norm_first={norm_first}, {extra}aux_num_out=12)")


_RNNT = ("import torchaudio\nself.m = torchaudio.models.emformer_rnnt_model(input_dim=20, encoding_dim=32,"
         " num_symbols=16, segment_length=8, right_context_length=2, time_reduction_input_dim=32,"
         " time_reduction_stride=2, transformer_num_heads=4, transformer_ffn_dim=64, transformer_num_layers=2,"
         " transformer_dropout=0.0, transformer_activation='gelu', transformer_left_context_length=8,"
         " transformer_max_memory_size=4, transformer_weight_init_scale_strategy='depthwise',"
         " transformer_tanh_on_mem=True, symbol_embedding_dim=24, num_lstm_layers=2, lstm_layer_norm=True,"
         " lstm_layer_norm_epsilon=1e-3, lstm_dropout=0.0)")

TORCHAUDIO: dict[str, ZooModel] = {
    # ---- self-supervised speech encoders (wav2vec2/model.py) ----
    # wav2vec2_base's and hubert_base's layout (group-norm extractor, post-norm transformer) with a CTC
    # head; per-utterance lengths from an input (the padding mask follows them)
    "ta_wav2vec2_base": ZooModel(
        _wav2vec2("wav2vec2_model", "group_norm", False),
        "return self.m(x, 4000 - y)", (*_WAVE, Input((2,), "index:1200")), _ATOL, 1e-5),
    # wav2vec2_large_lv60k's, XLS-R's and hubert_large's layout (layer-norm extractor, pre-norm)
    "ta_wav2vec2_large": ZooModel(
        _wav2vec2("wav2vec2_model", "layer_norm", True),
        "return self.m(x, 4000 - y)", (*_WAVE, Input((2,), "index:1200")), _ATOL, 1e-5),
    # WavLM: gated relative position bias in every layer's attention. No lengths: its encoder hands the
    # padding mask to WavLMSelfAttention as attention_mask, which asserts it is None (eager fails too)
    "ta_wavlm": ZooModel(
        _wav2vec2("wavlm_model", "group_norm", False, "encoder_num_buckets=32, encoder_max_distance=64, "),
        "return self.m(x)[0]", _WAVE, _ATOL, 1e-5),
    # every transformer layer's output (what HuBERT's and SQUIM's users take)
    "ta_wav2vec2_features": ZooModel(
        _wav2vec2("wav2vec2_model", "layer_norm", True),
        "return tuple(self.m.extract_features(x)[0])", _WAVE, _ATOL, 1e-5),
    # ---- Conformer, Emformer and Emformer RNN-T ----
    # Conformer.forward's own three lines, its padding mask made from the input's width: torchaudio makes
    # it from `.item()` of the longest length, a data-dependent size export refuses (GuardOnDataDependent-
    # SymNode in _lengths_to_padding_mask, torch 2.13), so forward itself does not export with lengths.
    "ta_conformer": ZooModel(
        "import torchaudio\nself.m = torchaudio.models.Conformer(input_dim=32, num_heads=4, ffn_dim=64, num_layers=2,"
        " depthwise_conv_kernel_size=7)",
        "mask = torch.arange(x.shape[1], device=x.device)[None, :] >= (50 - y)[:, None]\nh = x.transpose(0, 1)\n"
        "for layer in self.m.conformer_layers:\n    h = layer(h, mask)\nreturn h.transpose(0, 1)",
        (Input((2, 50, 32)), Input((2,), "index:12")), _ATOL, 1e-5),
    # Emformer on one utterance (the memory bank, left and right context blocks, the block attention
    # mask); a batch of two does not export: its padding mask takes `.item()` of the longest length
    # (the same data-dependent size as Conformer's)
    "ta_emformer": ZooModel(
        "import torchaudio\nself.m = torchaudio.models.Emformer(input_dim=32, num_heads=4, ffn_dim=64, num_layers=2,"
        " segment_length=8, left_context_length=8, right_context_length=2, max_memory_size=4)",
        "return self.m(x, 34 - y)", (Input((1, 34, 32)), Input((1,), "index:6")), _ATOL, 1e-5),
    # Emformer.infer (the streaming step) is left out: it slices its state by `.item()` of the past
    # length, which export takes as an unbacked size; inductor 2.13 then fails on it: over two steps,
    # "Could not guard on data-dependent expression" in lowering; over one, the wrapper's C++ does not
    # compile ("'None' was not declared", a slice start over the unbacked size). RNN-T's
    # transcribe_streaming is the same call.
    # Emformer RNN-T (emformer_rnnt_model): time reduction, Emformer transcriber, LSTM predictor with
    # layer norm, joiner; teacher-forced on 6 target symbols (one utterance, as Emformer)
    "ta_emformer_rnnt": ZooModel(
        _RNNT,
        "out, lengths, target_lengths, state = self.m(x, 36 - z, y, torch.tensor([6], device=x.device))\n"
        "return (out, lengths, target_lengths, *[t for layer in state for t in layer])",
        (Input((1, 36, 20)), Input((1, 6), "index:16"), Input((1,), "index:4")), _ATOL, 1e-5),
    # its decoding calls as RNNTBeamSearch makes them, with transcribe in place of transcribe_streaming
    # (left out above): predict on a token, then on the next with the first's state; join
    "ta_emformer_rnnt_decode": ZooModel(
        _RNNT,
        "enc, enc_lengths = self.m.transcribe(x, torch.tensor([18], device=x.device))\n"
        "one = torch.tensor([1], device=x.device)\n"
        "pred, pred_lengths, state = self.m.predict(y[:, :1], one, None)\n"
        "pred, pred_lengths, state = self.m.predict(y[:, 1:], one, state)\n"
        "joint, _, _ = self.m.join(enc, enc_lengths, pred, pred_lengths)\n"
        "return (joint, enc_lengths, *[t for layer in state for t in layer])",
        (Input((1, 18, 20)), Input((1, 2), "index:16")), _ATOL, 1e-5),
    # ---- source separation ----
    "ta_conv_tasnet": ZooModel(
        "import torchaudio\nself.m = torchaudio.models.ConvTasNet(num_sources=2, enc_kernel_size=16, enc_num_feats=64,"
        " msk_kernel_size=3, msk_num_feats=32, msk_num_hidden_feats=64, msk_num_layers=4, msk_num_stacks=2)",
        "return self.m(x)", (Input((2, 1, 4000)),), _ATOL, 1e-5),
    # Hybrid Demucs, hdemucs_low's layout (nfft 1024, depth 5) at a sixth of its width: the spectrogram
    # branch (STFT, complex as channels) beside the waveform branch, merged at the fourth layer; the
    # BiLSTM and local attention of the fifth layer's residual branch; the inverse STFT
    "ta_hdemucs": ZooModel(
        "import torchaudio\nself.m = torchaudio.models.HDemucs(['drums', 'bass'], channels=8, nfft=1024, depth=5)",
        "return self.m(x)", (Input((1, 2, 4096)),), _ATOL, 1e-5),
    # ---- vocoder, recognisers ----
    # Tacotron2 is left out: neither forward (teacher-forced) nor infer exports with torch 2.13 (the
    # decoder's torch.zeros(n_batch, max_time) gets a tensor for its size: "zeros(): argument 'size'
    # failed to unpack ... got FakeTensor"), and its prenet's dropout is on in eval mode (training=True),
    # so two eager runs already differ.
    "ta_wavernn": ZooModel(
        "import torchaudio\nself.m = torchaudio.models.WaveRNN(upsample_scales=[2, 2, 4], n_classes=32, hop_length=16,"
        " n_res_block=2, n_rnn=32, n_fc=32, kernel_size=5, n_freq=16, n_hidden=16, n_output=16)",
        "return self.m(x, y)", (Input((2, 1, 128)), Input((2, 1, 16, 12))), _ATOL, 1e-5),
    "ta_deepspeech": ZooModel(
        "import torchaudio\nself.m = torchaudio.models.DeepSpeech(n_feature=40, n_hidden=64, n_class=20)",
        "return self.m(x)", (Input((2, 1, 50, 40)),), _ATOL, 1e-5),
    # Wav2Letter on 40 MFCCs (its fixed widths: 250 to 2000 channels, 23.6M parameters), rescaled: at its
    # random init the logits of two inputs were 1.35 tolerances apart (WEAK)
    "ta_wav2letter": ZooModel(
        "import torchaudio\nself.m = torchaudio.models.Wav2Letter(num_classes=20, input_type='mfcc', num_features=40)"
        + _rescaled((2, 40, 100)),
        "return self.m(x)", (Input((1, 40, 100)),), 1e-3, 1e-5),
    # ---- speech quality (squim/) ----
    # SQUIM objective (STOI, PESQ, SI-SDR per utterance: dual-path LSTM, then per metric a transformer
    # layer and an attention pool) at an eighth of squim_objective_base's width, its window of 64; two
    # utterances. On one utterance the scores of two draws were 7.5 to 8.2 tolerances apart (WEAK: the
    # pool averages over time); on two, 21. Not rescaled: unit_scale pins the STOI sigmoid at 1.0.
    "ta_squim_objective": ZooModel(
        "import torchaudio\nself.m = torchaudio.models.squim_objective_model(feat_dim=32, win_len=64, d_model=32,"
        " nhead=4, hidden_dim=32, num_blocks=2, rnn_type='LSTM', chunk_size=20)",
        "return tuple(self.m(x))", (Input((2, 4000)),), _ATOL, 1e-5),
    # SQUIM subjective (NORESQA-MOS: MOS against a non-matching reference, cut or tiled to the
    # waveform's length) over the small wav2vec 2.0 above in place of wav2vec2_base
    "ta_squim_subjective": ZooModel(
        _wav2vec2("wav2vec2_model", "group_norm", False).replace("self.m = ", "ssl = ") + "\n"
        "from torchaudio.models.squim.subjective import Predictor, SquimSubjective\n"
        "self.m = SquimSubjective(ssl, torch.nn.Linear(64, 16), Predictor(32, 5))",
        "return self.m(x, y)", (Input((1, 4000)), Input((1, 3000))), _ATOL, 1e-5),
    # ---- front ends (transforms/): STFTs, mel filter banks, DCT, sinc resampling ----
    # log-mel (AmplitudeToDB's top_db clamp), MFCC, 16 -> 12 kHz resampling, spectral centroid (in Hz:
    # up to 4.3e3, so rtol carries its tolerance)
    "ta_frontend_mel": ZooModel(
        "import torchaudio.transforms as T\n"
        "self.mel = T.MelSpectrogram(sample_rate=16000, n_fft=400, hop_length=160, n_mels=40)\n"
        "self.mfcc = T.MFCC(sample_rate=16000, n_mfcc=13, melkwargs=dict(n_fft=400, hop_length=160, n_mels=40))\n"
        "self.db = T.AmplitudeToDB(top_db=80.0)\n"
        "self.resample = T.Resample(16000, 12000)\n"
        "self.centroid = T.SpectralCentroid(16000, n_fft=400, hop_length=160)",
        "return self.db(self.mel(x)), self.mfcc(x), self.resample(x), self.centroid(x)",
        (Input((2, 4000)),), _ATOL, 1e-5),
    # complex STFT and its inverse (overlap-add), Griffin-Lim phase recovery (4 iterations from zero
    # phase: complex arithmetic the proxy executor runs)
    "ta_frontend_stft": ZooModel(
        "import torchaudio.transforms as T\n"
        "self.spec = T.Spectrogram(n_fft=256, hop_length=64, power=None)\n"
        "self.inverse = T.InverseSpectrogram(n_fft=256, hop_length=64)\n"
        "self.power = T.Spectrogram(n_fft=256, hop_length=64, power=2.0)\n"
        "self.griffin_lim = T.GriffinLim(n_fft=256, hop_length=64, n_iter=4, rand_init=False)",
        "return self.inverse(self.spec(x), x.shape[-1]), self.griffin_lim(self.power(x))",
        (Input((2, 4000)),), _ATOL, 1e-5),
}
