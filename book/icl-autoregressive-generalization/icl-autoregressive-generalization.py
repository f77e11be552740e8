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
# systems along the prompt against an in-context least-squares predictor and against a model that
# only recalls its training systems, sweep $K$ at a fixed number of training tokens, sweep $N$ and $T$
# at a fixed $K$, and evaluate a two-level PAC-Bayes bound on the trained weights. The defaults train
# all the small models at once, in under a minute of CPU time on one core (the pre-training's CPU
# time is printed below it);
# `make run CHAPTER=icl-autoregressive-generalization PRESET=paper` runs a larger preset (GPU territory:
# its runtime estimate is in `paper.yaml`).
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
# topic-level term is small when it does not memorise the particular $K$ topics. A model that learned to
# *infer* the topic from the prefix has both small, and that is ICL. A small topic gap alone does not
# prove it, though: a model that stores the $K$ training systems and weighs them by how well each explains
# the prefix (a Bayesian mixture over memorised topics) also has a small topic gap once the $K$ topics
# cover the space of systems densely. The chapter therefore runs that memoriser, tuned without test
# data, beside the transformer ({ref}`sec-iclar-memoriser`) and compares the two; {ref}`sec-iclar-limits` says what
# the checks still leave open.
#
# ```{prf:theorem} Two-level PAC-Bayes bounds (informal; the rates are this chapter's reading)
# :label: iclar-thm-main
#
# Let the loss be bounded and let $P$ be a prior and $Q$ a posterior over the weights. With probability at
# least $1-\delta$ over the pre-training data, the sequence-level gap of the posterior is small when $KNT$
# is large, which we read as a rate of order $\sqrt{(\mathrm{KL}(Q\,\|\,P) + \log(1/\delta))/(KNT)}$ (the
# paper's sequence-level theorem, numbered 4.3 in our notes: the token dependence inside a sequence is
# handled with "ghost" sequences, so all $KNT$ tokens count), and the topic-level gap is small when $K$ is
# large, which we read as $\sqrt{(\mathrm{KL}(Q\,\|\,P) + \log(1/\delta))/K}$ (its topic-level theorem,
# 4.6 in our notes). The prior may depend on the
# data, and the KL term is bounded through the optimisation path: training is viewed as a continuous-time
# stochastic differential equation with gradients bounded by a constant (the paper's Assumption 4.2), so the
# KL grows with the training time and the gradient bound. Hence both gaps shrink as $K$, $N$ and $T$ grow,
# and the topic-level one, which only $K$ controls, is the bottleneck of ICL on unseen topics.
# (The exact statements, rates and constants are in the paper; the notes this chapter was built from
# give neither the formulas nor a confirmed numbering, so the rates above are our reading of the
# structure, not quotations.)
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
# *Sequence level.* Condition on the topics. The $KN$ sequence losses are independent but not identically
# distributed (sequences of different topics have different laws), and the mean of their expectations
# is $L_{\mathrm{seen}}$. Maurer's inequality $\mathbb E\, e^{n\,\mathrm{kl}(\widehat L \| L_{\mathrm{seen}})}
# \le \xi(n)$ holds for them at a fixed $\theta$: Maurer's proof first replaces each $[0,1]$-valued loss by
# a Bernoulli variable of the same mean, which cannot lower the expectation of a convex function of the
# losses and needs only their independence, not a common law; the sum of independent Bernoulli variables with means
# $\mu_1, \dots, \mu_n$ then has $\mathbb E\, g(S) \le \mathbb E\, g(\mathrm{Bin}(n, \bar\mu))$ for every
# convex $g$ (Hoeffding, 1956, on the number of successes in independent trials), and $g(s) = e^{n\,\mathrm{kl}(s/n \| \bar\mu)}$ is convex, so the
# binomial case, which Maurer bounds by $\xi(n)$, is the worst. Then the change of
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
# $x_{t+1}$ is $\mathbb E[A \mid x_t]\,x_t = 0$: $U$ and $-U$ are equally likely, and $x_t$ has the same
# law under $A$ and $-A$ (flip the signs of $x_0$ and of the noise), so seeing $x_t$ alone says nothing
# about the sign of $A$. In between, the prefix
# $x_{0:t}$ holds $t$ transitions from which $A$ can be estimated: that is the in-context estimator a
# transformer could learn.
#
# ```{note}
# **Where this chapter departs from the paper.**
# * The paper's experiments train GPT-2 on linear dynamical systems, on the synthetic GINC language of
#   {cite:t}`xie2022explanation` (sequences from a mixture of hidden Markov models, one per concept) and on
#   real language tasks. We use a two-layer causal transformer with {glue:}`n_weights` weights and linear
#   dynamical systems in $d$ = `state_dim` = 4 dimensions (the notes' suggestion) with scaled orthogonal
#   dynamics ({prf:ref}`iclar-def-lds`, our choice of topic distribution: the notes do not give the
#   paper's).
# * **Left out:** GINC (sequences from a mixture of hidden Markov models, one per concept) and its sweep
#   over the number of hidden Markov models, and the real-language tasks, are not run, in the default or
#   in the `paper` preset: the chapter tests the theory on one of the paper's three data sets only, and
#   its $K$ claims stand on linear systems, not on the paper's GINC evidence.
# * The notes flag a confound in the paper's sweeps: changing $K$, $N$ or $T$ also changes the amount of data.
#   Our $K$ sweep keeps $KN$ (hence $KNT$ tokens) fixed; the $N$ and $T$ sweeps at fixed $K$ change the
#   data, as the theorem's $N$ and $T$ do.
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
state_dim = 4  # d, the dimension of a token x_t
seq_len = 16  # T, next-token targets per sequence
rho = 0.95  # spectral radius of every topic matrix A
noise_std = 0.1  # sigma, the noise of the dynamics
topic_counts = [1, 4, 16, 64]  # the K sweep, at a fixed number of training sequences
total_sequences = 256  # K times N in the K sweep (fixed tokens)
sweep_topics = 16  # the K of the N sweep
sweep_per_topic = [4, 16, 64]  # the N sweep at K fixed to sweep_topics
sweep_lengths = [4, 8, 16]  # the T sweep, at K sweep_topics and ...
length_per_topic = 16  # ... N length_per_topic sequences per topic
replicates = 4  # independent runs per (K, N, T): own topics, data and tests
d_model = 16  # transformer width
n_layers = 2  # transformer blocks
n_heads = 1  # attention heads per block
train_steps = 600  # Adam steps (all models train at once)
batch_size = 32  # sequences per step and model
learning_rate = 0.006
n_test = 1024  # test sequences (unseen topics, and seen topics per model)
memoriser_sigmas = [0.1, 0.2, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0]  # its likelihood's scales
window = 3  # d - 1: transitions seen by the short-window ridge (`short-window`)
loss_clip = 1.0  # c, the clip of the per-token loss in the bound
sigma_grid = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05]  # posterior and prior scales
posterior_samples = 2  # weight draws per scale for the posterior's loss
delta = 0.05  # the bound holds with probability at least 1 - delta
progress = False  # a progress bar over the training loop (on in paper.yaml)
control = "none"  # or a deliberately wrong variant named in controls.yaml

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
from fractions import Fraction

import numpy as np
import torch
from myst_nb import glue
from scipy.special import gammaln

lib.check_int("seed", seed, low=0, high=2**32 - 1)
lib.check_choice("device", device, ["auto", "cpu", "cuda"])
lib.check_int("state_dim", state_dim, low=1, high=64)
lib.check_int("seq_len", seq_len, low=2, high=1024)
lib.check_float("rho", rho, low=0.0, high=1.0, low_open=True)
if rho >= 1.0:
    raise ValueError(f"parameter `rho` = {rho!r} is invalid: must be < 1 (stable)")
