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
# # Factual recall in transformers via associative memories
#
# ```{admonition} In this chapter
# :class: tip
# {cite:t}`nichani2025factual` ask how many facts a shallow transformer can store, and answer
# with *associative memories*: weight matrices that map an input embedding to an output
# embedding. They prove that a linear memory stores about $d^2$ associations (up to a log), an
# MLP memory about $m\cdot d$, and that a one-layer transformer can put its facts in either the
# attention values or the MLP. They also show that gradient descent learns the *relation* of a
# query before its *subject*. We measure the capacities by training, test the scaling laws
# against deliberately wrong alternatives, train small one-layer transformers that store 64
# facts in their attention or in their MLP, count the facts a transformer stores against its
# attention parameters, and watch the two-stage learning happen. The default run takes about a
# minute of one CPU core. At that scale the linear memory's capacity follows $N\propto d^{1.5}$
# more closely than the paper's $N\log N\propto d^2$, which the claims table records as not
# reproduced (a pre-asymptotic finding); everything else reproduces. `make run
# CHAPTER=factual-recall-associative-memories PRESET=paper` runs the authors' sizes (dimensions
# up to 256, the full transformer grid), which needs a GPU.
# ```
#
# ## The question
#
# A language model that answers "The capital of France is" with "Paris" has stored a fact. If a model
# stores facts in its weights, how many can it hold per parameter, and which parts of a transformer hold
# them? Trained language models have been measured to store a roughly constant number of bits per
# parameter {cite:p}`allenzhu2025physics`. The paper's answer to *how*: each weight matrix works as a
# lookup table written in superposition, an associative memory {cite:p}`cabannes2024scaling`. A
# $d\times d$ matrix can hold about $d^2/\log$ input–output pairs, an MLP with $m$ hidden units about
# $md/\log$ pairs, so storage is linear in parameter count, and a transformer can trade attention
# parameters against MLP parameters. And in training, the model first learns *which kind of answer* a
# question asks for (the relation) and only later *which one* (the subject): for a while it answers with
# a plausible but wrong fact.
#
# ## The setting and the theorem
#
# ### Associative memories
#
# ```{prf:definition} Linear associative memory
# :label: far-def-linear-am
#
# Let $e_1,\dots,e_N\in\mathbb{R}^d$ be input embeddings, $u_1,\dots,u_M\in\mathbb{R}^d$ output embeddings
# and $f^*:[N]\to[M]$ the associations to store. A matrix $W\in\mathbb{R}^{d\times d}$ *stores* $f^*$ if for
# every $x$
#
# $$
# f^*(x) = \arg\max_{y\in[M]} \; u_y^\top W e_x .
# $$ (eq-far-store)
#
# The *outer-product* (Hebbian) memory is $W_{\mathrm{op}}=\sum_{x=1}^N u_{f^*(x)} e_x^\top$; a *trained*
# memory minimises the cross-entropy of the softmax over the scores $u_y^\top W e_x$.
# ```
#
# ```{prf:assumption} Random embeddings
# :label: far-ass-random
#
# The $e_x$ and $u_y$ are independent and uniform on the unit sphere of $\mathbb{R}^d$. Then
# $e_x^\top e_{x'}$ and $u_y^\top u_{y'}$ ($x\ne x'$, $y\ne y'$) are centred with variance $1/d$.
# ```
#
# Throughout we store $M=N$ associations with $f^*(x)=x$ (distinct outputs, the hardest case used in the
# paper's code).
#
# ```{prf:theorem} Storage capacity of a linear memory (informal)
# :label: far-thm-linear
#
# Under {prf:ref}`far-ass-random` there is, with high probability, a $W\in\mathbb{R}^{d\times d}$ that stores
# all $N$ associations as soon as $d^2 \gtrsim N$ up to logarithmic factors; conversely no memory with
# $d^2$ parameters of bounded precision stores more than $\tilde O(d^2)$ arbitrary associations.
# Empirically the largest storable $N$ follows $N\log N \propto d^2$.
# ```
#
# ```{prf:proof}
# *A signal-to-noise sketch for the outer-product memory.* With $W_{\mathrm{op}}$ the score of a candidate $y$ for input $x$ is
# $s_{xy} = \sum_{i} (u_y^\top u_i)(e_i^\top e_x)$. For the right answer $y=x$ the term $i=x$ gives the
# signal $\lVert u_x\rVert^2\lVert e_x\rVert^2 = 1$. For a wrong $y$ there are two cross-talk terms of
# size $d^{-1/2}$ ($i=x$ gives $u_y^\top u_x$, $i=y$ gives $e_y^\top e_x$), and every other $i$ adds an
# independent product of two $d^{-1/2}$ overlaps, so
#
# $$
# \operatorname{Var}(s_{xy}) \approx \frac{2}{d} + \frac{N}{d^2}.
# $$ (eq-far-noise)
#
# The right score is noisy too: $s_{xx} = 1 + \sum_{i\ne x}(u_x^\top u_i)(e_i^\top e_x)$ has variance
# $\approx N/d^2$, so each margin $s_{xx}-s_{xy}$ has mean $1$ and variance $\approx 2/d + 2N/d^2$.
# The input is recalled when the smallest of its $N-1$ nearly Gaussian margins stays positive, i.e.
# $\sqrt{2\log N\,(2/d + 2N/d^2)} < 1$. Once $N\gg d$ this reads $N\log N \lesssim d^2/4$: the capacity
# grows like $d^2$ up to the $\log N$ that a maximum over $N$ competitors costs. (The $N-1$ margins
# share the noise of $s_{xx}$, so treating them as independent is conservative: that shared term is of
# lower order than the maximum, and as $\log N\to\infty$ the constant creeps up towards $d^2/2$. Leaving
# the right score's noise out altogether gives $d^2/2$ at once.)
# ```
#
# Why should a *trained* $W$ do better? Storing means {eq}`eq-far-store` holds for every $x$. The outer
# product adds every association with weight one and
# never looks at the cross-talk; a trained $W$ solves a margin problem, $u_{x}^\top W e_x > u_{y}^\top W e_x$
# for all $y\ne x$, that has $d^2$ free parameters. It can cancel the structured $d^{-1/2}$ cross-talk
# (which dominates at small $d$) and spend its budget only on the competitors that come close. The
# scaling is the same, $d^2$ up to a log, but the constant is larger, and it is much larger at the small
# $d$ we can afford.
#
# ```{prf:definition} MLP associative memory
# :label: far-def-mlp-am
#
# An MLP memory of width $m$ maps $e_x$ to
# $F(e_x) = V^\top \sigma(W_1 e_x + b)$ with $W_1, V\in\mathbb{R}^{m\times d}$, $b\in\mathbb{R}^m$ and
# $\sigma$ the ReLU, and recalls $\arg\max_y u_y^\top F(e_x)$. It has $2md+m$ parameters.
# ```
#
# ```{prf:theorem} Storage capacity of an MLP memory (informal)
# :label: far-thm-mlp
#
# Under {prf:ref}`far-ass-random` (and $m$, $d$ large enough in a polylogarithmic sense), an MLP memory of
# width $m$ stores $N$ arbitrary associations as soon as $md \gtrsim N$ up to logarithmic factors. Since
# the parameter count is $\approx 2md$, storage is again linear in parameters.
# ```
#
# ```{prf:proof}
# *A heuristic.* Write $\phi(e)=\sigma(W_1 e+b)\in\mathbb{R}^m$. The score $u_y^\top V^\top\phi(e_x)$ is *linear* in $V$
# with feature $\phi(e_x)\otimes u_y\in\mathbb{R}^{md}$. The outer-product choice
# $V=\sum_i \phi(e_i)u_{i}^\top/\lVert\phi\rVert^2$ gives the score
# $\sum_i (u_y^\top u_i)\,\kappa(e_i,e_x)$, with $\kappa$ the normalised feature kernel. If the activation
# makes $\kappa(e_i,e_x)$ for $i\ne x$ of order $m^{-1/2}$ (its mean can be made small, of order
# $d^{-k/2}$, by an activation whose low Hermite coefficients vanish), the noise variance is
# $N\cdot\frac1d\cdot\frac1m$, and the same maximum-of-$N$ argument as above gives $N\log N\lesssim md$.
# Training the first layer, as we do, can only help. The paper's proof is a careful version of this
# construction; we test the scaling, not the constant.
# ```
#
# ### The factual recall task and the one-layer transformer
#
# ```{prf:definition} Synthetic factual recall
# :label: far-def-task
#
# There are $S$ subjects, $R$ relations, and for each relation $r$ a block $\mathcal{A}_r$ of $D$ answers
# ($RD$ answers in all). A fact table $a^*(s,r)\in\mathcal{A}_r$ fixes the answer of every
# (subject, relation) pair: $SR$ facts. A sequence of length $T$ is filled with noise tokens; the subject
# and the relation sit at two random positions and the last token is an end-of-sequence token EOS. The
# target is $a^*(s,r)$.
# ```
#
# The model the paper analyses is one layer of multi-head self-attention in which only the last (EOS)
# position queries, followed by a residual MLP of width $m$ and a fixed unembedding. The attention
# picks out the subject and relation tokens among the noise; then the facts must be stored somewhere:
#
# ```{prf:theorem} Attention or MLP can store the facts (informal)
# :label: far-thm-tradeoff
#
# With random embeddings in dimension $d$ (larger than a polylog of $S,R,D,T$), a one-layer transformer
# with $H$ heads of dimension $d_h$ and an MLP of width $m$ reaches 100% accuracy on
# {prf:ref}`far-def-task` as soon as **either** the attention parameters $H d_h d$ **or** the MLP
# parameters $md$ exceed $SR$ up to logarithmic factors. In the first case the value–output matrices act
# as linear associative memories from $(s,r)$ to the answer; in the second the attention only forwards
# $e_s+e_r$ and the MLP is the memory. A matching information-theoretic lower bound says that
# $\tilde\Omega(SR)$ parameters are necessary.
# ```
#
# ### Sequential learning
#
# For the training dynamics the paper simplifies the model: one-hot (orthogonal) embeddings of the
# $V_{\mathrm{voc}} = S+R+N_{\text{noise}}+1$ tokens, *linear* attention, and only the EOS query. With
# $A\in\mathbb{R}^{V_{\mathrm{voc}}\times V_{\mathrm{voc}}}$ and values $W_V\in\mathbb{R}^{V_{\mathrm{voc}}\times RD}$ the logits at EOS are
#
# $$
# \ell(z_{1:T}) = \sum_{t=1}^T \big(x_T^\top A\, x_t\big)\, W_V^\top x_t
# = \sum_{z} c_z\, a_z\, w_z ,
# $$ (eq-far-logits)
#
# where $c_z$ counts token $z$ in the sequence, $a_z = A_{\mathrm{EOS},z}$ and $w_z$ is row $z$ of $W_V$:
# each token contributes a vote $a_z w_z$, weighted by its count. Two diagnostic losses split the
# cross-entropy: the **relation-only** loss $-\log \sum_{a\in\mathcal{A}_{r}} p(a)$ (is the answer in the
# right block?) and the **subject-only** loss $-\log \sum_{r'} p(\text{the answer at the same position in
# block } r')$ (is the right index chosen within a block?).
#
# ```{prf:theorem} Sequential learning (informal)
# :label: far-thm-sequential
#
# Under gradient flow from a small initialisation the model first learns the relation: the relation-only
# loss falls to nearly zero while the model predicts *uniformly over the correct answer block* (the
# subject-only loss stays at $\log D$). Only afterwards does the subject-only loss fall and the model
# recall the fact. The intermediate stage is a "hallucination": the answer has the right type but is
# not the stored fact.
# ```
#
# Why relation first? From a small initialisation each pair $(a_z, w_z)$ of {eq}`eq-far-logits` grows like a two-layer linear
# network, at a rate set by the correlation $g_z=\mathbb{E}[c_z(e_{y}-p)]$ of its token with the target.
# At initialisation $p$ is uniform over all $RD$ answers; a relation token occurs in a fraction $1/R$ of
# the sequences and moves the target to a block of $D$ answers, a subject token occurs in a fraction $1/S$
# and moves the target to $R$ answers spread over the blocks. So
#
# $$
# \lVert g_{\text{rel}}\rVert = \frac1R\sqrt{\frac{R-1}{RD}}, \qquad
# \lVert g_{\text{subj}}\rVert = \frac1S\sqrt{\frac{D-1}{RD}},
# $$ (eq-far-rates)
#
# and with the default $S$, $R$ and $D$ the relation rate in {eq}`eq-far-rates` is
# {glue}`seq_rate_ratio` times larger. Escape times from a small
# initialisation scale like $\log(1/\text{init})/\text{rate}$, so the relation escapes first, by a wide
# margin in steps.
#
# ```{note}
# **Where we depart from the paper.** The default run has to fit in about a minute of one CPU
# core, so: (i) the linear memory stops at $d=32$ (the authors' code goes to $2^8$) and trains
# for 150 full-batch Adam steps at learning rate 3 with early stopping; (ii) the MLP memory grows
# $d$ from 8 to 16 with $m=d$ (the authors go further) and trains at the authors' learning rate
# $3\cdot10^{-2}$ for `mlp_steps` = 600 steps instead of up to $2^{15}$; the page prints how
# far that budget is from a longer one; (iii) the sequential-learning run uses sequences of
# length 16 (the code uses 32) and plain gradient descent with step size 1 instead of 0.1 (this
# only rescales time); (iv) the one-layer softmax transformer runs at a reduced size ($S=R=8$,
# $d=16$, $d_h=4$, $T=8$, 1000 Adam steps, a $2\times2$ grid of heads and MLP widths) instead of
# the authors' $S=R=32$, $d=32$, $d_h=8$, $T=32$, and its facts-against-parameters curve counts
# the facts stored in one table of $16\times16$ facts instead of searching over $SR$. The
# `paper` preset runs the authors' sizes and grid. All code is our own torch re-implementation
# of the settings of the authors' JAX code.
# ```
#
# ## The algorithm

