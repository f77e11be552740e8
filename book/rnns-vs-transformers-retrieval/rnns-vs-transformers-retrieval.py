# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: -execution,-ExecuteTime,-collapsed,-scrolled
#     default_lexer: ipython3
#     formats: ipynb,md:myst,py:percent
#     notebook_metadata_filter: -jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # RNNs are not Transformers (yet): the in-context retrieval bottleneck
#
# ```{admonition} About this chapter
# :class: tip
# {cite:t}`wen2025rnns` ask whether recurrent networks, which read a sequence into a state of fixed
# size, can match Transformers once both may think step by step (chain of thought, CoT). Their
# answer: no, because an RNN cannot *retrieve* exactly from its context; tasks such as associative
# recall and deciding whether a graph is a tree need that retrieval, and adding it (by a search over
# the context, or by one attention layer) closes the gap. The default run trains small recurrent,
# attention and hybrid models on associative recall, sweeps the recurrent state, and runs two exact
# IsTree algorithms, a streaming checker with a fixed memory and a depth-first search that retrieves
# from its context, on over a thousand random graphs (under a minute of one CPU core). The `paper` preset
# adds the learned IsTree study with its three task modes (no CoT, CoT, retrieval CoT).
# ```
#
# ## The question
#
# A Transformer keeps every token it has read and can look any of them up again; its memory grows
# with the context. An RNN (an LSTM, a GRU, or a modern state-space model such as Mamba {cite:p}`gu2023mamba`) compresses
# the context into a state of fixed size, which is why it is cheap at inference. Chain of thought
# lets a model write intermediate results and read them back, and it is known to make Transformers
# far more expressive. Does it do the same for RNNs, and close the gap?
#
# The paper's answer has three parts. CoT does make RNNs stronger, but not strong enough: for tasks
# that require looking up one item of the context, exactly, among many (*in-context retrieval*), a
# state that is small compared with the context cannot hold what the lookup may need, and writing
# more tokens does not help, because the RNN reads its own CoT through the same small state. Second,
# the bottleneck is precisely retrieval: give the RNN a retrieval tool (a search over the context,
# as in retrieval-augmented generation, RAG) or a single attention layer, and RNN + CoT can carry
# out any polynomial-time algorithm, as a Transformer with CoT can. We test both halves at a scale
# that runs on a laptop.
#
# ## The setting and the theorem
#
# ```{prf:definition} RNN with an $s$-bit state
# :label: rvt-def-rnn
#
# An *RNN* reads tokens $x_1,x_2,\dots$ one at a time and keeps a state $h_t = f(h_{t-1}, x_t)$
# taken from a set of at most $2^s$ values (an $s$-bit state: $p$-bit floats, $s/p$ of them). Its
# output after token $t$ is a function $g(h_t)$. With *chain of thought* it may append its own
# outputs to the input and read them back, still through $f$. A *Transformer* layer instead
# computes, at position $t$, an attention-weighted average over all earlier positions.
# ```
#
# ```{prf:definition} Associative recall and IsTree
# :label: rvt-def-tasks
#
# *Associative recall* (AR) with $M$ pairs: the input lists $M$ distinct keys $k_1,\dots,k_M$ from a
# vocabulary of $K$ keys, each followed by its value $v_i$ from $V$ values, then one query key $k_q$;
# the answer is $v_q$. *IsTree*: the input lists the $n-1$ edges of a graph on $n$ nodes in random
# order; the answer is whether the graph is a tree. Our hard instances are those of the authors'
# code: two roots, every other node hung off one of them at random, and one extra edge between two
# non-root nodes. The graph is a tree exactly when the extra edge joins the two stars, which happens
# half the time.
# ```
#
# The lower bound for recall is a counting argument. After the $M$ pairs the RNN does not yet know
# which key will be asked, so its state must keep enough to answer any of them. With values
# independent and uniform, Fano's inequality for each query and the chain rule over the $M$
# independent values turn this into a bound on the accuracy.
#
# ```{prf:theorem} An $s$-bit state caps recall accuracy
# :label: rvt-thm-recall
#
# For any RNN with an $s$-bit state, on AR with $M$ uniform independent values and a uniformly
# random query,
#
# $$
# \Pr[\text{correct}] \;\le\; \frac{1}{\log_2 V} + \frac{s}{M\log_2 V}.
# $$ (eq-rvt-fano)
#
# So an RNN that answers correctly needs $s \gtrsim M\log_2 V$ bits: its state must grow linearly
# with the context, while one attention layer with $O(\log M)$-bit numbers solves AR at every $M$.
# ```
#
# ```{prf:proof}
# Let $S$ be the state after the pairs, $P_i$ the error probability when key $i$ is asked. The
# answer is a function of $S$ and the query, so Fano's inequality gives $H(v_i\mid S) \le 1 +
# P_i\log_2 V$. The $v_i$ are independent, so $\sum_i I(v_i;S) \le I(v_1,\dots,v_M;S) \le H(S) \le
# s$, and $\sum_i H(v_i\mid S) = M\log_2V - \sum_i I(v_i;S) \ge M\log_2 V - s$. Together, $M\log_2
# V - s \le M + \log_2 V\sum_i P_i$; divide by $M\log_2 V$ and average over the query. For the
# Transformer: let the query attend with a large inverse temperature to the position whose key
# matches its own and copy that position's value; $O(\log M)$ bits of precision keep the softmax
# weight on the match.
# ```
#
# Counting bits is the worst case. The recurrent models we train are *linear recurrent memories*,
# the family of linear attention {cite:p}`katharopoulos2020transformers` and of selective
# state-space models such as Mamba:
# $S_t = S_{t-1} + k_t v_t^\top$ with $k_t=W_k x_t\in\mathbb{R}^{d_k}$, $v_t = W_v x_t$, and the
# query reads $S_M^\top q$. Their state is $d_k\times d_v$ numbers, and what limits them well before
# the bit count is geometry:
#
# $$
# S_M^\top q \;=\; (q^\top k_q)\,v_q \;+\; \sum_{i\ne q} (q^\top k_i)\, v_i .
# $$ (eq-rvt-crosstalk)
#
# ```{prf:proposition} Crosstalk grows once $M$ exceeds $d_k$
# :label: rvt-prop-welch
#
# For any $M$ unit vectors $k_1,\dots,k_M\in\mathbb{R}^{d_k}$, $\sum_{i\ne j}(k_i^\top k_j)^2 \ge
# M^2/d_k - M$ (the Welch bound {cite:p}`welch1974lower`). So when the query equals one of the keys, the average squared
# crosstalk weight in {eq}`eq-rvt-crosstalk` is at least $M/d_k - 1$: below $M=d_k$ the keys can
# be orthogonal and recall exact, above it the interfering values pile up linearly in $M/d_k$, and
# recall fails at an $M$ proportional to $d_k$.
# ```
#
# ```{prf:proof}
# The Gram matrix $G=[k_i^\top k_j]$ has trace $M$ and rank at most $d_k$, so by Cauchy–Schwarz on its
# nonzero eigenvalues $\lVert G\rVert_F^2 \ge M^2/d_k$; subtract the $M$ diagonal ones.
# ```
#
# For IsTree the same obstacle appears in a communication form. Split the input in two: the $n-2$
# edges that hang the non-root nodes on the two roots, then the extra edge. Whoever reads the first
# part must pass on one bit per node (which root it hangs on), because the extra edge may join any
# two of them and the answer is whether their bits differ. A one-pass reader with a state of $s\ll
# n$ bits is a one-way protocol with $s$ bits of communication for this *index*-like problem, and
# errs with constant probability. CoT does not rescue the RNN: to re-read a node's bit it would have
# to have kept it.
#
# ```{prf:theorem} RNN + CoT fails IsTree; retrieval closes the gap (informal)
# :label: rvt-thm-istree
#
# An RNN with $o(n)$ bits of state, with or without CoT, cannot decide IsTree on $n$-node graphs
# with high probability. An RNN with CoT and an exact in-context retrieval step (a regular
# expression search over its context, i.e. RAG, or one appended Transformer layer) decides it with
# $O(\log n)$ bits of state and $O(n)$ CoT steps, by the depth-first search with retrieval of
# {prf:ref}`rvt-alg-dfs`. More generally, RNN + CoT + retrieval can simulate any polynomial-time
# algorithm, as Transformer + CoT can.
# ```
#
# ```{prf:proof}
# *Sketch.* Lower bound: as above, by a reduction from the one-way index problem, whose
# communication complexity is $\Omega(n)$; with CoT the RNN's state after the input is still the only
# message from the input to everything it writes later. Upper bound: every step of
# {prf:ref}`rvt-alg-dfs` needs only the current node, an edge index and a counter ($O(\log n)$ bits),
# plus two kinds of exact look-up (the next edge at a node after a given position, and the parent
# recorded for a node in the CoT), which the retrieval tool, or a hard-attention layer, provides.
# ```
#
# ```{note}
# **Where this chapter departs from the paper.** (i) Our recurrent model for recall is a *linear
# recurrent memory* (the linear-attention form of {eq}`eq-rvt-crosstalk`, the family Mamba belongs
# to); the authors use Mamba, which needs CUDA kernels. (ii) In the recall tests of the recurrent
# memories and the attention model each key–value pair is one token (the two embeddings side by
# side); the test of the hybrid writes the key and the value as two tokens, as the authors do. The
# embeddings are random and frozen; the authors' models also use frozen (sinusoidal) embeddings.
# Our hybrid's recurrent layer is the smallest one that does the job, a lag-1 shift; the authors'
# is a stack of Mamba blocks. (iii) Associative recall is our
# default learned task (the abstract names it; the authors' code trains only IsTree; the setting
# follows the recall benchmarks of {cite:t}`arora2024zoology`); models are
# tiny, with unmatched parameter budgets, and train for a few hundred Adam steps on a mixture of all
# $M$; we score the greedy answer, the authors teacher-forced exact match. (iv) The
# IsTree comparison of the default run is algorithmic: exact procedures with a stated memory, not
# trained networks; the learned IsTree study (GRU for Mamba, small Transformers for LLaMA, the three
# task modes) runs only in the `paper` preset, at a fraction of the authors' training budget. (v)
# We do not run the HotPotQA experiment (pretrained checkpoints, not available offline).
# ```
#
# ## The algorithm

# %% tags=["parameters"]
seed = 0
device = "cpu"
control = "none"  # or a deliberately wrong variant named in controls.yaml
# associative recall: vocabularies, frozen embedding width, numbers of pairs M
n_keys = 128
n_values = 64
embed_dim = 32
pairs = [1, 2, 4, 8, 16, 32, 64, 128]
# linear recurrent memory: key widths d_k swept (state d_k x embed_dim numbers)
rnn_key_dims = [2, 4, 8, 16]
rnn_replicates = 2  # independent memories per d_k (trained, and random-keys reference)
rnn_max_steps = 6000  # cap on the Adam steps of the linear memories
plateau_window = 200  # steps per window of the plateau rule (the text above)
plateau_tol = 0.01  # a window improves if some loss falls this fraction below its best
rnn_batch = 64
# d_k of the linear memory claim 2 compares the hybrid with; 0: claim 1's rule, the
# widest swept d_k whose keys are crowded at the largest M (M >= 8 d_k)
hybrid_key_dim = 0
attn_layers = 2  # layers of the attention-only model
train_steps = 300  # Adam steps of the other models, cycling through M
batch_size = 32
lr = 0.01
eval_samples = 1000  # fresh test sequences per M
fail_accuracy = 0.75  # a model "fails" at M once its accuracy drops below this
# IsTree: graph sizes, graphs per size, memory (bits) of the one-pass checker
tree_nodes = [8, 16, 32, 64, 128, 256]
tree_graphs = 250
checker_bits = 64
# learned IsTree (paper preset): graph size, 0 skips the study
learn_nodes = 0
learn_modes = ["no_cot", "cot", "retrieval"]
learn_models = ["gru", "attention", "hybrid"]
learn_retrieval_models = ["gru"]  # the models also trained in the retrieval mode
learn_width = 64
learn_steps = 3000  # cap on the AdamW steps; each model stops at its plateau
learn_batch = 32
learn_lr = 0.001
learn_eval = 200  # test graphs per model and mode, answered by greedy generation
progress = False  # a progress bar over long loops (on in paper.yaml)

