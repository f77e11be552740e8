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
# # In-context learning as generalization over sequences and topics
#
# ```{admonition} About this chapter
# :class: tip
# Paper: {cite:t}`gong2025autoregressive` (ICLR 2025). Question: a language model is pre-trained only to
# predict the next token, yet it then learns new tasks from a prompt. The paper's answer is that this
# in-context learning (ICL) is *generalization* at two levels, to new sequences of the pre-training topics
# and to new topics, and that PAC-Bayes bounds for both levels shrink with the number of topics $K$,
# sequences per topic $N$ and sequence length $T$. We pre-train a tiny causal transformer on next-step
# prediction of random linear dynamical systems (one system per topic), measure its loss on unseen
# systems along the prompt against an in-context least-squares predictor, sweep $K$ at a fixed number of
# training tokens, and evaluate a two-level PAC-Bayes bound on the trained weights. The defaults train
# twelve small models at once in well under a minute on a CPU;
# `make run CHAPTER=icl-autoregressive-generalization PRESET=paper` runs a larger preset (GPU territory).
# ```
#
# ## The question
#
# A language model never sees "tasks" during pre-training: it sees sequences, each written about some
# topic, and learns to predict each token from the ones before it (auto-regressive next-token
# prediction, AR-NTP). At test time it is given a prompt from a topic it may never have seen and, as the
# prompt grows, its predictions improve. Where does that ability come from?
#
# {cite:t}`gong2025autoregressive` make two points. First, unlike most theory of ICL, which studies prompts
# made of i.i.d. input–label pairs, the tokens of a prompt *depend on each other*: the analysis has to be
# about next-token prediction of dependent sequences. Second, ICL *emerges from generalization*: pre-training
# on $K$ topics with $N$ sequences of length $T$ each controls the loss on a new sequence of a seen topic
# (sequence-level generalization) and on a sequence of an unseen topic (topic-level generalization), and
# both gaps shrink as $K$, $N$ and $T$ grow. We ask three things in a setting small enough to run here:
# (i) does a transformer pre-trained by AR-NTP learn in context on *unseen* topics, and how close does it
# come to the best in-context estimator; (ii) at a fixed budget of training tokens, do more topics lower
# the unseen-topic loss and close the gap between seen and unseen topics; (iii) does a computable PAC-Bayes
# bound of the two-level form move with $K$ and $N$ as the theorem says, and is it informative at this
# scale?
#
# ## The setting and the theorem
#
# ```{prf:definition} Two-level pre-training data
# :label: iclar-def-data
#
# A *topic* $\tau$ is drawn from a topic distribution $\mathcal T$ and fixes a distribution $P_\tau$ over
# sequences $s = (x_0, x_1, \dots, x_T)$ whose tokens depend on each other. Pre-training draws topics
# $\tau_1, \dots, \tau_K$ i.i.d. from $\mathcal T$ and, for each topic $k$, sequences
# $s_{k,1}, \dots, s_{k,N}$ i.i.d. from $P_{\tau_k}$: $KN$ sequences and $KNT$ next-token targets in all.
# A model $f_\theta$ predicts token $x_{t+1}$ from the prefix $x_{0:t}$, and its loss on a sequence is the
# average next-token loss
#
# $$
# \ell(\theta; s) = \frac1T \sum_{t=0}^{T-1} \ell\big(f_\theta(x_{0:t}),\, x_{t+1}\big) .
# $$ (eq-iclar-seqloss)
# ```
#
# ```{prf:definition} Empirical, seen-topic and two-level risks
# :label: iclar-def-risks
#
# The pre-training (empirical) loss, the risk on new sequences of the pre-training topics, and the
# two-level risk on a new topic are
#
# $$
# \widehat L(\theta) = \frac{1}{KN}\sum_{k=1}^K\sum_{n=1}^N \ell(\theta; s_{k,n}), \qquad
# L_{\mathrm{seen}}(\theta) = \frac1K \sum_{k=1}^K \mathbb E_{s\sim P_{\tau_k}} \ell(\theta; s), \qquad
# L(\theta) = \mathbb E_{\tau\sim\mathcal T}\, \mathbb E_{s\sim P_\tau}\, \ell(\theta; s) .
# $$ (eq-iclar-risks)
#
# $L$ is the expected loss of the model on the prompt of an unseen topic: in-context learning, measured
# position by position, is the profile of this loss along $t$. The gap splits in two:
#
# $$
# L - \widehat L = \underbrace{\big(L - L_{\mathrm{seen}}\big)}_{\text{topic level}}
# + \underbrace{\big(L_{\mathrm{seen}} - \widehat L\big)}_{\text{sequence level}} .
# $$ (eq-iclar-split)
# ```
#
# The sequence-level term is small when the model does not memorise the particular $KN$ sequences; the
# topic-level term is small when it does not memorise the particular $K$ topics. A model that learned the
# $K$ topics themselves (here: their dynamics) has a small sequence gap and a large topic gap; a model that
# learned to *infer* the topic from the prefix has both small, and that is ICL.
#
# ```{prf:theorem} Two-level PAC-Bayes bounds (informal, after Gong et al.)
# :label: iclar-thm-main
#
# Let the loss be bounded and let $P$ be a prior and $Q$ a posterior over the weights. With probability at
# least $1-\delta$ over the pre-training data, the sequence-level gap of the posterior is at most of order
# $\sqrt{(\mathrm{KL}(Q\,\|\,P) + \log(1/\delta))/(KNT)}$ (the paper's Theorem 4.3: the token dependence inside
# a sequence is handled with "ghost" sequences, so all $KNT$ tokens count), and the topic-level gap is at
# most of order $\sqrt{(\mathrm{KL}(Q\,\|\,P) + \log(1/\delta))/K}$ (Theorem 4.6). The prior may depend on the
# data, and the KL term is bounded through the optimisation path: training is viewed as a continuous-time
# stochastic differential equation with gradients bounded by a constant (the paper's Assumption 4.2), so the
# KL grows with the training time and the gradient bound. Hence both gaps shrink as $K$, $N$ and $T$ grow,
# and the topic-level one, which only $K$ controls, is the bottleneck of ICL on unseen topics.
# (The exact statements and constants are in the paper; the notes this chapter was built from did not give
# them, so we state the structure only.)
# ```
#
# To have a number we can compute, we prove a bound of the same two-level form ourselves, with the
# PAC-Bayes-kl inequality of {cite:t}`maurer2004note` at each level and a Gaussian posterior around the
# trained weights, as in the non-vacuous bounds of {cite:t}`dziugaite2017computing`.
#
# ```{prf:proposition} A computable two-level PAC-Bayes-kl bound
# :label: iclar-prop-bound
#
# Let $\ell \in [0, 1]$, let $P_j = \mathcal N(\theta_0, \sigma_j^2 I)$, $j = 1, \dots, J$, be priors centred
# at the initialisation $\theta_0$ (drawn before any data), and $Q_j = \mathcal N(\hat\theta, \sigma_j^2 I)$
# posteriors around the trained weights, so $\mathrm{KL}_j = \lVert\hat\theta-\theta_0\rVert^2/(2\sigma_j^2)$.
# Write $\mathrm{kl}(p\,\|\,q)$ for the KL divergence between Bernoulli laws, $\mathrm{kl}^{-1}(p, \varepsilon)
# = \max\{q \ge p : \mathrm{kl}(p\,\|\,q) \le \varepsilon\}$ and
# $\xi(n) = \sum_{i=0}^n \binom{n}{i} (i/n)^i (1-i/n)^{n-i}$ ($\le 2\sqrt n$). With probability at least
# $1-\delta$, for every $j$ at once,
#
# $$
# \mathbb E_{Q_j} L \;\le\; \mathrm{kl}^{-1}\!\Big(\mathrm{kl}^{-1}\big(\mathbb E_{Q_j}\widehat L,\ \varepsilon_{\mathrm{seq}}\big),\
# \varepsilon_{\mathrm{topic}}\Big), \qquad
# \varepsilon_{\mathrm{seq}} = \frac{\mathrm{KL}_j + \log\frac{2J\xi(KN)}{\delta}}{KN}, \quad
# \varepsilon_{\mathrm{topic}} = \frac{\mathrm{KL}_j + \log\frac{2J\xi(K)}{\delta}}{K} .
# $$ (eq-iclar-bound)
# ```
#
# ```{prf:proof}
# *Sequence level.* Condition on the topics. The $KN$ sequences are independent, and the mean of their
# expected losses is $L_{\mathrm{seen}}$. Maurer's inequality
# $\mathbb E\, e^{n\,\mathrm{kl}(\widehat L \| L_{\mathrm{seen}})} \le \xi(n)$ for a fixed $\theta$, the change of
# measure $\mathbb E_Q g \le \mathrm{KL}(Q\|P) + \log \mathbb E_P e^{g}$, Markov's inequality and the joint
# convexity of $\mathrm{kl}$ give $\mathrm{kl}(\mathbb E_Q \widehat L \,\|\, \mathbb E_Q L_{\mathrm{seen}}) \le
# \varepsilon_{\mathrm{seq}}$ with probability $1-\delta/(2J)$; invert in the second argument.
# *Topic level.* For a fixed $\theta$ the per-topic risks $r_k(\theta) = \mathbb E_{s\sim P_{\tau_k}}\ell(\theta; s)
# \in [0,1]$ are i.i.d. over topics with mean $L(\theta)$, and their average is $L_{\mathrm{seen}}$; the same steps
# with $n = K$ give $\mathrm{kl}(\mathbb E_Q L_{\mathrm{seen}} \,\|\, \mathbb E_Q L) \le \varepsilon_{\mathrm{topic}}$.
# Since $\mathrm{kl}^{-1}(p, \varepsilon)$ increases in $p$, the first bound may be inserted into the second. A
# union bound over the two levels and the $J$ priors gives the factor $2J$.
# ```
#
# Tokens inside a sequence are dependent, so {prf:ref}`iclar-prop-bound` counts *sequences*, not tokens, at
# the sequence level: it needs no mixing assumption but misses the factor $T$ that the paper's ghost-sequence
# argument gains. Both complexity terms have the theorem's shape: $\varepsilon_{\mathrm{seq}} \propto 1/(KN)$
# and $\varepsilon_{\mathrm{topic}} \propto 1/K$, *if* the distance $\lVert\hat\theta-\theta_0\rVert$ that
# training travels does not grow as fast as the data. Whether it does is an empirical question we measure.
#
# ```{prf:definition} Topics as linear dynamical systems
# :label: iclar-def-lds
#
# A topic is a matrix $A = \rho\, U$ with $U$ a uniformly random (Haar) orthogonal $d\times d$ matrix and
# $0 < \rho < 1$, so every eigenvalue has modulus $\rho$ and the system is stable. A sequence of topic $A$
# starts at $x_0 \sim \mathcal N(0, I_d)$ and follows
#
# $$
# x_{t+1} = A\, x_t + \varepsilon_t, \qquad \varepsilon_t \sim \mathcal N(0, \sigma^2 I_d) .
# $$ (eq-iclar-lds)
#
# The next-token loss is the squared error per coordinate,
# $\ell(\hat x, x) = \lVert \hat x - x\rVert^2/d$; for the bound it is clipped, $\min(\ell, c)/c$.
# ```
#
# Three predictors bracket what a model can achieve on an unseen topic. Knowing $A$ (the *oracle*) leaves
# the noise, a loss of $\sigma^2$. Knowing nothing about the topic (*no context*), the best prediction of
# $x_{t+1}$ is $\mathbb E[A]\,x_t = 0$, since $U$ and $-U$ are equally likely. In between, the prefix
# $x_{0:t}$ holds $t$ transitions from which $A$ can be estimated: that is the in-context estimator a
# transformer could learn.
#
# ```{note}
# **Where this chapter departs from the paper.**
# * The paper's experiments train GPT-2 on linear dynamical systems, on the synthetic GINC language of
#   {cite:t}`xie2022explanation` and on real language tasks. We use a two-layer causal transformer with about
#   7,000 weights and linear dynamical systems in $d = 2$ dimensions with rotation-like dynamics
#   ({prf:ref}`iclar-def-lds`, our choice of topic distribution: the notes do not give the paper's).
#   GINC is not run, in the default or in the `paper` preset.
# * The notes flag a confound in the paper's sweeps: changing $K$, $N$ or $T$ also changes the amount of data.
#   Our $K$ sweep keeps $KN$ (hence $KNT$ tokens) fixed; the $N$ sweep at fixed $K$ changes the data, as the
#   theorem's $N$ does.
# * The bound we compute is ours ({prf:ref}`iclar-prop-bound`), not the paper's: its prior is centred at the
#   initialisation and its scale is picked from a grid (paid for by the union bound), instead of the paper's
#   data-dependent prior and SDE view of training, whose constants we do not have. It counts sequences, not
#   tokens, at the sequence level. The expected loss under the posterior is a Monte-Carlo mean over a few
#   weight draws, without the extra concentration term a fully rigorous bound would add.
# * Training is Adam with a constant step for a few hundred steps; the trained model is far from the best
#   in-context estimator, and we say by how much.
# ```
#
# ## The algorithm