lib.check_float("noise_std", noise_std, low=0.0, low_open=True)
lib.check_int_list("topic_counts", topic_counts, low=1, min_len=3, increasing=True)
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
lib.check_int_list(
    "sweep_lengths", sweep_lengths, low=1, high=seq_len, min_len=2, increasing=True
)
lib.check_int("length_per_topic", length_per_topic, low=1)
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
lib.check_float_list(
    "memoriser_sigmas", memoriser_sigmas, low=0.0, low_open=True, increasing=True
)
lib.check_int("window", window, low=1)
lib.check_float("loss_clip", loss_clip, low=0.0, low_open=True)
lib.check_float_list("sigma_grid", sigma_grid, low=0.0, low_open=True, increasing=True)
lib.check_int("posterior_samples", posterior_samples, low=1)
lib.check_float("delta", delta, low=0.0, high=1.0, low_open=True)
lib.check_bool("progress", progress)
control = lib.check_control("icl-autoregressive-generalization", control)

configs = [(k, total_sequences // k, seq_len) for k in topic_counts]  # (K, N, T)
configs += [(sweep_topics, n, seq_len) for n in sweep_per_topic]
configs += [(sweep_topics, length_per_topic, t) for t in sweep_lengths]
configs = list(dict.fromkeys(configs))  # each configuration once
runs = [c for c in configs for _ in range(replicates)]  # one model per entry
n_models, max_seqs = len(runs), max(k * n for k, n, t in runs)
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
# Every model gets its own topics and sequences, and each replicate its own test topics (below):
# the replicates of a configuration are independent draws of everything a seed changes. The sequences of all models sit in one array, padded to
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


train_topics = [random_topics((k,)) for k, n, t in runs]
replica = np.arange(n_models) % replicates  # the replicate each model belongs to
if control == "one-topic":  # K copies of one system: K topics in name only
    train_topics = [np.repeat(a[:1], len(a), axis=0) for a in train_topics]
if control == "repeated-topics":  # at most K_ref distinct systems in every model
    train_topics = [a[np.arange(len(a)) % topic_counts[1]] for a in train_topics]
train_A = np.zeros((n_models, max_seqs, state_dim, state_dim))
for m, (k, n, t) in enumerate(runs):
    train_A[m, : k * n] = np.repeat(train_topics[m], n, axis=0)  # sequence's topic
train_x = rollout(train_A)
n_seqs = np.array([k * n for k, n, t in runs])
lengths = np.array([t for k, n, t in runs])  # the targets a model is trained on
n_min = sweep_per_topic[0]
if control == "no-new-data":  # N sweep: the sequences of N = n_min, repeated
    for m, (k, n, t) in enumerate(runs):
        if k == sweep_topics and n > n_min:  # sequence i copies sequence i mod n_min
            copies = train_x[m, : k * n].reshape(k, n, seq_len + 1, state_dim)
            copies[:] = copies[:, np.arange(n) % n_min]
print(f"{n_models} models; (K, N, T) = {configs}, {replicates} replicate(s) each")
print(f"{n_seqs.sum()} training sequences, {(n_seqs * lengths).sum()} targets")


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
def ridge_predictions(x, last=None):
    """In-context ridge predictions of x_{t+1} from x_{0:t}, all t; x[b, T + 1, d].

    With `last` = w, only the last w transitions, s from t - w to t - 1, are used."""
    lam = state_dim * noise_std**2 / rho**2
    prev, nxt = x[:, :-1], x[:, 1:]

    def sums_before_t(z):  # sum over s < t (or t - last <= s < t) of z_s
        c = np.concatenate([np.zeros_like(z[:, :1]), z.cumsum(1)], 1)  # c_t: s < t
        if last is None:
            return c[:, :-1]
        return c[:, :-1] - c[:, np.maximum(np.arange(z.shape[1]) - last, 0)]

    xx = sums_before_t(np.einsum("bti,btj->btij", prev, prev))
    xx = xx + lam * np.eye(state_dim)
    yx = sums_before_t(np.einsum("bti,btj->btij", nxt, prev))
    A_hat = np.linalg.solve(xx, yx.swapaxes(-1, -2)).swapaxes(-1, -2)
    return np.einsum("btij,btj->bti", A_hat, prev)


def per_position_loss(pred, x):
    """Mean over sequences of the per-coordinate squared error, per position t."""
    return ((pred - x[..., 1:, :]) ** 2).mean(-1).mean(-2)


# %% [markdown]
# (sec-iclar-memoriser)=
# ### A memoriser of the training topics
#
# A model can also use the prompt without inferring an unseen system: it can store its $K$
# training systems $A_1, \dots, A_K$ and weigh them by how well each explains the prefix. With
# Gaussian noise of scale $s$ and a uniform prior over the stored systems, the posterior weight
# of $A_k$ after $x_{0:t}$ is $w_{k,t} \propto \exp\big(-\sum_{s'<t} \lVert x_{s'+1} - A_k
# x_{s'}\rVert^2 / (2s^2)\big)$, and the *memoriser* predicts $\hat x_{t+1} = \sum_k w_{k,t} A_k
# x_t$. With $s = \sigma$ it is the Bayes predictor for a prompt drawn from one of the training
# topics. On an unseen topic every stored system is wrong, and the exact likelihood puts almost
# all the weight on the nearest one; a larger $s$ tempers it and averages several stored systems,
# which can predict an unseen system better. A second free choice is the sign symmetry of the topic
# distribution ($U$ and $-U$ are equally likely): the memoriser may store each $-A_k$ as well,
# doubling its bank at no cost in data.
#
# To give the transformer a strong opponent, each model's memoriser picks $s$ from
# `memoriser_sigmas` and whether to add the negatives **on that model's own training sequences,
# leaving one topic out**: the sequences of topic $k$ are predicted from the bank without $A_k$
# (and without $-A_k$), which makes every training topic an unseen one, and the choice with the
# lowest late-prompt loss wins. No test sequence enters the choice. A model with $K = 1$ has
# nothing left when its topic is left out; its memoriser keeps $s = \sigma$ and no negatives. It
# is the reference that separates learning in context from recalling the training topics; the
# control `memorised-topics` puts it in the transformer's place.

# %%
def memoriser_losses(x, bank, scales, banned=None, chunk=128):
    """Per-position loss of the memoriser of bank[K, d, d] on x[b, T + 1, d], one row
    per likelihood scale; banned[b, K] marks systems sequence b may not use."""
    total = np.zeros((len(scales), seq_len))
    for i in range(0, len(x), chunk):
        prev, nxt = x[i : i + chunk, :-1], x[i : i + chunk, 1:]
        each = prev[:, None] @ bank.transpose(0, 2, 1)  # every stored system's guess
        sq = ((each - nxt[:, None]) ** 2).sum(-1)
        evidence = np.concatenate(  # squared residuals of the transitions s < t
            [np.zeros_like(sq[..., :1]), sq.cumsum(-1)[..., :-1]], -1
        )
        if banned is not None:
            evidence = np.where(banned[i : i + chunk, :, None], np.inf, evidence)
        for j, scale in enumerate(scales):
            log_w = -evidence / (2 * scale**2)
            w = np.exp(log_w - log_w.max(1, keepdims=True))
            pred = np.einsum("bkt,bkti->bti", w / w.sum(1, keepdims=True), each)
            total[j] += ((pred - nxt) ** 2).mean(-1).sum(0)
    return total / len(x)


def tuned_memoriser(m):
    """Bank and likelihood scale of model m's memoriser, by leaving one topic out."""
    bank, (k, n, _) = train_topics[m], runs[m]
    if k == 1:  # nothing is left when its topic is left out: the Bayes choice
        return bank, noise_std, False
    own_x, topic = train_x[m, : k * n], np.repeat(np.arange(k), n)
    best = (np.inf,)
    for negatives in (False, True):
        stored = np.concatenate([bank, -bank]) if negatives else bank
        banned = topic[:, None] == np.arange(len(stored)) % k
        late_loss = memoriser_losses(own_x, stored, memoriser_sigmas, banned)
        late_loss = late_loss[:, seq_len // 2 :].mean(1)
        j = int(np.argmin(late_loss))
        if late_loss[j] < best[0]:
            best = (late_loss[j], stored, memoriser_sigmas[j], negatives)
    return best[1:]


# %% [markdown]
# ### A tiny causal transformer, many at once
#
# The model embeds each token $x_t \in \mathbb R^d$ linearly, adds a learned position embedding, applies
# `n_layers` pre-norm blocks of causal self-attention and a GELU MLP, and reads out $\hat x_{t+1}$ linearly
# from position $t$ {cite:p}`vaswani2017attention`. Causal masking makes position $t$ see exactly $x_{0:t}$,
# so one forward pass returns all $T$ next-token predictions of {eq}`eq-iclar-seqloss`. Every weight carries
# a leading *model* axis, so all the models of the sweeps are trained as one batched computation (their
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


def layer_norm(h, g, b):  # gain and bias per model
    h = torch.nn.functional.layer_norm(h, h.shape[-1:], eps=1e-5)
    return h * g[:, None, None] + b[:, None, None]


def linear(h, w, b=None):  # h[m, batch, t, i] @ w[m, i, j]
    out = torch.einsum("mbti,mij->mbtj", h, w)
    return out if b is None else out + b[:, None, None]


def transformer(p, x):
    """Next-token predictions for x[m, batch, T, d] (position t sees x_0..x_t)."""
    M, B, T, _ = x.shape
    dh = d_model // n_heads
    causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
    if control == "context-blind":  # position t attends to x_t alone
        causal = torch.eye(T, dtype=torch.bool, device=x.device)
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
glue("n_weights", f"{n_weights:,}", display=False)

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
trained = torch.tensor(np.arange(seq_len) < lengths[:, None], device=device)
weight = (trained / torch.tensor(lengths, device=device)[:, None]).float()
start, cpu_start = time.perf_counter(), time.process_time()
train_loss = []
for step in lib.progress(range(train_steps), enabled=progress, desc="pre-training"):
    pick = (torch.rand(n_models, batch_size, device=device) * sizes).long()
    x = data[model_axis, pick]
    err = ((transformer(theta, x[:, :, :-1]) - x[:, :, 1:]) ** 2).mean(-1)
    loss_per_model = (err * weight[:, None]).sum(-1).mean(-1)  # over t < T of model
    optimiser.zero_grad()
    loss_per_model.sum().backward()
    optimiser.step()
    train_loss.append(loss_per_model.detach().cpu().numpy())
train_loss = np.array(train_loss)
theta = {k: v.detach() for k, v in theta.items()}
train_cpu = time.process_time() - cpu_start
wall = time.perf_counter() - start
print(f"pre-training: {train_cpu:.1f} s CPU, {wall:.1f} s wall-clock")


# %% [markdown]
# ## The experiment
#
# ### In-context learning on unseen topics
#
# Every model is tested on `n_test` sequences of fresh topics (unseen by all models), the same for
# all the models of one replicate and drawn anew for each replicate, and on `n_test` fresh sequences
# of its *own* training topics (seen topics, new sequences). The loss at prompt
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


unseen_x = rollout(random_topics((replicates, n_test)))  # each replicate's own
seen_A = np.stack(
    [train_topics[m][rng.integers(0, k, n_test)] for m, (k, n, t) in enumerate(runs)]
)
seen_x = rollout(seen_A)
unseen = model_losses(theta, unseen_x[replica])  # [model, t]
seen = model_losses(theta, seen_x)
with torch.no_grad():  # each model's loss on its own training sequences, per t
    own = torch.cat(
        [
            ((transformer(theta, z[:, :, :-1]) - z[:, :, 1:]) ** 2).mean(-1)
            for z in data.split(256, 1)
        ],
        1,
    )
mine = np.arange(max_seqs) < n_seqs[:, None]
train_curve = (own.double().cpu().numpy() * mine[..., None]).sum(1) / n_seqs[:, None]
mem_unseen, mem_seen, mem_train = (np.zeros((n_models, seq_len)) for _ in range(3))
mem_choice = []
for m in range(n_models):  # the memoriser of each model's own topics
    bank, scale, negatives = tuned_memoriser(m)
    mem_choice.append((scale, negatives))
    own_x = train_x[m, : n_seqs[m]]
    mem_unseen[m] = memoriser_losses(unseen_x[replica[m]], bank, [scale])[0]
    mem_seen[m] = memoriser_losses(seen_x[m], bank, [scale])[0]
    mem_train[m] = memoriser_losses(own_x, bank, [scale])[0]
print("memoriser's likelihood scale s (+ with negatives), per model:")
chosen = [f"K {r[0]}: {s:g}{'+' * g}" for r, (s, g) in zip(runs, mem_choice)]
print("  " + ", ".join(chosen))
if control == "memorised-topics":  # the memoriser in the transformer's place
    unseen, seen, train_curve = mem_unseen, mem_seen, mem_train


def test_curves(predict):
    """A predictor's loss on its replicate's unseen topics, one row per model."""
    return np.stack([per_position_loss(predict(u), u) for u in unseen_x])[replica]


ridge = test_curves(ridge_predictions)
ridge_window = test_curves(lambda u: ridge_predictions(u, window))
no_context = test_curves(lambda u: np.zeros_like(u[:, 1:]))
in_place = {"short-window": window, "ridge-in-place": None}  # transitions used
if control in in_place:  # an in-context ridge in the transformer's place
    w = in_place[control]
    unseen = ridge_window if w else ridge
    own_xs = [train_x[m, : n_seqs[m]] for m in range(n_models)]
    seen, train_curve = (
        np.stack([per_position_loss(ridge_predictions(z, w), z) for z in zs])
        for zs in (seen_x, own_xs)
    )
oracle = noise_std**2
positions = np.arange(seq_len)
late = positions >= seq_len // 2  # the second half of the prompt


MEMORISER = "#8C564B"  # the memoriser's colour in every figure


def sweep_mean(values, config):
    """Mean over the replicates of a configuration (K, N, T)."""
    return np.mean([v for v, r in zip(values, runs) if r == config], axis=0)


k_sweep = configs[: len(topic_counts)]
k_min, k_max = k_sweep[0], k_sweep[-1]
n_sweep = [(sweep_topics, n, seq_len) for n in sweep_per_topic]
t_sweep = [(sweep_topics, length_per_topic, t) for t in sweep_lengths]
print("late-prompt loss (mean over t >= T/2):")
print(
    f"  no context {no_context[:, late].mean():.2g}, "
    f"ridge {ridge[:, late].mean():.2g}, oracle {oracle:.2g}"
)
for c in k_sweep:
    u, s = sweep_mean(unseen, c)[late].mean(), sweep_mean(seen, c)[late].mean()
    mem = sweep_mean(mem_unseen, c)[late].mean()
    row = f"unseen {u:.2g}, seen {s:.2g}, memoriser {mem:.2g}"
    print(f"  K {c[0]:4d}, N {c[1]:4d}: {row}")
glue("late_top", f"{sweep_mean(unseen, k_max)[late].mean():.3f}", display=False)
glue("mem_late_top", f"{sweep_mean(mem_unseen, k_max)[late].mean():.3f}", display=False)

# %% [markdown]
# {numref}`fig-iclar-curve` is the ICL curve. The model pre-trained on the most topics predicts the first
# token of an unseen topic about as badly as the no-context predictor (it cannot do better: nothing in
# $x_0$ reveals $A$), and then its loss falls quickly as transitions accumulate in the prompt, as the in-context ridge
# predictor's does, though it stays well above ridge. Relative to no context, its loss goes on
# falling after the first $d - 1$ = `window` transitions, unlike that of a ridge predictor that
# only looks at the last `window` transitions (dashed grey), too few to pin down the $d^2$ entries
# of $A$. In the second half of the prompt, though, the transformer's curve runs parallel to the
# no-context curve, while ridge on the whole prompt is still closing in on the noise floor: its
# loss still falls, but only as fast as the no-context loss does, so its error relative to no
# context stops falling (claim 2 below). The tuned memoriser of the same $K$ training systems
# ({ref}`sec-iclar-memoriser`) uses the prompt too, but only to weigh the systems it stored: its
# late-prompt loss is {glue:}`mem_late_top` against the transformer's {glue:}`late_top`, and claim 5
# below asks whether the difference is a clear margin. The model pre-trained on a single topic is a
# different kind of predictor: it has learned that one system, and on unseen topics it is *worse* than
# predicting zero. The same transformer with every attention layer restricted to the current token (the
# control `context-blind` below) cannot use the prompt at all: on unseen topics it can at best predict
# zero, and its loss stays on the no-context curve or above it.

# %% mystnb={"figure": {"caption": "Next-token loss on unseen topics along the prompt, for transformers pre-trained on K topics at a fixed number of training sequences (mean over replicates), against the in-context ridge predictor, the no-context predictor and the noise floor, a ridge predictor that sees only the last few transitions, and the tuned memoriser of the training topics of the largest K. With many topics the transformer learns in context and ends near the memoriser; with one topic it does not learn in context.", "name": "fig-iclar-curve"}} tags=["hide-input"]
fig, ax = lib.subplots()
for c, colour in zip(k_sweep, lib.PALETTE[2:]):
    ax.plot(
        positions, sweep_mean(unseen, c), "o-", ms=3, color=colour, label=f"K = {c[0]}"
    )
ax.plot(
    positions,
    sweep_mean(mem_unseen, k_max),
    "-.",
    color=MEMORISER,
    label=f"memoriser of the K = {k_max[0]} topics",
)
ax.plot(positions, ridge.mean(0), "k--", label="in-context ridge")
ax.plot(
    positions,
    ridge_window.mean(0),
    "--",
    color="0.55",
    label=f"ridge, last {window} steps",
)
ax.plot(positions, no_context.mean(0), "k:", label="no context (predict 0)")
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
# is worst. As the same $KN$ sequences are spread over more topics, the seen-topic loss rises well above
# the noise floor (each topic is seen less often) and the unseen-topic loss falls a lot, until the two nearly meet: the
# topic-level gap of {eq}`eq-iclar-split` closes, which is the paper's picture of ICL emerging from topic-level
# generalization. The tuned memoriser's unseen-topic loss falls with $K$ too, since more stored
# systems cover the space better; how it compares with the transformer at the top of the sweep is
# claim 5's subject.

# %% mystnb={"figure": {"caption": "Late-prompt loss (positions t at least T/2) on seen and unseen topics against the number of pre-training topics K, at a fixed number K N of training sequences; dots are replicates, lines their means; dash-dotted, the memoriser of the same training topics on unseen topics. The gap between the two solid curves is the topic-level generalization gap.", "name": "fig-iclar-topics"}} tags=["hide-input"]
fig, ax = lib.subplots()
ks = np.array([c[0] for c in k_sweep])
for curves, label, colour in ((seen, "seen topics", 0), (unseen, "unseen topics", 1)):
    means = [sweep_mean(curves, c)[late].mean() for c in k_sweep]
    ax.plot(ks, means, "-", color=lib.PALETTE[colour], label=label)
    for r, c in zip(runs, curves):
        if r in k_sweep:
            ax.plot(r[0], c[late].mean(), "o", ms=4, color=lib.PALETTE[colour])
mem_means = [sweep_mean(mem_unseen, c)[late].mean() for c in k_sweep]
ax.plot(ks, mem_means, "-.", color=MEMORISER, label="memoriser (unseen)")
ax.axhline(ridge[:, late].mean(), color="k", ls="--", label="in-context ridge (unseen)")
ax.axhline(no_context[:, late].mean(), color="k", ls=":", label="no context (unseen)")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("pre-training topics K (K N fixed)")
ax.set_ylabel("late-prompt loss (squared error per coordinate)")
ax.legend(fontsize=8)
lib.show(fig)


# %% [markdown]
# ### More and longer sequences: the sequence-level gap
#
# The sequence-level term of {eq}`eq-iclar-split` is the price of memorising the particular training
# sequences. We measure it directly, as a fraction of the loss on new sequences of the model's own topics:
# $g_{\mathrm{seq}} = 1 - \widehat L / L_{\mathrm{seen}}$, both over the positions the model was trained on
# ($g_{\mathrm{seq}} = 0$: nothing memorised; $g_{\mathrm{seq}} = 1$: training sequences predicted
# perfectly, new ones not). At $K$ = `sweep_topics` we vary the sequences per topic $N$ at $T$ =
# `seq_len`, and the length $T$ at $N$ = `length_per_topic`, where the gap is far from both 0 and 1
# in the $N$ sweep (a model of length $T$ is trained on the first $T$
# targets of each sequence; the causal mask makes the later tokens irrelevant to those predictions). The
# reading of {prf:ref}`iclar-thm-main` is a gap that falls as $1/\sqrt{KNT}$.

# %%
def sequence_gap(m):
    """1 - (training loss) / (loss on new sequences of the same topics), t < T_m."""
    t = lengths[m]
    return 1 - train_curve[m, :t].mean() / seen[m, :t].mean()


gap_seq = np.array([sequence_gap(m) for m in range(n_models)])
for name, sweep, axis in (("N", n_sweep, 1), ("T", t_sweep, 2)):
    row = ", ".join(f"{c[axis]}: {sweep_mean(gap_seq, c):.3f}" for c in sweep)
    print(f"relative sequence-level gap against {name} (K = {sweep_topics}): {row}")
    for end, c in (("first", sweep[0]), ("last", sweep[-1])):
        glue(f"gap_{name}_{end}", f"{sweep_mean(gap_seq, c):.2f}", display=False)
first_t, last_t = sweep_mean(gap_seq, t_sweep[0]), sweep_mean(gap_seq, t_sweep[-1])
glue("gap_T_factor", f"{last_t / first_t:.2f}", display=False)
glue("gap_T_reading", f"{math.sqrt(t_sweep[0][2] / t_sweep[-1][2]):.2f}", display=False)

# %% [markdown]
# {numref}`fig-iclar-sequences` shows the two sweeps beside the reading's $1/\sqrt{N}$ and $1/\sqrt{T}$,
# drawn through the first point. More sequences per topic shrink the gap, from {glue:}`gap_N_first` to
# {glue:}`gap_N_last`, faster than $1/\sqrt N$. Longer sequences move it less: from $T$ =
# `sweep_lengths[0]` to `seq_len` the gap goes from {glue:}`gap_T_first` to {glue:}`gap_T_last`, a
# factor {glue:}`gap_T_factor` where $1/\sqrt T$ gives {glue:}`gap_T_reading`. The tokens of a sequence
# are dependent: a likely reading is that a model which has memorised a sequence recognises it from its
# first tokens and recalls the rest, so extra tokens of the *same* sequences add less that generalises
# than new sequences do. We record the $T$ sweep as an observation rather than a claim: we have no
# setting in which the full $1/\sqrt T$ shows and could act as a positive control.

# %% mystnb={"figure": {"caption": "The relative sequence-level gap 1 - (training loss) / (loss on new sequences of the training topics) against the sequences per topic N (left, T fixed) and the sequence length T (right, N fixed), at a fixed number of topics; dots are replicates, lines their means, dashed the slope -1/2 of the reading of the theorem through the first point.", "name": "fig-iclar-sequences"}} tags=["hide-input"]
fig, axes = lib.subplots(1, 2, sharey=True)
for ax, sweep, axis, name in (
    (axes[0], n_sweep, 1, f"sequences per topic N (K = {sweep_topics}, T = {seq_len})"),
    (axes[1], t_sweep, 2, f"length T (K = {sweep_topics}, N = {length_per_topic})"),
):
    xs = np.array([c[axis] for c in sweep])
    ys = [sweep_mean(gap_seq, c) for c in sweep]
    ax.plot(xs, ys, "-", color=lib.PALETTE[0], label="measured (mean)")
    for r, g in zip(runs, gap_seq):
        if r in sweep:
            ax.plot(r[axis], g, "o", ms=4, color=lib.PALETTE[0])
    ax.plot(xs, ys[0] * np.sqrt(xs[0] / xs), "k--", lw=1, label=r"$\propto 1/\sqrt{x}$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(xs, [str(x) for x in xs])
    ax.minorticks_off()
    ax.set_xlabel(name)
axes[0].set_ylabel("relative sequence-level gap")
axes[0].legend(fontsize=8)
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
    total, t = 0.0, lengths[m]
    with torch.no_grad():
        for i in range(0, n_seqs[m], chunk):
            x = data[m, i : min(i + chunk, n_seqs[m])][None].expand(count, -1, -1, -1)
            err = ((transformer(params, x[:, :, :-1]) - x[:, :, 1:]) ** 2)[..., :t, :]
            clipped = err.mean(-1).double().clamp(max=loss_clip) / loss_clip
            total = total + clipped.sum((1, 2))
    return (total / (n_seqs[m] * t)).cpu().numpy()


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

K_of = np.array([k for k, n, t in runs])[:, None]
KN_of = n_seqs[:, None].astype(float)
kl = distance2[:, None] / (2 * sigmas**2)  # [model, j]
log_terms_seq = (
    np.log(2 * J / delta) + np.array([log_xi(int(n)) for n in n_seqs])[:, None]
)
log_terms_topic = (
    np.log(2 * J / delta) + np.array([log_xi(int(k)) for k, n, t in runs])[:, None]
)
eps_seq = (kl + log_terms_seq) / KN_of
eps_topic = (kl + log_terms_topic) / K_of
bound_seen = kl_inverse(posterior_loss, eps_seq)
bound_unseen = kl_inverse(bound_seen, eps_topic)
best = bound_unseen.argmin(1)
all_unseen = unseen_x.reshape(-1, seq_len + 1, state_dim)  # every replicate's
unseen_clipped = np.array(
    [
        (
            np.minimum(((p - all_unseen[:, 1:]) ** 2).mean(-1), loss_clip) / loss_clip
        ).mean()
        for p in [ridge_predictions(all_unseen), np.zeros_like(all_unseen[:, 1:])]
    ]
)
print(
    f"clipped unseen-topic loss: ridge {unseen_clipped[0]:.2g}, "
    f"no context {unseen_clipped[1]:.2g}"
)
print(
    "  K    N   T  |theta-theta0|^2  trained  Q-loss at sigma:",
    " ".join(f"{s:g}" for s in sigmas),
)
for m, (k, n, t) in enumerate(runs):
    q_loss = " ".join(f"{v:.2f}" for v in posterior_loss[m])
    print(
        f"{k:3d} {n:4d} {t:3d} {distance2[m]:12.2g} {trained_loss[m]:12.2g}    {q_loss}"
    )

# %% [markdown]
# {numref}`fig-iclar-bound` shows the two complexity terms of {eq}`eq-iclar-bound` at the scale of the grid
# where the posterior's training loss is still within a factor two of the trained weights'. Both terms are
# far above 1 for every model, so the bound itself is at its ceiling of 1 (the clipped loss's maximum),
# above the no-context predictor's clipped loss: **at this scale the bound is vacuous**. The topic term
# falls with $K$ at a fixed number of tokens, and the sequence term with $N$ at fixed $K$, because the
# squared distance training travels from the initialisation (the table above) grows more slowly than $K$
# or $KN$. That is the $1/K$ and $1/(KN)$ of the formula at work, and it would happen for a model that
# learns nothing in context just as well: we show it as an illustration of the bound's shape, not as a
# test of the theory. At a fixed $KN$ the sequence term *rises* a little with $K$, since the distance
# grows and $KN$ does not.

# %%
# the largest grid scale whose posterior loss is within 2x the trained loss
flat = posterior_loss <= 2 * trained_loss[:, None]
j_flat = np.where(flat.any(1), J - 1 - np.argmax(flat[:, ::-1], 1), 0)
j_ref = int(np.min(j_flat))  # one common scale, so the terms compare across models
print(
    f"common scale sigma = {sigmas[j_ref]:g} (posterior loss within 2x of trained "
    "for every model)"
)
print("  K    N   T  KL          eps_seq     eps_topic   bound (min over grid)")
for m, (k, n, t) in enumerate(runs):
    print(
        f"{k:3d} {n:4d} {t:3d} {kl[m, j_ref]:10.1e} {eps_seq[m, j_ref]:10.1e} "
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
        ys = [sweep_mean(eps[:, j_ref], c) for c in sweep]
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
# The bound is an illustration, not a test: its terms fall with $K$ and $N$ through the factors $1/K$
# and $1/(KN)$ of {eq}`eq-iclar-bound` as long as training travels no farther from the initialisation,
# whatever the model learned. What it would take to make it *informative* follows from the same
# formula. Even if the posterior kept the trained weights' training loss, the bound at $K_{\max}$ falls
# below the no-context predictor's clipped loss only when $\mathrm{KL}(Q\,\|\,P)$ stays within a small
# budget, since the topic level alone pays $\log(2J\xi(K)/\delta)/K$ with $K$ topics as its
# sample size:

# %%
def bound_at(kl_value, loss, k, kn):
    """The bound of eq-iclar-bound at a given KL, posterior training loss, K and KN."""
    eps_s = (kl_value + np.log(2 * J / delta) + log_xi(kn)) / kn
    eps_t = (kl_value + np.log(2 * J / delta) + log_xi(k)) / k
    return float(kl_inverse(kl_inverse(loss, eps_s), eps_t))


def kl_budget(loss, k, kn, target, iterations=60):
    """The largest KL at which the bound is below target (0 if none is)."""
    lo, hi = 0.0, 1e8
    if bound_at(lo, loss, k, kn) >= target:
        return lo
    for _ in range(iterations):
        mid = math.sqrt(max(lo, 1e-3) * hi)  # bisection on a log scale
        lo, hi = (mid, hi) if bound_at(mid, loss, k, kn) < target else (lo, mid)
    return lo


k_top, n_top = k_max[0], k_max[1]
loss_top = sweep_mean(trained_loss, k_max)
kl_top = sweep_mean(kl[:, j_ref], k_max)
print(
    f"K = {k_top}, N = {n_top}: trained clipped loss {loss_top:.3f}, target "
    f"(no context) {unseen_clipped[1]:.3f}, measured KL {kl_top:.1e} nats"
)
budgets = {
    f * k_top: kl_budget(loss_top, f * k_top, f * k_top * n_top, unseen_clipped[1])
    for f in (1, 4, 16)
}
for k, b in budgets.items():
    print(f"  K = {k:5d}, N = {n_top}: the bound needs KL <= {b:.3g} nats")
glue(
    "kl_budget",
    f"{budgets[k_top]:.2g} nats"
    if budgets[k_top] > 0
    else "empty: even a posterior "
    "equal to the prior (KL = 0) leaves the bound above the no-context loss",
    display=False,
)
glue("kl_budget_16", f"{budgets[16 * k_top]:.3g}", display=False)
glue("kl_measured", f"{kl_top:.0e}", display=False)

# %% [markdown]
# At $K_{\max}$ the KL budget is {glue:}`kl_budget`; with sixteen times as many topics it is
# {glue:}`kl_budget_16` nats. The Gaussian posterior around the trained weights sits {glue:}`kl_measured`
# nats from the prior at the initialisation, and any posterior that keeps the trained weights' training
# loss must encode what training moved in thousands of weights, far more than either budget. The
# topic level alone, with its $K$ topics as the sample size, is what makes the budget so small, and
# no prior, fixed before the data or (as in the paper) fitted to it, can sit that close to a posterior
# that keeps the training loss: a bound of this form cannot be non-vacuous at $K_{\max}$. The claim "the bound is non-vacuous" therefore cannot be tested here,
# in either direction, and the chapter makes no claim about the bound's value; it needs topic counts in
# the thousands and a prior that costs only tens of nats.
#
# ## What we reproduced
#
# The claims are about medians over the `replicates` = 4 replicates of a configuration: each
# claim's value is computed on every replicate, and the median of those values is tested. Each
# replicate has its own training topics, sequences, initialisation and test topics, so the
# replicates of one seed vary in everything a seed varies, including, now and then, a training run
# that never leaves the no-context plateau (a $K_{\max}$ model no better than predicting zero on its
# own training topics; the cell below counts them: {glue:}`stalled` at this seed). The median
# (here the mean of the middle two values) is moved by one such replicate no further than to its
# neighbour's value, where a mean would follow it; two stalled replicates out of four pull the
# median halfway towards them. The figures, and the numbers quoted in the sections above, are
# means over the replicates, which a stalled replicate does move; the claims read the medians.
# Every in-context claim is measured against what a model *without* context can do: the no-context predictor (predict 0), the best a
# model blind to the prompt can do on an unseen topic, since $U$ and $-U$ are equally likely.
#
# Claim 1 reads "learns in context" as a loss, relative to the no-context predictor at the same
# position, that falls along the prompt and *uses more than $d - 1$ transitions*: the late-prompt
# value must be small against the first position's and against its value at $t = d/2, \dots, d$.
# Each transition gives $d$ equations for the $d^2$ entries of $A$, so a learner that uses only
# the last $d - 1$ transitions cannot pin an unseen $A$ down: the ridge predictor on the last
# `window` = $d - 1$ transitions (control `short-window`) passes the first part and fails the
# second (late over early {glue:}`window_beyond`), while a ridge on the last $d$ transitions
# passes both ({glue:}`window_d_beyond`), as would any learner with a fixed memory of $d$
# transitions. Claim 1 therefore does not say that the loss keeps falling late in the prompt.
#
# Claim 2 asks exactly that, of the loss above the noise floor relative to no context's,
# $(L_t - \sigma^2)/(L^{\text{nc}}_t - \sigma^2)$, the part of the error that comes from a wrong
# estimate of $A$: it must be lower in the last quarter of the prompt than in the third. The floor
# is subtracted because the no-context loss keeps falling late in the prompt (the start $x_0$ is
# forgotten, and the variance of $x_t$ decays towards $\sigma^2/(1-\rho^2)$) while the floor
# $\sigma^2$ does not, so a ratio that kept the floor would rise for any learner close to it. The
# in-context ridge on the whole prompt passes ({glue:}`ridge_late_half`), the ridge on the last $d$
# transitions does not ({glue:}`window_d_late_half`), and neither does the transformer
# ({glue:}`late_half`): its absolute loss above the floor still falls over the second half of the
# prompt, but no faster than the no-context loss, so its error relative to no context stops
# falling. Single replicates can come near the threshold; the verdict rests on the median over
# the replicates. The threshold is the first multiple of
# $1/20$ above ridge's median + 3 sd over seed 0's replicates ({glue:}`ridge_late_edge`), a margin a
# learner that keeps improving clears; the control `ridge-in-place`, the in-context ridge in the
# transformer's place, is the claim's positive control.
#
# Claim 3 tests the number of topics itself: at the same number of training sequences, the
# late-prompt loss at the largest $K$ over the lower of two baselines, the loss at $K$ = 4 and
# the no-context loss. The $K$ = 4 models have learned their few systems and carry them to unseen topics, where
# they do worse than predicting zero (their late-prompt loss is {glue:}`k_ref_vs_none` times no
# context's), so the ratio is taken to the better of the two baselines: a $K_{\max}$ model must
# beat both the few-topic model and predicting zero by the margin. The control `repeated-topics` keeps every model's
# data size and training and removes only the distinct topics beyond 4 (the $K$ = 64 model's
# topics are 4 systems, each repeated 16 times), and the ratio must then rise to about 1. The
# comparison is not with the neighbouring $K$ = 16: there the late-prompt loss is
# {glue:}`k_prev_vs_none` times no context's, {glue:}`k_prev_onset`, at the onset of in-context
# learning, and the $K$ = 16 replicates spread so widely (the cell below prints each one's value
# as `k_prev_vs_none`) that the $K$ = 64 over $K$ = 16 ratio, {glue:}`k_max_vs_prev`, has a band
# of three replicate standard deviations reaching {glue:}`k_max_vs_prev_edge`; it is printed, not
# claimed. The tuned memoriser's loss
# falls with $K$ too ({numref}`fig-iclar-topics`): claim 3 is about more topics helping, not
# about how the model uses them. The topic-level gap (claim 4) is measured as a fraction of what
# the model learned on its own topics, $(L_{\text{unseen}} - L_{\text{seen}}) / (L_{\text{no
# context}} - L_{\text{seen}})$, guarded by a seen-topic loss well below the no-context loss: a
# model that learns nothing has a zero gap, and the guard, not the ratio, is what fails for it.
#
# Claim 5 asks the transformer to beat the tuned memoriser of its own $K_{\max}$ training topics
# on unseen topics by a clear margin, the test that separates inferring a system from recalling
# one. Its margin, $2/3$, is set in advance, not by the rule below: no multiple of $1/20$ below 1
# clears seed 0's median + 3 sd, so the replicates support no margin at all over the tuned
# memoriser, and the claim is recorded as not reproduced. At seed 0, {glue:}`memo_below`
# replicates have the transformer below the memoriser (a ratio under 1). The control
# `ridge-in-place` keeps the tuned memoriser and puts the in-context ridge in the transformer's
# place: a learner that infers the system passes the check. Claim 6 asks the relative
# sequence-level gap $g_{\mathrm{seq}}$ to shrink over the $N$ sweep, from a gap at the smallest
# $N$ of more than one half: a ratio is only a shrinkage when there was a gap to shrink (a gap
# near zero or below it at the smallest $N$ would make any ratio meaningless). The guard is set in
# advance, not by the rule: it only excludes that degenerate case.
#
# Each threshold of claims 1, 3, 4 and 6 is the first multiple of $1/20$ beyond seed 0's median
# by three standard deviations of its replicates (the cell below prints the median, each replicate
# and the median ∓ 3 sd), on the side where the claim would fail, and short of the values under
# the controls: a margin that even a single replicate rarely crosses, and the median of four far
# more rarely. Two things are deliberately *not*
# claimed: that the bound is informative (it cannot be at this scale, as computed above), and that
# the transformer matches ridge: its late-prompt loss is {glue:}`ratio_to_ridge` times ridge's
# here, and it closes {glue:}`closed_linear` of the late-prompt gap from no context to ridge on a
# linear scale but {glue:}`closed_log` on a log scale. How close a transformer of this size gets
# depends on its training budget, both the Adam steps and the `total_sequences` = 256 training
# sequences, which the model can over-fit; the default keeps both small, and Try it varies both.

# %%
k_ref, k_prev = k_sweep[1], k_sweep[-2]  # the second smallest and largest K
early = (positions >= state_dim // 2) & (positions <= state_dim)  # t = d/2 .. d
third = late & (positions < 3 * seq_len // 4)  # the third quarter of the prompt
fourth = positions >= 3 * seq_len // 4  # the last quarter


def replicate(values, config, r):
    """Replicate r of a configuration (K, N, T)."""
    return [v for v, c in zip(values, runs) if c == config][r]


def prompt_shape(curve, nc):
    """Claims 1 and 2's ratios for a loss curve along the prompt, given no context's."""
    relative = curve / nc
    excess = (curve - oracle) / (nc - oracle)  # the part above the noise floor
    return {
        "fall": relative[late].mean() / relative[0],
        "beyond_d": relative[late].mean() / relative[early].mean(),
        "late_half": excess[fourth].mean() / excess[third].mean(),
    }


def claim_values(pick):
    """The measured values of the claims; pick(values, config) gives one curve."""
    u = {c: pick(unseen, c)[late].mean() for c in k_sweep}
    nc = pick(no_context, k_max)  # one curve per replicate, whatever the config
    s_max, nc_late = pick(seen, k_max)[late].mean(), nc[late].mean()
    return prompt_shape(pick(unseen, k_max), nc) | {
        "more_topics": u[k_max] / min(u[k_ref], nc_late),
        "k_ref_vs_none": u[k_ref] / nc_late,
        "k_prev_vs_none": u[k_prev] / nc_late,
        "k_max_vs_prev": u[k_max] / u[k_prev],
        "topic_gap": (u[k_max] - s_max) / (nc_late - s_max),
        "seen_vs_none": s_max / nc_late,
        "vs_memoriser": u[k_max] / pick(mem_unseen, k_max)[late].mean(),
        "n_gap": pick(gap_seq, n_sweep[-1]) / pick(gap_seq, n_sweep[0]),
        "n_gap_first": pick(gap_seq, n_sweep[0]),
    }


def median_and_edges(pick_values):
    """Median over replicates, each replicate, and median -/+ 3 sd, of every value."""
    each = [
        pick_values(lambda v, c, r=r: replicate(v, c, r)) for r in range(replicates)
    ]
    table = {}
    for name in each[0]:
        x = np.array([e[name] for e in each])
        v = float(np.median(x))
        sd = x.std(ddof=1) if replicates > 1 else float("nan")
        table[name] = (v, x, v - 3 * sd, v + 3 * sd)
    return table


def show(table):
    for name, (v, x, low, high) in table.items():
        row = ", ".join(f"{e:.3f}" for e in x)
        print(f"  {name:14s} {v:6.3f}  [{row}]  {low:6.3f} / {high:6.3f}")


values_table = median_and_edges(claim_values)
values = {name: v[0] for name, v in values_table.items()}
print("claim value: median of replicates [each replicate]; median -/+ 3 sd")
show(values_table)
ridge_d = test_curves(lambda u: ridge_predictions(u, state_dim))
references = {
    "in-context ridge": ridge,
    f"ridge, last {window} transitions": ridge_window,
    f"ridge, last {state_dim} transitions": ridge_d,
}
reference_tables = {}
for name, curves in references.items():
    print(f"{name} in the transformer's place (claims 1 and 2):")
    reference_tables[name] = median_and_edges(
        lambda pick, z=curves: prompt_shape(pick(z, k_max), pick(no_context, k_max))
    )
    show(reference_tables[name])
u_top = sweep_mean(unseen, k_max)[late].mean()
nc_late, ridge_late = no_context[:, late].mean(), ridge[:, late].mean()
ratio_to_ridge = u_top / ridge_late
closed = (nc_late - u_top) / (nc_late - ridge_late)
log_closed = math.log(nc_late / u_top) / math.log(nc_late / ridge_late)
print(
    f"K = {k_max[0]}: late-prompt unseen loss {ratio_to_ridge:.1f} x ridge; it closes "
    f"{closed:.2f} of the gap from no context to ridge "
    f"({log_closed:.2f} on a log scale)"
)
below = sum(values_table["vs_memoriser"][1] < 1)
print(f"replicates with the transformer below the memoriser: {below} of {replicates}")
stalled = sum(values_table["seen_vs_none"][1] >= 1)  # no better than zero on own topics
print(f"replicates whose K = {k_max[0]} model stalled: {stalled} of {replicates}")
glue("stalled", f"{stalled} of {replicates}", display=False)
glue("ratio_to_ridge", f"{ratio_to_ridge:.1f}", display=False)
glue("closed_linear", f"{closed:.2f}", display=False)
glue("closed_log", f"{log_closed:.2f}", display=False)
glue("memo_below", f"{below} of {replicates}", display=False)
glue("late_half", f"{values['late_half']:.2f}", display=False)
full, short = (reference_tables[name] for name in list(references)[:2])
glue("ridge_late_half", f"{full['late_half'][0]:.2f}", display=False)
glue("ridge_late_edge", f"{full['late_half'][3]:.2f}", display=False)
glue("window_beyond", f"{short['beyond_d'][0]:.2f}", display=False)
window_d = reference_tables[list(references)[2]]
glue("window_d_beyond", f"{window_d['beyond_d'][0]:.2f}", display=False)
glue("window_d_late_half", f"{window_d['late_half'][0]:.2f}", display=False)
onset = values["k_prev_vs_none"]
glue("k_prev_vs_none", f"{onset:.2f}", display=False)
glue("k_ref_vs_none", f"{values['k_ref_vs_none']:.2f}", display=False)
glue("k_max_vs_prev", f"{values['k_max_vs_prev']:.2f}", display=False)
glue("k_max_vs_prev_edge", f"{values_table['k_max_vs_prev'][3]:.2f}", display=False)
glue(
    "k_prev_onset",
    "below it: the models have begun to learn in context"
    if onset < 1
    else "above it: the models do not yet beat predicting zero",
    display=False,
)

# %%
# the first multiple of 1/20 beyond seed 0's median -/+ 3 replicate sd, short of the
# controls; LATE from in-context ridge's edge (its positive control); MEMO pre-set
FALL, BEYOND, LATE, MORE = "9/20", "13/20", "19/20", "9/20"
GAP, SEEN, MEMO, N_GAP, N_FIRST = "3/20", "2/5", "2/3", "3/20", "1/2"
names = (FALL, BEYOND, LATE, MORE, GAP, SEEN, MEMO, N_GAP, N_FIRST)
limit = {name: float(Fraction(name)) for name in names}
claims = lib.Claims(
    "icl-autoregressive-generalization", paper="gong2025autoregressive", control=control
)
claims.add(
    "Unseen-topic loss relative to the no-context predictor falls along the prompt "
    f"and uses more than d - 1 = {state_dim - 1} transitions: late-prompt value "
    f"< {FALL} of the first position's and < {BEYOND} of its value at "
    f"t = {state_dim // 2}..{state_dim} (K = {k_max[0]}; ratio; ratio)",
    f"{values['fall']:.2f}; {values['beyond_d']:.2f}",
    "ICL performance improves with prompt length (Sec. 5)",
    values["fall"] < limit[FALL] and values["beyond_d"] < limit[BEYOND],
    value=values["beyond_d"],
)
claims.add(
    "…and keeps falling over the late half: the loss above the noise floor, relative "
    f"to no context's, at t = {fourth.argmax()}..{seq_len - 1} < {LATE} of its "
    f"value at t = {third.argmax()}..{fourth.argmax() - 1} (K = {k_max[0]}; ratio)",
    values["late_half"],
    "ICL performance improves with prompt length (Sec. 5)",
    values["late_half"] < limit[LATE],
    fmt="{:.2f}",
    expect=False,
)
claims.add(
    "At fixed tokens, more topics lower the unseen-topic loss: late-prompt loss at "
    f"K = {k_max[0]} < {MORE} of the lower of K = {k_ref[0]}'s and no context's "
    "(ratio)",
    values["more_topics"],
    "more pre-training topics, better ICL (shown on GINC, App. C.2)",
    values["more_topics"] < limit[MORE],
    fmt="{:.2f}",
)
claims.add(
    f"…and the topic-level gap is small against what was learned: at K = {k_max[0]}, "
    f"(unseen - seen) / (no context - seen) < {GAP}, with seen-topic loss < {SEEN} "
    "of no context's (ratio; ratio)",
    f"{values['topic_gap']:.2f}; {values['seen_vs_none']:.2f}",
    "topic-level generalization gap is bounded, the bound falling with K",
    values["topic_gap"] < limit[GAP] and values["seen_vs_none"] < limit[SEEN],
    value=values["topic_gap"],
)
claims.add(
    f"The transformer clearly beats the tuned memoriser of its own K = {k_max[0]} "
    f"topics on unseen topics: late-prompt loss < {MEMO} of the memoriser's (ratio)",
    values["vs_memoriser"],
    "ICL emerges from generalization to new topics (abstract); no memoriser compared",
    values["vs_memoriser"] < limit[MEMO],
    fmt="{:.2f}",
    expect=False,
)
claims.add(
    "More sequences per topic shrink the sequence-level gap: relative gap at "
    f"N = {n_sweep[-1][1]} < {N_GAP} of N = {n_sweep[0][1]}'s, which is > {N_FIRST} "
    f"(K = {sweep_topics}; ratio; gap)",
    f"{values['n_gap']:.2f}; {values['n_gap_first']:.2f}",
    "the sequence-level bound falls with N",
    values["n_gap"] < limit[N_GAP] and values["n_gap_first"] > limit[N_FIRST],
    value=values["n_gap"],
)
claims.report()

# %% [markdown]
# ```{controls-table}
# ```
#
# Over the recorded seeds (held / run, where "held" counts the seeds with the recorded outcome:
# for claims 2 and 5 that the claim does not hold) the six claims give {seeds}`1:held`,
# {seeds}`2:held`, {seeds}`3:held`, {seeds}`4:held`, {seeds}`5:held` and {seeds}`6:held`; their
# measured values are {seeds}`1` (the late-over-early ratio), {seeds}`2`, {seeds}`3`, {seeds}`4`
# (the normalised gap), {seeds}`5` and {seeds}`6` (mean ± sd). Under `context-blind` the
# normalised gap of claim 4 is meaningless: the seen-topic loss is above the no-context loss, so
# the ratio's denominator is negative, and the guard carries the claim. Claim 6's control is
# `no-new-data`; it holds for a context-blind and a one-topic model as well (controls table), so
# it shows over-fitting that shrinks with data, not anything specific to in-context learning.
#
# Run one control with `make run CHAPTER=icl-autoregressive-generalization CONTROL=context-blind`
# (or any name in the table): the claims cell then names the control and fails if a claim it must
# flip still holds.
#
# ## How this compares with the paper
#
# **No number of the paper is compared here**: the notes we worked from did not contain the paper's
# figures, and its models (GPT-2) and data (GINC, real language tasks) are out of reach of a one-minute CPU
# run. The comparison is with the paper's statements.
#
# | The paper | This chapter | Why they differ / what it means |
# |---|---|---|
# | ICL emerges from AR-NTP pre-training with dependent tokens, as generalization to new topics (abstract) | a 2-layer transformer pre-trained on next-step prediction of random linear systems learns in context on unseen systems, using more than $d - 1$ transitions of the prompt ({numref}`fig-iclar-curve`); the same transformer blind to its context does not, nor does a ridge predictor that sees only the last $d - 1$ transitions (controls `context-blind`, `short-window`); it ends near the tuned memoriser of its training systems, not clearly below it (claim 5, not reproduced) | linear dynamical systems are one of the paper's three data sets; ours are 4-dimensional and scaled orthogonal, our choice; the memoriser comparison is ours |
# | ICL improves with prompt length (Sec. 5) | relative to predicting zero, the unseen-topic loss falls along the prompt beyond the first $d - 1$ transitions (claim 1); over the second half of the prompt its absolute loss still falls, so "improves with prompt length" holds in absolute terms, but its error relative to no context stops falling, where in-context ridge's still falls (claim 2, the stricter scale-free test, not reproduced; control `ridge-in-place` shows the check passes for a learner that keeps improving); its late-prompt loss stays {glue:}`ratio_to_ridge` times ridge's | a small model with a small training budget; the paper trains GPT-2, and its prompt-length statement is not tied to a late-prompt test like ours |
# | more pre-training topics, better ICL (App. C.2, shown on GINC with GPT-2) | at a fixed $KN$, the unseen-topic loss falls from $K$ = 4 to the largest $K$, and does not when the larger $K$ only repeats 4 systems (control `repeated-topics`; controls table); between $K$ = 16, the onset of in-context learning, and $K$ = 64 the fall is printed but too noisy across four replicates to claim; the topic-level gap is small against what the model learned ({numref}`fig-iclar-topics`); $K$ copies of one topic do neither (control `one-topic`) | on linear systems, not GINC; we fix the tokens, which the paper's sweep (per the reviewers) did not |
# | sequence- and topic-level bounds that shrink with $N$, $T$ and $K$ | the measured sequence-level gap falls with $N$ and, more slowly than $1/\sqrt T$, with $T$ ({numref}`fig-iclar-sequences`); our bound's terms fall with $K$ and $N$ ({numref}`fig-iclar-bound`) through its $1/K$ and $1/(KN)$ factors | the paper bounds the gaps, we measure them; the $N$ result holds for any over-fitted model; our bound, not the paper's, counts sequences |
# | data-dependent prior and optimisation-dependent KL | the bound is vacuous, and no prior can fix it at this scale: the KL budget at $K_{\max}$ is {glue:}`kl_budget` | the budget is computed above; the paper's prior and SDE constants are not in our notes |
# | GINC (HMM mixtures, varying the number of HMMs) and real-language experiments | not run | out of the time and CPU budget of this chapter |
#
# (sec-iclar-limits)=
# ### What these checks do not separate
#
# Claims 1, 3 and 4 show that the transformer uses more than $d - 1$ transitions of its prompt
# on topics it was not trained on, and that more distinct topics help; claim 2 shows that it
# stops improving in the second half of the prompt. They do not show that it does more than
# recall its $K$ training systems and weigh them by the prompt: the tuned memoriser of
# {ref}`sec-iclar-memoriser` fails claims 1, 3 and 4 at the default seed, but the transformer's
# late-prompt loss is not clearly below the memoriser's (claim 5), so the chapter does not claim that this transformer infers unseen systems rather
# than interpolating between stored ones. The comparison also depends on the dimension: in $d = 2$
# each $A = \rho U$ is a scaled rotation or reflection, fixed by one angle and one sign, and 64
# topics cover that space densely (`-p state_dim=2` in Try it below runs the comparison there); in
# $d = 4$ the space of systems has six angles and a sign, and 64 topics cover it sparsely. The
# checks do not show *which* in-context algorithm the transformer runs (ridge, gradient steps, or
# something else), nor that the paper's bounds are tight: the claims test the qualitative
# predictions, and the bound is computed but cannot be informative here. Claim 6 is about
# memorising sequences, not about in-context learning: a context-blind model and a one-topic model
# pass it too, as any over-fitted model whose data grows would.
#
# ## Try it
#
# * `python -m lib.build run icl-autoregressive-generalization -p train_steps=3000 -p learning_rate=0.002 -p total_sequences=1024`
#   trains five times longer at a smaller step on four times as many sequences (several times
#   the default's CPU time); drop `total_sequences` to change the steps alone. Compare the
#   printed ratio of the late-prompt loss to ridge's, claim 2's late-half ratio and claim 5's
#   ratio to the memoriser with the default's. The chapter makes no claim about the ratio to
#   ridge.
# * `python -m lib.build run icl-autoregressive-generalization -p state_dim=2` moves to 2-dimensional
#   systems, scaled rotations and reflections, which 64 topics cover densely: compare the
#   memoriser's printed unseen-topic loss with ridge's and with the transformer's (claim 5).
# * `python -m lib.build run icl-autoregressive-generalization -p length_per_topic=64` repeats the $T$
#   sweep at the largest $N$ of the default's $N$ sweep, where little of the sequences is memorised.