# %% tags=["hide-input"]
try:
    import lib
except ModuleNotFoundError:
    raise SystemExit(
        "This chapter needs the book's `lib` package. Run it from a clone of the "
        "book's repository after `make install` (see its README), or "
        "`pip install -r requirements.txt` and `pip install -e .` in that clone."
    ) from None
import math
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

lib.check_int("n_keys", n_keys, low=2, high=4096)
lib.check_int("n_values", n_values, low=2, high=4096)
lib.check_int("embed_dim", embed_dim, low=2, high=1024)
lib.check_int_list("pairs", pairs, low=1, high=n_keys, increasing=True, min_len=3)
lib.check_int_list(
    "rnn_key_dims", rnn_key_dims, low=1, high=1024, increasing=True, min_len=2
)
lib.check_int("rnn_replicates", rnn_replicates, low=2, high=64)
lib.check_int("attn_layers", attn_layers, low=1, high=12)
lib.check_int("train_steps", train_steps, low=1)
lib.check_int("rnn_max_steps", rnn_max_steps, low=1)
lib.check_int("plateau_window", plateau_window, low=1)
lib.check_float("plateau_tol", plateau_tol, low=0, high=1)
lib.check_int("rnn_batch", rnn_batch, low=1, high=65536)
lib.check_int("hybrid_key_dim", hybrid_key_dim, low=0, high=1024)
lib.check_int("batch_size", batch_size, low=1, high=65536)
lib.check_float("lr", lr, low=0, low_open=True)
lib.check_int("eval_samples", eval_samples, low=10, high=100000)
lib.check_float("fail_accuracy", fail_accuracy, low=0, high=1, low_open=True)
lib.check_int_list(
    "tree_nodes", tree_nodes, low=4, high=65536, increasing=True, min_len=3
)
lib.check_int("tree_graphs", tree_graphs, low=10, high=1000000)
lib.check_int("checker_bits", checker_bits, low=8, high=2**24)
_b = math.ceil(math.log2(tree_nodes[-1]))
if (checker_bits - _b) // (2 * _b) < 2:
    raise ValueError(
        f"parameter `checker_bits` = {checker_bits} is invalid: the checker needs at "
        f"least {5 * _b} bits to table two nodes of a {tree_nodes[-1]}-node graph"
    )
lib.check_int("learn_nodes", learn_nodes, low=0, high=256)
if 0 < learn_nodes < 4:
    raise ValueError(
        f"parameter `learn_nodes` = {learn_nodes} is invalid: use 0 (skip) or >= 4"
    )
for _mode in learn_modes:
    lib.check_choice("learn_modes", _mode, ["no_cot", "cot", "retrieval"])
for _model in learn_models:
    lib.check_choice("learn_models", _model, ["gru", "attention", "hybrid"])
for _model in learn_retrieval_models:
    lib.check_choice("learn_retrieval_models", _model, learn_models)
lib.check_int("learn_width", learn_width, low=4, high=2048)
lib.check_int("learn_steps", learn_steps, low=1)
lib.check_int("learn_batch", learn_batch, low=1, high=65536)
lib.check_float("learn_lr", learn_lr, low=0, low_open=True)
lib.check_int("learn_eval", learn_eval, low=1, high=100000)
lib.check_bool("progress", progress)
# the largest tensors: attention scores of an evaluation batch, and the largest graph
if eval_samples * (pairs[-1] + 1) ** 2 * 8 * 4 > 8e9:
    raise ValueError(
        "parameters `eval_samples` and `pairs` need more than 8 GB of memory: "
        "lower eval_samples or the largest M"
    )
control = lib.check_control("rnns-vs-transformers-retrieval", control)
rng, device = lib.setup(seed, device)
torch_gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
DT = torch.float64
t_start = time.perf_counter()

# %% [markdown]
# ### Associative recall: data and the three kinds of model
#
# A sequence holds $M$ distinct keys, each with a uniform value, then a query key (drawn among the
# $M$) whose value slot holds a special query marker. Token $t$ is the key's embedding next to the
# value's embedding, both random Gaussian vectors of width `embed_dim`, fixed once per run and never
# trained. Every model ends in a vector $o\in\mathbb{R}^{\texttt{embed\_dim}}$ and scores value $y$
# by $o^\top e_y$: the output layer is tied to the frozen value embeddings, as in the authors' code.
# Everything runs in float64, because accuracies and failure points are thresholded.
#
# The test of the hybrid (claim 2) writes the same sequences with **two tokens per pair**: the key
# token carries the key's embedding next to zeros, the value token zeros next to the value's
# embedding, and the query token is unchanged. The answer is then the value that *followed* the
# query's key, and no single position holds a key together with its value.

# %%
scale = 1 / math.sqrt(embed_dim)
key_emb = torch.randn(n_keys, embed_dim, generator=torch_gen, dtype=DT) * scale
value_emb = torch.randn(n_values + 1, embed_dim, generator=torch_gen, dtype=DT) * scale
key_emb, value_emb = key_emb.to(device), value_emb.to(device)
QUERY = n_values  # the value slot of the query token


def recall_batch(n_seq, m, gen):
    """n_seq sequences of m pairs and a query, as (key id, value id) pairs
    (n_seq, m + 1, 2), and the answers; drawn on the CPU (the same draws on every
    device), returned on `device`."""
    keys = torch.rand(n_seq, n_keys, generator=gen).argsort(1)[:, :m]
    values = torch.randint(0, n_values, (n_seq, m), generator=gen)
    asked = torch.randint(0, m, (n_seq,), generator=gen)
    rows = torch.arange(n_seq)
    keys = torch.cat([keys, keys[rows, asked][:, None]], 1)
    values = torch.cat([values, torch.full((n_seq, 1), QUERY)], 1)
    return torch.stack([keys, values], -1).to(device), values[rows, asked].to(device)


# two tokens per pair: a blank id selects an all-zero half of the token
BLANK_KEY, BLANK_VALUE = n_keys, n_values + 1
key_table = torch.cat([key_emb, key_emb.new_zeros(1, embed_dim)])
value_table = torch.cat([value_emb, value_emb.new_zeros(1, embed_dim)])


def two_tokens(ids):
    """The same sequences with each pair as a key token then a value token:
    (n_seq, M + 1, 2) -> (n_seq, 2 M + 1, 2); the query token is unchanged."""
    pairs_ = ids[:, :-1]
    key_tok, value_tok = pairs_.clone(), pairs_.clone()
    key_tok[..., 1], value_tok[..., 0] = BLANK_VALUE, BLANK_KEY
    split = torch.stack([key_tok, value_tok], 2).flatten(1, 2)
    return torch.cat([split, ids[:, -1:]], 1)


def embed(ids):
    """Token vectors: the key's embedding next to the value's, (..., 2 embed_dim)."""
    return torch.cat([key_table[ids[..., 0]], value_table[ids[..., 1]]], -1)


def value_logits(o):
    """Scores of the n_values answers for output vectors o (tied, frozen head)."""
    return o @ value_emb[:n_values].T * math.sqrt(embed_dim)


# %% [markdown]
# The **linear recurrent memory** is the RNN of {eq}`eq-rvt-crosstalk`: the state is the matrix
# $S_t = S_{t-1} + k_t v_t^\top \in \mathbb{R}^{d_k\times \texttt{embed\_dim}}$, and the query token
# reads $o = S_M^\top q$. Only the state after the $M$ pairs reaches the answer, so the model is an
# RNN in the sense of {prf:ref}`rvt-def-rnn` with $d_k\cdot$`embed_dim` numbers of state. Since
# $k_t$, $v_t$ and $q$ are linear in the two frozen embeddings of a token, we compute
# $S_M^\top q=\sum_t (q^\top k_t)\,v_t$ from tables of $k$ and $v$ over the vocabularies: token by
# token for a context of at most 8 tokens, and, for a longer one, with the tokens grouped by key id
# and by value id (the same function, without a product per token). All key widths $d_k$ train at
# once as a batch of independent models: each has the largest width, and a fixed mask zeroes the columns beyond its own $d_k$ (they
# receive no gradient). A trained memory's query map starts equal to its key map, so that every
# key first scores itself positively; from a random start, a memory can stall with some keys
# scoring themselves negatively, and then errs even at $M=1$. Beside the trained memories, every run trains a **random-keys reference**
# at the same widths: its keys and queries are a fixed projection of the key embedding onto $d_k$
# random orthonormal directions, the same for both and never trained (only its values are), so it
# has the geometry of {prf:ref}`rvt-prop-welch` with random keys and nothing learned about where to
# put them. The directions are orthonormal rather than Gaussian because a Gaussian projection
# whose width approaches `embed_dim` is ill-conditioned: it squeezes part of the key space, and a
# trained memory would beat it by undoing that squeeze, without learning anything about where
# the keys should go. Under the
# control `random-keys` the trained memories get such keys too. Every memory, trained or reference,
# is trained `rnn_replicates` times with its own initialisation; replicate $r$ of every memory sees
# the same training sequences, and different replicates see different ones, so the trained memory
# and its reference are compared on the same data. On the two-token format a memory that stored
# each token's own key and value would store no pair at all, so the memory compared with the
# hybrid writes each token's value under the key read from the token *before* it,
# $S_t = S_{t-1} + k(x_{t-1})\,v(x_t)^\top$: it stores $k(\text{key}_i)\,v(\text{value}_i)^\top$
# for every pair (and, unless it learns to silence them, the crossed entries of a value token
# followed by the next key token), the same state as the one-token memory of the same $d_k$. It
# trains beside the others, `rnn_replicates` times, replicate $r$ on the sequences of replicate $r$
# written with two tokens per pair.

# %%
class LinearMemories(nn.Module):
    """One linear recurrent memory per key width d_k, trained side by side; the
    memories flagged in `random` keep fixed random keys and queries. With `shift`,
    they read two tokens per pair and store each token's value under the key read
    from the token before it."""

    def __init__(self, key_dims, random, shift=False):
        super().__init__()
        self.split_pairs = shift
        n, width, d_in = len(key_dims), max(key_dims), 2 * embed_dim
        cols = torch.arange(width)[None, :] < torch.tensor(key_dims)[:, None]
        self.register_buffer("mask", cols.to(DT)[:, None, :])
        self.register_buffer("random", torch.tensor(random)[:, None, None])
        init = 1 / math.sqrt(d_in)
        self.W_k = nn.Parameter(torch.randn(n, d_in, width, dtype=DT) * init)
        self.W_q = nn.Parameter(torch.randn(n, d_in, width, dtype=DT) * init)
        self.W_v = nn.Parameter(torch.randn(n, d_in, embed_dim, dtype=DT) * init)
        with torch.no_grad():  # queries start equal to the keys: q . k >= 0 at first
            self.W_q.copy_(self.W_k)
        # random orthonormal directions of the key half of the token (a tight frame
        # if d_k > embed_dim); the value half is not read
        fixed = torch.zeros(n, d_in, width, dtype=DT)
        for i, dk in enumerate(key_dims):
            u, _, vh = torch.linalg.svd(
                torch.randn(embed_dim, dk, dtype=DT), full_matrices=False
            )
            fixed[i, :embed_dim, :dk] = u @ vh
        self.register_buffer("fixed_keys", fixed)

    def forward(self, ids, models=slice(None)):
        """ids: (batch, M + 1, 2) for every memory, or (models, batch, M + 1, 2);
        `models` picks the memories that run (all of them by default)."""
        d, mask, random = embed_dim, self.mask[models], self.random[models]
        W_k = torch.where(random, self.fixed_keys[models], self.W_k[models]) * mask
        W_q = torch.where(random, self.fixed_keys[models], self.W_q[models]) * mask
        W_v, n = self.W_v[models], mask.shape[0]
        ids = ids.expand(n, -1, -1, -1) if ids.dim() == 3 else ids
        context = ids[..., :-1, :]  # the tokens before the query (models, batch, t, 2)
        keys_from, values_from, k_tab, v_tab = context, context, key_emb, value_emb
        if self.split_pairs:  # k_t from token t - 1, v_t from token t
            keys_from, values_from = context[..., :-1, :], context[..., 1:, :]
            k_tab, v_tab = key_table, value_table
        q = key_emb[ids[..., -1, 0]] @ W_q[:, :d]
        q = q + value_emb[ids[..., -1, 1]] @ W_q[:, d:]
        # k = W_k^T x and v = W_v^T x for every key id and every value id
        key_of_k, key_of_v = k_tab @ W_k[:, :d], v_tab @ W_k[:, d:]
        value_of_k, value_of_v = k_tab @ W_v[:, :d], v_tab @ W_v[:, d:]
        if keys_from.shape[-2] <= 8:  # a short context: sum_t (q . k_t) v_t by token
            m = torch.arange(n, device=ids.device)[:, None, None]
            k_t = key_of_k[m, keys_from[..., 0]] + key_of_v[m, keys_from[..., 1]]
            v_t = (
                value_of_k[m, values_from[..., 0]] + value_of_v[m, values_from[..., 1]]
            )
            o = ((k_t @ q[..., None]).mT @ v_t)[..., 0, :]
        else:  # the same sum with the tokens grouped by key id and by value id
            s_key, s_val = q @ key_of_k.mT, q @ key_of_v.mT
            score = s_key.gather(2, keys_from[..., 0]) + s_val.gather(
                2, keys_from[..., 1]
            )
            per_key = torch.zeros_like(s_key).scatter_add(2, values_from[..., 0], score)
            per_val = torch.zeros_like(s_val).scatter_add(2, values_from[..., 1], score)
            o = per_key @ value_of_k + per_val @ value_of_v
        return value_logits(o)