# %% tags=["parameters"]
seed = 0
device = "cpu"  # "cpu", "cuda" or "auto"
state_dim = 2  # d, the dimension of a token x_t
seq_len = 16  # T, next-token targets per sequence
rho = 0.95  # spectral radius of every topic matrix A
noise_std = 0.1  # sigma, the noise of the dynamics
topic_counts = [1, 4, 16, 64]  # the K sweep, at a fixed number of training sequences
total_sequences = 256  # K times N in the K sweep (fixed tokens)
sweep_topics = 16  # the K of the N sweep
sweep_per_topic = [4, 16, 64]  # the N sweep at K fixed to sweep_topics
replicates = 2  # independent pre-training runs per (K, N)
d_model = 16  # transformer width
n_layers = 2  # transformer blocks
n_heads = 1  # attention heads per block
train_steps = 600  # Adam steps (all models train at once)
batch_size = 32  # sequences per step and model
learning_rate = 0.003
n_test = 1024  # test sequences (unseen topics, and seen topics per model)
loss_clip = 1.0  # c, the clip of the per-token loss in the bound
sigma_grid = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05]  # posterior and prior scales
posterior_samples = 2  # weight draws per scale for the posterior's loss
delta = 0.05  # the bound holds with probability at least 1 - delta
progress = False  # a progress bar over the training loop (on in paper.yaml)

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
from scipy.special import gammaln

