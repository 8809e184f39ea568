"""Probe plain-torch calls for runtime gaps: lower each call alone with AOTInductor (CPU) and check
its shim calls and proxy targets against what the runtime serves.

Each case is one call (or one small nn module) on small inputs. It is exported and lowered in
``aot_inductor.package_cpp_only`` mode (the wrapper source is written, nothing is compiled: seconds),
and the ``aoti_torch_*`` names in the wrapper and the proxy-executor targets in its extern-kernel JSON
are compared with the runtime's header scan and the proxy executor's target table, as
scripts/family_sweep.py does for model families. Calls inductor generates code for itself reach no
shim and are "served" trivially; nothing is run, so "served" is not "correct" (tests/arch_ring.py's
op_shapes entries and scripts/zoo_cpu.py --ring compare outputs with eager).

    python scripts/op_probe.py [--json OUT] [--dtype bfloat16] [--device cuda] [--jobs N] [NAME_SUBSTRING...]

``--dtype`` runs every case in that dtype alone (the half types lower some calls to other shims).
``--device cuda`` lowers for CUDA (the GPU machine: inductor compiles the Triton kernels, so each case
takes seconds more); ``--jobs N`` lowers the cases in N child processes (shards, merged in case order).

One line per case: lowered / served, the fallback names (shims and proxy targets other than the
wrapper's bookkeeping), and the missing ones; a summary last. Exit status 0: a report, not a gate.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

# Shims every wrapper calls (tensor bookkeeping), left out of the per-case fallback list.
BOOKKEEPING = re.compile(r"aoti_torch_(get_|delete_|create_|new_|empty_strided|dtype_|device_type_|layout_|"
                         r"grad_mode|reinterpret|as_strided|proxy_executor|check_|tensor_copy_|"
                         r"alloc|clone|copy_|item_|assign_|_reinterpret|wrap|borrow|scalar_to_tensor|"
                         r"memory_format_|is_|cpu_empty_strided)")

F32 = "float32"
# (name, init source, forward body using x, y, z, i (int64), b (bool), dtypes to try)
# x: (4, 8) in the case's dtype, y: (4, 8), z: (2, 3, 16, 16), i: (4, 8) ints in [0, 8), b: (4, 8) bool.
CASES: list[tuple[str, str, str, tuple[str, ...]]] = [
    # reductions and scans
    ("cumsum_int", "", "return torch.cumsum(i, 1)", (F32,)),
    ("cumsum_bool", "", "return torch.cumsum(b, 0)", (F32,)),
    ("cumsum_dtype", "", "return torch.cumsum(x, 1, dtype=torch.float64)", (F32,)),
    ("cumprod_int", "", "return torch.cumprod(i + 1, 1)", (F32,)),
    ("cummax", "", "v, j = torch.cummax(x, 1)\nreturn v, j", (F32, "bfloat16")),
    ("cummin", "", "v, j = torch.cummin(x, 0)\nreturn v, j", (F32,)),
    ("logcumsumexp", "", "return torch.logcumsumexp(x, 1)", (F32, "bfloat16")),
    ("prod_dim", "", "return torch.prod(x, 1, keepdim=True)", (F32,)),
    ("prod_int", "", "return torch.prod(i + 1, 0)", (F32,)),
    ("amax_multi", "", "return torch.amax(x, (0, 1)), torch.amin(x, 1, keepdim=True)", (F32, "float16")),
    ("aminmax", "", "return torch.aminmax(x, dim=1)", (F32,)),
    ("var_mean", "", "return torch.var_mean(x, 1, correction=0)", (F32, "bfloat16")),
    ("std_unbiased", "", "return torch.std(x, (0, 1), keepdim=True)", (F32,)),
    ("nansum", "", "return torch.nansum(x.masked_fill(x > 1, float('nan')), 1)", (F32,)),
    ("nanmean", "", "return torch.nanmean(x.masked_fill(x > 1, float('nan')), 1)", (F32,)),
    ("mode", "", "return torch.mode(i, 1)", (F32,)),
    ("kthvalue", "", "return torch.kthvalue(x, 3, 1)", (F32,)),
    ("median_dim_keep", "", "return torch.median(x, 0, keepdim=True)", (F32,)),
    ("count_nonzero", "", "return torch.count_nonzero(x > 0, 1)", (F32,)),
    ("all_any_dim", "", "return b.all(1), b.any(0), (x > 0).all()", (F32,)),
    ("argmax_keep", "", "return x.argmax(1, keepdim=True), x.argmin()", (F32, "bfloat16")),
    ("norm_p", "", "return torch.linalg.vector_norm(x, 3, 1), torch.norm(x, p='fro'), torch.linalg.vector_norm(x, float('inf'))", (F32,)),
    ("sum_int8", "", "return (i.to(torch.int8)).sum(1), i.to(torch.uint8).sum()", (F32,)),
    ("mean_dtype", "", "return x.mean(1, dtype=torch.float64)", ("bfloat16",)),
    # sort / top-k
    ("topk_small", "", "return torch.topk(x, 3, largest=False)", (F32, "bfloat16")),
    ("topk_unsorted", "", "return torch.topk(x, 3, dim=0, sorted=False)", (F32,)),
    ("sort_stable_dim0", "", "return torch.sort(x, dim=0, stable=True)", (F32, "float16")),
    ("sort_int", "", "return torch.sort(i, dim=1, descending=True, stable=True)", (F32,)),
    ("argsort_desc", "", "return torch.argsort(x, 1, descending=True)", (F32,)),
    # index ops
    ("index_neg", "", "return x[torch.tensor([-1, 0, -3])]", (F32,)),
    ("index_bcast", "", "return x[torch.tensor([[0], [2]]), torch.tensor([1, -1, 3])]", (F32,)),
    ("gather_neg", "", "return torch.gather(x, 1, i % 3)", (F32,)),
    ("index_select", "", "return torch.index_select(x, 1, torch.tensor([7, 0, 3]))", (F32,)),
    ("index_add", "", "return x.index_add(0, torch.tensor([0, 2, 2, 1]), y, alpha=0.5)", (F32,)),
    ("index_copy", "", "return x.index_copy(1, torch.tensor([1, 5]), y[:, :2])", (F32,)),
    ("index_fill", "", "return x.index_fill(1, torch.tensor([1, 5]), -2.0)", (F32,)),
    ("index_put_acc", "", "return x.index_put((torch.tensor([0, 0, 3]),), y[:3], accumulate=True)", (F32,)),
    ("scatter_add", "", "return x.scatter_add(1, i, y)", (F32,)),
    ("scatter_value", "", "return x.scatter(1, i[:, :2], 1.5)", (F32,)),
    ("masked_select", "", "return torch.masked_select(x, x > 0)", (F32,)),
    ("take", "", "return torch.take(x, torch.tensor([[0, -1], [5, 31]]))", (F32,)),
    ("repeat_interleave_t", "", "return torch.repeat_interleave(x, torch.tensor([1, 2, 0, 3]), dim=0)", (F32,)),
    ("narrow_copy", "", "return x.narrow_copy(1, 2, 3)", (F32,)),
    ("diagonal_scatter", "", "return torch.diagonal_scatter(x[:, :4], y[0, :4])", (F32,)),
    ("tril_triu", "", "return torch.tril(x, -1), torch.triu(x, 2)", (F32,)),
    ("flip_roll", "", "return torch.flip(x, (0, 1)), torch.roll(x, (1, -2), (0, 1)), torch.rot90(x, 1, (0, 1))", (F32,)),
    # interpolation / pooling
    ("interp_linear1d", "", "return torch.nn.functional.interpolate(x[None], scale_factor=2.5, mode='linear', align_corners=True)", (F32, "bfloat16")),
    ("interp_nearest_exact", "", "return torch.nn.functional.interpolate(z, size=(7, 9), mode='nearest-exact')", (F32,)),
    ("interp_bicubic_ac", "", "return torch.nn.functional.interpolate(z, scale_factor=1.7, mode='bicubic', align_corners=True)", (F32,)),
    ("interp_area", "", "return torch.nn.functional.interpolate(z, size=(5, 6), mode='area')", (F32,)),
    ("maxpool1d_dil", "", "return torch.nn.functional.max_pool1d(x[None], 3, 2, 1, dilation=2, ceil_mode=True)", (F32,)),
    ("maxpool2d_dil_idx", "", "return torch.nn.functional.max_pool2d(z, 3, 2, 1, dilation=2, return_indices=True)", (F32,)),
    ("maxpool3d_ceil", "", "return torch.nn.functional.max_pool3d(z[:, :, None].expand(-1, -1, 5, -1, -1), 3, 2, 1, ceil_mode=True)", (F32,)),
    ("avgpool1d", "", "return torch.nn.functional.avg_pool1d(x[None], 3, 2, 1, ceil_mode=True, count_include_pad=False)", (F32,)),
    ("adaptive_avg1d", "", "return torch.nn.functional.adaptive_avg_pool1d(x[None], 3)", (F32,)),
    ("adaptive_max1d", "", "return torch.nn.functional.adaptive_max_pool1d(x[None], 3, return_indices=True)", (F32,)),
    ("lp_pool2d", "", "return torch.nn.functional.lp_pool2d(z, 2, 3, 2)", (F32,)),
    ("pixel_shuffle", "", "return torch.nn.functional.pixel_shuffle(z[:, :, :8, :8].repeat(1, 4, 1, 1), 2), torch.nn.functional.pixel_unshuffle(z, 2)", (F32,)),
    ("unfold_fold", "", "u = torch.nn.functional.unfold(z, 3, dilation=2, padding=1, stride=2)\nreturn u, torch.nn.functional.fold(u, (16, 16), 3, dilation=2, padding=1, stride=2)", (F32,)),
    # convolution
    ("conv1d_groups_dil", "self.c = torch.nn.Conv1d(4, 8, 3, groups=2, dilation=2, padding='same')", "return self.c(x[None, :, :])", (F32, "bfloat16")),
    ("conv2d_depthwise", "self.c = torch.nn.Conv2d(3, 6, 5, groups=3, padding=2, stride=2, bias=False)", "return self.c(z)", (F32,)),
    ("conv3d", "self.c = torch.nn.Conv3d(3, 4, 3, padding=1, stride=(1, 2, 2))", "return self.c(z[:, :, None].expand(-1, -1, 4, -1, -1))", (F32,)),
    ("convT1d_outpad", "self.c = torch.nn.ConvTranspose1d(4, 3, 4, stride=3, output_padding=2, dilation=1)", "return self.c(x[None])", (F32,)),
    ("convT2d_groups", "self.c = torch.nn.ConvTranspose2d(3, 6, 3, stride=2, padding=1, output_padding=1, groups=3, dilation=1)", "return self.c(z)", (F32, "bfloat16")),
    ("convT2d_dil", "self.c = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, dilation=2)", "return self.c(z)", (F32,)),
    ("convT3d", "self.c = torch.nn.ConvTranspose3d(3, 2, 2, stride=2)", "return self.c(z[:, :, None, :4, :4].expand(-1, -1, 2, -1, -1))", (F32,)),
    ("conv2d_pad_mode", "self.c = torch.nn.Conv2d(3, 4, 3, padding=1, padding_mode='reflect')", "return self.c(z)", (F32,)),
    # normalization
    ("groupnorm", "self.n = torch.nn.GroupNorm(3, 3)", "return self.n(z)", (F32, "bfloat16")),
    ("instancenorm", "self.n = torch.nn.InstanceNorm2d(3, affine=True)", "return self.n(z)", (F32,)),
    ("instancenorm_stats", "self.n = torch.nn.InstanceNorm1d(4, track_running_stats=True).eval()", "return self.n(x[None])", (F32,)),
    ("local_response_norm", "self.n = torch.nn.LocalResponseNorm(2)", "return self.n(z)", (F32,)),
    ("rmsnorm", "self.n = torch.nn.RMSNorm(8)", "return self.n(x)", (F32, "bfloat16")),
    ("layernorm_nobias", "self.n = torch.nn.LayerNorm(8, bias=False)", "return self.n(x)", (F32, "float16")),
    ("batchnorm1d_eval", "self.n = torch.nn.BatchNorm1d(4).eval()", "return self.n(x[None])", (F32,)),
    ("weight_norm", "self.l = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(8, 5))", "return self.l(x)", (F32,)),
    ("spectral_norm", "self.l = torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(8, 5)).eval()", "return self.l(x)", (F32,)),
    ("normalize", "", "return torch.nn.functional.normalize(x, p=1, dim=0)", (F32,)),
    # embeddings
    ("embbag_mean_pad", "self.e = torch.nn.EmbeddingBag(10, 4, mode='mean', padding_idx=2)", "return self.e(i)", (F32,)),
    ("embbag_max", "self.e = torch.nn.EmbeddingBag(10, 4, mode='max')", "return self.e(i)", (F32,)),
    ("embbag_offsets", "self.e = torch.nn.EmbeddingBag(10, 4, mode='sum', include_last_offset=True)", "return self.e(i.flatten(), torch.tensor([0, 3, 10, 32]), per_sample_weights=y.flatten())", (F32,)),
    ("embedding_bf16", "self.e = torch.nn.Embedding(10, 4, padding_idx=0)", "return self.e(i)", ("bfloat16",)),
    # RNNs
    ("gru_bf", "self.r = torch.nn.GRU(8, 6, 2, batch_first=True, bias=False)", "return self.r(x[None])", (F32,)),
    ("gru_bidir", "self.r = torch.nn.GRU(8, 6, bidirectional=True)", "return self.r(x[:, None])", (F32,)),
    ("lstm_bidir_h0", "self.r = torch.nn.LSTM(8, 6, 2, bidirectional=True, batch_first=True)", "h = torch.zeros(4, 1, 6)\nreturn self.r(x[None], (h, h + 0.1))", (F32,)),
    ("rnn_relu", "self.r = torch.nn.RNN(8, 6, nonlinearity='relu', batch_first=True)", "return self.r(x[None])", (F32,)),
    ("gru_cell", "self.r = torch.nn.GRUCell(8, 6)", "return self.r(x)", (F32,)),
    ("lstm_cell", "self.r = torch.nn.LSTMCell(8, 6)", "return self.r(x)", (F32,)),
    # attention
    ("sdpa_causal", "", "q = z[:, :, :8]\nreturn torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)", (F32, "bfloat16")),
    ("sdpa_boolmask", "", "q = z[:, :, :8]\nm = torch.ones(8, 16, dtype=torch.bool).tril()\nreturn torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=m[:, :8].contiguous(), scale=0.3)", (F32,)),
    ("sdpa_floatmask", "", "q = z[:, :, :8]\nreturn torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=torch.cat([x, y])[:, :8] * 0.5)", (F32, "float16")),
    ("sdpa_gqa", "", "q = z[:, :, :8]\nk = z[:, :1, 8:]\nreturn torch.nn.functional.scaled_dot_product_attention(q, k, k, enable_gqa=True)", (F32,)),
    # FFT
    ("rfft2_s_norm", "", "return torch.view_as_real(torch.fft.rfft2(z, s=(8, 12), norm='ortho'))", (F32,)),
    ("irfftn_s", "", "return torch.fft.irfftn(torch.fft.rfftn(z, dim=(-2, -1)), s=(16, 16), norm='forward')", (F32,)),
    ("fft_c2c", "", "return torch.view_as_real(torch.fft.fft(x, n=10, norm='backward')), torch.view_as_real(torch.fft.ifft2(torch.complex(x, y)))", (F32,)),
    ("fftshift_hfft", "", "return torch.fft.fftshift(x), torch.fft.hfft(torch.complex(x, y), n=14), torch.fft.rfftfreq(8)", (F32,)),
    # linalg
    ("linalg_solve", "", "a = x[:, :4] + 4 * torch.eye(4)\nreturn torch.linalg.solve(a, y[:, :3])", (F32,)),
    ("linalg_inv", "", "a = x[:, :4] + 4 * torch.eye(4)\nreturn torch.linalg.inv(a), torch.inverse(a[None].expand(2, 4, 4))", (F32,)),
    ("det_slogdet", "", "a = x[:, :4] + 4 * torch.eye(4)\nreturn torch.linalg.det(a), torch.linalg.slogdet(a)", (F32,)),
    ("cholesky", "", "a = x[:, :4] @ x[:, :4].T + 4 * torch.eye(4)\nreturn torch.linalg.cholesky(a), torch.cholesky_solve(y[:, :2], torch.linalg.cholesky(a))", (F32,)),
    ("qr", "", "return torch.linalg.qr(x.T)", (F32,)),
    ("svdvals", "", "return torch.linalg.svdvals(x)", (F32,)),
    ("svd", "", "return torch.linalg.svd(x, full_matrices=False)", (F32,)),
    ("eigvalsh", "", "a = x[:, :4] + x[:, :4].T\nreturn torch.linalg.eigvalsh(a), torch.linalg.eigh(a)[0]", (F32,)),
    ("lu_factor", "", "a = x[:, :4] + 4 * torch.eye(4)\nreturn torch.linalg.lu_factor(a)", (F32,)),
    ("pinv", "", "return torch.linalg.pinv(x)", (F32,)),
    ("matrix_norm", "", "return torch.linalg.matrix_norm(x), torch.linalg.matrix_norm(x, 'nuc'), torch.linalg.matrix_norm(x, 2), torch.linalg.matrix_norm(x, 1)", (F32,)),
    ("triangular_solve", "", "a = x[:, :4].triu() + 4 * torch.eye(4)\nreturn torch.linalg.solve_triangular(a, y[:, :3], upper=True)", (F32,)),
    ("lstsq", "", "return torch.linalg.lstsq(x.T, y.T).solution", (F32,)),
    ("cross_vecdot", "", "return torch.linalg.cross(x[:, :3], y[:, :3]), torch.linalg.vecdot(x, y)", (F32,)),
    ("logdet_trace", "", "a = x[:, :4] @ x[:, :4].T + torch.eye(4)\nreturn torch.logdet(a), torch.trace(a)", (F32,)),
    # bucketize / histc / bincount
    ("bincount_w", "", "return torch.bincount(i.flatten(), weights=y.flatten(), minlength=10)", (F32,)),
    ("histc_range", "", "return torch.histc(x, 6, -1.0, 1.0)", (F32,)),
    ("bucketize_left", "", "return torch.bucketize(x, torch.tensor([-1.0, 0.0, 0.5]))", (F32,)),
    ("searchsorted_side", "", "return torch.searchsorted(torch.sort(y, 1).values, x, side='right')", (F32,)),
    # masked ops / promotion
    ("masked_fill_bf16", "", "return x.masked_fill(b, -1e4).softmax(-1)", ("bfloat16", "float16")),
    ("where_promote", "", "return torch.where(b, i.to(torch.int8), x)", (F32,)),
    ("uint8_ops", "", "u = i.to(torch.uint8)\nreturn u * 40, u // 3, u >> 1, (u - 9), u.float() / 255", (F32,)),
    ("bool_arith", "", "return b + b, b * x, b.sum(), ~b, b ^ (x > 0)", (F32,)),
    ("int_div", "", "return torch.div(i - 4, 3, rounding_mode='floor'), torch.div(i - 4, 3, rounding_mode='trunc'), torch.remainder(i - 4, 3), torch.fmod(x, 0.7)", (F32,)),
    ("clamp_tensor", "", "return torch.clamp(x, min=y - 1, max=y + 1), x.clamp_min(0.1)", (F32, "float16")),
    ("special_fns", "", "return torch.special.i0(x), torch.special.i1e(x), torch.lgamma(x.abs() + 0.1), torch.digamma(x.abs() + 0.1), torch.special.xlogy(x.abs(), y.abs())", (F32,)),
    ("polygamma_erfinv", "", "return torch.polygamma(1, x.abs() + 0.5), torch.erfinv(x.clamp(-0.9, 0.9)), torch.special.ndtri(x.sigmoid()), torch.special.log_ndtr(x)", (F32,)),
    ("activations", "", "F = torch.nn.functional\nreturn F.mish(x), F.hardswish(x), F.celu(x), F.selu(x), F.rrelu(x, training=False), F.softplus(x, 2, 10), F.glu(x), F.logsigmoid(x), F.softmin(x, 1)", (F32,)),
    ("losses", "", "F = torch.nn.functional\nt = i[:, 0] % 8\nreturn F.cross_entropy(x, t, label_smoothing=0.1), F.nll_loss(x.log_softmax(1), t, ignore_index=2), F.binary_cross_entropy_with_logits(x, y.sigmoid(), pos_weight=torch.ones(8)), F.smooth_l1_loss(x, y, beta=0.5), F.kl_div(x.log_softmax(1), y.softmax(1), reduction='batchmean'), F.huber_loss(x, y)", (F32,)),
    ("ctc_loss", "", "lp = z[0, :, :, :5].reshape(16, 3, 5).log_softmax(2)\nt = torch.tensor([[1, 2, 3], [2, 2, 1], [4, 1, 1]])\nreturn torch.nn.functional.ctc_loss(lp, t, torch.tensor([16, 15, 14]), torch.tensor([3, 2, 3]))", (F32,)),
    ("cosine_emb_margin", "", "F = torch.nn.functional\nreturn F.margin_ranking_loss(x[:, 0], y[:, 0], torch.sign(x[:, 1])), F.triplet_margin_loss(x, y, y.flip(0)), F.multilabel_soft_margin_loss(x, (y > 0).float())", (F32,)),
    ("logit_cdist_cos", "", "return torch.logit(x.sigmoid(), eps=1e-6), torch.cdist(x[None], y[None]), torch.nn.functional.pairwise_distance(x, y)", (F32,)),
    ("complex_abs_angle", "", "c = torch.polar(x.abs(), y)\nreturn c.abs(), torch.view_as_real(c * c.conj()), torch.view_as_real(torch.sqrt(c)), torch.view_as_real(torch.log(c))", (F32,)),
    ("dropout_eval_alpha", "self.d = torch.nn.AlphaDropout(0.2).eval()", "return self.d(x), torch.nn.functional.dropout(x, 0.3, training=False)", (F32,)),
    ("block_diag_cartesian", "", "return torch.block_diag(x[:2, :2], y[:3, :1]), torch.cartesian_prod(x[0, :3], y[0, :2])", (F32,)),
    ("combinations", "", "return torch.combinations(x[0, :4], 2)", (F32,)),
    ("kron_vander", "", "return torch.kron(x[:2, :2], y[:2, :3]), torch.vander(x[0, :4], 3)", (F32,)),
    ("cov_corrcoef", "", "return torch.cov(x), torch.corrcoef(x)", (F32,)),
    ("addmv_baddbmm", "", "return torch.addmv(x[:, 0], x, y[0], beta=0.5, alpha=2), torch.baddbmm(z[0, :, :4, :4], z[0, :, :4, :6], z[0, :, :6, :4], beta=0.3), torch.addr(x, x[:, 0], y[0])", (F32, "bfloat16")),
    ("matmul_int", "", "return i @ i.T, torch.mm(i.T, i)", (F32,)),
    ("matmul_f16", "", "return x @ y.T, torch.bmm(z[0, :, :4], z[0, :, :, :4])", ("float16",)),
    ("einsum_ellipsis", "", "return torch.einsum('...ij,...jk->...ik', z[..., :4, :], z[..., :, :5]), torch.tensordot(x, y, dims=([1], [1]))", (F32,)),
    ("linear_bf16", "self.l = torch.nn.Linear(8, 16)", "return torch.nn.functional.silu(self.l(x))", ("bfloat16", "float16")),
    ("channel_shuffle", "", "return torch.nn.functional.channel_shuffle(z[:, :, :4].repeat(1, 2, 1, 1), 2), torch.native_channel_shuffle(z.repeat(1, 2, 1, 1), 3)", (F32,)),
    ("nonzero_argwhere", "", "return torch.nonzero(x > 0.5), torch.argwhere(b), torch.where(x > 0)", (F32,)),
    ("unique_counts", "", "return torch.unique(i, sorted=True, return_inverse=True, return_counts=True)", (F32,)),
    ("bitwise_shift", "", "return i << 2, i.bitwise_and(3), torch.bitwise_not(i), i.to(torch.int32) ^ 5", (F32,)),
    ("lerp_addcdiv", "", "return torch.lerp(x, y, 0.3), torch.lerp(x, y, y.sigmoid()), torch.addcdiv(x, y, y.abs() + 1, value=0.5), torch.hypot(x, y), torch.copysign(x, y), torch.nextafter(x, y)", (F32,)),
    ("round_decimals", "", "return torch.round(x, decimals=2), torch.trunc(x), torch.frac(x), torch.signbit(x), torch.heaviside(x, y)", (F32,)),
    ("isclose_allclose", "", "return torch.isclose(x, y, atol=0.5), torch.isfinite(x / y), torch.isneginf(x.log())", (F32,)),
    ("searchsorted_2d", "", "return torch.searchsorted(torch.sort(y, 1).values, x[:, :3].contiguous(), right=True)", (F32,)),
    # complex unary ops (complex-valued layers, spectral models) and FFT helpers / windows
    ("complex_log_sqrt", "", "c = torch.complex(x, y)\nreturn torch.view_as_real(torch.log(c)), torch.view_as_real(torch.sqrt(c))", (F32,)),
    ("complex_trig", "", "c = torch.complex(x, y) * 0.5\nreturn torch.view_as_real(torch.sin(c)), torch.view_as_real(torch.cos(c)), torch.view_as_real(torch.tanh(c))", (F32,)),
    ("complex_recip_sigmoid", "", "c = torch.complex(x, y) + 2\nreturn torch.view_as_real(torch.reciprocal(c)), torch.view_as_real(torch.sigmoid(c)), torch.view_as_real(torch.rsqrt(c))", (F32,)),
    ("complex_neg_square", "", "c = torch.complex(x, y)\nreturn torch.view_as_real(-c), torch.view_as_real(torch.square(c)), torch.view_as_real(torch.log1p(c * 0.1)), torch.view_as_real(torch.expm1(c * 0.1))", (F32,)),
    ("complex_pow_scalar", "", "c = torch.complex(x, y)\nreturn torch.view_as_real(c ** 0.5), torch.view_as_real(torch.pow(2.0, c))", (F32,)),
    ("complex_real_imag", "", "c = torch.complex(x, y) * torch.complex(y, x)\nreturn c.real, c.imag, torch.view_as_real(c.sum(0)), torch.view_as_real(torch.cat([c, c]))", (F32,)),
    ("fftfreq", "", "return torch.fft.fftfreq(8, d=0.5), torch.fft.rfftfreq(9, 0.1), torch.fft.ifftshift(x)", (F32,)),
    ("ihfft_hfft2", "", "return torch.view_as_real(torch.fft.ihfft(x).resolve_conj()), torch.fft.hfft2(torch.complex(x, y)), torch.view_as_real(torch.fft.fftn(z, dim=(1, 2)))", (F32,)),
    ("windows", "", "return x * torch.kaiser_window(8, periodic=False, beta=8.0), x * torch.hamming_window(8), x * torch.blackman_window(8), x * torch.bartlett_window(8)", (F32,)),
    ("stft_nocenter", "", "w = torch.hamming_window(8)\nreturn torch.stft(z.flatten()[:96].view(2, 48), 8, 2, window=w, center=False, return_complex=True).abs()", (F32,)),
    # more: special functions, float8, linalg extras, spectral and resize variants
    ("special_bessel", "", "return torch.special.bessel_j0(x), torch.special.bessel_j1(x), torch.special.spherical_bessel_j0(x), torch.special.zeta(x.abs() + 1.5, y.abs() + 0.5), torch.special.entr(x.abs()), torch.special.sinc(x)", (F32,)),
    ("special_more", "", "return torch.special.i1(x), torch.special.i0e(x), torch.special.xlog1py(x, y.abs()), torch.special.multigammaln(x.abs() + 2, 3), torch.logaddexp2(x, y), torch.special.log_softmax(x, 1, dtype=torch.float64)", (F32,)),
    ("float8_roundtrip", "", "return x.to(torch.float8_e4m3fn).float(), x.to(torch.float8_e5m2).float(), (x * 100).to(torch.float8_e4m3fn).to(torch.bfloat16).float()", (F32,)),
    ("scaled_mm_cpu", "", "a = x.to(torch.float8_e4m3fn)\nreturn torch._scaled_mm(a, y.to(torch.float8_e4m3fn).T, scale_a=torch.tensor(0.5), scale_b=torch.tensor(2.0), out_dtype=torch.float32)", (F32,)),
    ("linalg_extras", "", "a = x[:, :4] + 4 * torch.eye(4)\nreturn torch.linalg.cond(a), torch.linalg.multi_dot([x, y.T, x]), torch.linalg.norm(a, 2), torch.linalg.eigvals(a).abs(), torch.cholesky_inverse(torch.linalg.cholesky(a @ a.T))", (F32,)),
    ("linalg_ldl_geqrf", "", "a = x[:, :4] @ x[:, :4].T + torch.eye(4)\nld, piv = torch.linalg.ldl_factor(a)\nq, tau = torch.geqrf(x.T)\nreturn ld, piv, q, tau, torch.linalg.matrix_exp(a * 0.1), torch.linalg.householder_product(q, tau)", (F32,)),
    ("tensorsolve_inv", "", "a = (x[:, :4] + 4 * torch.eye(4)).reshape(2, 2, 4)\nreturn torch.linalg.tensorinv(a, 2), torch.linalg.lu_solve(*torch.linalg.lu_factor(a.reshape(4, 4)), y[:, :2])", (F32,)),
    ("stft_variants", "", "w = torch.hann_window(8)\ns = z.flatten()[:96].view(2, 48)\nreturn torch.view_as_real(torch.stft(s, 8, 2, window=w, onesided=False, normalized=True, return_complex=True)), torch.stft(s, 16, 4, window=torch.hann_window(12), win_length=12, pad_mode='constant', return_complex=True).abs()", (F32,)),
    ("istft_nocenter", "", "w = torch.hann_window(8)\ns = z.flatten()[:96].view(2, 48)\nS = torch.stft(s, 8, 2, window=w, return_complex=True)\nreturn torch.istft(S, 8, 2, window=w, normalized=False, onesided=True)", (F32,)),
    ("resize_bf16", "", "F = torch.nn.functional\nreturn F.interpolate(z, scale_factor=1.5, mode='bilinear', align_corners=False).float(), F.interpolate(z, size=(7, 9), mode='bicubic').float(), F.interpolate(z, scale_factor=0.5, mode='nearest').float()", ("bfloat16",)),
    ("grid_sample_bf16", "", "F = torch.nn.functional\ntheta = torch.tensor([[[0.9, 0.1, 0.05], [-0.1, 0.8, 0.0]]]).expand(2, 2, 3).to(z.dtype)\ng = F.affine_grid(theta, [2, 3, 7, 5], align_corners=False)\nreturn F.grid_sample(z, g, align_corners=False).float()", ("bfloat16", F32)),
    ("max_unpool2d", "", "F = torch.nn.functional\nm, i = F.max_pool2d(z, 2, return_indices=True)\nreturn F.max_unpool2d(m, i, 2), F.max_unpool1d(*F.max_pool1d(x[None], 2, return_indices=True), 2)", (F32,)),
    ("trapz_diff", "", "return torch.trapezoid(x, dim=1), torch.cumulative_trapezoid(x, dim=1), torch.diff(x, n=2, dim=1), torch.gradient(x, dim=1)[0]", (F32,)),
    ("one_hot_logspace", "", "return torch.nn.functional.one_hot(i, 8), torch.logspace(0, 2, 5) * x[:, :5], torch.linspace(-1, 1, 8) * x", (F32,)),
    ("std_mean_count", "", "return torch.std_mean(x, 1, correction=0), torch.count_nonzero(x > 0, (0, 1)), torch.nan_to_num(x.log(), nan=0.0)", ("bfloat16", F32)),
    ("sdpa_cross_causal", "", "q = z[:, :, :4]\nk = z[:, :, :8]\nreturn torch.nn.functional.scaled_dot_product_attention(q, k, k, is_causal=True), torch.nn.functional.scaled_dot_product_attention(q, k, k, attn_mask=x[:, :8] > 0)", (F32, "bfloat16")),
    ("pad_negative", "", "F = torch.nn.functional\nreturn F.pad(x, (-1, 2, 1, -2), value=3.0), F.pad(z, (1, 1, 2, 0), mode='replicate'), F.pad(x[None], (3, 3), mode='reflect'), F.pad(z[:, :, None].expand(-1, -1, 3, -1, -1), (1, 1, 1, 1, 1, 1), mode='circular')", (F32,)),
    ("bucketize_bf16", "", "return torch.bucketize(x, torch.tensor([-1.0, 0.0, 0.5], dtype=x.dtype)), torch.searchsorted(torch.tensor([-1.0, 0.0, 0.5], dtype=x.dtype), x, side='left', sorter=torch.tensor([0, 1, 2]))", ("bfloat16", "float16")),
    ("sort_bool_int8", "", "return torch.sort(b.to(torch.uint8), 1, descending=True), torch.topk(i.to(torch.int8), 2), torch.argsort(i.to(torch.int16), dim=0, stable=True)", (F32,)),
    ("index_reduce_amax", "", "return x.index_reduce(0, torch.tensor([0, 2, 2, 1]), y, 'amax', include_self=False), x.index_reduce(1, torch.tensor([0, 1, 1, 0, 3, 3, 2, 2]), y, 'mean')", (F32,)),
    ("embbag_maxnorm", "self.e = torch.nn.EmbeddingBag(10, 4, mode='sum', max_norm=1.0)", "return self.e(i)", (F32,)),
    ("cdist_mm", "", "return torch.cdist(x[None], y[None], compute_mode='use_mm_for_euclid_dist'), torch.cdist(z[0], z[1], p=1.0)", (F32,)),
    ("polar_view_complex", "", "c = torch.view_as_complex(z[..., :2].contiguous())\nreturn torch.view_as_real(c * torch.polar(torch.ones_like(c.real), c.real)), c.abs(), torch.angle(c)", (F32,)),
    ("tensor_split", "", "return torch.tensor_split(x, torch.tensor([1, 3]), 0), torch.chunk(x, 3, 1)", (F32,)),
    # probe 5: distributions' samplers, losses, norms and activations of diffusion / vision models
    ("standard_gamma", "", "return torch._standard_gamma(x.abs() + 0.5)", (F32,)),
    ("binomial", "", "return torch.binomial(torch.full_like(x, 10.0), torch.sigmoid(y))", (F32,)),
    ("dirichlet", "", "return torch._sample_dirichlet(x.abs() + 0.5)", (F32,)),
    ("distributions", "", "d = torch.distributions\nreturn d.Gamma(x.abs() + 1, 1.0, validate_args=False).rsample(), d.Beta(x.abs() + 1, y.abs() + 1, validate_args=False).rsample(), d.Chi2(x.abs() + 1, validate_args=False).sample(), d.Binomial(10, probs=torch.sigmoid(y), validate_args=False).sample()", (F32,)),
    ("ldexp_frexp", "", "m, e = torch.frexp(x)\nreturn torch.ldexp(m, e), torch.special.log_ndtr(x), torch.mvlgamma(x.abs() + 2, 2)", (F32,)),
    ("nll_loss2d", "", "F = torch.nn.functional\nt = i[:2, :4, None].expand(2, 4, 16).contiguous() % 3\nreturn F.nll_loss(F.log_softmax(z[:, :, :4], 1), t), F.cross_entropy(z[:, :, :4], t, reduction='none', ignore_index=1)", (F32,)),
    ("margin_losses", "", "F = torch.nn.functional\nt = i[:, :1].squeeze(1)\nreturn F.multi_margin_loss(x, t), F.multilabel_margin_loss(x, torch.where(i > 5, -1, i)), F.multilabel_soft_margin_loss(x, b.float()), F.hinge_embedding_loss(x, torch.where(b, 1.0, -1.0))", (F32,)),
    ("more_losses", "", "F = torch.nn.functional\nreturn F.soft_margin_loss(x, torch.where(b, 1.0, -1.0)), F.poisson_nll_loss(x, y.abs()), F.triplet_margin_loss(x, y, x.flip(0)), F.cosine_embedding_loss(x, y, torch.tensor([1.0, -1.0, 1.0, -1.0]))", (F32,)),
    ("group_instance_norm", "self.g = torch.nn.GroupNorm(1, 3)\nself.n = torch.nn.InstanceNorm2d(3, affine=True)", "return self.g(z), self.n(z), torch.nn.functional.group_norm(z, 3), torch.nn.functional.instance_norm(z, use_input_stats=True)", (F32, "bfloat16")),
    ("activations", "self.p = torch.nn.PReLU(3)", "F = torch.nn.functional\nreturn self.p(z), F.softshrink(x, 0.3), F.threshold(x, 0.1, 20.0), F.rrelu(x, training=False), F.celu(x), F.glu(x), F.hardtanh(x, -0.5, 0.5), F.tanhshrink(x), F.softsign(x), F.logsigmoid(x)", (F32, "bfloat16")),
    ("resize_aa_3d", "", "F = torch.nn.functional\nv = z[:, :, None].expand(-1, -1, 4, -1, -1).contiguous()\nreturn F.interpolate(z, size=(7, 5), mode='bilinear', antialias=True), F.interpolate(z, size=(9, 6), mode='bicubic', antialias=True), F.interpolate(v, scale_factor=(0.5, 1.5, 1.5), mode='trilinear'), F.interpolate(v, size=(3, 5, 7), mode='nearest-exact')", (F32,)),
    ("pools_fractional", "", "F = torch.nn.functional\nreturn F.fractional_max_pool2d(z, 2, output_size=(5, 5), _random_samples=torch.full((2, 3, 2), 0.5)), F.lp_pool2d(z, 2, 2), F.adaptive_max_pool1d(x[None], 3), F.avg_pool2d(z, 3, 2, 1, ceil_mode=True, count_include_pad=False, divisor_override=4)", (F32,)),
    ("pixel_unshuffle_channel", "", "return torch.nn.functional.pixel_unshuffle(z, 2), torch.nn.functional.channel_shuffle(z.repeat(1, 2, 1, 1), 2), torch.nn.functional.local_response_norm(z, 2)", (F32,)),
    ("conv_transpose_groups", "self.c = torch.nn.ConvTranspose2d(3, 6, 3, stride=2, padding=1, output_padding=1, groups=3, dilation=1)\nself.d = torch.nn.Conv2d(3, 3, 3, groups=3, padding='same', dilation=2, padding_mode='reflect')", "return self.c(z), self.d(z)", (F32, "bfloat16")),
    ("put_take", "", "return torch.take(x, i), x.flatten().put(torch.tensor([0, 5, 7]), torch.tensor([1.0, 2.0, 3.0]), accumulate=True), x.index_fill(1, torch.tensor([0, 2]), -1.0), x.masked_scatter(b, y)", (F32,)),
    ("nanmedian_quantile", "", "v = x.masked_fill(x > 1, float('nan'))\nreturn torch.nanmedian(v, 1), torch.nanquantile(v, 0.3, dim=1), torch.quantile(x, torch.tensor([0.1, 0.9]), dim=0, interpolation='midpoint'), torch.msort(x)", (F32,)),
    ("histogramdd_bincount", "", "return torch.bincount(i.flatten(), weights=x.flatten(), minlength=10), torch.histc(x, 5, -2, 2), torch.unique(i, sorted=True, return_inverse=True, return_counts=True, dim=1)", (F32,)),
    ("cross_kron", "", "return torch.linalg.cross(x[:, :3], y[:, :3]), torch.kron(x[:2, :2], y[:2, :3]), torch.block_diag(x[:2, :2], y[:1]), torch.cartesian_prod(torch.arange(3.0), torch.arange(2.0)), torch.vander(x[0, :4], 3)", (F32,)),
    ("rnn_relu_proj", "self.r = torch.nn.RNN(8, 5, num_layers=2, nonlinearity='relu', batch_first=True)\nself.l = torch.nn.LSTM(8, 6, proj_size=3, batch_first=True)", "o, h = self.r(x[None])\np, (hh, cc) = self.l(x[None])\nreturn o, h, p, hh, cc", (F32,)),
    ("transformer_decoder", "self.t = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True)", "return self.t(x[None], y[None], tgt_is_causal=False)", (F32,)),
    ("mha_need_weights", "self.m = torch.nn.MultiheadAttention(8, 2, batch_first=True, kdim=8, vdim=8)", "o, w = self.m(x[None], y[None], y[None], need_weights=True, average_attn_weights=False, key_padding_mask=b[:1, :4])\nreturn o, w", (F32,)),
    # probe 6: the shims' dtype corners (GEMMs, convolutions, attention in float64, half, int, complex)
    ("gemm_float64", "", "d = x.double()\nreturn d @ y.double().T, torch.addmm(d[:, :4], d, y.double().T), torch.baddbmm(d[None, :, :4], d[None], y.double().T[None]), torch.addmv(d[:, 0], d, y[0].double()), torch.addr(d, d[:, 0], y[0].double())", (F32,)),
    ("gemm_int", "", "return i @ i.T, torch.bmm(i[None], i.T[None]), torch.mv(i, i[0]), torch._int_mm(i.to(torch.int8).repeat(5, 4)[:17], i.to(torch.int8).T.repeat(4, 1).contiguous()[:32, :8])", (F32,)),
    ("gemm_complex", "", "c = torch.complex(x, y)\nreturn torch.view_as_real(c @ c.T), torch.view_as_real(torch.bmm(c[None], c.T[None].conj())), torch.view_as_real(torch.addmm(c[:, :4], c, c.T))", (F32,)),
    ("gemm_half", "", "return x @ y.T, torch.baddbmm(x[None, :, :4], x[None], y.T[None], beta=0.5, alpha=2.0), torch.nn.functional.linear(x, y, y[:, 0])", ("float16", "bfloat16")),
    ("conv_float64", "self.c = torch.nn.Conv2d(3, 4, 3, padding=1)\nself.t = torch.nn.ConvTranspose1d(3, 2, 4, stride=2)", "return self.c(z), self.t(z[:, :, 0])", ("float64",)),
    ("conv_half_3d", "self.c = torch.nn.Conv3d(3, 4, 3, padding=1, groups=1)\nself.d = torch.nn.Conv1d(3, 6, 5, groups=3, padding=2)", "return self.c(z[:, :, None].repeat(1, 1, 3, 1, 1)), self.d(z[:, :, 0])", ("float16", "bfloat16")),
    ("sdpa_float64", "", "q = z[:, :, :4].double()\nk = z[:, :, 4:12].double()\nreturn torch.nn.functional.scaled_dot_product_attention(q, k, k, scale=0.3), torch.nn.functional.scaled_dot_product_attention(q, k, k, attn_mask=torch.randn(4, 8, dtype=torch.float64))", (F32,)),
    ("sdpa_gqa_half", "", "q = z[:, :, :4].repeat(1, 2, 1, 1)\nk = z[:, :, 4:12]\nreturn torch.nn.functional.scaled_dot_product_attention(q, k, k, enable_gqa=True, is_causal=False), torch.nn.functional.scaled_dot_product_attention(q[:, :3], k, k, attn_mask=(x[:, :8] > 0).view(4, 8), scale=0.25)", ("float16", "bfloat16", F32)),
    ("matmul_batched_broadcast", "", "return torch.matmul(z, z.transpose(-1, -2)[:1]), torch.einsum('bchw,bcwk->bchk', z, z), torch.matmul(x[None, None], y.T)", (F32, "bfloat16")),
    ("embedding_padding", "self.e = torch.nn.Embedding(10, 4, padding_idx=0)\nself.b = torch.nn.EmbeddingBag(10, 4, mode='max', padding_idx=1)", "return self.e(i), self.b(i), torch.nn.functional.embedding(i % 4, y, scale_grad_by_freq=True)", (F32, "bfloat16")),
    ("roll_rot_flip", "", "return torch.roll(x, (1, -2), (0, 1)), torch.rot90(z, 1, (2, 3)), torch.flip(z, (1, 3)), torch.fliplr(x), torch.tril(x, -1), torch.triu(x, 2)", (F32, "bfloat16")),
    ("norms_inf", "", "return torch.linalg.vector_norm(x, float('inf'), 1), torch.linalg.vector_norm(x, 0.5), torch.cdist(x, y, p=float('inf')), torch.linalg.matrix_norm(x[:, :4], 'nuc'), torch.logit(torch.sigmoid(x), 1e-6), torch.special.erfinv(torch.tanh(x))", (F32,)),
    ("argmax_half", "", "return x.argmax(1), x.argmin(0), x.max(1), x.min(0, keepdim=True), torch.topk(x, 3, largest=False), torch.sort(x, dim=1, stable=True)", ("float16", "bfloat16")),
    ("scatter_half", "", "return x.scatter_add(1, i % 8, y), x.scatter_reduce(1, i % 8, y, 'amax', include_self=False), x.index_add(0, torch.tensor([1, 0, 3, 2]), y), torch.gather(x, 1, i % 8)", ("float16", "bfloat16")),
    ("cumsum_half", "", "return x.cumsum(1), x.cumprod(0), torch.logcumsumexp(x, 0), torch.cummax(x, 1)", ("float16",)),
    ("interp_half", "", "F = torch.nn.functional\nreturn F.interpolate(z, scale_factor=2, mode='nearest'), F.interpolate(z, size=(5, 7), mode='bilinear', align_corners=True), F.upsample(z, scale_factor=0.5, mode='bicubic'), F.adaptive_avg_pool2d(z, (3, 5)), F.adaptive_max_pool2d(z, 3)", ("float16",)),
    ("rnn_half", "self.l = torch.nn.LSTM(8, 6, batch_first=True, bidirectional=True)\nself.g = torch.nn.GRU(8, 5, num_layers=2)", "o, _ = self.l(x[None])\np, _ = self.g(x[:, None])\nreturn o, p", ("bfloat16", "float16")),
]


CHILD_MODULE = '''
class Case(torch.nn.Module):
    def __init__(self):
        super().__init__()
{init}

    def forward(self, x, y, z, i, b):
{body}
'''


def _flat_class():
    import torch

    class Flat(torch.nn.Module):
        """The case's outputs as a flat tuple (named tuples such as torch.return_types.topk do not serialize)."""

        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, *args):
            return tuple(torch.utils._pytree.tree_leaves(self.m(*args)))

    return Flat