# %% [markdown]
# The **attention model** stacks `attn_layers` pre-norm causal softmax-attention layers (two heads, no
# positional encoding: recall does not depend on order) and reads the last position. The **hybrid**
# is the paper's construction, a recurrent layer under *one* attention layer, on the two-token
# format. Its recurrent layer is the smallest recurrence there is, a lag-1 shift: position $t$
# adds to its own token a learned linear map $P$ of the token before it,
#
# $$
# h_t \;=\; x_t + P\,x_{t-1}, \qquad o \;=\; \operatorname{Attn}\big(h_{\text{query}};\ h_1,\dots,h_{\text{query}}\big),
# $$ (eq-rvt-hybrid)
#
# so the value token of pair $i$ carries the key of pair $i$ as well. The attention layer, reading
# the query position, can then match the query key against the keys the shift has carried forward
# and copy the value that sits beside the match. Neither part solves the task alone: the shift
# remembers one token back, and one attention layer without it cannot pair a key with its value:
# the weight it puts on a value token depends on that token alone, never on the key token before
# it, so no position code could help. Under the
# control `no-recurrence` the shift is removed ($P=0$) and the hybrid is one attention layer alone;
# under the control `uniform-attention` every attention layer gives equal weight to all the
# positions it may see (its queries are zeroed), so it can still average the context but no longer
# look a key up in it.

# %%
class Attention(nn.Module):
    """Pre-norm causal softmax attention with a residual connection (no MLP)."""

    def __init__(self, width, heads=2):
        super().__init__()
        self.heads, self.norm = heads, nn.LayerNorm(width, dtype=DT)
        self.qkv = nn.Linear(width, 3 * width, bias=False, dtype=DT)
        self.out = nn.Linear(width, width, bias=False, dtype=DT)

    def forward(self, x, last_only=False):
        b, t, w = x.shape
        h = self.norm(x)
        W_q, W_kv = self.qkv.weight.split([w, 2 * w])
        if last_only:  # only the query token's output is needed
            h_q, x = h[:, -1:], x[:, -1:]
        else:
            h_q = h
        q = F.linear(h_q, W_q).view(b, -1, self.heads, w // self.heads)
        k, v = F.linear(h, W_kv).view(b, t, 2, self.heads, -1).unbind(2)
        q, k, v = (z.transpose(1, 2) for z in (q, k, v))
        if control == "uniform-attention":
            q = torch.zeros_like(q)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=not last_only)
        return x + self.out(y.transpose(1, 2).reshape(b, -1, w))


class AttentionModel(nn.Module):
    split_pairs = False

    def __init__(self, layers):
        super().__init__()
        self.layers = nn.ModuleList(Attention(2 * embed_dim) for _ in range(layers))
        self.read = nn.Linear(2 * embed_dim, embed_dim, bias=False, dtype=DT)

    def forward(self, ids):
        x = embed(ids)
        for i, layer in enumerate(self.layers):
            x = layer(x, last_only=i == len(self.layers) - 1)
        return value_logits(self.read(x[:, -1]))


class HybridModel(nn.Module):
    """A lag-1 shift h_t = x_t + P x_{t-1} under one attention layer, reading two
    tokens per pair (under no-recurrence, P = 0: one attention layer alone)."""

    split_pairs = True

    def __init__(self):
        super().__init__()
        w = 2 * embed_dim
        self.P = nn.Linear(w, w, bias=False, dtype=DT)
        self.attn = Attention(w)
        self.read = nn.Linear(w, embed_dim, bias=False, dtype=DT)

    def forward(self, ids):
        x = embed(ids)
        if control != "no-recurrence":
            x = x + self.P(F.pad(x, (0, 0, 1, 0))[:, :-1])  # token t - 1 at t
        return value_logits(self.read(self.attn(x, last_only=True)[:, -1]))


# %% [markdown]
# Training is the same for every model: Adam, each step on a batch with one value of $M$, cycling
# through `pairs`, so one model is trained for every $M$ at once. The attention model and the hybrid
# train `train_steps` steps with a short warm-up and a cosine decay, which is enough for them to
# solve recall. The linear memories train **to a plateau**, by a rule fixed in advance and applied
# to each memory on its own: its training loss is averaged over windows of `plateau_window` steps;
# a window whose loss is not at least the fraction `plateau_tol` below the best earlier window
# divides that memory's learning rate by 4, and the third such window stops (freezes) it; the batch
# stops once every memory has stopped, or at `rnn_max_steps` steps. Test accuracy is measured per $M$ on `eval_samples` fresh sequences, the same ones for
# every model (written with two tokens per pair for the hybrid and the memory it is compared with).