lib.check_int("seed", seed, low=0, high=2**32 - 1)
lib.check_choice("device", device, ["auto", "cpu", "cuda"])
lib.check_int("state_dim", state_dim, low=1, high=64)
lib.check_int("seq_len", seq_len, low=2, high=1024)
lib.check_float("rho", rho, low=0.0, high=1.0, low_open=True)
if rho >= 1.0:
    raise ValueError(f"parameter `rho` = {rho!r} is invalid: must be < 1 (stable)")
lib.check_float("noise_std", noise_std, low=0.0, low_open=True)
lib.check_int_list("topic_counts", topic_counts, low=1, min_len=2, increasing=True)
lib.check_int("total_sequences", total_sequences, low=1)
if any(total_sequences % k for k in topic_counts):
    raise ValueError(
        f"parameter `total_sequences` = {total_sequences!r} is invalid: must be a "
        f"multiple of every entry of topic_counts {topic_counts!r}"
    )
lib.check_int("sweep_topics", sweep_topics, low=1)
lib.check_int_list(
    "sweep_per_topic", sweep_per_topic, low=1, min_len=2, increasing=True
)
lib.check_int("replicates", replicates, low=1)
lib.check_int("d_model", d_model, low=2)
lib.check_int("n_heads", n_heads, low=1)
if d_model % n_heads:
    raise ValueError(
        f"parameter `n_heads` = {n_heads!r} is invalid: must divide d_model = {d_model}"
    )
lib.check_int("n_layers", n_layers, low=1)
lib.check_int("train_steps", train_steps, low=1)
lib.check_int("batch_size", batch_size, low=1)
lib.check_float("learning_rate", learning_rate, low=0.0, low_open=True)
lib.check_int("n_test", n_test, low=16)
lib.check_float("loss_clip", loss_clip, low=0.0, low_open=True)
lib.check_float_list("sigma_grid", sigma_grid, low=0.0, low_open=True, increasing=True)
lib.check_int("posterior_samples", posterior_samples, low=1)
lib.check_float("delta", delta, low=0.0, high=1.0, low_open=True)
lib.check_bool("progress", progress)

