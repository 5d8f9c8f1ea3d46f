"""paddle.nn.MultiHeadAttention and TransformerEncoderLayer, composed of the nn layers (so they
build static programs and run eagerly alike), with Paddle's sub-layer names (q_proj, ...,
linear1, norm1, ...) and hence Paddle's state-dict keys."""
from __future__ import annotations

from ...errors import FluidcError
from . import functional as F
from . import matmul, reshape, scale, transpose
from .layer import Dropout, Layer, LayerNorm, Linear

_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


class MultiHeadAttention(Layer):
    """softmax(q k^T / sqrt(head_dim) + mask) v over num_heads heads, projected back."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0 or embed_dim % num_heads:
            raise ValueError(f"embed_dim ({embed_dim}) must be a positive multiple of "
                             f"num_heads ({num_heads})")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout, self.need_weights = dropout, need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)
        self.k_proj = Linear(kdim or embed_dim, embed_dim, weight_attr, bias_attr)
        self.v_proj = Linear(vdim or embed_dim, embed_dim, weight_attr, bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)

    def _heads(self, x):
        """[N, L, E] -> [N, heads, L, head_dim]."""
        return transpose(reshape(x, [0, 0, self.num_heads, self.head_dim]), [0, 2, 1, 3])

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        if cache is not None:
            raise FluidcError("MultiHeadAttention: incremental decoding caches are not "
                              "supported")
        key = query if key is None else key
        value = query if value is None else value
        q = self._heads(self.q_proj(query))
        k, v = self._heads(self.k_proj(key)), self._heads(self.v_proj(value))
        scores = matmul(scale(q, self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = F.softmax(scores, axis=-1)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training,
                                mode="upscale_in_train")
        out = transpose(matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(reshape(out, [0, 0, self.embed_dim]))
        return (out, weights) if self.need_weights else out


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward block, each with a residual and a LayerNorm (after
    each block, or before it with normalize_before)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, layer_norm_eps=1e-5) -> None:
        super().__init__()
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(_ACTIVATIONS)}, got "
                             f"{activation!r}")
        self.normalize_before = normalize_before
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout if attn_dropout is None
                                            else attn_dropout, weight_attr=weight_attr,
                                            bias_attr=bias_attr)
        self.linear1 = Linear(d_model, dim_feedforward, weight_attr, bias_attr)
        self.dropout = Dropout(dropout if act_dropout is None else act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, weight_attr, bias_attr)
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        self._act = _ACTIVATIONS[activation]

    def _block(self, x, norm, body, drop):
        y = norm(x) if self.normalize_before else x
        y = x + drop(body(y))
        return y if self.normalize_before else norm(y)

    def forward(self, src, src_mask=None, cache=None):
        if cache is not None:
            raise FluidcError("TransformerEncoderLayer: caches are not supported")
        x = self._block(src, self.norm1, lambda y: self.self_attn(y, y, y, src_mask),
                        self.dropout1)
        return self._block(x, self.norm2,
                           lambda y: self.linear2(self.dropout(self._act(self.linear1(y)))),
                           self.dropout2)