# %%
def train_recall(model, steps, batch):
    gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt,
        lambda s: min(1.0, (s + 1) / warm) * 0.5 * (1 + math.cos(math.pi * s / steps)),
    )
    for step in range(steps):
        ids, answer = recall_batch(batch, pairs[step % len(pairs)], gen)
        logits = model(two_tokens(ids) if model.split_pairs else ids)
        loss = F.cross_entropy(
            logits.reshape(-1, n_values),
            answer.repeat(logits.numel() // answer.numel() // n_values),
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    return model


def train_to_plateau(banks, batch, replicates):
    """Adam with the plateau rule above, applied to each memory on its own (its own
    rate, cuts and stop; a stopped memory is frozen). `banks` are LinearMemories
    trained side by side on the same sequences (each in the format it reads); memory
    i of a bank is replicate i % replicates: the memories of one replicate see the
    same sequences, those of different replicates different ones. Returns, for each
    bank, the steps taken until its last memory stopped."""
    gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
    opt = torch.optim.Adam([p for bank in banks for p in bank.parameters()], lr=lr)
    sizes = [bank.mask.shape[0] for bank in banks]
    n = sum(sizes)
    best = torch.full((n,), math.inf, dtype=DT, device=device)
    cuts = torch.zeros(n, dtype=torch.long, device=device)
    stopped_at, step = torch.zeros(n, dtype=torch.long, device=device), 0
    while step < rnn_max_steps and bool((cuts < 3).any()):
        window = 0
        rate = torch.where(cuts < 3, 0.25 ** cuts.to(DT), 0.0)  # per memory, x lr
        for _ in range(plateau_window):
            for group in opt.param_groups:  # warm-up over the first window
                group["lr"] = lr * min(1.0, (step + 1) / plateau_window)
            m = pairs[step % len(pairs)]
            ids, answer = recall_batch(replicates * batch, m, gen)
            loss = torch.zeros(n, dtype=DT, device=device)  # a frozen memory's is 0
            objective, first = 0.0, 0
            for bank, size in zip(banks, sizes):
                live = (cuts[first : first + size] < 3).nonzero()[:, 0]
                if live.numel() > 0:  # only the memories still training run
                    rep = live % replicates
                    x = two_tokens(ids) if bank.split_pairs else ids
                    logits = bank(x.view(replicates, batch, -1, 2)[rep], live)
                    per_memory = (
                        F.cross_entropy(  # logits (memories, batch, n_values)
                            logits.reshape(-1, n_values),
                            answer.view(replicates, batch)[rep].reshape(-1),
                            reduction="none",
                        )
                        .view(live.numel(), -1)
                        .mean(1)
                    )
                    objective = objective + per_memory.sum()
                    loss[first + live] = per_memory.detach()
                first += size
            opt.zero_grad()
            objective.backward()
            params = [list(bank.parameters()) for bank in banks]
            before = [[p.detach().clone() for p in ps] for ps in params]
            opt.step()
            with torch.no_grad():  # scale each memory's step by its own rate
                for ps, p0s, r in zip(params, before, rate.split(sizes)):
                    for p, p0 in zip(ps, p0s):
                        p.copy_(p0 + (p - p0) * r.view(-1, *[1] * (p.dim() - 1)))
            window, step = window + loss, step + 1
        window = window / plateau_window
        stalled = window > best * (1 - plateau_tol)
        cuts = cuts + (stalled & (cuts < 3)).long()
        stopped_at = torch.where((cuts < 3) | (stopped_at > 0), stopped_at, step)
        best = torch.minimum(best, window)
    stopped_at = torch.where(stopped_at > 0, stopped_at, step)
    return [int(s.max()) for s in stopped_at.split(sizes)]


eval_gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
test_sets = [recall_batch(eval_samples, m, eval_gen) for m in pairs]


@torch.no_grad()
def recall_accuracy(model):
    """Accuracy per M (last axis), for each model of a batch of models (first axes);
    the same test sequences in the format the model reads."""
    fmt = two_tokens if model.split_pairs else (lambda x: x)
    hits = [
        torch.cat(
            [
                model(fmt(x)).argmax(-1) == y
                for x, y in zip(xs.split(250), ys.split(250))
            ],
            -1,
        )
        .to(DT)
        .mean(-1)
        for xs, ys in test_sets
    ]
    return torch.stack(hits, -1).cpu().numpy()


def failure_point(acc):
    """The M at which accuracy first drops below fail_accuracy (log-linear
    interpolation between swept M); inf if it never does."""
    below = np.flatnonzero(acc < fail_accuracy)
    if below.size == 0:
        return math.inf
    j = below[0]
    if j == 0:
        return math.nan  # fails already at the smallest M
    a0, a1, m0, m1 = acc[j - 1], acc[j], math.log(pairs[j - 1]), math.log(pairs[j])
    return math.exp(m0 + (a0 - fail_accuracy) / (a0 - a1) * (m1 - m0))


# %% [markdown]
# ### IsTree: a bounded-memory checker and a depth-first search with retrieval
#
# The graphs are the authors' hard ones ({prf:ref}`rvt-def-tasks`), generated in one vectorised draw
# per size: a random relabelling, a random root for each non-root node, the extra edge between two
# consecutive non-root nodes of the relabelling, and a random order and orientation of the $n-1$
# edges. The label is whether the two ends of the extra edge hang on different roots.

# %%
def binary_graphs(n, count):
    """count hard IsTree instances on n nodes: edge lists (count, n - 1, 2), labels."""
    perm = np.argsort(rng.random((count, n)), axis=1)
    side = rng.integers(0, 2, size=(count, n - 2))  # which root each node hangs on
    leaves = perm[:, 2:]
    roots = np.take_along_axis(perm[:, :2], side, axis=1)
    j = rng.integers(0, n - 3, size=count)  # the extra edge joins leaves j and j + 1
    rows = np.arange(count)
    extra = np.stack([leaves[rows, j], leaves[rows, j + 1]], 1)
    edges = np.concatenate([np.stack([roots, leaves], 2), extra[:, None]], 1)
    flip = rng.random((count, n - 1)) < 0.5
    edges = np.where(flip[..., None], edges[..., ::-1], edges)
    order = np.argsort(rng.random((count, n - 1)), axis=1)
    is_tree = side[rows, j] != side[rows, j + 1]
    return np.take_along_axis(edges, order[..., None], axis=1), is_tree


# %% [markdown]
# The **bounded-memory checker** reads the edges once, as an RNN without retrieval must, with a
# memory of `checker_bits` bits whatever $n$. With $b=\lceil\log_2 n\rceil$ bits per node id, it
# keeps an edge counter ($b$ bits) and a table of $(\texttt{checker\_bits}-b)/(2b)$ nodes (rounded
# down) with a component label each (union–find restricted to the table): the table shrinks as the
# ids grow longer, and the memory stays at most `checker_bits`. An edge between two tabled nodes of
# the same component reveals a cycle; other edges join components or, when the table is full, are
# forgotten. It answers "tree" unless it saw a cycle, has the wrong number of edges, or (when it
# tabled every node) ends with more than one component. When the table holds all $n$ nodes it is an
# exact union–find. Under the control `growing-memory` the table always holds $n$ nodes, a memory of
# $(2n+1)\lceil\log_2 n\rceil$ bits that grows with the graph.

# %%
def checker_slots(n):
    """Nodes the checker can table on n-node graphs, and its memory in bits."""
    b = math.ceil(math.log2(n))
    slots = n if control == "growing-memory" else (checker_bits - b) // (2 * b)
    return slots, 2 * min(slots, n) * b + b


def bounded_checker(edges, n, slots):
    label, count = {}, 0  # the memory: <= slots (node, component) entries, a counter
    for u, v in edges.tolist():
        count += 1
        for w in (u, v):
            if w not in label and len(label) < slots:
                label[w] = w
        if u in label and v in label:
            if label[u] == label[v]:
                return False  # a cycle
            old, new = label[v], label[u]
            for w, c in label.items():
                if c == old:
                    label[w] = new
    if count != n - 1:
        return False
    return len(label) < n or len(set(label.values())) == 1


# %% [markdown]
# ```{prf:algorithm} Depth-first search with retrieval
# :label: rvt-alg-dfs
#
# **Working memory:** the current node $v$, the index $e$ of the last edge examined at $v$, the index
# $e_{\mathrm{in}}$ of the edge by which $v$ was entered, and a counter $c$ of visited nodes:
# $4\lceil\log_2 n\rceil$ bits. **Context:** the edge list, and the CoT, a growing list of
# records (node, parent, entry edge).
#
# 1. Write the record $(0, -, -)$; set $v=0$, $e=e_{\mathrm{in}}=-1$, $c=1$.
# 2. **Retrieve** the first edge after position $e$ in the edge list that touches $v$.
# 3. If there is none: if $v=0$, stop and answer $c=n$; otherwise **retrieve** the record of $v$,
#    go back to its parent $p$ and set $e$ to the entry edge of $v$ and $e_{\mathrm{in}}$ to the
#    entry edge of $p$ (a second look-up of $p$'s record). Go to 2.
# 4. If it is the entry edge $e_{\mathrm{in}}$, set $e$ to it and go to 2. Otherwise let $w$ be its
#    other end and **retrieve** whether a record of $w$ exists: if yes, the graph has a cycle,
#    answer "not a tree". If no, write the record $(w, v, \text{edge})$, increase $c$, move to
#    $w$ with $e=-1$ and $e_{\mathrm{in}}$ the edge; go to 2.
# ```
#
# With $n-1$ edges, a graph is a tree if and only if it is connected, if and only if it has no
# cycle; the search finds a cycle in the component of node 0 or counts that component. Each
# **retrieve** below is one exact search over the context (a vectorised comparison, the role of the
# paper's regular-expression RAG or of one hard-attention layer); the Python variables `v`, `e`,
# `e_in`, `c` are the only state carried from step to step. The search also stops as soon as it has
# recorded $n$ nodes: the graph is then connected with $n-1$ edges, a tree. Under the control
# `no-record-retrieval` the search can no longer look up its own CoT records (it still searches the
# edge list): it cannot tell a visited node from a new one, nor find the parent to go back to, and
# stops where it would have backtracked.

# %%
def dfs_with_retrieval(edges, n):
    """Returns (is_tree, CoT records written, retrievals)."""
    ends = edges.T  # the context: two rows of node ids, one column per edge
    rec_node = np.full(n, -1)  # the CoT: records (node, parent, entry edge)
    rec_parent, rec_edge = np.full(n, -1), np.full(n, -1)
    rec_node[0], c, lookups = 0, 1, 0
    v, e, e_in = 0, -1, -1

    def record_of(x):  # retrieve the CoT record of node x: its row, or -1
        if control == "no-record-retrieval":
            return -1
        hit = np.flatnonzero(rec_node[:c] == x)
        return hit[0] if hit.size else -1

    while c < n:
        lookups += 1
        hits = np.flatnonzero((ends[:, e + 1 :] == v).any(0))
        if hits.size == 0:
            lookups += 1
            r = record_of(v)
            if v == 0 or r < 0:
                return False, c, lookups  # node 0's component has fewer than n nodes
            lookups += 1
            v, e = rec_parent[r], rec_edge[r]
            e_in = rec_edge[record_of(v)]
            continue
        j = e + 1 + hits[0]
        if j == e_in:
            e = j
            continue
        w = ends[1, j] if ends[0, j] == v else ends[0, j]
        lookups += 1
        if record_of(w) >= 0:
            return False, c, lookups
        rec_node[c], rec_parent[c], rec_edge[c] = w, v, j
        c, v, e, e_in = c + 1, w, -1, j
    return True, c, lookups


# %% [markdown]
# ### Learned IsTree: the three task modes (`paper` preset)
#
# The authors train Mamba, LLaMA and the hybrid on IsTree written in three ways, which we
# re-implement. `no_cot`: the edge list, EOS, the answer. `cot`: the edge list, EOS, the DFS order
# from node 0 (returning to each parent, cut short at the first cycle), EOS, the answer. `retrieval`:
# the same search written as {prf:ref}`rvt-alg-dfs` does it, with explicit queries. `[ x ~ ]` asks
# for the parent recorded for `x` (a record `x ~ p` written earlier in the CoT), `[ x - ]` for the
# first neighbour of `x` in the edge list, `[ x - p ]` for the neighbour after `p`; the token after
# each `]` is the search's answer (or `FAIL`). That token is written by an exact search over the
# context, in training data and at test time alike, and is left out of the loss. Edges are two
# tokens each (the authors write `u - v`), and the embeddings are learned (theirs are frozen
# sinusoids).

# %%
N = learn_nodes
EOS, TRUE, FALSE, SEARCH, END, TILDE, DASH, FAIL, PAD = range(N, N + 9)
VOCAB = N + 9


def neighbours(edges):
    """Each node's neighbours, in the order their edges appear in the context."""
    nb = [[] for _ in range(N)]
    for u, v in edges.tolist():
        nb[u].append(v)
        nb[v].append(u)
    return nb


def euler_tour(edges):
    """The `cot` trace: DFS order from node 0, back to each parent, cut at a cycle."""
    nb, seen, tour = neighbours(edges), {0}, []

    def visit(v, parent):
        tour.append(v)
        for w in nb[v]:
            if w == parent:
                continue
            if w in seen:
                return False
            seen.add(w)
            if not visit(w, v):
                return False
            tour.append(v)
        return True

    visit(0, -1)
    return tour


def retrieve(context, edges_nb):
    """The answer to the query at the end of context (which ends with END)."""
    start = len(context) - 1 - context[::-1].index(SEARCH)
    query = context[start + 1 : -1]
    if len(query) not in (2, 3) or query[0] >= N or query[1] not in (TILDE, DASH):
        return FAIL  # a malformed query (the model wrote it) finds nothing
    x = query[0]
    if query[1] == TILDE:  # the parent of x, from a record "x ~ p" of the CoT
        for i in range(len(context) - 3, 0, -1):
            if context[i] == x and context[i + 1] == TILDE and context[i - 1] != SEARCH:
                return context[i + 2]
        return FAIL
    nb = edges_nb[x]  # "x -" or "x - p": the next neighbour of x in the context
    if len(query) == 2:
        return nb[0] if nb else FAIL
    if query[2] not in nb:
        return FAIL
    k = nb.index(query[2]) + 1
    return nb[k] if k < len(nb) else FAIL


def retrieval_trace(edges):
    """The `retrieval` trace (DFS with retrieval) and a 0/1 mask of retrieved tokens."""
    nb = neighbours(edges)
    ctx = [t for e in edges.tolist() for t in e] + [EOS]
    is_answer = [0] * len(ctx)

    def say(*tokens):
        ctx.extend(tokens)
        is_answer.extend([0] * len(tokens))

    def ask(*query):
        say(SEARCH, *query, END)
        ctx.append(retrieve(ctx, nb))
        is_answer.append(1)
        return ctx[-1]

    stack, prev = [0], FAIL
    while stack:
        top = stack[-1]
        say(top)
        father = ask(top, TILDE)
        nxt = ask(top, DASH) if prev == father else ask(top, DASH, prev)
        if nxt == father and father != FAIL:
            nxt = ask(top, DASH, nxt)
        if nxt == FAIL:
            stack.pop()
            prev = top
            continue
        if ask(nxt, TILDE) != FAIL or nxt == 0:
            break  # nxt was visited: a cycle
        say(nxt, TILDE, top)
        stack.append(nxt)
        prev = top
    return ctx, is_answer


def istree_sequence(edges, is_tree, mode):
    """Token ids and loss mask (every token after the first EOS but retrieved ones)."""
    prompt = [t for e in edges.tolist() for t in e] + [EOS]
    if mode == "no_cot":
        seq, answer = list(prompt), [0] * len(prompt)
    elif mode == "cot":
        seq = prompt + euler_tour(edges)
        answer = [0] * len(seq)
    else:
        seq, answer = retrieval_trace(edges)
    if mode != "no_cot":
        seq.append(EOS)
        answer.append(0)
    seq.append(TRUE if is_tree else FALSE)
    answer.append(0)
    loss = [int(i >= len(prompt) and not a) for i, a in enumerate(answer)]
    return seq, loss


# %%
def istree_batch(count, mode):
    """count training sequences, right-padded: tokens, loss mask (both (count, T))."""
    edges, truth = binary_graphs(N, count)
    seqs = [istree_sequence(e, t, mode) for e, t in zip(edges, truth)]
    width = max(len(s) for s, _ in seqs)
    tokens = torch.full((count, width), PAD)
    mask = torch.zeros((count, width))
    for i, (s, m) in enumerate(seqs):
        tokens[i, : len(s)] = torch.tensor(s)
        mask[i, : len(m)] = torch.tensor(m, dtype=mask.dtype)
    return tokens, mask


# %% [markdown]
# The three networks are small versions of the authors' families: a two-layer GRU (for Mamba), a
# two-block Transformer with learned positions (for LLaMA) and a hybrid, one GRU layer then one
# Transformer block. They train with AdamW on the tokens after the first EOS and are tested by
# greedy generation: only a final `TRUE`/`FALSE` that matches the label counts. Each model trains
# to the plateau of its own training loss, by the rule of the linear memories (`plateau_window`,
# `plateau_tol`, three cuts of the learning rate), with `learn_steps` only as a cap on the cost. A
# fixed number of steps would stop one model while it is still learning and spend steps on another
# that has converged; a model that reaches the cap shows it in the printed table. The models
# without CoT are the exception: they train to the cap. Their loss is that of the one answer token,
# which sits at its chance level $\ln 2$ for a long while before it falls (if it falls), and the
# plateau rule would read that wait as convergence and stop the baselines of claims 7 and 9 at
# chance. A step without CoT is also the cheapest.

# %%
class Block(nn.Module):
    """Pre-norm causal self-attention and MLP (a LLaMA-like layer, without rotary)."""

    def __init__(self, w, heads=4):
        super().__init__()
        self.heads = heads
        self.n1, self.n2 = nn.LayerNorm(w), nn.LayerNorm(w)
        self.qkv, self.out = (
            nn.Linear(w, 3 * w, bias=False),
            nn.Linear(w, w, bias=False),
        )
        self.mlp = nn.Sequential(nn.Linear(w, 4 * w), nn.GELU(), nn.Linear(4 * w, w))

    def forward(self, x):
        b, t, w = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, t, 3, self.heads, -1).unbind(2)
        y = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True
        )
        x = x + self.out(y.transpose(1, 2).reshape(b, t, w))
        return x + self.mlp(self.n2(x))