configs = [(k, total_sequences // k) for k in topic_counts]  # (K, N)
configs += [
    (sweep_topics, n) for n in sweep_per_topic if (sweep_topics, n) not in configs
]
runs = [c for c in configs for _ in range(replicates)]  # one model per entry
n_models, max_seqs = len(runs), max(k * n for k, n in runs)
floats = (
    n_models * (max_seqs + 2 * n_test) * (seq_len + 1) * state_dim  # data
    + 24 * n_models * batch_size * seq_len * d_model * n_layers  # training graph
    + 8 * n_models * 256 * seq_len * (seq_len + 4 * d_model)  # evaluation chunks
)
if 4 * floats > 8 * 2**30:
    raise ValueError(
        f"{n_models} models with up to {max_seqs} sequences need about "
        f"{4 * floats / 2**30:.0f} GiB; reduce total_sequences, sweep_per_topic, "
        "replicates or n_test (the limit is 8 GiB)"
    )
rng, device = lib.setup(seed, device)


# %% [markdown]
# ### Data
#
# Every model gets its own topics and sequences. The sequences of all models sit in one array, padded to
# the largest data set, so that one vectorised recursion {eq}`eq-iclar-lds` generates all of them.

# %%
def random_topics(shape):
    """Topic matrices A = rho * U, U Haar-orthogonal, of shape shape + (d, d)."""
    g = rng.standard_normal(shape + (state_dim, state_dim))
    q, r = np.linalg.qr(g)
    q = q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]
    return rho * q


def rollout(A):
    """Sequences x_0..x_T of the dynamics A[..., d, d]; returns [..., T + 1, d]."""
    x = np.empty(A.shape[:-2] + (seq_len + 1, state_dim))
    x[..., 0, :] = rng.standard_normal(A.shape[:-1])
    for t in range(seq_len):
        noise = noise_std * rng.standard_normal(A.shape[:-1])
        x[..., t + 1, :] = np.einsum("...ij,...j->...i", A, x[..., t, :]) + noise
    return x


train_topics = [random_topics((k,)) for k, n in runs]
train_A = np.zeros((n_models, max_seqs, state_dim, state_dim))
for m, (k, n) in enumerate(runs):
    train_A[m, : k * n] = np.repeat(
        train_topics[m], n, axis=0
    )  # topic of each sequence
train_x = rollout(train_A)
n_seqs = np.array([k * n for k, n in runs])
print(f"{n_models} models; (K, N) = {configs}, {replicates} replicate(s) each")
print(f"{n_seqs.sum()} training sequences, {n_seqs.sum() * seq_len} next-token targets")


# %% [markdown]
# ### The in-context least-squares predictor
#
# Given the prefix $x_{0:t}$, the transitions $(x_s, x_{s+1})_{s<t}$ are a regression problem for $A$. Under
# a Gaussian prior on the entries of $A$ with the variance $\rho^2/d$ of our topics, the posterior mean is
# ridge regression with $\lambda = d\sigma^2/\rho^2$:
#
# $$
# \widehat A_t = \Big(\sum_{s<t} x_{s+1}x_s^\top\Big)\Big(\sum_{s<t} x_s x_s^\top + \lambda I\Big)^{-1},
# \qquad \hat x_{t+1} = \widehat A_t\, x_t .
# $$ (eq-iclar-ridge)
#
# At $t = 0$ there is no transition and $\widehat A_0 = 0$, the no-context prediction; after $d$ or so
# transitions $\widehat A_t$ is close to $A$ and the loss approaches $\sigma^2$. This is our reference for
# what a learner that infers the topic from the prompt can do; it is close to, but not exactly, the Bayes
# predictor (the true prior on $A$ is orthogonal, not Gaussian).

# %%
def ridge_predictions(x):
    """In-context ridge predictions of x_{t+1} from x_{0:t}, all t; x[b, T + 1, d]."""
    lam = state_dim * noise_std**2 / rho**2
    prev, nxt = x[:, :-1], x[:, 1:]
    xx = np.einsum("bti,btj->btij", prev, prev).cumsum(1)  # sums over s <= t
    yx = np.einsum("bti,btj->btij", nxt, prev).cumsum(1)
    eye = lam * np.eye(state_dim)
    xx = np.concatenate([np.zeros_like(xx[:, :1]), xx[:, :-1]], 1) + eye  # s < t
    yx = np.concatenate([np.zeros_like(yx[:, :1]), yx[:, :-1]], 1)
    A_hat = np.linalg.solve(xx, yx.swapaxes(-1, -2)).swapaxes(-1, -2)
    return np.einsum("btij,btj->bti", A_hat, prev)


def per_position_loss(pred, x):
    """Mean over sequences of the per-coordinate squared error, per position t."""
    return ((pred - x[..., 1:, :]) ** 2).mean(-1).mean(-2)


# %% [markdown]
# ### A tiny causal transformer, many at once
#
# The model embeds each token $x_t \in \mathbb R^d$ linearly, adds a learned position embedding, applies
# `n_layers` pre-norm blocks of causal self-attention and a GELU MLP, and reads out $\hat x_{t+1}$ linearly
# from position $t$ {cite:p}`vaswani2017attention`. Causal masking makes position $t$ see exactly $x_{0:t}$,
# so one forward pass returns all $T$ next-token predictions of {eq}`eq-iclar-seqloss`. Every weight carries
# a leading *model* axis, so the twelve models of the sweep are trained as one batched computation (their
# data and losses never mix).

# %%
def init_params(n):
    """Weights of n independent transformers (leading axis: model)."""

    def normal(*shape, scale):
        return torch.randn(n, *shape) * scale

    D, out_scale = d_model, 1 / math.sqrt(2 * n_layers)
    p = {
        "embed": normal(state_dim, D, scale=state_dim**-0.5),
        "pos": normal(seq_len, D, scale=0.1),
        "ln_g": torch.ones(n, D),
        "ln_b": torch.zeros(n, D),
        "readout": normal(D, state_dim, scale=0.1 * D**-0.5),
        "readout_b": torch.zeros(n, state_dim),
    }
    for i in range(n_layers):
        p |= {
            f"{i}.ln1_g": torch.ones(n, D),
            f"{i}.ln1_b": torch.zeros(n, D),
            f"{i}.qkv": normal(D, 3 * D, scale=D**-0.5),
            f"{i}.proj": normal(D, D, scale=D**-0.5 * out_scale),
            f"{i}.ln2_g": torch.ones(n, D),
            f"{i}.ln2_b": torch.zeros(n, D),
            f"{i}.mlp_in": normal(D, 4 * D, scale=D**-0.5),
            f"{i}.mlp_in_b": torch.zeros(n, 4 * D),
            f"{i}.mlp_out": normal(4 * D, D, scale=(4 * D) ** -0.5 * out_scale),
            f"{i}.mlp_out_b": torch.zeros(n, D),
        }
    return {k: v.to(device) for k, v in p.items()}


def layer_norm(h, g, b):
    h = (h - h.mean(-1, keepdim=True)) / torch.sqrt(
        h.var(-1, correction=0, keepdim=True) + 1e-5
    )
    return h * g[:, None, None] + b[:, None, None]


def linear(h, w, b=None):  # h[m, batch, t, i] @ w[m, i, j]
    out = torch.einsum("mbti,mij->mbtj", h, w)
    return out if b is None else out + b[:, None, None]


def transformer(p, x):
    """Next-token predictions for x[m, batch, T, d] (position t sees x_0..x_t)."""
    M, B, T, _ = x.shape
    dh = d_model // n_heads
    causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
    h = linear(x, p["embed"]) + p["pos"][:, None, :T]
    for i in range(n_layers):
        a = layer_norm(h, p[f"{i}.ln1_g"], p[f"{i}.ln1_b"])
        q, k, v = (
            z.reshape(M, B, T, n_heads, dh).transpose(2, 3)
            for z in linear(a, p[f"{i}.qkv"]).split(d_model, -1)
        )
        scores = (q @ k.transpose(-1, -2) / math.sqrt(dh)).masked_fill(
            ~causal, -math.inf
        )
        a = (scores.softmax(-1) @ v).transpose(2, 3).reshape(M, B, T, d_model)
        h = h + linear(a, p[f"{i}.proj"])
        a = layer_norm(h, p[f"{i}.ln2_g"], p[f"{i}.ln2_b"])
        a = torch.nn.functional.gelu(linear(a, p[f"{i}.mlp_in"], p[f"{i}.mlp_in_b"]))
        h = h + linear(a, p[f"{i}.mlp_out"], p[f"{i}.mlp_out_b"])
    h = layer_norm(h, p["ln_g"], p["ln_b"])
    return linear(h, p["readout"], p["readout_b"])


theta_0 = init_params(n_models)
n_weights = sum(v[0].numel() for v in theta_0.values())
print(f"{n_weights} weights per model")

# %% [markdown]
# ### Pre-training by next-token prediction
#
# Each step draws `batch_size` of a model's own training sequences (with replacement) and takes one Adam
# step on the mean next-token loss {eq}`eq-iclar-seqloss`. All models take the same number of steps on the
# same number of sequences per step, so in the $K$ sweep they differ only in how their fixed pool of
# $KN$ sequences is spread over topics.

# %%
theta = {k: v.clone().requires_grad_() for k, v in theta_0.items()}
optimiser = torch.optim.Adam(theta.values(), lr=learning_rate)
data = torch.tensor(train_x, dtype=torch.float32, device=device)
sizes = torch.tensor(n_seqs, device=device)[:, None]
model_axis = torch.arange(n_models, device=device)[:, None]
start = time.perf_counter()
train_loss = []
for step in lib.progress(range(train_steps), enabled=progress, desc="pre-training"):
    pick = (torch.rand(n_models, batch_size, device=device) * sizes).long()
    x = data[model_axis, pick]
    loss_per_model = ((transformer(theta, x[:, :, :-1]) - x[:, :, 1:]) ** 2).mean(
        (1, 2, 3)
    )
    optimiser.zero_grad()
    loss_per_model.sum().backward()
    optimiser.step()
    train_loss.append(loss_per_model.detach().cpu().numpy())
train_loss = np.array(train_loss)
theta = {k: v.detach() for k, v in theta.items()}
print(f"pre-training: {time.perf_counter() - start:.1f} s wall-clock")


# %% [markdown]
# ## The experiment
#
# ### In-context learning on unseen topics
#
# Every model is tested on the same `n_test` sequences of fresh topics (unseen by all of them) and on
# `n_test` fresh sequences of its *own* training topics (seen topics, new sequences). The loss at prompt
# position $t$ is the error of the prediction of $x_{t+1}$ made after reading $x_{0:t}$.

# %%
def model_losses(params, x, chunk=256):
    """Per-model, per-position test loss; x[m or 1, b, T + 1, d] in float64 numpy."""
    xt = torch.tensor(x, dtype=torch.float32, device=device)
    xt = xt.expand(n_models, -1, -1, -1)
    with torch.no_grad():
        pred = torch.cat(
            [
                transformer(params, xt[:, i : i + chunk, :-1])
                for i in range(0, xt.shape[1], chunk)
            ],
            1,
        )
    pred = pred.double().cpu().numpy()
    return per_position_loss(pred, np.broadcast_to(x, pred.shape[:2] + x.shape[2:]))


unseen_x = rollout(random_topics((n_test,)))
seen_A = np.stack(
    [train_topics[m][rng.integers(0, k, n_test)] for m, (k, n) in enumerate(runs)]
)
seen_x = rollout(seen_A)
unseen = model_losses(theta, unseen_x[None])  # [model, t]
seen = model_losses(theta, seen_x)
ridge = per_position_loss(ridge_predictions(unseen_x), unseen_x)
no_context = per_position_loss(np.zeros_like(unseen_x[:, 1:]), unseen_x)
oracle = noise_std**2
positions = np.arange(seq_len)
late = positions >= seq_len // 2  # the second half of the prompt


def sweep_mean(curves, k, n):
    """Mean over the replicates of configuration (K, N)."""
    return np.mean([c for c, r in zip(curves, runs) if r == (k, n)], axis=0)


k_sweep = configs[: len(topic_counts)]
n_sweep = sorted(c for c in configs if c[0] == sweep_topics)
print("late-prompt loss (mean over t >= T/2):")
print(
    f"  no context {no_context[late].mean():.2g}, ridge {ridge[late].mean():.2g}, "
    f"oracle {oracle:.2g}"
)
for k, n in k_sweep:
    u, s = sweep_mean(unseen, k, n)[late].mean(), sweep_mean(seen, k, n)[late].mean()
    print(f"  K {k:4d}, N {n:4d}: unseen {u:.2g}, seen {s:.2g}")

# %% [markdown]
# {numref}`fig-iclar-curve` is the ICL curve. The model pre-trained on the most topics predicts the first
# token of an unseen topic about as badly as the no-context predictor (it cannot do better: nothing in
# $x_0$ reveals $A$), and then its loss falls quickly as transitions accumulate in the prompt, as the in-context ridge
# predictor's does, though it stays well above ridge. The model pre-trained on a single topic is a
# different kind of predictor: it has learned that one system, and on unseen topics it is *worse* than
# predicting zero.

# %% mystnb={"figure": {"caption": "Next-token loss on unseen topics along the prompt, for transformers pre-trained on K topics at a fixed number of training sequences (mean over replicates), against the in-context ridge predictor, the no-context predictor and the noise floor. With many topics the transformer learns in context; with one topic it does not.", "name": "fig-iclar-curve"}} tags=["hide-input"]
fig, ax = lib.subplots()
for (k, n), colour in zip(k_sweep, lib.PALETTE):
    ax.plot(
        positions, sweep_mean(unseen, k, n), "o-", ms=3, color=colour, label=f"K = {k}"
    )
ax.plot(positions, ridge, "k--", label="in-context ridge")
ax.plot(positions, no_context, "k:", label="no context (predict 0)")
ax.axhline(oracle, color="0.6", lw=1, label=r"oracle (knows $A$): $\sigma^2$")
ax.set_yscale("log")
ax.set_xlabel("prompt position t (transitions seen)")
ax.set_ylabel("next-token loss (squared error per coordinate)")
ax.set_title(f"unseen topics, K N = {total_sequences} training sequences")
ax.legend(fontsize=8)
lib.show(fig)

# %% [markdown]
# ### More topics at the same number of tokens
#
# {numref}`fig-iclar-topics` summarises the $K$ sweep by the loss in the second half of the prompt. On seen
# topics the one-topic model is nearly at the noise floor: it has memorised its system. On unseen topics it
# is worst. As the same $KN$ sequences are spread over more topics, the seen-topic loss rises a little
# (each topic is seen less often) and the unseen-topic loss falls a lot, until the two nearly meet: the
# topic-level gap of {eq}`eq-iclar-split` closes, which is the paper's picture of ICL emerging from topic-level
# generalization.

# %% mystnb={"figure": {"caption": "Late-prompt loss (positions t at least T/2) on seen and unseen topics against the number of pre-training topics K, at a fixed number K N of training sequences; dots are replicates, lines their means. The gap between the two curves is the topic-level generalization gap.", "name": "fig-iclar-topics"}} tags=["hide-input"]
fig, ax = lib.subplots()
ks = np.array([k for k, n in k_sweep])
for curves, label, colour in ((seen, "seen topics", 0), (unseen, "unseen topics", 1)):
    means = [sweep_mean(curves, k, n)[late].mean() for k, n in k_sweep]
    ax.plot(ks, means, "-", color=lib.PALETTE[colour], label=label)
    for (k, n), c in zip(runs, curves):
        if (k, n) in k_sweep:
            ax.plot(k, c[late].mean(), "o", ms=4, color=lib.PALETTE[colour])
ax.axhline(ridge[late].mean(), color="k", ls="--", label="in-context ridge (unseen)")
ax.axhline(no_context[late].mean(), color="k", ls=":", label="no context (unseen)")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("pre-training topics K (K N fixed)")
ax.set_ylabel("late-prompt loss (squared error per coordinate)")
ax.legend(fontsize=8)
lib.show(fig)


# %% [markdown]
# ### The two-level bound on the trained weights
#
# We now evaluate {eq}`eq-iclar-bound`. For each model and each scale $\sigma_j$ we draw
# `posterior_samples` weight vectors from $Q_j = \mathcal N(\hat\theta, \sigma_j^2 I)$, compute their clipped
# loss $\min(\ell, c)/c$ on the model's own $KN$ training sequences, and combine it with
# $\mathrm{KL}_j = \lVert\hat\theta - \theta_0\rVert^2/(2\sigma_j^2)$. The inverse of the Bernoulli kl is found by
# bisection and $\xi(n)$ is summed exactly, in float64.

# %%
def kl_bernoulli(p, q):
    p, q = np.clip(p, 1e-12, 1 - 1e-12), np.clip(q, 1e-12, 1 - 1e-12)
    return p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))