# %% tags=["parameters"]
seed = 0
device = "cpu"
control = "none"  # or a deliberately wrong variant named in controls.yaml
# linear associative memory: dimensions, replicates, full-batch Adam budget
am_dims = [8, 11, 16, 22, 32]
am_seeds = 8
am_steps = 150
am_lr = 3.0
# MLP associative memory: input dimensions d, width m = mlp_alpha * d,
# replicates, budget
mlp_dims = [8, 11, 16]
mlp_alpha = 1.0
mlp_seeds = 3
mlp_steps = 600
mlp_lr = 0.03  # the authors' rate
# capacity against the step budget (at d = mlp_dims[0]), up to this many steps
mlp_budget_max = 1600
# a memory "stores" N associations when at least this fraction is recalled
capacity_threshold = 0.99
# bisection stops when hi / lo <= 1 + capacity_rel_tol
capacity_rel_tol = 0.02
# sequential learning: task sizes and gradient descent
seq_subjects = 16
seq_relations = 4
seq_answers_per_relation = 8
seq_noise_tokens = 20
seq_len = 16
seq_steps = 600
seq_lr = 1.0
seq_batch = 256
seq_init = 1e-5
seq_replicates = 3
seq_eval_every = 10  # crossing times are interpolated between evaluations
# one-layer softmax transformer on the recall task: a grid of heads H x MLP widths m
tf_subjects = 8
tf_relations = 8
tf_answers_per_relation = 8
tf_noise_tokens = 32
tf_seq_len = 8
tf_dim = 16
tf_head_dim = 4
tf_heads = [2, 8]  # the first is the small attention, the last the large one
tf_widths = [0, 128]  # must start at 0 (no MLP)
# facts against parameters: attention-only models with these head counts, S = R
tf_cap_heads = [1, 2, 4, 8]
tf_cap_replicates = 2  # models per head count, each on its own table
tf_cap_subjects = 16
tf_steps = 1000
tf_batch = 128
tf_lr = 0.01  # Adam, decayed linearly to 0
tf_eval_contexts = 16  # fresh contexts per fact in the test
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
from matplotlib.ticker import NullFormatter, ScalarFormatter
from myst_nb import glue
from scipy.optimize import brentq

lib.check_int_list("am_dims", am_dims, low=2, high=4096, increasing=True, min_len=3)
lib.check_int("am_seeds", am_seeds, low=2)
lib.check_int("am_steps", am_steps, low=1)
lib.check_float("am_lr", am_lr, low=0, low_open=True)
lib.check_int_list("mlp_dims", mlp_dims, low=2, high=256, increasing=True, min_len=3)
lib.check_float("mlp_alpha", mlp_alpha, low=1, high=16)  # the MLP has >= 2d^2 params
lib.check_int("mlp_seeds", mlp_seeds, low=2)
lib.check_int("mlp_steps", mlp_steps, low=10)
lib.check_int("mlp_budget_max", mlp_budget_max, low=mlp_steps)
lib.check_float("mlp_lr", mlp_lr, low=0, low_open=True)
lib.check_float("capacity_threshold", capacity_threshold, low=0.5, high=1.0)
lib.check_float("capacity_rel_tol", capacity_rel_tol, low=0, high=1.0, low_open=True)
lib.check_int("seq_subjects", seq_subjects, low=2)
lib.check_int("seq_relations", seq_relations, low=2)
lib.check_int("seq_answers_per_relation", seq_answers_per_relation, low=2)
lib.check_int("seq_noise_tokens", seq_noise_tokens, low=1)
lib.check_int("seq_len", seq_len, low=4)
lib.check_int("seq_steps", seq_steps, low=10)
lib.check_float("seq_lr", seq_lr, low=0, low_open=True)
lib.check_int("seq_batch", seq_batch, low=1)
lib.check_float("seq_init", seq_init, low=0, high=0.1, low_open=True)
lib.check_int("seq_replicates", seq_replicates, low=2)
lib.check_int("seq_eval_every", seq_eval_every, low=1, high=seq_steps)
lib.check_int("tf_subjects", tf_subjects, low=1)
lib.check_int("tf_relations", tf_relations, low=1)
lib.check_int("tf_answers_per_relation", tf_answers_per_relation, low=1)
lib.check_int("tf_noise_tokens", tf_noise_tokens, low=1)
lib.check_int("tf_seq_len", tf_seq_len, low=4)
lib.check_int("tf_dim", tf_dim, low=2)
lib.check_int("tf_head_dim", tf_head_dim, low=1)
lib.check_int_list("tf_heads", tf_heads, low=1, increasing=True, min_len=2)
lib.check_int_list("tf_widths", tf_widths, low=0, increasing=True, min_len=2)
if tf_widths[0] != 0:
    raise ValueError(
        f"parameter `tf_widths` = {tf_widths} is invalid: it must start at 0 (no MLP)"
    )
lib.check_int("tf_steps", tf_steps, low=1)
lib.check_int("tf_batch", tf_batch, low=1)
lib.check_float("tf_lr", tf_lr, low=0, low_open=True)
lib.check_int("tf_eval_contexts", tf_eval_contexts, low=1)
lib.check_int_list("tf_cap_heads", tf_cap_heads, low=1, increasing=True, min_len=3)
lib.check_int("tf_cap_replicates", tf_cap_replicates, low=1)
lib.check_int("tf_cap_subjects", tf_cap_subjects, low=2)
lib.check_bool("progress", progress)
control = lib.check_control("factual-recall-associative-memories", control)
rng, device = lib.setup(seed, device)
torch_gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
t_start = time.perf_counter()


# %% [markdown]
# ### Memories, vectorised over replicates
#
# Every capacity experiment stores the identity map $f^*(x)=x$ between $N$ random unit input embeddings and
# $N$ random unit output embeddings. We draw, per replicate, one pool of embeddings and always store its
# first $N$, so the problems at different $N$ are nested. All replicates train at once as a batch of
# matrices; a replicate that needs fewer than the largest $N$ in the batch masks the rest out (its extra
# rows carry no loss, its extra output columns get score $-\infty$).
# The memories train in float64. A capacity is a threshold decision taken after thousands of Adam
# steps, and in float32 the last-bit differences between CPUs (another BLAS kernel, another vector
# width) can move a replicate's capacity by a bisection step; in float64 they stay far below any
# decision the bisection takes.

# %%
def unit_embeddings(n_reps, n, d):
    """n_reps pools of n random unit vectors in R^d (float64, on `device`)."""
    x = torch.randn(n_reps, n, d, generator=torch_gen, dtype=torch.float64)
    return (x / x.norm(dim=-1, keepdim=True)).to(device)


def recall_masks(n_stored, n_max):
    """Row weights (1/N on stored inputs) and a -inf bias on the outputs beyond each
    replicate's N."""
    stored = torch.arange(n_max, device=device)[None, :] < n_stored[:, None]
    weights = stored.to(torch.float64) / n_stored[:, None].to(torch.float64)
    output_bias = torch.zeros(
        stored.shape, dtype=torch.float64, device=device
    ).masked_fill(~stored, -math.inf)[:, None, :]
    return weights, output_bias


def recall_loss(scores, weights):
    """Cross-entropy of recalling input x as output x (the diagonal), summed over
    replicates."""
    log_p = torch.log_softmax(scores, dim=-1)
    return -(log_p.diagonal(dim1=1, dim2=2) * weights).sum()


def recall_accuracy(scores, weights):
    """Fraction of the stored inputs whose top-scoring output is their own, per
    replicate."""
    hits = scores.argmax(-1) == torch.arange(scores.shape[1], device=device)[None, :]
    return (hits * weights).sum(1)