class SequenceModel(nn.Module):
    """kind: 'gru' (two GRU layers), 'attention' (two blocks, learned positions) or
    'hybrid' (one GRU layer, then one attention block)."""

    def __init__(self, kind, w, max_len):
        super().__init__()
        self.kind = kind
        self.embed = nn.Embedding(VOCAB, w)
        self.pos = nn.Embedding(max_len, w) if kind == "attention" else None
        layers = {"gru": 2, "attention": 0, "hybrid": 1}[kind]
        self.rnn = nn.GRU(w, w, num_layers=layers, batch_first=True) if layers else None
        blocks = {"gru": 0, "attention": 2, "hybrid": 1}[kind]
        self.blocks = nn.ModuleList(Block(w) for _ in range(blocks))
        self.norm, self.head = nn.LayerNorm(w), nn.Linear(w, VOCAB)

    def forward(self, tokens):
        x = self.embed(tokens)
        if self.pos is not None:
            x = x + self.pos(torch.arange(tokens.shape[1], device=tokens.device))
        if self.rnn is not None:
            x = x + self.rnn(x)[0]
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


# %%
def train_istree(kind, mode, max_len):
    """AdamW with the linear memories' plateau rule (windows of plateau_window steps,
    the rate divided by 4 when a window's mean loss is not plateau_tol below the best,
    stop at the third cut; without CoT no cut, so the model trains to the cap), capped
    at learn_steps; returns the model and its steps."""
    model = SequenceModel(kind, learn_width, max_len).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=learn_lr, weight_decay=0.01)
    best, cuts, step, rate = math.inf, 0, 0, learn_lr
    plateau = mode != "no_cot"  # without CoT: the cap (see the text above)
    while step < learn_steps and cuts < 3:
        window = 0.0
        for _ in range(min(plateau_window, learn_steps - step)):
            for group in opt.param_groups:  # warm-up over the first window
                group["lr"] = rate * min(1.0, (step + 1) / plateau_window)
            tokens, mask = (z.to(device) for z in istree_batch(learn_batch, mode))
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(
                logits.transpose(1, 2), tokens[:, 1:], reduction="none"
            )
            loss = (loss * mask[:, 1:]).sum() / mask[:, 1:].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            window, step = window + float(loss.detach()), step + 1
        window /= plateau_window
        if plateau and window > best * (1 - plateau_tol):
            cuts, rate = cuts + 1, rate / 4
        best = min(best, window)
    return model, step


@torch.no_grad()
def istree_accuracy(model, mode, max_len):
    """Greedy generation after the prompt; in `retrieval` mode the token after each END
    is written by the exact search, not the model. Only a final TRUE/FALSE that matches
    the label counts as correct."""
    edges, truth = binary_graphs(N, learn_eval)
    nbs = [neighbours(e) for e in edges]
    ctx = [[t for e in g.tolist() for t in e] + [EOS] for g in edges]
    verdict = [None] * learn_eval
    for _ in range(max_len - len(ctx[0])):
        live = [i for i, v in enumerate(verdict) if v is None]
        if not live:
            break
        tokens = torch.tensor([ctx[i] for i in live], device=device)
        guess = model(tokens)[:, -1].argmax(-1).tolist()
        for i, t in zip(live, guess):
            if mode == "retrieval" and ctx[i][-1] == END and SEARCH in ctx[i]:
                t = retrieve(ctx[i], nbs[i])
            ctx[i].append(t)
            if t in (TRUE, FALSE):
                verdict[i] = t == TRUE
    return float(np.mean([v is not None and v == t for v, t in zip(verdict, truth)]))


# %% [markdown]
# ## The experiment
#
# ### Recall accuracy against the number of pairs

# %%
from myst_nb import glue

att_name = f"attention ({attn_layers} layers)"
hyb_name = "hybrid (shift + 1 attention)"
# the memory the hybrid is compared with (claim 2): by default the widest swept d_k
# whose keys are crowded at the largest M (M >= 8 d_k), the memories claim 1 counts
crowded_dk = [dk for dk in rnn_key_dims if 8 * dk <= pairs[-1]]
split_dk = hybrid_key_dim or max(crowded_dk, default=rnn_key_dims[0])
split_rule = "set by hybrid_key_dim" if hybrid_key_dim else "the widest with M >= 8 d_k"
split_name = f"linear RNN, d_k {split_dk}, key from t - 1"
# the trained memories and the random-keys reference, rnn_replicates of each per d_k,
# one batch of models; under fixed-state the memories of the smallest d_k (and their
# references) stand for every state
key_dims = rnn_key_dims[:1] if control == "fixed-state" else rnn_key_dims
R = rnn_replicates
memories = LinearMemories(
    [dk for dk in key_dims for _ in range(R)] * 2,
    [control == "random-keys"] * len(key_dims) * R + [True] * len(key_dims) * R,
).to(device)
models = {
    att_name: AttentionModel(attn_layers).to(device),
    hyb_name: HybridModel().to(device),
}
# two tokens per pair: the memory the hybrid is compared with, R replicates trained
# side by side with the others (replicate r on the sequences of replicate r)
split_memories = LinearMemories(
    [split_dk] * R, [control == "random-keys"] * R, shift=True
).to(device)
rnn_steps, split_steps = train_to_plateau([memories, split_memories], rnn_batch, R)
# accuracies (d_k, replicate, M) of the trained memories and of the reference
lin_reps, ref_reps = (
    a.reshape(len(key_dims), R, -1) for a in np.split(recall_accuracy(memories), 2)
)
if control == "fixed-state":
    lin_reps, ref_reps = (
        np.repeat(a, len(rnn_key_dims), 0) for a in (lin_reps, ref_reps)
    )
    key_dims = [rnn_key_dims[0]] * len(rnn_key_dims)
lin_acc, ref_acc = lin_reps.mean(1), ref_reps.mean(1)  # mean over the replicates
print(
    f"linear memories: {R} replicates of each, {rnn_steps} steps until the last "
    f"reached its plateau (cap {rnn_max_steps}); accuracies are replicate means"
)
recall = {}
for name in lib.progress(list(models), enabled=progress, desc="recall models"):
    recall[name] = recall_accuracy(train_recall(models[name], train_steps, batch_size))
split_reps = recall_accuracy(split_memories)  # (replicate, M)
recall[split_name] = split_reps.mean(0)
lin_names = [f"linear RNN, d_k {dk}" for dk in rnn_key_dims]
recall.update(zip(lin_names, lin_acc))
d_in = 2 * embed_dim
n_params = {n: 2 * d_in * dk + d_in * embed_dim for n, dk in zip(lin_names, key_dims)}
n_params[split_name] = 2 * d_in * split_dk + d_in * embed_dim
for name in (att_name, hyb_name):
    n_params[name] = sum(p.numel() for p in models[name].parameters())
print("test accuracy by M =", pairs, "  (trained parameters)")
print(" one token per pair")
for name in [att_name, *lin_names]:
    accs = " ".join(f"{a:5.2f}" for a in recall[name])
    print(f"  {name:34s} {accs}  ({n_params[name]})")
for dk, acc in zip(rnn_key_dims, ref_acc):
    accs = " ".join(f"{a:5.2f}" for a in acc)
    print(f"  {f'random keys, d_k {dk}':34s} {accs}")
shift_state, split_state = 2 * embed_dim, split_dk * embed_dim
print(
    f" two tokens per pair (the memories reached their plateau after {split_steps} "
    f"steps; state: the shift's {shift_state} numbers, the memory's {split_state}; "
    f"the hybrid's attention reads all {2 * pairs[-1] + 1} tokens at M = {pairs[-1]})"
)
for name in [hyb_name, split_name]:
    accs = " ".join(f"{a:5.2f}" for a in recall[name])
    print(f"  {name:34s} {accs}  ({n_params[name]})")
print(
    f"  the memory's {R} replicates at M = {pairs[-1]}: "
    + ", ".join(f"{a:.2f}" for a in split_reps[:, -1])
)
glue("rvt_rnn_steps", rnn_steps, display=False)
glue("rvt_params_lin", n_params[lin_names[-1]], display=False)
glue("rvt_params_att", n_params[att_name], display=False)
glue("rvt_params_hyb", n_params[hyb_name], display=False)
glue("rvt_att_min", round(float(recall[att_name].min()), 2), display=False)
glue("rvt_hyb_last", round(float(recall[hyb_name][-1]), 2), display=False)
glue("rvt_split_last", round(float(recall[split_name][-1]), 2), display=False)
glue("rvt_split_dk", split_dk, display=False)
glue("rvt_params_split", n_params[split_name], display=False)
glue("rvt_shift_state", shift_state, display=False)
glue("rvt_split_state", split_state, display=False)
glue("rvt_m_last", pairs[-1], display=False)
glue("rvt_checker_bits", checker_bits, display=False)

# %% mystnb={"figure": {"caption": "Test accuracy of associative recall, one token per key-value pair, against the number of pairs M in the context. The linear recurrent memories (blue, darker for a larger key width d_k) lose accuracy as M grows, the later the larger their state; the attention model (orange) stays near 1.", "name": "fig-rvt-recall"}} tags=["hide-input"]
from matplotlib import colormaps

COLOR = {att_name: "tab:orange", hyb_name: "tab:green"}
blues = colormaps["Blues"](np.linspace(0.45, 0.95, len(lin_names)))
COLOR.update(zip(lin_names, blues))
COLOR[split_name] = colormaps["Blues"](0.7)


def plot_recall(curves, xlabel):
    """Test accuracy against M, one (name, line style) per curve, and chance."""
    fig, ax = lib.subplots()
    for name, style in curves:
        ax.plot(pairs, recall[name], style, color=COLOR[name], label=name, ms=4)
    ax.axhline(1 / n_values, color="grey", ls=":", label="chance")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("test accuracy (fraction correct)")
    ax.legend(fontsize=7)
    lib.show(fig)


plot_recall(
    [(att_name, "--s"), *((name, "-o") for name in lin_names)],
    "key-value pairs in the context, M",
)

# %% [markdown]
# {numref}`fig-rvt-recall` is the paper's claim in miniature. Attention looks the answer up and does
# not care how many pairs there are; every recurrent memory degrades with $M$. With one token per
# pair, a single attention layer suffices to solve recall, so the attention model's accuracy at
# large $M$ is not the test of the idea: the control `uniform-attention` is. It keeps every layer
# and every parameter but makes attention average the context instead of looking a key up, and
# claim 1 then fails (the controls table below).

# %% mystnb={"figure": {"caption": "Test accuracy of associative recall with two tokens per pair (key, then value), against the number of pairs M. The hybrid (green; a lag-1 shift under one attention layer) stays near 1; the linear recurrent memory of the widest key width d_k with M >= 8 d_k at the largest M, which stores each value under the key of the token before it (blue, dashed; mean of its replicates), loses accuracy as M grows, as its one-token counterpart does.", "name": "fig-rvt-hybrid"}} tags=["hide-input"]
plot_recall(
    [(hyb_name, "-s"), (split_name, "--o")],
    "key-value pairs in the context, M (2M + 1 tokens)",
)