def kl_inverse(p, eps, iterations=100):
    """Largest q in [p, 1] with kl(p || q) <= eps, by bisection (arrays broadcast)."""
    p, eps = np.broadcast_arrays(np.asarray(p, float), np.asarray(eps, float))
    lo, hi = p.copy(), np.ones_like(p)
    for _ in range(iterations):
        mid = (lo + hi) / 2
        inside = kl_bernoulli(p, mid) <= eps
        lo, hi = np.where(inside, mid, lo), np.where(inside, hi, mid)
    return lo


def log_xi(n):
    """log of Maurer's xi(n) = sum_i C(n, i) (i/n)^i (1 - i/n)^(n - i)."""
    i = np.arange(n + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = gammaln(n + 1) - gammaln(i + 1) - gammaln(n - i + 1)
        terms += np.nan_to_num(i * np.log(i / n)) + np.nan_to_num(
            (n - i) * np.log1p(-i / n)
        )
    return np.logaddexp.reduce(terms)


def clipped_train_loss(params, m, count, chunk=256):
    """Clipped loss of `count` weight vectors of model m on its own training data."""
    total = 0.0
    with torch.no_grad():
        for i in range(0, n_seqs[m], chunk):
            x = data[m, i : min(i + chunk, n_seqs[m])][None].expand(count, -1, -1, -1)
            err = ((transformer(params, x[:, :, :-1]) - x[:, :, 1:]) ** 2).mean(-1)
            total = total + (err.double().clamp(max=loss_clip) / loss_clip).sum((1, 2))
    return (total / (n_seqs[m] * seq_len)).cpu().numpy()


sigmas = np.array(sigma_grid)
J, S = len(sigmas), posterior_samples
distance2 = (
    sum(
        ((theta[k] - theta_0[k]).double() ** 2).sum(tuple(range(1, v.dim())))
        for k, v in theta.items()
    )
    .cpu()
    .numpy()
)  # |theta_hat - theta_0|^2 per model
trained_loss = np.zeros(n_models)
posterior_loss = np.zeros((n_models, J))
scale = torch.tensor(np.repeat(sigmas, S), dtype=torch.float32, device=device)
for m in range(n_models):
    one = {k: v[m : m + 1] for k, v in theta.items()}
    trained_loss[m] = clipped_train_loss(one, m, 1)[0]
    noisy = {
        k: v
        + scale.view(-1, *[1] * (v.dim() - 1))
        * torch.randn_like(v.expand(J * S, *v.shape[1:]))
        for k, v in one.items()
    }
    posterior_loss[m] = clipped_train_loss(noisy, m, J * S).reshape(J, S).mean(1)

K_of = np.array([k for k, n in runs])[:, None]
KN_of = n_seqs[:, None].astype(float)
kl = distance2[:, None] / (2 * sigmas**2)  # [model, j]
log_terms_seq = (
    np.log(2 * J / delta) + np.array([log_xi(int(n)) for n in n_seqs])[:, None]
)
log_terms_topic = (
    np.log(2 * J / delta) + np.array([log_xi(int(k)) for k, n in runs])[:, None]
)
eps_seq = (kl + log_terms_seq) / KN_of
eps_topic = (kl + log_terms_topic) / K_of
bound_seen = kl_inverse(posterior_loss, eps_seq)
bound_unseen = kl_inverse(bound_seen, eps_topic)
best = bound_unseen.argmin(1)
unseen_clipped = np.array(
    [
        (
            np.minimum(((p - unseen_x[:, 1:]) ** 2).mean(-1), loss_clip) / loss_clip
        ).mean()
        for p in [ridge_predictions(unseen_x), np.zeros_like(unseen_x[:, 1:])]
    ]
)
print(
    f"clipped unseen-topic loss: ridge {unseen_clipped[0]:.2g}, "
    f"no context {unseen_clipped[1]:.2g}"
)
print(
    "  K    N  |theta-theta0|^2  trained  Q-loss at sigma:",
    " ".join(f"{s:g}" for s in sigmas),
)
for m, (k, n) in enumerate(runs):
    q_loss = " ".join(f"{v:.2f}" for v in posterior_loss[m])
    print(f"{k:3d} {n:4d} {distance2[m]:12.2g} {trained_loss[m]:12.2g}    {q_loss}")

# %% [markdown]
# {numref}`fig-iclar-bound` shows the two complexity terms of {eq}`eq-iclar-bound` at the scale of the grid
# where the posterior's training loss is still within a factor two of the trained weights'. The topic-level
# term is thousands of times larger than 1 even for the largest $K$, so the bound itself is at its ceiling
# of 1 (the clipped loss's maximum), far above the no-context predictor's clipped loss: **at this scale the
# bound is vacuous**. Its *terms* still move as the theorem says: the topic term falls with $K$ at a fixed
# number of tokens, and the sequence term falls with $N$ at fixed $K$, because the squared distance training
# travels from the initialisation grows much more slowly than $K$ or $KN$ (about fourfold from $K = 1$
# to $K = 64$ in the table above). It is not a law: in steps of $K$ smaller than four the distance can grow
# faster than $K$ (see Try it). At a fixed $KN$ the sequence term *rises* a little with $K$, since the
# distance grows and $KN$ does not; the theorem does not ask it to fall there.

# %%
# the largest grid scale whose posterior loss is within 2x the trained loss
flat = posterior_loss <= 2 * trained_loss[:, None]
j_flat = np.where(flat.any(1), J - 1 - np.argmax(flat[:, ::-1], 1), 0)
j_ref = int(np.min(j_flat))  # one common scale, so the terms compare across models
print(
    f"common scale sigma = {sigmas[j_ref]:g} (posterior loss within 2x of trained "
    "for every model)"
)
print("  K    N   KL          eps_seq     eps_topic   bound (min over grid)")
for m, (k, n) in enumerate(runs):
    print(
        f"{k:3d} {n:4d} {kl[m, j_ref]:10.1e} {eps_seq[m, j_ref]:10.1e} "
        f"{eps_topic[m, j_ref]:10.1e}   {bound_unseen[m, best[m]]:.2f}"
    )

# %% mystnb={"figure": {"caption": "The complexity terms of the two-level bound at one common posterior scale (mean over replicates), against K at a fixed number of training sequences (left) and against N at fixed K (right). The topic term falls with K and the sequence term with N, as the theorem states, but both stay far above 1, where the bound is vacuous (dotted).", "name": "fig-iclar-bound"}} tags=["hide-input"]
fig, axes = lib.subplots(1, 2, sharey=True)
for ax, sweep, axis, name in (
    (axes[0], k_sweep, 0, "pre-training topics K (K N fixed)"),
    (axes[1], n_sweep, 1, f"sequences per topic N (K = {sweep_topics})"),
):
    xs = [c[axis] for c in sweep]
    for eps, label, colour in (
        (eps_topic, r"topic level $\varepsilon_{\mathrm{topic}}$", 1),
        (eps_seq, r"sequence level $\varepsilon_{\mathrm{seq}}$", 0),
    ):
        ys = [sweep_mean(eps[:, j_ref], *c) for c in sweep]
        ax.plot(xs, ys, "o-", color=lib.PALETTE[colour], label=label)
    ax.axhline(1, color="0.5", ls=":", label="above this the bound is vacuous")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(xs, [str(x) for x in xs])
    ax.minorticks_off()
    ax.set_xlabel(name)
axes[0].set_ylabel("complexity term (nats per sample)")
axes[0].legend(fontsize=8)
lib.show(fig)

# %% [markdown]
# ## What we reproduced
#
# The claims are about means over the replicates of a configuration. Thresholds are set from what the
# predictors themselves provide, not from the measured values: "approaches ridge" is read as *closer to ridge
# than to the no-context predictor* (more than half of the loss gap between them closed, in the second half
# of the prompt), and "falls with position" as a late-prompt loss below a third of the first position's.
# On seeds 0–9 the $K_{\max}$ models closed 0.62–0.84 of the gap and their late loss was 6–12 times
# ridge's and 0.07–0.14 of the first position's; the seen/unseen gap at $K_{\max}$ was 0.005–0.032 of
# the one-topic gap; and the bound's terms fell by ratios of at most 0.85 per step. The thresholds are not
# at the edge of that spread. The last two rows are claims that do
# **not** hold here and are registered as *not reproduced*.

# %%
k_min, k_max = k_sweep[0], k_sweep[-1]
curve_max = sweep_mean(unseen, *k_max)
closed = (no_context[late].mean() - curve_max[late].mean()) / (
    no_context[late].mean() - ridge[late].mean()
)
fall = curve_max[late].mean() / curve_max[0]
ratio_to_ridge = curve_max[late].mean() / ridge[late].mean()
unseen_late = {c: sweep_mean(unseen, *c)[late].mean() for c in configs}
gap_late = {c: unseen_late[c] - sweep_mean(seen, *c)[late].mean() for c in configs}
eps_topic_k = [sweep_mean(eps_topic[:, j_ref], *c) for c in k_sweep]
eps_seq_n = [sweep_mean(eps_seq[:, j_ref], *c) for c in n_sweep]
bound_k_max = sweep_mean(
    np.array([bound_unseen[m, best[m]] for m in range(n_models)]), *k_max
)
print(
    f"K = {k_max[0]}: gap closed {closed:.2f}, late / first {fall:.2f}, "
    f"late / ridge {ratio_to_ridge:.1f}"
)

# %%
claims = lib.Claims("icl-autoregressive-generalization", paper="gong2025autoregressive")
claims.add(
    "Unseen-topic loss falls along the prompt: late-prompt loss < 1/3 of the first "
    f"position's (K = {k_max[0]}; ratio)",
    fall,
    "ICL performance improves with prompt length (Sec. 5)",
    fall < 1 / 3,
    fmt="{:.2f}",
)
claims.add(
    "…and approaches the in-context ridge predictor: more than half of the late-prompt "
    f"loss gap between no context and ridge is closed (K = {k_max[0]}; fraction)",
    closed,
    "(issue: approaches the in-context least-squares reference)",
    closed > 0.5,
    fmt="{:.2f}",
)
claims.add(
    "At fixed tokens, more topics lower the unseen-topic loss: late-prompt loss at "
    f"K = {k_max[0]} < 1/2 of K = {k_min[0]}'s (ratio)",
    unseen_late[k_max] / unseen_late[k_min],
    "more pre-training topics, better ICL (App. C.2, GINC)",
    unseen_late[k_max] < unseen_late[k_min] / 2,
    fmt="{:.2f}",
)
claims.add(
    f"…and shrink the seen/unseen gap: gap at K = {k_max[0]} < 1/10 of "
    f"K = {k_min[0]}'s (ratio)",
    gap_late[k_max] / gap_late[k_min],
    "topic-level generalization gap shrinks with K (Thm 4.6)",
    gap_late[k_max] < gap_late[k_min] / 10,
    fmt="{:.2g}",
)
claims.add(
    "The bound's topic-level term falls at every step of the K sweep at fixed tokens "
    "(largest ratio of consecutive terms)",
    max(b / a for a, b in zip(eps_topic_k, eps_topic_k[1:])),
    "bound decreases with K (Thm 4.6)",
    all(b < a for a, b in zip(eps_topic_k, eps_topic_k[1:])),
    fmt="{:.2f}",
)
claims.add(
    "The bound's sequence-level term falls at every step of the N sweep at "
    f"K = {sweep_topics} (largest ratio of consecutive terms)",
    max(b / a for a, b in zip(eps_seq_n, eps_seq_n[1:])),
    "bound decreases with N (Thm 4.3)",
    all(b < a for a, b in zip(eps_seq_n, eps_seq_n[1:])),
    fmt="{:.2f}",
)
claims.add(
    f"The two-level bound at K = {k_max[0]} is non-vacuous: below the no-context "
    "predictor's clipped unseen-topic loss (bound)",
    bound_k_max,
    "not claimed numerically by the paper; asked by the issue",
    bound_k_max < unseen_clipped[1],
    fmt="{:.2f}",
    expect=False,
)
claims.add(
    "The pre-trained transformer matches in-context ridge within a factor 2 in the "
    f"second half of the prompt (K = {k_max[0]}; late loss / ridge's)",
    ratio_to_ridge,
    "(issue: approaches the in-context least-squares reference)",
    ratio_to_ridge < 2,
    fmt="{:.2g}",
    expect=False,
)
claims.report()

# %% [markdown]
# ## How this compares with the paper
#
# **No number of the paper is compared here**: the notes we worked from did not contain the paper's
# figures, and its models (GPT-2) and data (GINC, real language tasks) are out of reach of a one-minute CPU
# run. The comparison is with the paper's statements.
#
# | The paper | This chapter | Why they differ / what it means |
# |---|---|---|
# | ICL emerges from AR-NTP pre-training with dependent tokens | a 2-layer transformer pre-trained on next-step prediction of random linear systems learns in context on unseen systems ({numref}`fig-iclar-curve`) | linear dynamical systems are one of the paper's three data sets; ours are 2-dimensional and rotation-like, our choice |
# | ICL improves with prompt length (Sec. 5) | unseen-topic loss falls by an order of magnitude over 16 positions, closing most of the gap to in-context ridge, but stays several times above ridge | 600 Adam steps of a 7k-weight model; the paper trains GPT-2 |
# | more pre-training topics, better ICL (App. C.2, GINC with GPT-2) | at a fixed $KN$, unseen-topic loss falls and the seen/unseen gap closes as $K$ grows from 1 to 64 ({numref}`fig-iclar-topics`) | we fix the tokens, which the paper's sweep (per the reviewers) did not; GINC not run |
# | sequence- and topic-level PAC-Bayes bounds shrink with $N$, $T$ and $K$ (Thms 4.3, 4.6) | our two-level PAC-Bayes-kl bound's terms fall with $K$ (fixed tokens) and with $N$ ({numref}`fig-iclar-bound`) | our bound, not the paper's: prior at the initialisation, sequences (not tokens) counted |
# | data-dependent prior and optimisation-dependent KL | the bound is vacuous: $\mathrm{KL}$ at a scale that keeps the posterior's loss is of order $10^5$ nats, against at most $K = 64$ topics | a prior centred at the initialisation; an informed prior (trained on held-out topics) would be needed for a non-vacuous number |
# | GINC and real-language experiments | not run | out of the time and CPU budget of this chapter |
#
# ## Try it
#
# * `python -m lib.build run icl-autoregressive-generalization -p train_steps=1500` trains two and a half
#   times longer: the $K = 64$ models close more of the gap to ridge (0.88 of it instead of 0.84 on seed 0)
#   but their late-prompt loss is still 4.8 times ridge's, so the "within a factor 2" row still does not
#   hold, and the bound stays at 1.
# * `python -m lib.build run icl-autoregressive-generalization -p "topic_counts=[1, 2, 4, 8]"` stops the $K$
#   sweep at eight topics, in steps of two: the unseen-topic loss still falls with $K$ (ratio 0.36), but the
#   $K = 8$ models close only 0.29 of the gap to ridge and keep a seen/unseen gap of 0.3 of the one-topic
#   gap, and the bound's topic term no longer falls at every step (a doubling of $K$ can more than double
#   $\lVert\hat\theta - \theta_0\rVert^2$): the claims cell stops with `ClaimsFailed` naming those three rows.
#   Eight systems are too few to learn in-context estimation rather than a mixture of memorised ones.