def build(init: str, body: str):
    import torch

    def ind(s: str) -> str:
        return "\n".join("        " + line for line in s.splitlines()) if s else "        pass"

    ns: dict = {"torch": torch}
    Flat = _flat_class()
    exec(CHILD_MODULE.format(init=ind(init), body=ind(body)), ns)
    return Flat(ns["Case"]())


def inputs(dtype: str, device: str = "cpu"):
    import torch

    # Drawn on the host (the same values on every device), whatever the default device is: lower()
    # makes the case's device the default, and a host generator refuses to fill a CUDA tensor.
    g = torch.Generator().manual_seed(0)
    dt = getattr(torch, dtype)
    host = {"generator": g, "device": "cpu"}
    made = (torch.randn(4, 8, **host).to(dt), torch.randn(4, 8, **host).to(dt),
            torch.randn(2, 3, 16, 16, **host).to(dt), torch.randint(0, 8, (4, 8), **host),
            torch.randn(4, 8, **host) > 0)
    return tuple(t.to(device) for t in made)


def lower(init: str, body: str, dtype: str, device: str = "cpu") -> dict:
    """Export and lower one case; its shim calls and proxy targets, or the stage it failed at. The
    device is the default one for the case's factory calls too (torch.tensor, arange inside a body):
    the cases were written for the CPU, and on CUDA 29 of them failed in eager on host tensors."""
    import torch

    with torch.device(device):
        return _lower(init, body, dtype, device)