# %% [markdown]
# {numref}`fig-rvt-hybrid` tests the paper's construction, a recurrent layer with one attention
# layer on top ({eq}`eq-rvt-hybrid`), on the format where neither part suffices alone. The
# recurrent layer is a lag-1 shift: its state is one token, {glue:}`rvt_shift_state` numbers, as
# much as the smallest memory above ($d_k=2$), and on its own it cannot recall anything. The
# attention layer alone cannot either: the control `no-recurrence` removes the shift and leaves one
# attention layer, which cannot tell which value followed which key. Together they recall at
# every $M$. The memory they are compared with is the same shift under *linear* attention: its key
# comes from the token before, its value from the token itself, and $S_M^\top q$ is linear attention
# over the context, folded into a state of fixed size. It is the one claim 1 would pick: the widest
# swept key width whose keys are crowded at the largest $M$ ($M\ge 8d_k$), here
# $d_k=$ {glue:}`rvt_split_dk`, with {glue:}`rvt_split_state` numbers of state. The hybrid's softmax
# attention, by contrast, reads all $2M+1$ tokens: its memory grows with the context, and that, not
# a smaller state, is what the comparison is about. At $M=$ {glue:}`rvt_m_last` the hybrid scores
# {glue:}`rvt_hyb_last` against the memory's {glue:}`rvt_split_last`. The shift carries
# the key into its value's position, and the attention looks it up there: the division of labour
# of the paper's proof, in which the recurrence does the local work and one attention layer the
# retrieval.
#
# The parameter budgets are not matched: the widest one-token linear memory has
# {glue:}`rvt_params_lin` trained parameters and the memory compared with the hybrid
# {glue:}`rvt_params_split`, against {glue:}`rvt_params_att` for the attention model and
# {glue:}`rvt_params_hyb` for the hybrid, so this is a comparison of architectures, not of models of equal size
# (the authors compare at equal budget). What the recurrent memories lack is a way to look a key
# up, which is what the control `uniform-attention` takes away from the other two.
#
# ### The failure point moves with the state
#
# The failure point of a linear recurrent memory is the $M$ at which its accuracy drops below
# `fail_accuracy` (interpolated between swept values). {prf:ref}`rvt-prop-welch` predicts it
# proportional to $d_k$, that is, to the state size $d_k\cdot$`embed_dim`: a factor 2 per doubling
# and a log-log slope of 1.

# %%
state_sizes = np.array(rnn_key_dims) * embed_dim


def geomean(x, axis=None):
    """Geometric mean along axis (inf if an entry is inf, nan if one is nan)."""
    return np.exp(np.log(x).mean(axis))


# failure point of every replicate (d_k, replicate), and their geometric mean per d_k:
# nan if a replicate fails below the smallest M, inf (censored) if one never fails
m_reps = np.array([[failure_point(a) for a in reps] for reps in lin_reps])
ref_reps_fail = np.array([[failure_point(a) for a in reps] for reps in ref_reps])
m_fail, ref_fail = (geomean(f, 1) for f in (m_reps, ref_reps_fail))


def describe(m):
    if math.isnan(m):
        return f"below {pairs[0]} (fails at the smallest M)"
    return f"> {pairs[-1]} (never within the sweep)" if math.isinf(m) else f"{m:.3g}"


def loglog_slope(m):
    """Least-squares slope of log failure point against log state (nan unless all
    the failure points are inside the sweep)."""
    if not np.isfinite(m).all():
        return math.nan
    return float(np.polyfit(np.log(state_sizes), np.log(m), 1)[0])


both_inside = np.isfinite(m_fail) & np.isfinite(ref_fail)
key_ratio = np.divide(  # nan where either failure point is censored
    m_fail, ref_fail, out=np.full(len(m_fail), math.nan), where=both_inside
)
print(
    f"d_k  state | fails at M (geometric mean of {R} replicates): trained memory, "
    "random-keys reference | ratio"
)
for dk, s, m, r, q in zip(rnn_key_dims, state_sizes, m_fail, ref_fail, key_ratio):
    print(f"{dk:3d}  {s:5d} | {describe(m):>28s}  {describe(r):>28s} | {q:5.2f}")
finite = np.isfinite(m_fail)
wide = np.array(rnn_key_dims) >= 4
# replicate spread: the memories with random keys of one d_k >= 4 are replicates of
# one method (the reference; under random-keys the trained memories too)
groups = [ref_reps_fail[i] for i in np.flatnonzero(wide)]
if control == "random-keys":
    groups = [np.r_[ref_reps_fail[i], m_reps[i]] for i in np.flatnonzero(wide)]
logs = [np.log(g[np.isfinite(g)]) for g in groups]
dof = sum(len(g) - 1 for g in logs if len(g) > 1)
rep_sd = (
    math.sqrt(sum(((g - g.mean()) ** 2).sum() for g in logs if len(g) > 1) / dof)
    if dof
    else math.nan
)
# the sd of the difference of two means of R replicates, and claim 4's margin rule
diff_sd = rep_sd * math.sqrt(2 / R)
rule_margin = math.ceil(math.exp(3 * diff_sd) / 0.05 - 1e-9) * 0.05 if dof else math.nan
print(
    f"replicate spread (d_k >= 4, random keys): sd of log failure point {rep_sd:.3f} "
    f"({dof} dof); sd of a difference of two {R}-replicate means {diff_sd:.3f}; "
    f"exp(3 x that) rounded up to 0.05: {rule_margin:.2f}"
)
slope, ref_slope = loglog_slope(m_fail), loglog_slope(ref_fail)
per_doubling = np.full(len(m_fail) - 1, math.nan)
if finite.all():
    per_doubling = (m_fail[1:] / m_fail[:-1]) ** (
        1 / np.log2(state_sizes[1:] / state_sizes[:-1])
    )
print(f"log-log slope: trained {slope:.2f}, random keys {ref_slope:.2f}")
print("growth of the failure point per doubling of the state:", per_doubling.round(2))
for dk, m in zip(rnn_key_dims, m_fail):
    glue(f"rvt_fail_{dk}", round(float(m), 1), display=False)
censored = [
    dk
    for dk, m, r in zip(rnn_key_dims, m_fail, ref_fail)
    if not (np.isfinite(m) and np.isfinite(r))
]
if censored:
    print(
        f"d_k {censored}: some replicate does not fail inside the sweep of M (or fails "
        "below its smallest M); the ratios there, and claims 3 and 4, are not testable"
    )
# claim 4's statistic: the geometric mean of the ratios over d_k >= 4 (nan if any of
# them is censored)
mean_ratio = float(geomean(key_ratio[wide])) if wide.any() else math.nan
print(f"geometric mean of the ratios over d_k >= 4: {mean_ratio:.2f}")
glue("rvt_mean_ratio", round(mean_ratio, 2), display=False)
min_ratio = float(np.min(key_ratio[wide])) if wide.any() else math.nan
glue("rvt_min_ratio", round(min_ratio, 2), display=False)
glue("rvt_slope", round(float(slope), 2), display=False)
glue("rvt_ref_slope", round(float(ref_slope), 2), display=False)

# %% mystnb={"figure": {"caption": "The M at which the linear recurrent memory's accuracy drops below fail_accuracy, against the size of its state (d_k times embed_dim numbers), for the trained memories (blue) and the random-keys reference (grey); dashed, slope 1 through the geometric mean of the trained points.", "name": "fig-rvt-capacity"}} tags=["hide-input"]
fig, ax = lib.subplots()
ax.plot(
    state_sizes[finite], m_fail[finite], "o-", color=blues[-1], label="linear memory"
)
ref_ok = np.isfinite(ref_fail)
ax.plot(
    state_sizes[ref_ok],
    ref_fail[ref_ok],
    "^:",
    color="grey",
    label="random-keys reference",
)
if finite.any():
    centre = geomean(m_fail[finite] / state_sizes[finite])
    ax.plot(state_sizes, centre * state_sizes, "k--", label="proportional to the state")
    ax.set_yscale("log", base=2)
ax.set_xscale("log", base=2)
ax.set_xlabel("state size (numbers)")
ax.set_ylabel(f"failure point M (accuracy < {fail_accuracy})")
ax.legend()
lib.show(fig)

# %% [markdown]
# {numref}`fig-rvt-capacity` shows the failure point climbing with the state, for the trained
# memories and for the random-keys reference, both trained to their plateau (the last memory
# stopped after {glue:}`rvt_rnn_steps` steps here). Each point is the geometric mean of the failure
# points of `rnn_replicates` replicates; a replicate that never drops below `fail_accuracy` inside
# the sweep (or is below it already at the smallest $M$) has no failure point, and its $d_k$ is then
# marked not testable rather than given a number. From $d_k=4$ on, the trained memory fails at an
# $M$ beyond the reference (the ratio column; geometric mean over $d_k\ge4$
# {glue:}`rvt_mean_ratio`, smallest {glue:}`rvt_min_ratio`): learning where to put the keys shifts
# the curve on the log-log plot rather than steepening it, and the shift shrinks as $d_k$
# approaches `embed_dim`: $d_k$ random orthonormal directions span a growing share of the
# `embed_dim`-wide key space (half of it at $d_k=16$ here), leaving learning less to choose. The fitted slopes ({glue:}`rvt_slope` trained, {glue:}`rvt_ref_slope`
# random keys) are an illustration only: the proposition is a lower bound on crosstalk for the best
# possible keys and says nothing about the exponent over a finite range of $d_k$, and a slope over
# four points is dominated by its end points. The reference also ties the query to the key and
# reads only the key half of the token, so it removes more than the placement of the keys.
#
# The key width is useful only up to `embed_dim`. Keys and queries are linear in the frozen key
# embeddings, which are `embed_dim` wide, so the matrix of scores $q^\top k$ over the key
# vocabulary has rank at most `embed_dim`: no linear memory of any $d_k$ can hold more than about
# `embed_dim` orthogonal keys, and widening $d_k$ beyond it buys nothing. The sweep therefore keeps
# $d_k$ at most `embed_dim`, and claim 1 uses only memories with $M\ge8d_k$. The information bound
# {eq}`eq-rvt-fano` does not bind here: even $d_k=2$ stores $2\cdot$`embed_dim` float64 numbers,
# thousands of bits, against the $M\log_2 V$ bits of the pairs at the largest $M$. Bit counting is
# the worst case over all RNNs; geometry is what a linear memory actually pays.
#
# ### IsTree: streaming with bounded memory versus search with retrieval

# %%
checker_err, dfs_err, dfs_cot, dfs_lookups, mem_bits = [], [], [], [], []
for n in lib.progress(tree_nodes, enabled=progress, desc="IsTree sizes"):
    graphs, truth = binary_graphs(n, tree_graphs)
    slots, bits = checker_slots(n)
    said = np.array([bounded_checker(g, n, slots) for g in graphs])
    runs = [dfs_with_retrieval(g, n) for g in graphs]
    checker_err.append(np.mean(said != truth))
    dfs_err.append(np.mean(np.array([r[0] for r in runs]) != truth))
    dfs_cot.append(max(r[1] for r in runs))
    dfs_lookups.append(max(r[2] for r in runs))
    mem_bits.append((slots, bits, 4 * math.ceil(math.log2(n))))
checker_err, dfs_err = np.array(checker_err), np.array(dfs_err)
checker_se = np.sqrt(np.maximum(checker_err * (1 - checker_err), 1e-12) / tree_graphs)
print(f"{tree_graphs} graphs per size, {np.mean(truth):.2f} of the last size are trees")
print(
    "  n | checker: slots  memory bits  error | DFS+retrieval: error  memory bits  "
    "max CoT records  max look-ups"
)
for i, n in enumerate(tree_nodes):
    slots, bits, dfs_bits = mem_bits[i]
    print(
        f"{n:4d} | {slots:14d}  {bits:11d}  {checker_err[i]:5.3f} | {dfs_err[i]:20.3f}"
        f"  {dfs_bits:11d}  {dfs_cot[i]:15d}  {dfs_lookups[i]:12d}"
    )
for n, err in zip(tree_nodes, checker_err):
    glue(f"rvt_checker_{n}", round(float(err), 2), display=False)
glue("rvt_dfs_graphs", tree_graphs * len(tree_nodes), display=False)
glue("rvt_dfs_errors", int(round(dfs_err.sum() * tree_graphs)), display=False)
glue("rvt_lookups_per_node", round(max(dfs_lookups) / tree_nodes[-1], 1), display=False)