def train_memory(scores_fn, params, lr, steps, weights):
    """Full-batch Adam on the recall loss, stopping early once every replicate has
    stored its N, as the authors' code does. Returns the best accuracy seen (checked
    every 10 steps) and the first checked step at which each replicate stored its N
    (inf if never)."""
    opt = torch.optim.Adam(params, lr=lr)
    best = torch.zeros(weights.shape[0], dtype=torch.float64, device=device)
    first_hit = torch.full_like(best, math.inf)
    for step in range(steps + 1):
        scores = scores_fn()
        if step % 10 == 0 or step == steps:
            best = torch.maximum(best, recall_accuracy(scores.detach(), weights))
            stored = best >= capacity_threshold
            first_hit = torch.where(stored & first_hit.isinf(), float(step), first_hit)
            if step == steps or bool(stored.all()):
                return best, first_hit
        opt.zero_grad()
        recall_loss(scores, weights).backward()
        opt.step()


# %% [markdown]
# The three memories of the derivation: the trained linear memory (scores $u_y^\top W e_x$), the outer
# product $W_{\mathrm{op}}=\sum_{x\le N} u_x e_x^\top$ (no training), and the MLP memory
# (scores $u_y^\top V^\top \mathrm{ReLU}(W_1e_x+b)$, standard $1/\sqrt{\text{fan-in}}$ initialisation).

# %%
def linear_memory_accuracy(E, U, n_stored):
    """Train W (d x d, from zero) with full-batch Adam; return the recall accuracy
    per replicate."""
    n_reps, n_max, d = E.shape
    weights, output_bias = recall_masks(n_stored, n_max)
    W = torch.zeros(
        n_reps, d, d, dtype=torch.float64, device=device, requires_grad=True
    )
    U_t = U.transpose(1, 2)
    return train_memory(
        lambda: E @ W @ U_t + output_bias, [W], am_lr, am_steps, weights
    )[0]


def outer_product_accuracy(E, U, n_stored):
    """W_op = sum_{x <= N} u_x e_x^T, no training."""
    weights, output_bias = recall_masks(n_stored, E.shape[1])
    stored = (weights > 0).to(torch.float64)[..., None]
    W_op_t = (E * stored).transpose(1, 2) @ (U * stored)  # (W_op)^T = sum_x e_x u_x^T
    return recall_accuracy(E @ W_op_t @ U.transpose(1, 2) + output_bias, weights)


def mlp_memory_accuracy(E, U, n_stored, in_dim, width, steps):
    """Train one ReLU MLP per problem with full-batch Adam for at most `steps` steps.

    Problems of different input dimension d and width m share one batch: E and U are
    zero-padded beyond each problem's d (so the padded rows of W1 and columns of V never
    act), and hidden units beyond its m start with zero weights in and out: their ReLU
    input is 0, so their gradients are 0 and Adam never moves them (they stay off).
    Returns train_memory's pair."""
    n_reps, n_max, d_max = E.shape
    m_max = int(width.max())
    weights, output_bias = recall_masks(n_stored, n_max)
    hidden = torch.arange(m_max)[None, :] < width.cpu()[:, None]  # (problems, m_max)
    hidden = hidden.to(torch.float64)
    W1 = torch.randn(n_reps, d_max, m_max, generator=torch_gen, dtype=torch.float64)
    W1 = W1 * hidden[:, None, :] / in_dim.cpu().double().sqrt()[:, None, None]
    W1 = W1.to(device).requires_grad_()
    b = torch.zeros(
        n_reps, 1, m_max, dtype=torch.float64, device=device, requires_grad=True
    )
    V = torch.randn(n_reps, m_max, d_max, generator=torch_gen, dtype=torch.float64)
    V = V * hidden[:, :, None] / width.cpu().double().sqrt()[:, None, None]
    V = V.to(device).requires_grad_()
    U_t = U.transpose(1, 2)

    act = torch.relu
    if control == "linear-mlp":  # the identity: one linear map of rank <= min(m, d)
        act = torch.nn.Identity()

    def scores():
        return act(E @ W1 + b) @ V @ U_t + output_bias

    return train_memory(scores, [W1, b, V], mlp_lr, steps, weights)


# %% [markdown]
# The capacity of a memory is the largest $N$ it stores at accuracy $\ge$ `capacity_threshold`. We find
# it by a bisection on a log scale, run for all replicates at once: each replicate keeps its own bracket
# $[N_{\mathrm{lo}}, N_{\mathrm{hi}}]$ ($N_{\mathrm{lo}}$ stored, $N_{\mathrm{hi}}$ not), all are trained in one batch at their
# geometric midpoints, and the search stops when every bracket is narrower than a factor
# $1+$`capacity_rel_tol`. It starts from an $N_{\mathrm{lo}}$ that is always storable,
# $N_{\mathrm{lo}}=d$ (the $e_x$ are then linearly independent, so some $W$ maps every $e_x$ exactly to $u_x$;
# an MLP of width $m$ can do the same for $N\le\min(m,d)$ in its linear regime, with a large bias), and a generous $N_{\mathrm{hi}}$; if some replicate never fails below $N_{\mathrm{hi}}$ the search stops with an error
# rather than report a capacity capped by the bracket.

# %%
def capacity(accuracy_fn, n_low, n_high):
    """Largest N with accuracy >= capacity_threshold, per problem, by batched
    log-bisection.

    n_low, n_high: integer tensors, one bracket per problem (n_low must be storable)."""
    lo, hi = n_low.clone(), n_high.clone()
    active = (hi > lo * (1 + capacity_rel_tol)) & (hi - lo > 1)
    while bool(active.any()):
        mid = torch.sqrt(lo * hi.to(torch.float64)).round().long()
        mid = torch.where(active, torch.minimum(torch.maximum(mid, lo + 1), hi - 1), lo)
        ok = accuracy_fn(mid).cpu() >= capacity_threshold
        lo = torch.where(active & ok, mid, lo)
        hi = torch.where(active & ~ok, mid, hi)
        active = (hi > lo * (1 + capacity_rel_tol)) & (hi - lo > 1)
    if bool((hi == n_high).any()):
        raise RuntimeError(
            "a capacity reached the top of its search bracket; raise the bracket"
        )
    return lo.numpy()


# %% [markdown]
# ## The experiment
#
# ### Linear associative memory: capacity against $d^2$
#
# For each $d$ we draw `am_seeds` pools of embeddings and find the capacity of the trained and of the
# outer-product memory on the same embeddings.

# %%
cap_trained, cap_outer = [], []
for d in lib.progress(am_dims, enabled=progress, desc="linear memory, d"):
    n_high = d * d // 2  # the upper end of the authors' bracket
    E, U = unit_embeddings(am_seeds, n_high, d), unit_embeddings(am_seeds, n_high, d)

    def on_prefix(fn):
        return lambda n: fn(E[:, : int(n.max())], U[:, : int(n.max())], n.to(device))

    top = torch.full((am_seeds,), n_high)
    one = torch.ones(am_seeds, dtype=torch.long)
    cap_outer.append(capacity(on_prefix(outer_product_accuracy), one, top))
    if control == "no-training":  # the outer product in place of the trained W
        cap_trained.append(cap_outer[-1].copy())
    else:
        n_low = torch.full((am_seeds,), d)
        cap_trained.append(capacity(on_prefix(linear_memory_accuracy), n_low, top))
    print(f"d = {d:3d}: trained N = {cap_trained[-1].tolist()}")
    print(f"        outer product N = {cap_outer[-1].tolist()}")
cap_trained, cap_outer = (
    np.array(cap_trained),
    np.array(cap_outer),
)  # (len(am_dims), am_seeds)


# %% [markdown]
# The theorem predicts $N\log N = c\, d^2$. We fit $\log(N\log N) = \beta\log d^2 + \log c$ by least squares,
# once per replicate, so that the spread of $\beta$ across replicates gives its standard error.

# %%
def loglog_slopes(x, n):
    """Per-replicate least-squares slope and intercept of log(n log n) against
    log(x)."""
    n = np.maximum(n, 2)  # N log N = 0 at N = 1
    y = np.log(n * np.log(n))
    fits = np.array([np.polyfit(np.log(x), y[:, j], 1) for j in range(n.shape[1])])
    return fits[:, 0], fits[:, 1]


d2 = np.array(am_dims, dtype=float) ** 2
slope_lin, icpt_lin = loglog_slopes(d2, cap_trained)
slope_outer, _ = loglog_slopes(d2, cap_outer)
slope_lin_raw = np.array(
    [np.polyfit(np.log(d2), np.log(cap_trained[:, j]), 1)[0] for j in range(am_seeds)]
)
c_lin = cap_trained * np.log(cap_trained) / d2[:, None]  # N log N / d^2
se = lambda v: v.std(ddof=1) / math.sqrt(len(v))
for name, v in [
    ("trained, N log N", slope_lin),
    ("trained, N alone", slope_lin_raw),
    ("outer product, N log N", slope_outer),
]:
    print(f"{name:23s} slope against d^2: {v.mean():.2f} +- {se(v):.2f} (s.e.)")
print("N log N / d^2 (trained), per d:", " ".join(f"{v:.2f}" for v in c_lin.mean(1)))
ratio_top = (cap_trained[-1] / cap_outer[-1]).mean()
print(f"capacity ratio trained / outer product at d = {am_dims[-1]}: {ratio_top:.1f}")


# %% [markdown]
# A fitted slope near 1 does not by itself single out $N\log N\propto d^2$: over a factor 4 in $d$ a
# plain power law such as $N\propto d^{1.5}$ bends the same way. The two laws differ in *how* $N$ grows.
# Under $N\log N = c\,d^2$ the local exponent of $N$ in $d$ is $2/(1+1/\log N)$, which rises slowly
# with $d$ (about 1.57 at $N=40$, 1.65 at $N=110$); under $N = c\,d^{1.5}$ it is 1.5 at every $d$.
# So we measure two statistics per replicate, the exponent of $N$ in $d$ over the whole range and its
# *rise* from the lower half of `am_dims` to the upper half, and compare each with what either law
# predicts once its one constant is fitted to our capacities. A law passes a statistic when its
# prediction is within three standard errors of the replicates' mean, plus the bound on what the
# bisection's resolution (a factor $1+$`capacity_rel_tol` on each capacity) can move the statistic.

# %%
def exponent(x, n):
    """Per-replicate least-squares slope of log n against log x (n: points x
    replicates)."""
    return np.polyfit(np.log(x), np.log(n), 1)[0]


def resolution(x):
    """Largest change of that slope when each log n moves by at most log(1 + tol)."""
    z = np.log(x) - np.log(x).mean()
    return math.log1p(capacity_rel_tol) * np.abs(z).sum() / (z * z).sum()


def solve_n_log_n(t):
    """N with N log N = t, elementwise."""
    return np.array([brentq(lambda n, t=t: n * np.log(n) - t, 1.01, 1e12) for t in t])


dims = np.array(am_dims, dtype=float)
half = len(am_dims) // 2
lower, upper = slice(0, half + 1), slice(half, None)