def _lower(init: str, body: str, dtype: str, device: str) -> dict:
    import torch

    try:
        m = build(init, body).eval().to(device)
        if dtype != F32:
            m = m.to(getattr(torch, dtype))
        args = inputs(dtype, device)
        with torch.no_grad():
            m(*args)
    except Exception as e:
        return {"stage": "eager", "error": f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"}
    try:
        with torch.no_grad():
            ep = torch.export.export(m, args, strict=False)
    except Exception as e:
        return {"stage": "export", "error": f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"}
    with tempfile.TemporaryDirectory(prefix="opprobe-") as tmp:
        try:
            path = torch._inductor.aoti_compile_and_package(
                ep, package_path=str(Path(tmp) / "m.pt2"),
                inductor_configs={"aot_inductor.package_cpp_only": True})
        except Exception as e:
            msg = str(e).strip().splitlines()
            return {"stage": "lower", "error": f"{type(e).__name__}: {(msg[0] if msg else '')[:160]}"}
        from family_sweep import package_calls

        shims, proxy = package_calls(path)
    return {"stage": "lowered", "shims": shims, "proxy": proxy}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="only cases whose name contains one of these")
    parser.add_argument("--json", type=Path, help="write every row here")
    parser.add_argument("--dtype", choices=("float32", "bfloat16", "float16"),
                        help="every case in this dtype only (default: each case's own list)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="lower for this device")
    parser.add_argument("--jobs", type=int, default=1, help="lower in this many child processes")
    parser.add_argument("--shard", help=argparse.SUPPRESS)  # "i/n": a child's share of the cases
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    if args.jobs > 1:
        return _sharded(args)

    from family_sweep import judge, proxy_targets

    from shimgen.aoti.coverage import served_by_runtime

    served, proxied = served_by_runtime(), proxy_targets()
    rows = {}
    shard, shards = map(int, args.shard.split("/")) if args.shard else (0, 1)
    for index, (name, init, body, dtypes) in enumerate(CASES):
        if (args.names and not any(n in name for n in args.names)) or index % shards != shard:
            continue
        for dtype in (args.dtype,) if args.dtype else dtypes:
            key = f"{name}[{dtype}]"
            row = judge(lower(init, body, dtype, args.device), served, proxied)
            if row["stage"] == "lowered":
                row["fallbacks"] = [s for s in row["shims"] if not BOOKKEEPING.match(s)] + row["proxy"]
            if not args.shard:  # a shard's rows are printed by the parent
                _print_row(key, row)
            rows[key] = row
    return _report(rows, args.json, quiet=bool(args.shard))


def _print_row(key: str, row: dict) -> None:
    if row["stage"] == "lowered":
        state = "served" if not row["missing"] else "MISSING " + " ".join(row["missing"])
        print(f"{key:34s} {state:40s} {' '.join(c.removeprefix('aoti_torch_') for c in row['fallbacks'])}", flush=True)
    else:
        print(f"{key:34s} {row['stage']}: {row['error']}", flush=True)


def _report(rows: dict, json_path: Path | None, quiet: bool = False) -> int:
    """The summary line (unless quiet) and the rows as JSON where asked."""
    if not quiet:
        lowered = [r for r in rows.values() if r["stage"] == "lowered"]
        ok = [r for r in lowered if not r["missing"]]
        shimmed = [r for r in ok if r["fallbacks"]]
        missing = sorted({m for r in lowered for m in r["missing"]})
        print(f"\n{len(rows)} cases: {len(lowered)} lowered, {len(ok)} served ({len(shimmed)} reach a runtime shim or "
              f"proxy target), {len(lowered) - len(ok)} unserved; missing names: {' '.join(missing) or 'none'}")
    if json_path:
        json_path.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


def _sharded(args) -> int:
    """The probe in args.jobs children (each a shard of the cases, its rows in a JSON file), their
    rows printed and summarized in case order as one run prints them."""
    import subprocess

    with tempfile.TemporaryDirectory(prefix="opprobe-shards-") as tmp:
        children = []
        for shard in range(args.jobs):
            command = [sys.executable, __file__, "--device", args.device, "--shard", f"{shard}/{args.jobs}",
                       "--json", str(Path(tmp) / f"{shard}.json"), *(["--dtype", args.dtype] if args.dtype else []),
                       *args.names]
            children.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))
        rows: dict = {}
        for shard, child in enumerate(children):
            child.wait()
            path = Path(tmp) / f"{shard}.json"
            if path.exists():
                rows.update(json.loads(path.read_text(encoding="utf-8")))
    order = {name: index for index, (name, *_rest) in enumerate(CASES)}
    for key in sorted(rows, key=lambda k: (order.get(k.split("[")[0], 0), k)):
        _print_row(key, rows[key])
    return _report(rows, args.json)


if __name__ == "__main__":
    sys.exit(main())