# %% mystnb={"figure": {"caption": "Error rate on random hard IsTree instances against the number of nodes n. The one-pass checker with a fixed memory of checker_bits bits, a greedy table of nodes, is exact while its table holds every node and then errs on more of the non-trees; the depth-first search with retrieval, with 4 log2(n) bits of working memory, is never wrong. The dotted line marks n = 2 checker_bits, from which on the memory is below n/2 bits.", "name": "fig-rvt-istree"}} tags=["hide-input"]
fig, ax = lib.subplots()
ax.errorbar(
    tree_nodes,
    checker_err,
    yerr=2 * checker_se,
    fmt="o-",
    color="tab:red",
    capsize=3,
    label=f"one-pass checker ({checker_bits} bits), 2 s.e.",
)
ax.plot(tree_nodes, dfs_err, "s-", color="tab:purple", label="DFS with retrieval")
ax.axvline(2 * checker_bits, color="grey", ls=":", label="n = 2 checker_bits")
ax.set_xscale("log", base=2)
ax.set_xlabel("nodes in the graph, n")
ax.set_ylabel("error rate (fraction of graphs)")
ax.legend()
lib.show(fig)

# %% [markdown]
# In {numref}`fig-rvt-istree`, the checker's errors are all of one kind: a non-tree whose cycle
# closes through nodes it had no room to remember is called a tree. Since half the graphs are
# non-trees, its error creeps towards $1/2$ as $n$ outgrows its table. Below $n=$ `checker_bits`
# its memory is more than $n$ bits, enough for one bit per node, and a smarter policy than this
# greedy table (a side bit per node) would be exact there; so only the sizes $n\ge
# 2\cdot$`checker_bits`, where the memory is below $n/2$ bits, the regime of
# {prf:ref}`rvt-thm-istree`, carry claim 6. This is one streaming
# algorithm, so its failure illustrates the theorem without proving it: the theorem says that
# *every* one-pass reader with $o(n)$ bits fails. Given a memory that grows with $n$ (the control
# `growing-memory`), the same checker is exact at every size. The search writes $O(n)$ CoT records
# and makes at most {glue:}`rvt_lookups_per_node` look-ups per node, but carries only four numbers
# from step to step; it is what an RNN with CoT and retrieval can run. Without look-ups into its own
# CoT (the control `no-record-retrieval`) the same four numbers are not enough, and claim 5 fails
# (the controls table).
#
# ### Learned IsTree (`paper` preset)
#
# The default run skips this study (`learn_nodes` = 0). The `paper` preset trains every model in
# `learn_models` on the task modes in `learn_modes`, each to its plateau on batches of `learn_batch`
# graphs, and tests it on `learn_eval` fresh graphs; claims 7–9 read the table printed here. Only
# the models in `learn_retrieval_models` (the GRU) train on the retrieval mode: retrieval CoT is
# the paper's remedy for RNNs, no claim reads a Transformer trained on it, and its long traces make
# a Transformer's run there the costliest of the study.

# %%
learned = {}
glue("rvt_learn_graphs", learn_steps * learn_batch, display=False)
if learn_nodes:
    probe = [
        len(istree_sequence(e, t, m)[0])
        for m in learn_modes
        for e, t in zip(*binary_graphs(N, 500))
    ]
    max_len = int(max(probe) * 1.25) + 8
    grid = [
        (k, m)
        for k in learn_models
        for m in learn_modes
        if m != "retrieval" or k in learn_retrieval_models
    ]
    learn_taken = {}
    for kind, mode in lib.progress(grid, enabled=progress, desc="IsTree models"):
        model, learn_taken[kind, mode] = train_istree(kind, mode, max_len)
        learned[kind, mode] = istree_accuracy(model, mode, max_len)
    print(
        f"IsTree on {N} nodes, accuracy of the final answer ({learn_eval} graphs; "
        f"steps to the plateau, cap {learn_steps}, in brackets)"
    )
    print("  model      " + " ".join(f"{m:>14s}" for m in learn_modes))
    for kind in learn_models:
        row = " ".join(
            f"{learned[kind, m]:6.2f} ({learn_taken[kind, m]:5d})"
            if (kind, m) in learned
            else f"{'-':>14s}"
            for m in learn_modes
        )
        print(f"  {kind:10s} {row}")
else:
    print("learn_nodes = 0: the learned IsTree study runs in the paper preset")

# %% [markdown]
# ## What we reproduced
#
# Claim 1 compares attention with the best linear memory at the largest $M$, among the memories
# whose key width is small against it ($M\ge 8d_k$, where {prf:ref}`rvt-prop-welch` puts the mean
# squared crosstalk at 7 or more); it is the chapter's test, not the paper's, since the paper's bit
# bound does not bind at our state sizes. The linear memories are trained to their plateau, and
# with `n_keys` keys and $M$ up to {glue:}`rvt_m_last` even the largest of them fails well inside
# the sweep. Claim 2 tests the hybrid's combination: on the two-token format, at the largest $M$,
# the lag-1 shift under one attention layer must beat, by at least 0.5, the linear memory that
# claim 1 would pick at that $M$ (the widest swept $d_k$ with $M\ge8d_k$, trained to its plateau on
# the same format, the mean of its replicates). The 0.5 is half the range of accuracy, set in
# advance; the experiment prints the memory's replicates beside it. The claim checks the gap; that
# the hybrid *solves* recall is read off its own accuracy in {numref}`fig-rvt-hybrid`. Each part is
# taken away by a control: `no-recurrence` leaves the attention layer alone, `uniform-attention`
# leaves the shift with an attention that cannot look up, and the claim fails if the gain drops
# below 0.5. Claim 3 asks the failure point to grow by more than
# $\sqrt2$ per doubling of the state, halfway on a log scale between no growth and the
# proportional growth of {prf:ref}`rvt-prop-welch`. Claim 4 asks whether trained keys buy
# capacity: over $d_k\ge4$, the ratio of the trained memories' failure point (geometric mean over
# the replicates) to that of the random-keys reference of the same $d_k$ must be at least
# `KEY_MARGIN` on average (a geometric mean over the $d_k$). The margin follows a rule. Under the
# control
# `random-keys` all the memories of one $d_k$, trained and reference, have random keys: they are
# replicates of one method, and their spread in log failure point (pooled over $d_k\ge4$, printed
# under the failure-point table as the replicate spread) gives the standard deviation of the
# difference of two means of `rnn_replicates` replicates. The margin is the exponential of three
# such standard deviations at seed 0 under that control, rounded up to 0.05; every run prints the
# same rule applied to its own random-keys memories. A run without the control has only its
# reference memories with random keys, half as many, so its printed estimate has a third of the
# degrees of freedom and scatters more; the margin takes the control's, which contains them. It is the margin of one $d_k$, and an average
# of the log ratios over several $d_k$ has a standard deviation no larger than one of them,
# however they are correlated (the replicates of every $d_k$ share their training sequences), so
# the margin is on the safe side for the average. The trained memory and the reference of one
# replicate see the same training sequences, so their paired ratio scatters less than two
# independent memories would; the margin, taken from independent replicates, is on the safe side
# for that too. The claim is about the average: the claims cell prints which $d_k$ clear the margin
# on their own (here {glue:}`rvt_clear_dk`), and a $d_k$ whose ratio is below the margin has no
# established gain from learning at this number of replicates. The control's mean ratio is claim
# 4's value in the controls table. The smallest memory, $d_k=2$, is left
# out: it has too few key directions for learning to place them much better than chance, and its
# ratio (printed in the failure-point table) can fall below 1. Claim 5 is an implementation check:
# the search is exact by construction, and its $O(\log n)$ bits hold because the records are
# reachable only through the look-up (the control `no-record-retrieval` takes the look-up away).
# Claim 6 is the IsTree checker, tested only where its memory is below $n/2$ bits. Claims 7–9
# exist only when the learned IsTree study runs (the `paper` preset): the GRU's gain from CoT, the
# gap that CoT leaves between the GRU and the Transformer, and the GRU's gain from retrieval CoT,
# each against a margin of 0.15, three standard errors of a difference of two accuracies measured
# on the preset's `learn_eval` graphs. They are asserted only if the Transformer with CoT reaches
# `LEARNED_GATE` of the test graphs: below that the training (at most `learn_steps` x
# `learn_batch` graphs per model, a small fraction of the authors' 5M samples) has not learned the
# task, a comparison between models near chance says nothing about the paper, and the run prints
# that the claims are not tested at this budget.
# Two limits of these claims. The gate reads the same accuracy that claim 8 compares, so on a run
# near the gate it leans slightly towards claim 8 holding. And at `learn_nodes` nodes a two-layer
# GRU of width `learn_width` carries far more than $n$ bits of state: claim 8 is outside the
# $o(n)$ regime of the paper's theorem, and asks only whether this training finds what the
# Transformer finds, not whether a small state forbids it.

# %%
claims = lib.Claims(
    "rnns-vs-transformers-retrieval", paper="wen2025rnns", control=control
)
# claim 4's margin rule: exp(3 x the sd of the difference of two R-replicate mean
# log failure points), from the pooled replicate spread of the memories with random
# keys at d_k >= 4 under the control random-keys at seed 0 (`rule_margin` there),
# rounded up to 0.05
KEY_MARGIN = 1.3  # rule_margin under random-keys at seed 0 (sd 0.083, 9 dof)
LEARNED_GATE = 0.8  # Transformer with CoT: the budget has learned the task
# claim 1: only the memories whose key width is small against M (M >= 8 d_k)
crowded = [f"linear RNN, d_k {dk}" for dk in crowded_dk]
gap_last = (
    recall[att_name][-1] - max(recall[n][-1] for n in crowded) if crowded else math.nan
)
claims.add(
    f"at M = {pairs[-1]}, attention is at least 0.3 more accurate than every linear "
    f"RNN trained to its plateau with M >= 8 d_k (d_k up to "
    f"{max(crowded_dk, default=math.nan)}; attention minus best RNN)",
    gap_last,
    "- (the crosstalk proposition is the chapter's; the bit bound does not bind)",
    bool(gap_last >= 0.3),
    fmt="{:.2f}",
)
# not testable if no swept d_k qualifies under the default rule (as claim 1)
hybrid_gain = recall[hyb_name][-1] - recall[split_name][-1]
if not (hybrid_key_dim or crowded_dk):
    hybrid_gain = math.nan
claims.add(
    f"at M = {pairs[-1]}, two tokens per pair: a lag-1 shift under one attention "
    f"layer is at least 0.5 more accurate than the d_k {split_dk} linear RNN, "
    f"{split_rule} (hybrid minus memory)",
    hybrid_gain,
    "a recurrent layer plus one attention layer solves associative recall",
    bool(hybrid_gain >= 0.5),
    fmt="{:.2f}",
)
claims.add(
    "the linear RNN's failure point grows by more than sqrt(2) with every doubling "
    "of its state (smallest growth per doubling)",
    float(np.min(per_doubling)) if finite.all() else math.nan,
    "a larger state moves the failure point right (capacity bound)",
    bool(finite.all() and np.min(per_doubling) > math.sqrt(2)),
    fmt="{:.2f}",
)
# the d_k whose own ratio clears the margin (the claim asks it of the average only)
clear = [dk for dk, q in zip(rnn_key_dims, key_ratio) if dk >= 4 and q >= KEY_MARGIN]
print(f"d_k >= 4 whose own ratio clears {KEY_MARGIN}: {clear or 'none'}")
glue("rvt_clear_dk", ", ".join(map(str, clear)) or "none", display=False)
claims.add(
    "on average over d_k >= 4, the trained memories fail at an M at least "
    f"{KEY_MARGIN} times that of the random-keys reference of the same d_k "
    f"(geometric means over {R} replicates and over d_k)",
    mean_ratio,
    "-",
    bool(mean_ratio >= KEY_MARGIN),
    fmt="{:.2f}",
)
claims.add(
    f"implementation check: DFS with retrieval, carrying "
    f"{4 * math.ceil(math.log2(tree_nodes[-1]))} bits at most (4 ceil(log2 n)), "
    f"decides IsTree correctly on all {tree_graphs * len(tree_nodes)} graphs (errors)",
    int(round(dfs_err.sum() * tree_graphs)),
    "RNN + CoT + retrieval solves IsTree with O(log n) bits of state (Alg. 2)",
    bool(dfs_err.max() == 0),
    fmt="{:d}",
)
small = np.array(tree_nodes) >= 2 * checker_bits  # memory below n / 2 bits
small_err = float(checker_err[small].min()) if small.any() else math.nan
claims.add(
    f"at every n >= 2 x {checker_bits} (memory below n/2 bits), the greedy one-pass "
    f"checker with a fixed {checker_bits}-bit memory errs on at least 0.3 of the "
    "graphs (smallest error there)",
    small_err,
    "an RNN with o(n) bits of state, with or without CoT, cannot decide IsTree",
    bool(small.any() and small_err >= 0.3),
    fmt="{:.2f}",
)
if learned:
    rnn = "gru" if "gru" in learn_models else learn_models[0]
    att = "attention" if "attention" in learn_models else learn_models[-1]
    acc = {mode: learned.get((rnn, mode), math.nan) for mode in learn_modes}
    att_cot = learned.get((att, "cot"), math.nan)
    if att_cot >= LEARNED_GATE:
        cot_gain = acc.get("cot", math.nan) - acc.get("no_cot", math.nan)
        claims.add(
            f"learned IsTree ({N} nodes): CoT lifts the {rnn} by at least 0.15 over "
            "no CoT (gain in final-answer accuracy)",
            cot_gain,
            "CoT improves RNNs",
            bool(cot_gain >= 0.15),
            fmt="{:.2f}",
        )
        cot_gap = att_cot - acc.get("cot", math.nan)
        claims.add(
            f"learned IsTree: with CoT the {rnn} stays at least 0.15 below {att} with "
            "CoT (attention minus RNN)",
            cot_gap,
            "CoT is not enough: RNNs with CoT stay below Transformers",
            bool(cot_gap >= 0.15),
            fmt="{:.2f}",
        )
        gain = acc.get("retrieval", math.nan) - acc.get("no_cot", math.nan)
        claims.add(
            f"learned IsTree: retrieval CoT lifts the {rnn} by at least 0.15 over no "
            "CoT (gain in final-answer accuracy)",
            gain,
            "retrieval-augmented CoT lets RNNs solve IsTree",
            bool(gain >= 0.15),
            fmt="{:.2f}",
        )
    else:
        print(
            f"learned IsTree: not tested at this budget ({att} with CoT reaches "
            f"{att_cot:.2f} < {LEARNED_GATE}: the training budget does not learn "
            "the task, so the three learned claims are not asserted)"
        )