def growth_stats(n):
    """Exponent of n in d over all of am_dims, and its rise from lower to upper half."""
    rise = exponent(dims[upper], n[upper]) - exponent(dims[lower], n[lower])
    return exponent(dims, n), rise


cap_test = cap_trained
if control == "paper-law":  # positive control: capacities on the paper's law
    c_paper = np.exp(np.log(c_lin).mean())
    scatter = cap_trained / np.exp(np.log(cap_trained).mean(1, keepdims=True))
    cap_test = np.round(solve_n_log_n(c_paper * dims**2)[:, None] * scatter)
n_test = np.maximum(cap_test, 2)  # N log N = 0 at N = 1
c_A = np.exp(np.log(n_test * np.log(n_test) / d2[:, None]).mean())
c_B = np.exp(np.log(cap_test / dims[:, None] ** 1.5).mean())
laws = {  # each law with its one constant fitted to the capacities
    "N log N = c d^2 (paper)": solve_n_log_n(c_A * dims**2)[:, None],
    "N = c d^1.5 (alternative)": (c_B * dims**1.5)[:, None],
}
measured = growth_stats(cap_test)
tols = [
    3 * se(measured[0]) + resolution(dims),
    3 * se(measured[1]) + resolution(dims[upper]) + resolution(dims[lower]),
]
law_verdict, law_pred = {}, {}
print(f"{'statistic':22s} {'measured':>13s}" + "".join(f"{k:>27s}" for k in laws))
for i, name in enumerate(["exponent of N in d", "rise of that exponent"]):
    row = f"{name:22s} {measured[i].mean():6.2f} ± {tols[i]:.2f}"
    for law, n_law in laws.items():
        law_pred[law, i] = float(growth_stats(n_law)[i][0])
        ok = abs(measured[i].mean() - law_pred[law, i]) <= tols[i]
        law_verdict[law, i] = ok
        row += f"{law_pred[law, i]:17.2f} {'passes' if ok else 'FAILS':>9s}"
    print(row)
law_A, law_B = list(laws)
glue("am_exp", round(float(measured[0].mean()), 2), display=False)
glue("am_exp_tol", round(float(tols[0]), 2), display=False)
glue("am_exp_A", round(law_pred[law_A, 0], 2), display=False)
glue("am_exp_B", round(law_pred[law_B, 0], 2), display=False)
glue("am_rise", round(float(measured[1].mean()), 2), display=False)
glue("am_rise_tol", round(float(tols[1]), 2), display=False)
glue("am_c_first", round(float(c_lin[0].mean()), 2), display=False)
glue("am_c_last", round(float(c_lin[-1].mean()), 2), display=False)
glue("am_d_last", int(am_dims[-1]), display=False)
glue("am_reps", int(am_seeds), display=False)

# %% [markdown]
# **At this scale the test rejects the paper's law and accepts $N\propto d^{1.5}$.** Over
# {glue}`am_reps` replicates the exponent of $N$ in $d$ is {glue}`am_exp` ± {glue}`am_exp_tol`
# (three standard errors plus the bisection's resolution). The paper's law, with its constant
# fitted, predicts {glue}`am_exp_A` and fails; $N = c\,d^{1.5}$ predicts {glue}`am_exp_B` and
# passes. The rise of the exponent ({glue}`am_rise` ± {glue}`am_rise_tol`) has no power at
# these sizes: each half of `am_dims` spans less than a factor 3 in $d$. The constant tells
# the same story: $N\log N/d^2$ falls from {glue}`am_c_first` at $d = 8$ to {glue}`am_c_last`
# at $d =$ {glue}`am_d_last`, so $N\log N$ grows more slowly than $d^2$ here. The claims table
# records $N\log N = c\,d^2$ as **not reproduced at this scale**. It is a pre-asymptotic
# finding, not evidence against the theorem: {prf:ref}`far-thm-linear` fixes the growth only up
# to logarithmic factors, and the exact form $N\log N\propto d^2$ is the authors' empirical
# description at $d$ up to 256, where the two laws' exponents are further apart. Whether the
# budget is the reason can be checked with `-p am_steps=600` (four times longer; see "Try it"). The `paper` preset
# extends $d$ to 256. A positive control, `paper-law`, feeds the test capacities that follow
# the paper's law with our replicates' scatter: the test then accepts the paper's law and
# rejects $d^{1.5}$, so it can see the law when the data follow it.
#
# {numref}`fig-far-linear` puts the two memories and the fit on one log-log plot.

# %% mystnb={"figure": {"caption": "N log N at capacity (the largest N stored at 99% recall) against d squared, log-log, for the trained linear memory (circles) and the outer-product memory (squares), mean and range over the replicates, with the least-squares fit for the trained memory (dashed) and the line N log N = d^2/1.3 that the authors place by hand in their plotting notebook (solid grey). The trained memory lies on a line of slope a little below 1, above the authors' line and falling towards it, and stores several times more than the outer product at every d.", "name": "fig-far-linear"}} tags=["hide-input"]
fig, ax = lib.subplots()
for cap, name, color, marker in [
    (cap_trained, "trained $W$", lib.PALETTE[0], "o"),
    (cap_outer, "outer product $W_{op}$", lib.PALETTE[1], "s"),
]:
    y = cap * np.log(np.maximum(cap, 2))
    ax.fill_between(d2, y.min(1), y.max(1), color=color, alpha=0.2, lw=0)
    ax.plot(
        d2,
        y.mean(1),
        marker,
        color=color,
        label=f"{name} (mean, range over {am_seeds} seeds)",
    )
grid = np.geomspace(d2[0], d2[-1], 50)
ax.plot(
    grid,
    np.exp(icpt_lin.mean()) * grid ** slope_lin.mean(),
    "--",
    color=lib.PALETTE[0],
    label=f"fit: $N\\log N \\propto (d^2)^{{{slope_lin.mean():.2f}}}$",
)
ax.plot(
    grid,
    grid / 1.3,
    "-",
    color=lib.PALETTE[7],
    lw=1,
    label="authors' hand-placed line $N\\log N = d^2/1.3$",
)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("$d^2$ (parameters of the linear memory)")
ax.set_ylabel("$N \\log N$ at capacity ($N$ stored at 99%)")
ax.set_title("Linear associative memory: $N\\log N$ grows like $d^2$")
ax.legend(loc="upper left", fontsize=9)
lib.show(fig)

# %% [markdown]
# ### MLP associative memory: capacity against $m\cdot d$
#
# As the authors do, we grow the input dimension $d$ over `mlp_dims` with the width tied to it,
# $m = \alpha d$ (`mlp_alpha`), so the parameter count $2md+m$ grows like $md$, and the theorem says the
# capacity should too. For each $d$ the replicates train as one batch; the dimensions run one
# after another, so that a small problem never pays for the size of a large one.

# %%
mlp_widths = [max(1, round(mlp_alpha * d)) for d in mlp_dims]
md = np.array([m * d for m, d in zip(mlp_widths, mlp_dims)], dtype=float)


def pools(d, n):
    """mlp_seeds pairs of pools of n unit embeddings in R^d."""
    return unit_embeddings(mlp_seeds, n, d), unit_embeddings(mlp_seeds, n, d)


cap_mlp = []
for d, m in zip(mlp_dims, mlp_widths):
    E_d, U_d = pools(d, m * d)
    in_dim = torch.full((mlp_seeds,), d, device=device)
    width = torch.full((mlp_seeds,), m, device=device)
    acc = lambda n: mlp_memory_accuracy(
        E_d[:, : int(n.max())],
        U_d[:, : int(n.max())],
        n.to(device),
        in_dim,
        width,
        mlp_steps,
    )[0]
    n_low = torch.full((mlp_seeds,), min(m, d))
    cap_mlp.append(capacity(acc, n_low, torch.full((mlp_seeds,), m * d)))
cap_mlp = np.array(cap_mlp)  # (len(mlp_dims), mlp_seeds)
for d, m, n in zip(mlp_dims, mlp_widths, cap_mlp):
    print(f"d = {d:3d}, m = {m:3d}, m*d = {m * d:4d}: N = {n.tolist()}")
print("N / (m d) per d:", " ".join(f"{v:.2f}" for v in (cap_mlp / md[:, None]).mean(1)))

# %% [markdown]
# The same two-law test as for the linear memory, now in $md$: the paper's law is linear in $md$ up
# to logarithms, and the authors' plotting code draws the guide line $N\log N = md/0.35$. We compare the
# measured exponent of $N$ in $md$ with three laws, each with its constant fitted: $N\propto md$,
# $N\log N\propto md$ (the authors' guide line) and, as a deliberately wrong law, $N\propto (md)^{0.75}$
# (the analogue of $d^{1.5}$ for the linear memory).

# %%
slope_mlp_raw = exponent(md, cap_mlp)
c_mlp = cap_mlp * np.log(cap_mlp) / md[:, None]  # N log N / (m d)
tol_mlp = 3 * se(slope_mlp_raw) + resolution(md)
mlp_laws = {
    "N = c md": md[:, None],
    "N log N = c md (guide line)": solve_n_log_n(c_mlp.mean() * md)[:, None],
    "N = c (md)^0.75 (wrong)": md[:, None] ** 0.75,
}
mlp_verdict = {}
print(f"exponent of N in m*d: {slope_mlp_raw.mean():.2f} ± {tol_mlp:.2f}")
for law, n_law in mlp_laws.items():
    predicted = float(exponent(md, n_law)[0])
    mlp_verdict[law] = abs(slope_mlp_raw.mean() - predicted) <= tol_mlp
    print(
        f"  {law:28s} predicts {predicted:.2f}: "
        + ("passes" if mlp_verdict[law] else "FAILS")
    )
print(
    "N log N / (m d) per d:",
    " ".join(f"{v:.2f}" for v in c_mlp.mean(1)),
    "(authors' guide line: 1/0.35 = 2.86)",
)
common_dims = [d for d in mlp_dims if d in am_dims]
mlp_over_linear = np.array(
    [
        cap_mlp[mlp_dims.index(d)].mean() / cap_trained[am_dims.index(d)].mean()
        for d in common_dims
    ]
)
params_ratio = np.array(  # (2md + m) / d^2: MLP against linear parameters
    [(2 * d + 1) * mlp_widths[mlp_dims.index(d)] / d**2 for d in common_dims]
)
mlp_bar = np.sqrt(params_ratio)  # between 'storage ∝ parameters' and a rank-d map (1)
print(
    "capacity of the MLP memory / the linear memory at the same d:",
    " ".join(f"d = {d}: {r:.2f}" for d, r in zip(common_dims, mlp_over_linear)),
)
print(
    "parameters of the MLP memory / the linear memory:",
    " ".join(f"{r:.2f}" for r in params_ratio),
)
glue("mlp_exp", round(float(slope_mlp_raw.mean()), 2), display=False)
glue("mlp_exp_tol", round(float(tol_mlp), 2), display=False)
glue("mlp_over_linear_top", round(float(mlp_over_linear[-1]), 2), display=False)
glue("mlp_c_top", round(float(c_mlp[-1].mean()), 2), display=False)

# %% [markdown]
# **What the exponent test finds in this run** is printed above: the exponent of $N$ in $md$ is
# {glue}`mlp_exp` ± {glue}`mlp_exp_tol`, and the verdict on each law follows from it. The
# verdicts are shown, not claimed: with `mlp_seeds` replicates the standard error is itself
# estimated from two degrees of freedom, and $md$ spans a factor 4, so the tolerance is about the
# distance between the laws' predictions and which laws pass moves from seed to seed. What the
# claims table asserts about the MLP memory is the comparison the theorem makes between the two
# memories: with $m = \alpha d$ the MLP has $2md + m \approx 2\alpha d^2$ parameters against the
# linear memory's $d^2$, so if storage scales with parameters it should hold about that many
# times more associations at the same $d$ (a little more, once the logarithm counts), whereas a
# memory that is only a rank-$d$ linear map, which the MLP becomes without its ReLU
# (`linear-mlp`), holds about what the linear memory holds. The claim puts its bar at the
# geometric midpoint of the two, the square root of the parameter ratio (about $\sqrt2$ at
# $\alpha = 1$), and tests it at the largest $d$ the two sweeps share, the one closest to the
# theorem's large-$d$ regime; the capacity ratio there is {glue}`mlp_over_linear_top` in this
# run. At the smallest $d$ the MLP's capacity is held back most by its step budget (the
# shortfall below), and the ratio is lower.
#
# **Is the budget enough?** The capacity of a trained memory depends on how long it trains: more steps
# store a few more associations. To see how far `mlp_steps` is from convergence we train, at the
# smallest dimension, a grid of $N$ (ratios of 1.1) for `mlp_budget_max` steps and record the first
# step at which each $N$ is stored; the capacity at a budget $B$ is then the largest $N$ of the grid
# stored within $B$ steps. One long batched run gives the
# whole curve.

# %%
d0, m0 = mlp_dims[0], mlp_widths[0]
grid_n = np.unique(np.round(m0 * d0 * 1.1 ** np.arange(-10, 1)).astype(int))
grid_n = grid_n[grid_n >= min(m0, d0)]
E0, U0 = pools(d0, int(grid_n.max()))
reps = len(grid_n)  # problem k = (seed k // reps, grid point k % reps)
_, first_hit = mlp_memory_accuracy(
    E0.repeat_interleave(reps, 0),
    U0.repeat_interleave(reps, 0),
    torch.tensor(grid_n).repeat(mlp_seeds).to(device),
    torch.full((mlp_seeds * reps,), d0, device=device),
    torch.full((mlp_seeds * reps,), m0, device=device),
    mlp_budget_max,
)
first_hit = first_hit.cpu().numpy().reshape(mlp_seeds, reps)
budgets = np.unique(np.r_[25 * 2 ** np.arange(20), mlp_steps, mlp_budget_max])
budgets = budgets[budgets <= mlp_budget_max]


def capacity_at(budget):
    """Per seed: the largest grid N stored within `budget` steps (0 if none)."""
    stored = first_hit <= budget
    return np.array([grid_n[row].max() if row.any() else 0 for row in stored])


cap_budget = np.array([capacity_at(b) for b in budgets])  # (budgets, seeds)
at_default, at_max = cap_budget[budgets == mlp_steps][0], cap_budget[-1]
print(f"d = {d0}, m = {m0}: capacity (grid of ratio 1.1) at each step budget")
for b, row in zip(budgets, cap_budget):
    print(f"  {b:5d} steps: N = {row.tolist()}")
shortfall = 1 - at_default.mean() / at_max.mean()
glue("mlp_shortfall", round(100 * float(shortfall)), display=False)
print(
    f"at mlp_steps = {mlp_steps} the capacity is {100 * shortfall:.0f}% below its "
    f"value at {mlp_budget_max} steps (one grid step is 10%)"
)
stuck = ((first_hit > mlp_budget_max) & (grid_n < at_max[:, None])).sum(1)
print(
    f"smaller N of the grid never stored within {mlp_budget_max} steps, per seed: "
    f"{stuck.tolist()}"
)

# %% [markdown]
# At the authors' learning rate the capacity at `mlp_steps` is {glue}`mlp_shortfall`% below
# its value at `mlp_budget_max` steps, the longest budget of the default (printed above; one
# grid step is 10%). The authors train for up to $2^{15}$ steps with early stopping; the `paper`
# preset sets `mlp_budget_max` to $2^{15}$, so that there the same line prints the shortfall
# against their protocol. When a smaller $N$ of the grid never trains in some replicate (the
# last line above), that run is stuck, not at capacity: full-batch Adam at a fixed rate does
# not always find a memory that exists.
#
# {numref}`fig-far-mlp` compares the measured capacities with the laws, and
# {numref}`fig-far-mlp-budget` shows capacity against the step budget.

# %% mystnb={"figure": {"caption": "Capacity N of the MLP memory (stored at 99% recall) against m times d, with m proportional to d, log-log, mean and range over the replicates, with the law N proportional to md (dashed), N log N proportional to md (dotted) and the deliberately wrong law N proportional to (md)^0.75 (dash-dot), each with its constant fitted, and the authors' guide line N log N = md/0.35 (solid). The exponent test of each law is printed above the figure.", "name": "fig-far-mlp"}} tags=["hide-input"]
fig, ax = lib.subplots()
ax.fill_between(
    md, cap_mlp.min(1), cap_mlp.max(1), color=lib.PALETTE[2], alpha=0.2, lw=0
)
ax.plot(
    md,
    cap_mlp.mean(1),
    "o",
    color=lib.PALETTE[2],
    label=f"MLP memory, $m={mlp_alpha:g}d$ (mean, range)",
)
for (law, n_law), style in zip(mlp_laws.items(), ["--", ":", "-."]):
    n_fit = n_law[:, 0] * np.exp(np.mean(np.log(cap_mlp.mean(1) / n_law[:, 0])))
    ax.plot(
        md, n_fit, style, color="gray" if style != "--" else lib.PALETTE[2], label=law
    )
ax.plot(
    md,
    solve_n_log_n(md / 0.35),
    "-",
    color=lib.PALETTE[7],
    lw=1,
    label="authors' guide line $N\\log N = md/0.35$",
)
ax.set_xscale("log")
ax.set_yscale("log")
for axis in (ax.xaxis, ax.yaxis):
    axis.set_major_formatter(ScalarFormatter())
    axis.set_minor_formatter(NullFormatter())
ax.set_xticks(md)
ax.set_xlabel("$m\\cdot d$ (width $\\times$ input dimension)")
ax.set_ylabel("capacity $N$ (stored at 99%)")
ax.set_title("MLP associative memory: capacity grows with $m\\cdot d$")
ax.legend(loc="upper left", fontsize=8)
lib.show(fig)

# %% mystnb={"figure": {"caption": "Capacity of the MLP memory at the smallest d against the number of full-batch Adam steps it may train, at the authors' learning rate, mean and range over the replicates (on a grid of N of ratio 1.1). The dotted line marks the budget of the sweep, mlp_steps.", "name": "fig-far-mlp-budget"}} tags=["hide-input"]
fig, ax = lib.subplots()
ax.fill_between(
    budgets, cap_budget.min(1), cap_budget.max(1), color=lib.PALETTE[2], alpha=0.2, lw=0
)
ax.plot(budgets, cap_budget.mean(1), "o-", color=lib.PALETTE[2], label="capacity")
ax.axvline(mlp_steps, color="gray", ls=":", label=f"mlp_steps = {mlp_steps}")
ax.set_xscale("log")
ax.set_xlabel("Adam steps allowed (full batch)")
ax.set_ylabel("capacity $N$ (stored at 99%)")
ax.set_title(f"MLP memory, $d={d0}$, $m={m0}$: capacity against step budget")
ax.legend(loc="upper left", fontsize=9)
lib.show(fig)

# %% [markdown]
# ### Sequential learning in the linear-attention model
#
# The fact table is the structured one of the authors' notebook: subjects $2k$ and $2k+1$ share their
# answers, and the answer to $(s,r)$ is entry $\lfloor sD/S\rfloor$ of block $r$. Since the model only sees
# token counts, a batch is a matrix of counts. We train `seq_replicates` independent runs (independent
# data streams) at once with plain gradient descent from $A = W_V = $ `seq_init` times all-ones, and
# evaluate the three losses on a fixed held-out batch.

# %%
S, R, D = seq_subjects, seq_relations, seq_answers_per_relation
if control == "frequent-subjects":  # as many subjects as relations
    S = R