claims.report()

# %% [markdown]
# ```{controls-table}
# ```
#
# Each control removes one idea and must flip the claims it is listed against; run one with
# `make run CHAPTER=rnns-vs-transformers-retrieval CONTROL=uniform-attention` (or any name in the
# table). Claim 1's value is the gap itself, so under `uniform-attention` the table shows the
# attention model falling to the memories' level. Claim 2 has two controls, one per part of the
# hybrid: under `no-recurrence` it is one attention layer alone on the two-token format, under
# `uniform-attention` a shift under an attention that only averages, and under either the hybrid
# falls to the memory's level or below. Under `random-keys` both sets of memories have
# random keys and the ratio of claim 4 falls to about 1; under `fixed-state` the memories of the
# smallest $d_k$ stand for every state, so the failure point does not move and claim 3 fails on finite values.
#
# Over the recorded seeds (held / run; `seeds.csv`) the six claims hold on {seeds}`1:held`,
# {seeds}`2:held`, {seeds}`3:held`, {seeds}`4:held`, {seeds}`5:held` and {seeds}`6:held`. The gap
# of claim 1 is {seeds}`1`, the hybrid's gain {seeds}`2`, the smallest growth per doubling
# {seeds}`3`, the mean ratio of claim 4 {seeds}`4`, and the checker's error {seeds}`6`
# (mean ± sd). Claim 4's margin rests on the replicate spread of the random-keys memories at one
# seed (its degrees of freedom are printed with it); where the mean ratio falls below the margin
# the claim is recorded as it fell: a ratio between 1 and the margin is not distinguishable from
# replicate noise.
#
# ## How this compares with the paper
#
# | | paper | this chapter (default run, seed 0; seeds 0–9 in the claims table) |
# |---|---|---|
# | recall, RNN | an RNN with $o(M)$ bits of state cannot solve associative recall (proof) | linear memories fail at $M\approx$ {glue:}`rvt_fail_2`, {glue:}`rvt_fail_4`, {glue:}`rvt_fail_8`, {glue:}`rvt_fail_16` for $d_k$ = 2, 4, 8, 16 |
# | recall, Transformer | a constant-size Transformer solves it at every $M$ (proof) | 2-layer attention: at least {glue:}`rvt_att_min` at every $M$; the control `uniform-attention` closes the gap of claim 1 (controls table) |
# | recall, hybrid | a recurrent layer plus one appended attention layer solves associative recall (proof; Mamba + one LLaMA layer in experiments) | two tokens per pair, $M=$ {glue:}`rvt_m_last`: lag-1 shift + one attention layer {glue:}`rvt_hyb_last`, linear memory of key width {glue:}`rvt_split_dk` (the widest with $M\ge8d_k$) {glue:}`rvt_split_last` (claim 2, a gap of at least 0.5); the controls `no-recurrence` and `uniform-attention`, each removing one part, flip it |
# | state and capacity | needs $\Omega(M\log V)$ bits of state | failure point grows with the state (claim 3), and trained keys move it out by a factor of {glue:}`rvt_mean_ratio` on average over random orthonormal keys at $d_k\ge4$ (claim 4; the $d_k$ that clear the margin on their own: {glue:}`rvt_clear_dk`); `embed_dim` caps the useful $d_k$; the bit bound does not bind at float64 |
# | IsTree, RNN | $o(n)$-bit RNNs fail, with or without CoT (proof) | one-pass checker with {glue:}`rvt_checker_bits` bits: error {glue:}`rvt_checker_128`, {glue:}`rvt_checker_256` at $n$ = 128, 256 (memory below $n/2$ bits) |
# | IsTree, retrieval | RNN + CoT + retrieval solves it with $O(\log n)$ state (Algorithm 2, proof) | DFS with retrieval: {glue:}`rvt_dfs_errors` errors on {glue:}`rvt_dfs_graphs` graphs, $4\lceil\log_2 n\rceil$ bits |
# | learned IsTree | Mamba below LLaMA without and with CoT; retrieval CoT and the hybrid reach LLaMA (Figures 2 and 4; numbers not in our notes) | `paper` preset only (claims 7–9, asserted only once the Transformer with CoT reaches `LEARNED_GATE`): `learn_nodes` nodes, a GRU and a two-block Transformer, each trained to its plateau (at most `learn_steps` x `learn_batch` = {glue:}`rvt_learn_graphs` training graphs); recorded preset: claim 7 {paper-preset}`7` (fails), 8 {paper-preset}`8`, 9 {paper-preset}`9` |
# | HotPotQA | retrieval gap on 350 validation questions with pretrained models | not run (pretrained checkpoints) |
#
# **Recall.** The paper proves its separation for the worst case and for bits; we see it in trained
# models and in numbers. The linear recurrent memory degrades smoothly with $M$, and the $M$ at
# which it drops below `fail_accuracy` grows with its state (claim 3), and trained keys move it out
# by a factor over random orthonormal keys at $d_k\ge4$ (claim 4) that shrinks as $d_k$ nears
# `embed_dim`, so that the gain is established on average, not at every $d_k$. The paper's information bound {eq}`eq-rvt-fano` is far from binding,
# because our float64 states hold thousands of bits.
#
# Our recall experiment differs from the authors' code in three ways besides the models. (i) The
# authors score a model by teacher-forced exact match of every supervised token; we score the
# greedy answer to the query, the only supervised token of a recall sequence (and, in the learned
# IsTree study, the final answer after greedy generation of the whole CoT, which is stricter: an
# early mistake is not corrected by the teacher). (ii) The authors' models read one token per
# symbol with frozen sinusoidal embeddings; ours read one token per key–value pair with frozen
# random embeddings, which makes recall easier for every model alike; the hybrid's test reads two
# tokens per pair, as theirs do, though a key and a value still fill different halves of the
# token, which the authors' single vocabulary does not. The hybrid's recurrent layer is a lag-1
# shift, whose state is the previous token: an RNN in the sense of {prf:ref}`rvt-def-rnn`, and the
# smallest one that makes the construction work, where the authors stack Mamba blocks. (iii) The parameter budgets
# are not matched (the numbers are printed above the recall figure); the authors compare models of
# equal budget, from 125k parameters up.
#
# **IsTree.** The authors' code trains networks; our default run tests the two algorithms that the
# proofs are about. The one-pass checker fails as the communication argument says it must once its
# fixed memory is small against $n$: it misses the cycles that close through forgotten nodes, so
# its error climbs towards $1/2$ (half the graphs are non-trees). The depth-first search never errs,
# with $4\lceil\log_2 n\rceil$ bits of working memory, at the price of $O(n)$ CoT records and
# look-ups. The learned study with the three task modes (no CoT, CoT, retrieval CoT) is in the
# `paper` preset. It re-implements the authors' data format with GRUs for Mamba, with two
# differences in how edges are written: the authors write every edge larger id first, `u-v`, with
# separator tokens, and we write its two ends in a random order, without separators. Each model
# trains to its plateau, at most `learn_steps` steps of `learn_batch` graphs (in `paper.yaml`),
# against the authors' 5M samples.
#
# **The `paper` preset** (recorded in {paper-preset}`runtime` on two CPU cores) recalls from twice
# the default's keys, with $d_k$ up to `embed_dim`, and runs the learned study. Claims 1, 2, 5 and 6
# hold there ({paper-preset}`1`, {paper-preset}`2`, {paper-preset}`5` errors, {paper-preset}`6`).
# Claims 3 and 4 do not. One trained replicate of the narrowest memory, $d_k=2$, errs already at
# $M=1$, where a memory can err only on keys whose query scores them negatively; that memory has no
# failure point, so claim 3 is not testable ({paper-preset}`3`). And with the larger key vocabulary,
# learned keys gain less over random orthonormal ones: claim 4's mean ratio is {paper-preset}`4`,
# below the margin, so the gain from learning seen in the default run does not carry over to this
# setting. In the learned study the Transformer with CoT clears the gate. CoT leaves the GRU far
# below it (claim 8, {paper-preset}`8`), and retrieval CoT lifts the GRU over no CoT (claim 9,
# {paper-preset}`9`), as the paper finds. But CoT alone does not lift the GRU at all (claim 7,
# {paper-preset}`7`): at this budget the GRU with CoT does no better than guessing, so "CoT
# improves RNNs" is not reproduced here. Every learned model ran to the step cap (the table in the
# preset's run), so the budget, not the plateau rule, ended their training.
#
# ## Try it
#
# * `python -m lib.build run rnns-vs-transformers-retrieval -p checker_bits=512` gives the
#   one-pass checker four times the memory: its table then holds every node up to a larger $n$, its
#   failure moves right, and the search with retrieval stays at zero errors.
# * `python -m lib.build run rnns-vs-transformers-retrieval -p hybrid_key_dim=32` compares the
#   hybrid with a memory as wide as `embed_dim`, whose keys are less crowded at the largest $M$
#   ($M=4d_k$): how much of claim 2's gap is left? Claim 2 takes its memory by claim 1's rule
#   ($M\ge 8d_k$), a state small against the context, as in the paper's theorem, where the state
#   is fixed and $M$ grows; `-p "pairs=[1,2,4,8,16,32,64,128,256]" n_keys=256` then asks the same
#   question one doubling of $M$ later.
# * `-p plateau_tol=0.002 rnn_max_steps=20000`: a stricter plateau for the linear memories. Does
#   the gap of claim 1 stay above 0.3, and does every memory still fail inside the grid of $M$
#   (claims 3 and 4)?
# * `-p rnn_replicates=4` trains four replicates of every memory instead of two: the replicate
#   spread printed under the failure-point table tightens, and the margin its rule would give
#   shrinks with it.
# * `-p "rnn_key_dims=[2,4,8,128]"` adds a memory with $d_k$ = `n_keys`, as many key directions
#   as keys: it still fails well before the largest $M$, because `embed_dim` caps the rank of its
#   scores (claim 1 leaves it out, since $M<8d_k$).
# * `-p control=uniform-attention`, `no-recurrence`, `fixed-state`, `random-keys`,
#   `no-record-retrieval` or `growing-memory`: each removes one idea, as the controls table says.