vocab = S + R + seq_noise_tokens + 1  # subjects, relations, noise, EOS
n_answers = R * D
fact = torch.tensor([[r * D + (s * D) // S for r in range(R)] for s in range(S)])
block_of = torch.arange(n_answers) // D  # relation block of each answer
index_of = torch.arange(n_answers) % D  # position of each answer inside its block


def sample_counts(n):
    """Token counts (reps, n, vocab) of n random sequences per replicate, and their
    answers."""
    s = torch.randint(S, (seq_replicates, n), generator=torch_gen)
    r = torch.randint(R, (seq_replicates, n), generator=torch_gen)
    noise = (
        S
        + R
        + torch.randint(
            seq_noise_tokens, (seq_replicates, n, seq_len - 3), generator=torch_gen
        )
    )
    counts = torch.zeros(seq_replicates, n, vocab, dtype=torch.float64)
    counts.scatter_add_(2, noise, torch.ones(noise.shape, dtype=torch.float64))
    counts.scatter_add_(
        2,
        torch.stack([s, S + r], -1),
        torch.ones(seq_replicates, n, 2, dtype=torch.float64),
    )
    counts[..., vocab - 1] += 1  # EOS, the query position
    return counts, fact[s, r]


def seq_losses(a, W_V, counts, y):
    """Total, relation-only and subject-only cross-entropy, per replicate."""
    p = torch.softmax(torch.einsum("knv,kv,kva->kna", counts, a, W_V), dim=-1)
    total = -torch.log(p.gather(-1, y[..., None]).squeeze(-1))
    relation = -torch.log((p * (block_of == (y // D)[..., None])).sum(-1))
    subject = -torch.log((p * (index_of == (y % D)[..., None])).sum(-1))
    return total.mean(1), relation.mean(1), subject.mean(1)


a = torch.full(
    (seq_replicates, vocab), seq_init, dtype=torch.float64, requires_grad=True
)  # A[EOS, :]
W_V = torch.full(
    (seq_replicates, vocab, n_answers),
    seq_init,
    dtype=torch.float64,
    requires_grad=True,
)
test_counts, test_y = sample_counts(1024)
eval_steps, curves = [], []
for step in lib.progress(range(seq_steps + 1), enabled=progress, desc="sequential"):
    if step % seq_eval_every == 0:
        with torch.no_grad():
            eval_steps.append(step)
            curves.append(torch.stack(seq_losses(a, W_V, test_counts, test_y)).numpy())
    if step == seq_steps:
        break
    counts, y = sample_counts(seq_batch)
    grad_a, grad_W = torch.autograd.grad(
        seq_losses(a, W_V, counts, y)[0].sum(), [a, W_V]
    )
    with torch.no_grad():
        a -= seq_lr * grad_a
        W_V -= seq_lr * grad_W
eval_steps = np.array(eval_steps)
curves = np.array(curves)  # (evals, 3 losses, replicates)


# %% [markdown]
# We read two times off each run: $t_{\mathrm{rel}}$, when the relation-only loss has fallen below 10% of
# its initial value $\log R$, and $t_{\mathrm{subj}}$, when the subject-only loss has fallen below 90% of
# $\log D$, i.e. when the subject starts to be used at all.

# %%
def crossing_time(curve, level):
    """First time the curve reaches `level`, linearly interpolated between the
    evaluations on either side of the crossing (inf if it never does)."""
    below = np.nonzero(curve <= level)[0]
    if len(below) == 0:
        return np.inf
    i = below[0]
    if i == 0:
        return float(eval_steps[0])
    frac = (curve[i - 1] - level) / (curve[i - 1] - curve[i])
    return float(eval_steps[i - 1] + frac * (eval_steps[i] - eval_steps[i - 1]))


runs = range(seq_replicates)
t_rel = np.array([crossing_time(curves[:, 1, k], 0.1 * math.log(R)) for k in runs])
t_sub = np.array([crossing_time(curves[:, 2, k], 0.9 * math.log(D)) for k in runs])
sub_at_rel = np.array(  # subject-only loss at t_rel, interpolated
    [np.interp(t_rel[k], eval_steps, curves[:, 2, k]) for k in runs]
)
final_total = curves[-1, 0]
print("t_rel per run:  ", " ".join(f"{t:.1f}" for t in t_rel))
print("t_subj per run: ", " ".join(f"{t:.1f}" for t in t_sub))
print(
    f"subject-only loss at t_rel, smallest over the runs: {sub_at_rel.min():.3f} "
    f"(log D = {math.log(D):.3f})"
)
rate_ratio = (math.sqrt((R - 1) / (R * D)) / R) / (math.sqrt((D - 1) / (R * D)) / S)
print(
    f"t_subj / t_rel = {np.mean(t_sub / t_rel):.2f}; "
    f"predicted ratio of growth rates = {rate_ratio:.2f}"
)
glue("seq_ratio", round(float(np.mean(t_sub / t_rel)), 2), display=False)
glue("seq_rate_ratio", round(float(rate_ratio), 2), display=False)
print(f"final total loss: {final_total.mean():.3f}")

# %% [markdown]
# {numref}`fig-far-sequential` shows the three losses along training and the window between the two
# times.

# %% mystnb={"figure": {"caption": "Total, relation-only and subject-only cross-entropy of the linear-attention model on a held-out batch against the gradient-descent step, mean and range over the replicates. The relation-only loss falls first while the subject-only loss stays at log D (dotted); the shaded window, where the model is uniform over the right answer block, runs from the mean t_rel to the mean t_subj.", "name": "fig-far-sequential"}} tags=["hide-input"]
fig, ax = lib.subplots()
names = ["total loss", "relation-only loss", "subject-only loss"]
for i, (name, color) in enumerate(
    zip(names, [lib.PALETTE[7], lib.PALETTE[0], lib.PALETTE[1]])
):
    ax.plot(eval_steps, curves[:, i].mean(1), color=color, label=name)
    ax.fill_between(
        eval_steps,
        curves[:, i].min(1),
        curves[:, i].max(1),
        color=color,
        alpha=0.2,
        lw=0,
    )
ax.axhline(math.log(D), color=lib.PALETTE[1], ls=":", lw=1)
ax.text(
    eval_steps[-1],
    math.log(D),
    "  $\\log D$: uniform in the block",
    va="bottom",
    ha="right",
    fontsize=9,
)
ax.axvspan(
    t_rel.mean(),
    t_sub.mean(),
    color=lib.PALETTE[4],
    alpha=0.15,
    lw=0,
    label='relation known, subject not ("hallucination")',
)
ax.set_xlabel("gradient-descent step")
ax.set_ylabel("cross-entropy (nats)")
ax.set_title("Linear attention learns the relation first, the subject later")
ax.set_ylim(-0.1, 1.35 * math.log(R * D))
ax.legend(loc="upper right", fontsize=9)
lib.show(fig)


# %% [markdown]
# ### The one-layer softmax transformer: attention or MLP as the memory
#
# This part follows the authors' `TF_one_layer`: frozen random token embeddings and unembedding
# (standard deviation $1/\sqrt d$), $H$ softmax heads of dimension $d_h$ queried only from the EOS position,
# an output matrix, a residual ReLU MLP of width $m$ (no MLP when $m=0$), trained with Adam on fresh
# sequences (the learning rate decays linearly to zero). Its parameter counts are $4Hd_hd$
# (attention) and $2md$ (MLP). The default is a reduced setting that a CPU trains in seconds per
# model: $S=R=8$ (64 facts), $d=16$, $d_h=4$, sequences of length 8, 1000 Adam steps at batch 128;
# the `paper` preset runs the authors' sizes. The grid's corners test the theorem: the small attention
# without an MLP (first of `tf_heads`, $m=0$) should fail, and either more heads ($m=0$) or the MLP
# (first of `tf_heads`, last of `tf_widths`) should recall the facts. The models train in float64 like
# the memories, and each fact is tested in `tf_eval_contexts` fresh contexts, so an accuracy is a
# fraction of $SR\cdot$`tf_eval_contexts` answers. All models of the grid train at once, each on
# its own fact table and embeddings: a model with fewer heads or hidden units than the largest is
# padded with heads and units whose weights start at zero and stay there.
# {numref}`fig-far-transformer` shows the four corners.

# %%
def train_transformers(heads, widths, n_subj, n_rel):
    """Train one model per (heads[k], widths[k]) on its own fact table, all at once.

    Heads beyond a model's H and hidden units beyond its m start with zero value,
    output and MLP weights: their outputs and gradients are 0, so Adam never moves
    them. Returns the accuracy of each model on all facts in fresh contexts, and the
    fraction of contexts in which each of its facts is recalled."""
    if control == "few-heads":  # model size taken away: the fewest heads for all
        heads = [min(heads)] * len(heads)
    if control == "many-heads":  # model size taken away: the most heads for all
        heads = [max(heads)] * len(heads)
    K, D_t, d, d_h = len(heads), tf_answers_per_relation, tf_dim, tf_head_dim
    H, M = max(heads), max(max(widths), 1)
    n_tok = n_subj + n_rel + tf_noise_tokens + 1
    answers = torch.tensor(rng.integers(D_t, size=(K, n_subj, n_rel)))
    answers = (answers + D_t * torch.arange(n_rel)).to(device)
    f64 = dict(generator=torch_gen, dtype=torch.float64)
    emb = (torch.randn(K, n_tok, d, **f64) / math.sqrt(d)).to(device)
    unemb = (torch.randn(K, n_rel * D_t, d, **f64) / math.sqrt(d)).to(device)
    head_on = torch.arange(H)[None, :] < torch.tensor(heads)[:, None]
    unit_on = torch.arange(M)[None, :] < torch.tensor(widths)[:, None]

    def init(*shape, on=None):
        w = torch.randn(K, *shape, **f64) / math.sqrt(shape[-2])
        return (w if on is None else w * on).to(device).requires_grad_()

    Q, Kq = init(H, d, d_h), init(H, d, d_h)
    Vh = init(H, d, d_h, on=head_on[:, :, None, None])
    O = init(H, d_h, d, on=head_on[:, :, None, None])
    W1, W2 = init(d, M, on=unit_on[:, None, :]), init(M, d, on=unit_on[:, :, None])
    b1 = torch.zeros(K, 1, M, dtype=torch.float64, device=device, requires_grad=True)
    params = [Q, Kq, Vh, O, W1, b1, W2]
    model = torch.arange(K, device=device)[:, None]

    def batch(s, r):
        """Sequences (K, n, T) of noise with s and r at two random slots, EOS last."""
        n, T = s.shape[1], tf_seq_len
        x = torch.randint(tf_noise_tokens, (K, n, T), generator=torch_gen)
        x += n_subj + n_rel
        slots = torch.rand(K, n, T - 1, generator=torch_gen).argsort(-1)[..., :2]
        x.scatter_(2, slots[..., :1], s[..., None])
        x.scatter_(2, slots[..., 1:], n_subj + r[..., None])
        x[..., -1] = n_tok - 1
        return x.to(device), answers[model, s.to(device), r.to(device)]

    def logits(x):
        h = emb[model[..., None], x]  # (K, n, T, d)
        q = torch.einsum("knd,khde->knhe", h[:, :, -1], Q)
        q_keys = torch.einsum("knhe,khde->knhd", q, Kq)  # query read by each key map
        att = torch.softmax(q_keys @ h.transpose(2, 3) / math.sqrt(d_h), -1)
        VO = (Vh @ O).flatten(1, 2)  # (K, H d, d): value then output map per head
        z = h[:, :, -1] + (att @ h).flatten(2) @ VO
        act = torch.relu if control != "linear-mlp" else torch.nn.Identity()
        mlp = act(z @ W1 + b1) @ W2
        if control == "mlp-off":  # the MLP route stores nothing
            mlp = 0 * mlp
        return (z + mlp) @ unemb.transpose(1, 2)

    opt = torch.optim.Adam(params, lr=tf_lr)
    decay = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: 1 - t / tf_steps)
    for _ in lib.progress(range(tf_steps), enabled=progress, desc="transformers"):
        s = torch.randint(n_subj, (K, tf_batch), generator=torch_gen)
        r = torch.randint(n_rel, (K, tf_batch), generator=torch_gen)
        x, y = batch(s, r)
        ce = torch.nn.functional.cross_entropy(
            logits(x).flatten(0, 1), y.flatten(), reduction="sum"
        )
        opt.zero_grad()
        (ce / tf_batch).backward()
        opt.step()
        decay.step()
    with torch.no_grad():
        n_facts = n_subj * n_rel
        s = torch.arange(n_subj).repeat_interleave(n_rel).repeat(tf_eval_contexts)
        r = torch.arange(n_rel).repeat(n_subj * tf_eval_contexts)
        x, y = batch(s.expand(K, -1), r.expand(K, -1))
        hits = (logits(x).argmax(-1) == y).double().cpu()
        per_fact = hits.reshape(K, tf_eval_contexts, n_facts).mean(1).numpy()
        return hits.mean(1).numpy(), per_fact


grid = [(h, m) for h in tf_heads for m in tf_widths]
tf_acc, _ = train_transformers(*zip(*grid), tf_subjects, tf_relations)
tf_acc = tf_acc.reshape(len(tf_heads), len(tf_widths))
n_facts = tf_subjects * tf_relations
for h, row in zip(tf_heads, tf_acc):
    print(
        f"H = {h:2d} (attention params {4 * h * tf_head_dim * tf_dim:5d}): "
        + "  ".join(f"m={m}: {acc:.2f}" for m, acc in zip(tf_widths, row))
    )
print(f"{n_facts} facts; MLP params 2*m*d = {[2 * m * tf_dim for m in tf_widths]}")

# %% mystnb={"figure": {"caption": "Recall accuracy of the one-layer softmax transformer on all S times R facts in fresh contexts, for each number of attention heads H (rows) and MLP width m (columns). The theorem predicts full recall once either the attention or the MLP has about S times R parameters; the small attention alone falls short.", "name": "fig-far-transformer"}} tags=["hide-input"]
fig, ax = lib.subplots()
im = ax.imshow(tf_acc, origin="lower", cmap="viridis", vmin=0, vmax=1, aspect="auto")
for i, j in np.ndindex(tf_acc.shape):
    ax.text(
        j,
        i,
        f"{tf_acc[i, j]:.2f}",
        ha="center",
        va="center",
        color="black" if tf_acc[i, j] > 0.6 else "white",
        fontsize=9,
    )
ax.set_xticks(range(len(tf_widths)), [str(m) for m in tf_widths])
ax.set_yticks(range(len(tf_heads)), [str(h) for h in tf_heads])
ax.set_xlabel("MLP width $m$")
ax.set_ylabel("attention heads $H$")
ax.set_title(
    f"Recall accuracy on {tf_subjects * tf_relations} facts "
    f"($d={tf_dim}$, $d_h={tf_head_dim}$)"
)
ax.grid(False)
fig.colorbar(im, ax=ax, label="accuracy")
lib.show(fig)

# %% [markdown]
# ### Facts against parameters
#
# The abstract's headline is that storage is linear in the parameter count. The authors measure
# it with a binary search over the number of facts $SR$ for many model shapes; we measure the
# same quantity from the other side, which a CPU affords. Attention-only models ($m=0$) with
# $H$ in `tf_cap_heads` heads, `tf_cap_replicates` models per head count, each train on its own
# table of $S=R=$ `tf_cap_subjects` facts, more than the largest of them can hold, and we count
# the facts each one stores: those recalled in at least half of their `tf_eval_contexts` fresh
# contexts (and, printed beside it, in all of them, closer to the authors' 99% criterion). If
# facts grow linearly with the attention parameters $P = 4Hd_hd$ up to a log, the log-log slope
# of the count against $P$ is what $N\log N\propto P$ predicts (a little below 1 at these
# counts).

# %%
cap_heads = np.repeat(tf_cap_heads, tf_cap_replicates)  # one entry per model
cap_params = 4 * cap_heads * tf_head_dim * tf_dim
n_cap = tf_cap_subjects
_, per_fact = train_transformers(cap_heads.tolist(), [0] * len(cap_heads), n_cap, n_cap)
facts_stored = (per_fact >= 0.5).sum(1)
fit_facts = lib.loglog_slope(cap_params, np.maximum(facts_stored, 1))
fit_all = lib.loglog_slope(cap_params, np.maximum((per_fact == 1).sum(1), 1))
n_floor = np.maximum(facts_stored, 2)  # N log N needs N >= 2
c_facts = np.exp(np.mean(np.log(n_floor * np.log(n_floor) / cap_params)))
slope_logs = float(exponent(cap_params, solve_n_log_n(c_facts * cap_params)))
facts_grow = bool(fit_facts.slope - 3 * fit_facts.se > 0)
for h in tf_cap_heads:
    p, n = 4 * h * tf_head_dim * tf_dim, facts_stored[cap_heads == h]
    print(
        f"H = {h}: attention params P = {p:5d}, facts stored {n.tolist()} of {n_cap**2}"
    )
print(f"slope of log facts against log P: {fit_facts}")
print(f"  the same, counting facts recalled in every context: {fit_all}")
for law, a in (("N log N ∝ P", slope_logs), ("N ∝ P", 1.0), ("N ∝ P^0.5", 0.5)):
    z = (fit_facts.slope - a) / fit_facts.se
    print(f"  {law:12s} predicts {a:.2f}: the slope is {z:+.1f} s.e. from it")
glue("facts_slope", round(fit_facts.slope, 2), display=False)
glue("facts_slope_se", round(fit_facts.se, 2), display=False)
glue("facts_slope_logs", round(slope_logs, 2), display=False)

# %% [markdown]
# {numref}`fig-far-facts` shows the count: the slope is {glue}`facts_slope` ±
# {glue}`facts_slope_se` (least squares over all models; its standard error comes from their
# scatter, replicates included), against {glue}`facts_slope_logs` for $N\log N\propto P$ and 1
# for $N\propto P$. The claim below asks only that the count grows: a slope more than three
# standard errors above 0, which storage that saturates with model size fails (the `few-heads`
# and `many-heads` controls give every model the same heads). It does not claim the law. Over a
# factor 8 in $P$, with one table per model, the scatter of training leaves the slope's
# standard error large against the distance between $N\log N\propto P$ and a square root,
# $P^{0.5}$, so that a count following $P^{0.5}$ could often land inside any band around the
# first: the cell above prints how many standard errors separate the slope from each. Telling the two apart takes several times
# more models per head count, or the `paper` preset's wider head range and larger table.

# %% mystnb={"figure": {"caption": "Facts stored (recalled in at least half of their fresh contexts) by attention-only transformers (one point per model, tf_cap_replicates per head count) against their attention parameters 4 H d_h d, log-log, with the least-squares fit (dashed) and a line of slope 1 through the mean (dotted).", "name": "fig-far-facts"}} tags=["hide-input"]
fig, ax = lib.subplots()
ax.plot(cap_params, facts_stored, "o", color=lib.PALETTE[3], label="attention only")
ax.plot(
    cap_params,
    np.exp(fit_facts.intercept) * cap_params**fit_facts.slope,
    "--",
    color=lib.PALETTE[3],
    label=f"fit: slope {fit_facts.slope:.2f}",
)
ax.plot(
    cap_params,
    cap_params * np.exp(np.mean(np.log(np.maximum(facts_stored, 1) / cap_params))),
    ":",
    color="gray",
    label="slope 1",
)
ax.set_xscale("log")
ax.set_yscale("log")
for axis in (ax.xaxis, ax.yaxis):
    axis.set_major_formatter(ScalarFormatter())
    axis.set_minor_formatter(NullFormatter())
ax.set_xticks(4 * np.array(tf_cap_heads) * tf_head_dim * tf_dim)
ax.set_xlabel("attention parameters $P = 4Hd_hd$")
ax.set_ylabel(f"facts stored (of {n_cap**2})")
ax.set_title("Facts stored grow with attention parameters")
ax.legend(loc="upper left", fontsize=9)
lib.show(fig)

# %% [markdown]
# ## What we reproduced
#
# Every claim is checked on averages over the replicates inside this run. The linear-memory
# growth test compares two measured statistics with each law's prediction; its tolerance is three
# standard errors over the replicates plus the most the bisection's resolution can move the
# statistic, and it is run on the deliberately wrong law $N\propto d^{1.5}$ too. At this scale
# the test rejects the paper's law and accepts $d^{1.5}$, so "the test accepts $N\log N = c\,d^2$
# and rejects $d^{1.5}$" is recorded as not reproduced, with the measured exponent as its value.
# The MLP memory's exponent test (printed above) has less power, and whether it excludes its
# wrong law changes from seed to seed, so it is not a claim here; the MLP memory's capacity
# against the linear memory's at the same $d$ is. The constants $N\log N/d^2$ and
# $N\log N/(md)$ are compared with the lines the authors draw by hand through their plots in
# the comparison below, not claimed: the paper states no constant.
#
# The transformer claims use two bars. The small attention alone must stay below 90% recall and
# the large attention alone must reach it. For the MLP route we assert that adding the MLP to the
# small attention closes at least half of the gap between that attention's recall and 100%,
# $(a_{\text{MLP}}-a_{\text{small}})/(1-a_{\text{small}})\ge 1/2$, and print whether it also
# reaches 90%. A 90% bar would ask more of one training run than the theorem does: the theorem
# says which parameters *exist*, and two heads of dimension 4 that must forward both the subject
# and the relation to the MLP do not always separate every subject within the step budget.
# The facts-against-parameters claim asks only that the count grows with the attention's
# parameters: its slope lies more than three standard errors above 0. Which law it follows is
# printed beside it, not claimed (see {numref}`fig-far-facts`).

# %%
claims = lib.Claims(
    "factual-recall-associative-memories", paper="nichani2025factual", control=control
)
separates = (
    law_verdict[law_A, 0]
    and law_verdict[law_A, 1]
    and not (law_verdict[law_B, 0] and law_verdict[law_B, 1])
)
claims.add(
    "linear memory: the growth test accepts N log N = c d² and rejects N = c d^1.5 "
    "(measured: exponent of N in d)",
    float(measured[0].mean()),
    "N log N ∝ d² (authors' plots, d up to 256; Thm.: d² up to logs)",
    separates,
    fmt="{:.2f}",
    expect=False,
)
claims.add(
    "trained W stores more than the outer product W_op at every d (every replicate)",
    float((cap_trained.min(1) / cap_outer.max(1)).min()),
    "trained memories beat the Hebbian construction",
    bool(np.all(cap_trained.min(1) > cap_outer.max(1))),
    fmt="{:.1f}",
)
claims.add(
    "MLP memory against the linear memory at the largest common d: capacity ratio "
    "above the square root of their parameter ratio, midway (log scale) between "
    "'storage ∝ parameters' and 'a rank-d map' (ratio 1) (ratio / its bar)",
    float(mlp_over_linear[-1] / mlp_bar[-1]),
    "storage scales with parameters (2md + m for the MLP, d² for W; Thm.)",
    bool(mlp_over_linear[-1] > mlp_bar[-1]),
    fmt="{:.2f}",
)
ratio_min = float(np.min(t_sub / t_rel))
claims.add(
    "sequential learning: the subject starts only after the relation is learned "
    "(min t_subj / t_rel ≥ 1.5)",
    ratio_min,
    "relation first, subject later (Thm.)",
    bool(ratio_min >= 1.5),
    fmt="{:.2f}",
)
plateau = float(sub_at_rel.min() / math.log(D))
claims.add(
    "plateau: at t_rel the model is uniform inside the right block "
    "(min subject loss / log D ≥ 0.95)",
    plateau,
    "intermediate 'hallucination' stage",
    bool(plateau >= 0.95),
    fmt="{:.3f}",
)
acc_small, acc_attn, acc_mlp = tf_acc[0, 0], tf_acc[-1, 0], tf_acc[0, -1]
glue("tf_acc_small", round(100 * float(acc_small)), display=False)
glue("tf_acc_attn", round(100 * float(acc_attn)), display=False)
glue("tf_n_facts", int(n_facts), display=False)
p_small = 4 * tf_heads[0] * tf_head_dim * tf_dim
claims.add(
    f"transformer: small attention, no MLP (H = {tf_heads[0]}, m = 0) recalls < 90%",
    float(acc_small),
    f"the contrast for the next rows ({p_small} attention parameters, "
    f"{p_small / n_facts:g} per fact; the Thm. gives no constant)",
    bool(acc_small < 0.9),
    fmt="{:.2f}",
)
claims.add(
    f"transformer: attention route (H = {tf_heads[-1]}, m = 0) recalls ≥ 90%",
    float(acc_attn),
    "attention parameters ≳ SR suffice (Thm.)",
    bool(acc_attn >= 0.9),
    fmt="{:.2f}",
)
gap_closed = (acc_mlp - acc_small) / max(1 - acc_small, 1e-12)
claims.add(
    f"transformer: MLP route (H = {tf_heads[0]}, m = {tf_widths[-1]}) closes ≥ 1/2 of "
    "the small attention's gap to 100% recall",
    float(gap_closed),
    "an MLP beside the attention stores facts too (Thm.: MLP parameters ≳ SR suffice)",
    bool(acc_small < 1 and gap_closed >= 0.5),
    fmt="{:.2f}",
)
claims.add(
    "transformer: facts stored grow with attention parameters "
    "(log-log slope above 0 by 3 s.e.)",
    float(fit_facts.slope),
    "facts grow with parameters (abstract: linearly, up to logs; the law itself is "
    "not resolved here)",
    facts_grow,
    fmt="{:.2f}",
)
print(
    f"MLP route: recall {acc_mlp:.2f} "
    + ("(reaches 90%)" if acc_mlp >= 0.9 else "(below 90%)")
)
print("for the comparison with the paper below:")
print(
    "linear memory: c = N log N / d^2 per d:",
    " ".join(f"{c:.2f}" for c in c_lin.mean(1)),
)
print(f"linear memory, d = {am_dims[-1]}: capacity {cap_trained[-1].tolist()}")
print(
    f"MLP memory: exponent of N in md {slope_mlp_raw.mean():.2f} ± {tol_mlp:.2f}; "
    f"c at d = {mlp_dims[-1]}: {c_mlp[-1].mean():.2f}"
)
print(f"MLP memory, d = m = {mlp_dims[0]}: capacity {cap_mlp[0].tolist()}")
print(
    f"sequential learning: min t_subj / t_rel = {ratio_min:.2f}, "
    f"plateau at {plateau:.3f} log D"
)
print(
    f"transformer: H = {tf_heads[0]}, m = 0: {acc_small:.2f}; "
    f"H = {tf_heads[-1]}, m = 0: {acc_attn:.2f}; "
    f"H = {tf_heads[0]}, m = {tf_widths[-1]}: {acc_mlp:.2f}"
)
print(f"runtime {time.perf_counter() - t_start:.1f} s wall-clock")
claims.report()

# %% [markdown]
# Every claim above is also run under **controls**: named, deliberately wrong variants of this
# chapter, declared in `controls.yaml`, each taking away the idea a claim tests. Training is
# taken from the linear memory (`no-training`), the ReLU from the MLP memory (`linear-mlp`), the
# relation's head start from the sequential task (`frequent-subjects`: as many subjects as
# relations), the storage from the MLP (`mlp-off`), and model size from the transformers: every
# model gets the fewest heads (`few-heads`) or the most (`many-heads`) of its grid or count; and
# for the non-reproduced growth test a positive control
# (`paper-law`) shows that the test accepts the paper's law when the capacities follow it. The
# table shows, for each claim, the controls under which its check comes out the other way (at
# the default parameters, seed 0). Run one with
# `make run CHAPTER=factual-recall-associative-memories CONTROL=mlp-off`: the claims cell then
# names the control and fails if a claim it must flip still holds.
#
# ```{controls-table}
# ```
#
#
# ## How this compares with the paper
#
# | | paper (or the authors' code) | this chapter (printed above the claims table) |
# |---|---|---|
# | linear memory, law | $N\log N\propto d^2$, $d$ up to $2^8$ | at $d\le32$ the growth test rejects it and accepts $N\propto d^{1.5}$ (pre-asymptotic) |
# | linear memory, constant | hand-placed line $N\log N = d^2/1.3$ ($c=0.77$), no fitted constant | $c$ falls from {glue}`am_c_first` to {glue}`am_c_last` over `am_dims` |
# | MLP memory, law | $N\propto md$ up to logs | exponent {glue}`mlp_exp` ± {glue}`mlp_exp_tol`, verdicts shown, not claimed; capacity over the linear memory's at the same $d$ above the square root of the parameter ratio (claims table) |
# | MLP memory, constant | hand-placed line $N\log N = md/0.35$ ($c=2.86$), no fitted constant | $c$ at the largest $d$: {glue}`mlp_c_top` |
# | MLP memory, budget | lr $3\cdot10^{-2}$, up to $2^{15}$ steps, early stopping | same rate, `mlp_steps` steps: {glue}`mlp_shortfall`% below the capacity at `mlp_budget_max` steps |
# | sequential learning | relation first, then subject; plateau at $\log D$ | as the paper says |
# | one-layer transformer | 100% recall once attention *or* MLP parameters $\gtrsim SR$ ($S=R=32$) | $S=R=8$: the small attention fails, more heads store the facts, the MLP closes most of the gap |
# | facts against parameters | facts $\propto$ parameters (their sweep over $SR$ and model shapes) | stored facts grow with attention parameters (claims table); slope {glue}`facts_slope` ± {glue}`facts_slope_se` against {glue}`facts_slope_logs` for $N\log N\propto P$: the law is not resolved at this scale |
#
# **Linear memory.** The trained capacity grows like $d^2$ up to a logarithm over the range we
# can afford, but with $\ge 8$ replicates the growth test can tell the laws apart, and it favours
# the plain power law $N\propto d^{1.5}$: the paper's $N\log N = c\,d^2$ predicts an exponent of
# $N$ in $d$ of {glue}`am_exp_A`, we measure {glue}`am_exp` ± {glue}`am_exp_tol`. $N\log N/d^2$
# drifts down from {glue}`am_c_first` to {glue}`am_c_last`, towards the authors' hand-placed line
# $d^2/1.3$, drawn through their capacities at $d$ up to 256. Over seeds 0–9 the measured
# exponent is {seeds}`1`. The
# outer-product memory stores several times less at every $d$, in every replicate (the claims
# table gives the smallest ratio). Its capacity at 99% accuracy is small and noisy at these
# sizes, because the $d^{-1/2}$ cross-talk terms of the derivation dominate until $d\gg\log N$;
# its fitted exponent is not a clean measurement of its asymptotic scaling, and we make no claim
# about it.
#
# **MLP memory.** With $m=d$ the capacity holds more than the linear memory of the same $d$ by
# more than the square root of the parameter ratio at the largest common $d$ (over seeds 0–9,
# the ratio over its bar is {seeds}`3`), and its constant $N\log N/(md)$ at the largest $d$ is {glue}`mlp_c_top`
# against the $1/0.35$ of the authors' hand-placed line. The range of $md$ is a factor 4, too
# short to pin the exponent down, so the chapter makes no claim about it. The default trains at the authors' learning rate, $3\cdot10^{-2}$, for `mlp_steps` steps
# per bisection trial; {numref}`fig-far-mlp-budget` shows capacity against the budget at the
# smallest $d$, and the shortfall of `mlp_steps` against `mlp_budget_max` is
# {glue}`mlp_shortfall`% in this run. Both memories store on the order of one association per parameter ($d^2$,
# respectively $2md$, parameters).
#
# **Sequential learning.** The two stages are as the theorem describes. The relation-only loss
# drops to near zero while the subject-only loss sits at $\log D$. In that window the model puts
# its mass uniformly on the $D$ answers of the right relation, a confident answer of the right
# type that is usually wrong. The subject is picked up later: $t_{\mathrm{subj}}
# /t_{\mathrm{rel}} =$ {glue}`seq_ratio` in this run and {seeds}`4` (its minimum over the
# replicates) over seeds 0–9, of the order of the ratio {glue}`seq_rate_ratio` of the two growth
# rates {eq}`eq-far-rates`. With as many subjects as relations (the `frequent-subjects` control)
# the head start is gone and the plateau with it.
#
# **Transformer.** The authors train the full grid $H\in\{1,\dots,32\}\times m\in\{1,\dots,128\}$
# at $S=R=32$ and draw the trade-off as a heat map. We train its four corners at a quarter of
# the facts and half the dimension ({numref}`fig-far-transformer`). The small attention without
# an MLP fails ({glue}`tf_acc_small`% recall), and more heads recall {glue}`tf_acc_attn`% of
# the {glue}`tf_n_facts` facts, as {prf:ref}`far-thm-tradeoff` says. The small
# attention has $4Hd_hd = 512$ attention parameters, eight per fact: the theorem's sufficient
# size holds up to logarithmic factors and constants, so its failure is the contrast for the
# other two corners, not a test of the $\tilde\Omega(SR)$ lower bound. The MLP closes most of the
# small attention's gap (over seeds 0–9: {seeds}`8`); with its output multiplied by 0 (`mlp-off`)
# it closes none. The claim tests that an MLP beside the attention stores facts, not that its
# nonlinearity is needed at this size: under `linear-mlp` the transformer's MLP is one linear
# map too, and the controls table shows whether the claim survives it on seed 0. The facts-against-parameters count ({numref}`fig-far-facts`) is the abstract's
# headline at our scale: its slope over seeds 0–9 is {seeds}`9`. The authors measure capacity by
# a search over $SR$ at $d$ up to $2^{7.5}$; the `paper` preset runs their grid sizes.
#
# **Runtime.** The notebook prints its own wall-clock time above. The `paper` preset (dimensions up to 256, the MLP memory to $d=64$
# with $2^{15}$-step budgets, the $5\times5$ transformer grid at the authors' sizes) is GPU
# work; `paper.yaml` gives its estimated runtime, scaled from the default run's per-step times.
#
# ## Try it
#
# * `python -m lib.build run factual-recall-associative-memories -p seq_subjects=32 -p seq_steps=1200`
#   doubles the subjects, which halves the subject's growth rate in {eq}`eq-far-rates`. The
#   subject is picked up later, and the plateau at $\log D$ is still there.
# * `python -m lib.build run factual-recall-associative-memories -p am_steps=600` trains the
#   linear memory four times longer: compare the capacities at each $d$ and the growth test's
#   verdict with the run above.
# * `python -m lib.build run factual-recall-associative-memories -p "tf_heads=[1, 8]"` replaces
#   the two-head transformer by a one-head one, which must forward both the subject and the
#   relation to the MLP through a single head of dimension 4: compare its recall with and
#   without the MLP, and over a few seeds.
