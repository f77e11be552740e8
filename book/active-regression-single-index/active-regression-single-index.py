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
# # Active regression of single-index models: a (1 + ε) fit from few labels
#
# ```{admonition} About this chapter
# :class: tip
# Paper: {cite:t}`li2025active` (ICLR 2025). Question: to fit $f(Ax) \approx b$ in the
# $\ell_p$ norm when every entry of $b$ costs a query, how many entries must we read to get
# within a factor $1+\varepsilon$ of the best fit, and which entries? The paper answers
# $\tilde O(d^{\max(p/2,1)}/\varepsilon^{\max(p,2)})$ queries, drawn by Lewis-weight sampling,
# and shows this is optimal up to logarithms for $p \in [1, 2]$. We implement
# sample-then-solve on a design with heavy-tailed rows and a few rows that alone carry some
# directions, and measure the approximation ratio against the number of queries, for uniform and
# Lewis-weight sampling, the queries needed for a fixed ratio as the dimension grows, and, on an
# agnostic instance whose $b$ no single-index model fits, whether the importance weights of the
# sample matter. The defaults ($n = 20\,000$ rows, $d = 10$, $p \in \{1, 2\}$, 100 trials per
# budget, a dimension scan up to $d = 40$) run in under a minute on two CPU cores;
# `make run CHAPTER=active-regression-single-index PRESET=paper` adds $p = 3$, doubles the
# trials and extends the budgets.
# ```
#
# ## The question
#
# A matrix $A \in \mathbb R^{n \times d}$ with $n \gg d$ is known in full: the features of $n$
# candidate experiments, say. The response $b_i$ of experiment $i$ is expensive: we learn it only
# by running the experiment, a *query*. The model is a single-index model, a known link
# function $f$ applied to a linear score, and the fit is measured in the $\ell_p$ norm,
#
# $$
# \mathrm{OPT} = \min_{x \in \mathbb R^d} \lVert f(Ax) - b \rVert_p ,
# $$ (eq-arsi-problem)
#
# with $f$ applied entrywise. Reading all $n$ entries of $b$ solves {eq}`eq-arsi-problem` exactly.
# How few entries suffice to find an $\hat x$ with
# $\lVert f(A\hat x) - b\rVert_p \le (1+\varepsilon)\,\mathrm{OPT}$, whatever $b$ is?
#
# For linear regression ($f(t) = t$) the answer is known: $O(d/\varepsilon)$ queries for $p = 2$
# {cite:p}`chen2019active`, $\Theta(d/\varepsilon^2)$ up to logarithms for $p = 1$
# {cite:p}`parulekar2021l1`, and bounds for every $p$ {cite:p}`musco2022active`, all by sampling
# rows with probabilities from the geometry of $A$ alone (leverage scores, Lewis weights). With a
# nonlinear, merely Lipschitz $f$ the earlier results gave only a constant factor
# {cite:p}`gajjar2023active,gajjar2024agnostic`. {cite:t}`li2025active` give the first
# $(1+\varepsilon)$ guarantee, with a query count that matches the lower bound up to logarithms for
# $p \in [1, 2]$. We test four things: (i) do Lewis weights beat uniform sampling on a design
# where a few rows matter; (ii) how does the ratio approach 1 as the number of queries $m$ grows;
# (iii) how does the number of queries for a fixed ratio grow with $d$; (iv) do the importance
# weights of the sample matter when $b$ is not of the model's form.
#
# ## The setting and the theorem
#
# ```{prf:definition} Active regression of a single-index model
# :label: arsi-def-problem
#
# Given $A \in \mathbb R^{n\times d}$, an $L$-Lipschitz $f: \mathbb R \to \mathbb R$ and
# $p \ge 1$, an algorithm may read entries $b_i$ of an unknown $b \in \mathbb R^n$, one query each,
# and outputs $\hat x \in \mathbb R^d$. Its *query complexity* is the number of entries it reads.
# Its *approximation ratio* is $\lVert f(A\hat x) - b\rVert_p / \mathrm{OPT}$ with $\mathrm{OPT}$
# from {eq}`eq-arsi-problem`; we call it a $(1+\varepsilon)$-approximation if the ratio is at most
# $1 + \varepsilon$ with a constant probability (over the algorithm's own randomness) for every $b$.
# ```
#
# Which rows to query? A row matters in proportion to how much of the $\ell_p$ norm of $Ax$ it can
# carry for some $x$. For $p = 2$ that is the *leverage score*
# $\tau_i = a_i^\top (A^\top A)^{-1} a_i = \max_x (a_i^\top x)^2 / \lVert Ax\rVert_2^2$. Lewis weights
# are its $\ell_p$ analogue {cite:p}`cohen2015lewis`.
#
# ```{prf:definition} Lewis weights
# :label: arsi-def-lewis
#
# The $\ell_p$ Lewis weights of $A$ are the unique $w \in \mathbb R^n_{>0}$ with
#
# $$
# w_i = \big( a_i^\top (A^\top W^{1 - 2/p} A)^{-1} a_i \big)^{p/2}, \qquad W = \mathrm{diag}(w) .
# $$ (eq-arsi-lewis)
#
# They sum to $d$. For $p = 2$ the right-hand side does not depend on $w$, and $w_i = \tau_i$.
# For $p < 4$ iterating {eq}`eq-arsi-lewis` from any positive start converges
# {cite:p}`cohen2015lewis`.
# ```
#
# Sample row $i$ independently with probability $\pi_i = \min(1, m\, w_i / d)$, so that about $m$
# rows are read, and give a sampled row the weight $1/\pi_i$. For every fixed $x$ the sampled
# objective $\sum_{i \text{ sampled}} |r_i(x)|^p / \pi_i$ is then an unbiased estimate of
# $\lVert r(x)\rVert_p^p$. With $m = \tilde O(d^{\max(p/2,1)})$ Lewis-weight samples it is also
# uniformly accurate for the *linear* part, $\lVert Ax\rVert_p$, over all $x$ at once (an $\ell_p$
# subspace embedding {cite:p}`cohen2015lewis`), which uniform sampling cannot give when a few rows
# carry some direction alone.
#
# ```{prf:algorithm} Sample-then-solve with a regulariser
# :label: arsi-alg-sample-solve
#
# 1. Compute the $\ell_p$ Lewis weights $w$ of $A$ (no queries).
# 2. Draw the sample: row $i$ with probability $\pi_i = \min(1, m w_i/d)$; query $b_i$ for the rows
#    drawn.
# 3. Return a minimiser of the regularised sampled problem
#
# $$
# \hat x = \arg\min_x \sum_{i \text{ sampled}} \frac{|f(a_i^\top x) - b_i|^p
# + \lambda\, |a_i^\top x|^p}{\pi_i} .
# $$ (eq-arsi-sampled)
# ```
#
# The regulariser $\lambda \lVert Ax\rVert_p^p$ (here estimated on the sample) keeps the solution in
# a bounded domain: a Lipschitz $f$ can be flat, and then the data term alone does not control
# $\lVert Ax\rVert_p$. In the paper $\lambda$ is of order $\varepsilon$, and its cost is what the
# additive term in the theorem pays for.
#
# ```{prf:theorem} Query complexity (after Li and Tai)
# :label: arsi-thm-upper
#
# Let $f$ be $L$-Lipschitz and $p \ge 1$. Sample-then-solve with Lewis-weight
# sampling, $\lambda \asymp \varepsilon$ and
#
# $$
# m = \tilde O\!\left( \frac{d^{\max(p/2,\,1)}}{\varepsilon^{\max(p,\,2)}} \right)
# $$ (eq-arsi-bound)
#
# queries returns, with constant probability, an $\hat x$ with
# $\lVert f(A\hat x) - b\rVert_p^p \le (1+\varepsilon)\,\mathrm{OPT}^p + \varepsilon L^p \lVert
# Ax^\star\rVert_p^p$, where $x^\star$ attains $\mathrm{OPT}$.
# ```
#
# ```{prf:theorem} Lower bounds (after Li and Tai)
# :label: arsi-thm-lower
#
# For $p \in [1, 2]$ there are instances on which every algorithm needs
# $\Omega(d/\varepsilon^2)$ queries (up to logarithmic factors) for a $(1+\varepsilon)$-approximation,
# so {eq}`eq-arsi-bound` is optimal there. For $p > 2$ the dependence $1/\varepsilon^p$ cannot be
# improved.
# ```
#
# ```{prf:proof}
# (Sketch, in our words; the paper has the details.) *Upper bound.* Write $F(x) = \lVert f(Ax) -
# b\rVert_p^p$ and $F_S$ for the sampled, reweighted version. It suffices that
# $|F_S(x) - F(x) - (F_S(x^\star) - F(x^\star))| \le \varepsilon\,(\mathrm{OPT}^p + \lVert
# Ax\rVert_p^p)$ for all $x$ in the region where the minimiser of {eq}`eq-arsi-sampled` can lie:
# then the sampled minimiser loses at most that much on the full problem. The difference is a
# sum of independent terms $|r_i(x)|^p - |r_i(x^\star)|^p$, each bounded through the Lipschitz
# constant by $|a_i^\top (x - x^\star)|$ terms, which Lewis-weight sampling controls for all $x$ at
# once (Dudley's chaining integral over the subspace embedding). Two refinements give the
# $(1+\varepsilon)$ rate: *domain shrinking* (a first, constant-factor solution pins $x^\star$ to a
# ball of radius $O(\mathrm{OPT})$ in the $\lVert A\cdot\rVert_p$ norm, so the uniform bound need
# only hold there) and *two-stage sampling* (a first sample finds that ball, a second one refines
# within it). A further argument removes a $\log n$ factor. *Lower bound.* By Yao's principle it is
# enough to find a distribution over $b$ that fools every deterministic query strategy. For
# $p = 1$ a linear link already suffices, as for linear $\ell_1$ regression
# {cite:p}`parulekar2021l1`: with $d$ blocks of rows whose labels are biased by $\pm\varepsilon$,
# deciding the signs from $o(d/\varepsilon^2)$ queries fails on a constant fraction of the
# blocks, and each wrong block costs a factor $1 + \Omega(\varepsilon)$, because the $\ell_1$
# cost is linear in the error of a block's fit. For $p = 2$ that construction gives nothing: with
# a linear link the squared cost is quadratic in the error, a wrong sign of size $\varepsilon$
# costs only $1 + O(\varepsilon^2)$, and $O(d/\varepsilon)$ queries suffice
# {cite:p}`chen2019active`. There the bound comes from the link. As $x$ varies, $f(Ax)$ traces a
# curve with separate branches (the paper draws the two branches of a two-row instance, for
# $x \le 0$ and $x \ge 0$), and the targets $b$ are placed almost equally far from two points
# on different branches. Which branch is closer is decided by labels biased by $\pm\varepsilon$,
# so $\Omega(1/\varepsilon^2)$ queries per block are needed, and the wrong branch is a whole
# branch away, so choosing it costs $1 + \Omega(\varepsilon)$ rather than
# $1 + O(\varepsilon^2)$; $d$ such blocks give $\Omega(d/\varepsilon^2)$. (The details of the
# construction are in the paper; we could not read them.)
# ```
#
# The theorem is a worst-case statement, and its $1/\varepsilon^2$ comes from instances built to
# be hard. On a random instance we expect the linear-regression behaviour, as the following
# heuristic shows; the experiment will test it.
#
# ```{prf:proposition} The typical rate (our heuristic, not from the paper)
# :label: arsi-prop-typical
#
# Suppose $F$ is twice differentiable at its minimiser $x_{\mathrm{opt}}$ with Hessian $H \succ 0$,
# on the scale of the sampling error. The sampled minimiser has
# $\hat x - x_{\mathrm{opt}} \approx -H^{-1} \nabla F_S(x_{\mathrm{opt}})$, where
# $\nabla F_S(x_{\mathrm{opt}})$ has mean $\nabla F(x_{\mathrm{opt}}) = 0$ and covariance $V/m$.
# Then
#
# $$
# \mathbb E\, F(\hat x) - \mathrm{OPT}^p \approx \tfrac12 \operatorname{tr}(H^{-1} V)/m ,
# \qquad\text{so}\qquad \text{ratio} - 1 \approx \frac{\operatorname{tr}(H^{-1}V)}{2p\, m\,
# \mathrm{OPT}^p} \propto \frac{d}{m} .
# $$ (eq-arsi-typical)
#
# The excess is a trace over $d$ directions and is quadratic in the parameter error. So on such an
# instance the number of queries for ratio $1 + \varepsilon$ grows like $d/\varepsilon$ (for every
# $p$), faster decay than the worst-case $\sqrt{d/m}$ of {eq}`eq-arsi-bound` for $p \le 2$.
# ```
#
# ```{note}
# **Where this chapter departs from the paper.** The paper is theory only; it has no experiments
# and no code, and we could not read its full text, so the settings below are ours.
# * **The guarantee.** We state {prf:ref}`arsi-thm-upper` with the additive term
#   $\varepsilon L^p\lVert Ax^\star\rVert_p^p$ that the regulariser pays for, as we reconstruct it; we
#   measure the stricter *pure* ratio $\lVert f(A\hat x) - b\rVert_p/\mathrm{OPT}$.
# * **One stage, no explicit domain.** We sample once and solve {eq}`eq-arsi-sampled`. Domain
#   shrinking and two-stage sampling are devices of the proof; our solver starts from the sample's
#   own least-squares fit and never leaves the region they would confine it to on these instances.
# * **Regulariser.** $\lambda = 10^{-3}$ for every budget (the theory's $\lambda \asymp
#   \varepsilon$ would differ per budget), and $\lVert Ax\rVert_p^p$ is estimated on the same
#   sample, which costs no queries (the paper writes it on the full $A$, which costs no queries
#   either; the two agree within constant factors for Lewis-weight samples).
# * **Solver.** The theorem assumes an exact minimiser of the non-convex problem
#   {eq}`eq-arsi-sampled`. We use iteratively reweighted least squares on the linearised link with a
#   backtracking line search (below). $\mathrm{OPT}$ is the same solver on all $n$ rows, from
#   several starts, and we check that the starts agree and that no sampled solution beats it.
# * **Instance.** The link is the leaky ReLU $f(t) = \max(t, 0.1\,t)$ ($L = 1$); $A$ has Student-$t$
#   rows (3 degrees of freedom); the last $\lfloor d/5 \rfloor$ coordinates are zero except on a
#   random 0.2% of the rows, where they are 10 times larger (rare, high-leverage rows); one bulk
#   feature is in units `unit_scale` times smaller, which changes neither the problem nor the
#   Lewis weights;
#   $b = f(Ax^\star) + \mathcal N(0, 0.5^2)$ noise, with 1% of the entries hit by an extra
#   $\mathcal N(0, 5^2)$ gross outlier; $\lVert x^\star\rVert = 1$ before the change of units.
#   This follows the research notes'
#   suggested experiment; the paper has none. A second, agnostic instance adds a model error
#   that no single-index model fits ({eq}`eq-arsi-agnostic` below), to test the importance
#   weights, which a realisable $b$ cannot.
# * **The lower bound is not tested.** It is a statement about hard instances, one for each
#   target $\varepsilon$; on a fixed random instance it predicts nothing about the rate.
# ```
#
# ## The algorithm
#
# Every knob of the experiment is in the next cell. The queries are the expected sample sizes
# $m$; we plot and measure against the number of entries actually read.

# %% tags=["parameters"]
seed = 0
device = "cpu"  # numpy only; the device just has to be valid
progress = False
control = "none"  # or a deliberately wrong variant named in controls.yaml
n_rows = 20000  # n, rows of A (candidate queries)
dim = 10  # d, columns of A
p_values = [1, 2]  # the l_p norms to run (1 to 3; the paper preset adds 3)
queries = [50, 100, 200, 400, 800, 1600]  # expected sample sizes m
n_trials = 100  # independent samples per (p, sampler, m)
epsilon = 0.01  # target ratio 1 + epsilon for "queries needed"
dims = [5, 10, 20, 40]  # d grid of the dimension scan (Lewis sampling)
scan_factors = [5, 10, 20, 40, 80]  # scan budgets: m is factor times d
scan_trials = 48  # samples per (p, d, m) in the scan
leak = 0.1  # leaky-ReLU slope for t < 0
tail_df = 3.0  # Student-t degrees of freedom of the entries of A
rare_frac = 0.002  # share of rows that carry the rare coordinates
rare_scale = 10.0  # size of the rare coordinates on those rows
unit_scale = 30.0  # column 2 of A in units this many times smaller (x* rescaled)
noise_sd = 0.5  # Gaussian label noise
outlier_frac = 0.01  # share of labels with a gross outlier
outlier_sd = 5.0  # size of the outliers
reg = 1e-3  # lambda, weight of the regulariser in the sampled problem
irls_iters = 150  # iteration cap of the solver on a sample
opt_starts = 4  # starts of the full-data solver for OPT (least squares, random)
misfit = 0.5  # kappa, size of the model error of the agnostic instance
agnostic_trials = 60  # samples per (p, sampler, m) on the agnostic instance
n_boot = 200  # bootstrap resamples of the trials, for standard errors

# %% tags=["hide-input"]
try:
    import lib
except ModuleNotFoundError:
    raise SystemExit(
        "This chapter needs the book's `lib` package. Run it from a clone of the "
        "book's repository after `make install` (see its README), or "
        "`pip install -r requirements.txt` and `pip install -e .` in that clone."
    ) from None


import time

import numpy as np

lib.check_int("seed", seed, low=0, high=2**32 - 1)
lib.check_choice("device", device, ["auto", "cpu", "cuda"])
lib.check_bool("progress", progress)
lib.check_int("n_rows", n_rows, low=1000)
lib.check_int("dim", dim, low=2, high=200)
lib.check_int_list("p_values", p_values, low=1, high=3, increasing=True)
lib.check_int_list("queries", queries, low=2, min_len=3, increasing=True)
if 4 * queries[-1] > n_rows:
    raise ValueError(
        f"parameter `queries` = {queries!r} is invalid: the largest budget must be "
        f"<= n_rows / 4 = {n_rows // 4}"
    )
lib.check_int("n_trials", n_trials, low=10)
lib.check_float("epsilon", epsilon, low=0.0, high=0.5, low_open=True)
lib.check_int_list("dims", dims, low=2, high=200, min_len=3, increasing=True)
lib.check_int_list("scan_factors", scan_factors, low=2, min_len=3, increasing=True)
if 4 * scan_factors[-1] * dims[-1] > n_rows:
    raise ValueError(
        f"parameters `scan_factors`, `dims`: the largest scan budget "
        f"{scan_factors[-1] * dims[-1]} must be <= n_rows / 4 = {n_rows // 4}"
    )
lib.check_int("scan_trials", scan_trials, low=10)
lib.check_float("leak", leak, low=0.0, high=1.0, low_open=True)
lib.check_float("tail_df", tail_df, low=2.0, low_open=True)
lib.check_float("rare_frac", rare_frac, low=0.0, high=0.5, low_open=True)
lib.check_float("rare_scale", rare_scale, low=0.0, low_open=True)
lib.check_float("unit_scale", unit_scale, low=0.0, low_open=True)
lib.check_float("noise_sd", noise_sd, low=0.0, low_open=True)
lib.check_float("outlier_frac", outlier_frac, low=0.0, high=0.5)
lib.check_float("outlier_sd", outlier_sd, low=0.0)
lib.check_float("reg", reg, low=0.0)
lib.check_int("irls_iters", irls_iters, low=1)
lib.check_int("opt_starts", opt_starts, low=2, high=64)
lib.check_float("misfit", misfit, low=0.0)
lib.check_int("agnostic_trials", agnostic_trials, low=10)
lib.check_int("n_boot", n_boot, low=50)
control = lib.check_control("active-regression-single-index", control)
k_max = max(1, max(dims + [dim]) // 5)
if rare_frac * n_rows < 2 * k_max:
    raise ValueError(
        f"parameter `rare_frac` = {rare_frac!r} is invalid: the rare rows "
        f"(rare_frac * n_rows = {rare_frac * n_rows:.0f}) must number at least "
        f"2 * {k_max}, twice the most rare coordinates, to be identifiable"
    )
peak_bytes = 8 * max(
    4 * n_trials * queries[-1] * dim,
    4 * scan_trials * scan_factors[-1] * dims[-1] ** 2,
    3 * max(n_trials, scan_trials, agnostic_trials) * n_rows,
    3 * opt_starts * n_rows * max(dims + [dim]),
)
if peak_bytes > 8e9:
    raise ValueError(
        f"parameters `n_trials`, `queries`, `scan_*`, `dims`: the batches need "
        f"{peak_bytes / 1e9:.0f} GB (limit 8 GB); lower them"
    )
rng, device = lib.setup(seed, device)


# %% [markdown]
# The instance generator. The last $k = \max(1, \lfloor d/5 \rfloor)$ coordinates live only on the
# rare rows, so those rows alone determine $k$ of the $d$ directions of $x$, and their leverage
# scores are far above the typical $d/n$ (the multiple is printed below).
#
# One bulk feature is recorded in units `unit_scale` times smaller: its column of $A$ is multiplied
# by that factor and the matching coordinate of $x^\star$ divided by it, so $Ax^\star$ and $b$ do
# not change. Nothing in the problem depends on the units of a feature: rescaling a column of $A$
# and the matching coordinate of $x$ leaves {eq}`eq-arsi-problem`, the regulariser, the leverage
# scores and the Lewis weights as they were. Row norms do change: a sampler that reads row $i$ in
# proportion to $\lVert a_i\rVert_2^2$, a cheap stand-in for leverage, now chases the rows where
# that one feature is large rather than the rows that carry a direction alone.

# %%
def link(t):
    """The leaky ReLU f, 1-Lipschitz and increasing."""
    return np.where(t > 0, t, leak * t)


def link_slope(t):
    return np.where(t > 0, 1.0, leak)


def make_instance(n, d):
    """A: heavy-tailed rows, rare high-leverage rows; b: noise and outliers."""
    A = rng.standard_t(tail_df, (n, d))
    k = max(1, d // 5)
    rare = rng.random(n) < rare_frac
    A[~rare, d - k :] = 0.0
    A[rare, d - k :] *= rare_scale
    x_star = rng.standard_normal(d)
    x_star /= np.linalg.norm(x_star)
    A[:, 1] *= unit_scale  # new units for feature 2: A x_star is unchanged
    x_star[1] /= unit_scale
    b = link(A @ x_star) + noise_sd * rng.standard_normal(n)
    hit = rng.random(n) < outlier_frac
    b[hit] += outlier_sd * rng.standard_normal(hit.sum())
    return A, b, rare


# %% [markdown]
# Lewis weights by the fixed-point iteration {eq}`eq-arsi-lewis`. Each step costs one $d\times d$
# inverse and one pass over $A$. At $p = 2$ the first step already gives the leverage scores.

# %%
def lewis_weights(A, p, tol=1e-12, max_iter=500):
    """l_p Lewis weights of A; returns (w, iterations, last relative change)."""
    n, d = A.shape
    if control == "uniform-weights":  # every row gets the uniform weight d/n
        return np.full(n, d / n), 0, 0.0
    if control == "row-norm-weights":  # squared row norms, scaled to sum to d
        norms = (A**2).sum(1)
        return d * norms / norms.sum(), 0, 0.0
    w = np.full(n, d / n)
    for it in range(1, max_iter + 1):
        M = A.T @ (A * (w ** (1 - 2 / p))[:, None])
        w_new = np.einsum("ij,ij->i", A @ np.linalg.inv(M), A) ** (p / 2)
        change = np.max(np.abs(w_new - w) / w_new)
        w = w_new
        if change < tol:
            break
    return w, it, change


# %% [markdown]
# The solver for {eq}`eq-arsi-sampled`. The leaky ReLU is piecewise linear, $f(t) = D(t)\,t$ with
# slope $D(t) \in \{0.1, 1\}$, so with the slopes frozen at the current $x$ the residual
# $D_i a_i^\top x - b_i$ is linear in $x$. Iteratively reweighted least squares (IRLS) replaces
# $|r_i|^p$ by $u_i r_i^2$ with $u_i = \max(|r_i|, \delta)^{p-2}$, solves that weighted
# least-squares problem, and repeats. The floor $\delta$ starts at 0.1 and halves at every step
# down to $10^{-8}$: with a tiny floor from the start, IRLS for $p = 1$ stalls on the rows it
# interpolates, far above the minimum on the smallest samples. For linear $\ell_p$ regression
# with $p \le 2$ each step decreases the objective; with the link's kinks and for $p > 2$ it
# may not, so we take the best of the step sizes 1, 1/2, 1/4 and 1/10 and do not move if none of
# them decreases the objective. For $p = 1$ IRLS approaches the minimiser slowly, because an $\ell_1$ minimiser is a
# vertex: generically $d$ of the terms $f(a_i^\top x) - b_i$ and $a_i^\top x$ vanish there. So we
# finish with one exact step to the point where the $d$ smallest of them are zero, with the
# link's slopes frozen, and keep it if it lowers the objective. All trials of a batch are solved
# at once; unsampled slots have weight 0. $\mathrm{OPT}$ is the same solver on all $n$ rows,
# from several starts at once, run twice (`solve_full`): for $p = 1$ the floor schedule can
# leave IRLS at a point where the floor has reached its minimum but the objective is not, and a
# second pass from that point, with the floor raised again, moves on.

# %%
def objective(A, b, s, x, p, lam):
    z = np.einsum("...md,...d->...m", A, x)
    return (s * (np.abs(link(z) - b) ** p + lam * np.abs(z) ** p)).sum(-1)


def weighted_lstsq(A, c, y):
    """argmin_x sum_i c_i (a_i x - y_i)^2 for a batch, with a tiny ridge."""
    H = np.swapaxes(A * c[..., None], -1, -2) @ A
    g = np.einsum("...md,...m->...d", A, c * y)
    ridge = 1e-9 * np.einsum("...ii->...", H)[..., None, None] / A.shape[-1]
    return np.linalg.solve(H + ridge * np.eye(A.shape[-1]), g[..., None])[..., 0]


def fit(A, b, s, p, lam, iters, x=None, floor=1e-8):
    """Batched IRLS for min_x sum_i s_i (|f(a_i x) - b_i|^p + lam |a_i x|^p)."""
    if x is None:
        x = weighted_lstsq(A, s, np.where(b > 0, b, b / leak))  # fit f^-1(b) first
    G = objective(A, b, s, x, p, lam)
    for t in range(iters):
        smooth = max(floor, 0.1 * 0.5**t)  # residual floor, lowered each step
        z = np.einsum("...md,...d->...m", A, x)
        D = link_slope(z)
        u = s * np.maximum(np.abs(link(z) - b), smooth) ** (p - 2)
        v = lam * s * np.maximum(np.abs(z), smooth) ** (p - 2)
        c = u * D**2 + v
        target = u * D * b / np.where(c > 0, c, 1.0)
        step = weighted_lstsq(A, c, target) - x
        dz = np.einsum("...md,...d->...m", A, step)
        G_old, x_old = G.copy(), x
        for eta in (1.0, 0.5, 0.25, 0.1):  # keep the best of these step sizes
            zc = z + eta * dz
            G_cand = (s * (np.abs(link(zc) - b) ** p + lam * np.abs(zc) ** p)).sum(-1)
            better = G_cand < G
            x = np.where(better[..., None], x_old + eta * step, x)
            G = np.where(better, G_cand, G)
        if (smooth == floor or p == 2) and np.all(G_old - G <= 1e-12 * G_old):
            break
    if p == 1:
        x, G = polish_vertex(A, b, s, x, lam, G)
    return x, G


def solve_full(A, b, p, starts):
    """OPT^p on all n rows: IRLS from the least-squares start and from random ones,
    then IRLS again from where each start ended (a second pass of the floor schedule).

    Returns the best x, its objective and the objectives reached from every start."""
    n, d = A.shape
    R = starts
    x0 = np.concatenate(
        [weighted_lstsq(A, np.ones(n), np.where(b > 0, b, b / leak))[None]]
        + [rng.standard_normal((R - 1, d))]
    )
    iters = 2 if control == "crude-opt" else 300  # crude-opt: stop after two steps
    AR, bR = np.broadcast_to(A, (R, n, d)), np.broadcast_to(b, (R, n))
    x, G = fit(AR, bR, np.ones((R, n)), p, 0.0, iters, x=x0)
    x, G = fit(AR, bR, np.ones((R, n)), p, 0.0, iters, x=x)
    best = np.argmin(G)
    return x[best], G[best], G


def polish_vertex(A, b, s, x, lam, G):
    """p = 1: jump to the point where the d smallest residuals are exactly 0."""
    d = A.shape[-1]
    z = np.einsum("...md,...d->...m", A, x)
    rows = np.concatenate([link_slope(z)[..., None] * A, A], axis=-2)
    rhs = np.concatenate([b, np.zeros_like(b)], axis=-1)
    size = np.concatenate([np.abs(link(z) - b), np.abs(z)], axis=-1)
    size = np.where(np.concatenate([s, s], axis=-1) > 0, size, np.inf)
    pick = np.argsort(size, axis=-1, kind="stable")[..., :d]
    M = np.take_along_axis(rows, pick[..., None], axis=-2)
    y = np.take_along_axis(rhs, pick, axis=-1)
    x_v = (np.linalg.pinv(M) @ y[..., None])[..., 0]
    G_v = objective(A, b, s, x_v, 1, lam)
    better = G_v < G
    return np.where(better[..., None], x_v, x), np.where(better, G_v, G)


# %% [markdown]
# Sampling and the whole sample-then-solve step ({prf:ref}`arsi-alg-sample-solve`). The option
# `weighted=False` drops the importance weights $1/\pi_i$ (every sampled row gets weight 1), the
# variant that the agnostic instance below tests the weights against. A batch of
# `trials` independent samples is padded to the largest sample size; the ratio is evaluated on
# all $n$ rows, which the algorithm itself never does (it would need all of $b$).

# %%
def draw_sample(q, m, trials, weighted=True):
    """Row i with probability min(1, m q_i); returns indices, weights 1/pi, sizes."""
    pi = np.minimum(1.0, m * q)
    take = rng.random((trials, q.size)) < pi
    size = take.sum(1)
    idx = np.argsort(~take, axis=1, kind="stable")[:, : size.max()]
    valid = np.arange(size.max())[None] < size[:, None]
    if not weighted or control == "no-importance-weights":  # weight 1, not 1/pi
        return idx, valid.astype(float), size
    if control == "sqrt-importance-weights":  # half the correction: 1/sqrt(pi)
        return idx, np.where(valid, pi[idx] ** -0.5, 0.0), size
    return idx, np.where(valid, 1.0 / pi[idx], 0.0), size


def sample_then_solve(A, b, p, q, m, trials, opt, iters=None, weighted=True):
    """Ratios ||f(A x_hat) - b||_p / OPT and numbers of queries, one per trial."""
    idx, s, size = draw_sample(q, m, trials, weighted)
    if control == "inverted-link":  # least squares on f^-1(b): the problem unsolved
        y = np.where(b[idx] > 0, b[idx], b[idx] / leak)
        x_hat = weighted_lstsq(A[idx], s, y)
    else:
        x_hat, _ = fit(A[idx], b[idx], s, p, reg, iters or irls_iters)
    cost = (np.abs(link(x_hat @ A.T) - b) ** p).sum(-1) ** (1 / p)
    return cost / opt, size


# %% [markdown]
# ## The experiment
#
# One instance at the default size, the same for every $p$ and sampler.

# %%
clock = time.perf_counter()
A, b, rare = make_instance(n_rows, dim)
k_rare = max(1, dim // 5)
print(
    f"n = {n_rows}, d = {dim}: {rare.sum()} rare rows ({rare.mean():.1%}) carry the "
    f"last {k_rare} coordinates; {int(round(outlier_frac * n_rows))} outliers expected"
)
lewis, opt, x_opt = {}, {}, {}
for p in sorted(set(p_values) | {1, 2}):
    w, its, change = lewis_weights(A, p)
    lewis[p] = w
    print(
        f"p = {p}: Lewis weights in {its:3d} iterations, sum {w.sum():.4f} (d = {dim}),"
        f" rare rows hold {w[rare].sum() / dim:.1%} of it"
    )
boost = lewis[1][rare].sum() / dim / rare.mean()
print(f"p = 1: Lewis sampling reads rare rows {boost:.0f} times as often as uniform")
Q, _ = np.linalg.qr(A)
leverage = (Q**2).sum(1)
rare_lev = np.median(leverage[rare]) / (dim / n_rows)
norm_sq = (A**2).sum(1)
print(
    f"rare rows: median leverage {rare_lev:.0f} times d/n; they hold "
    f"{leverage[rare].sum() / dim:.1%} of the leverage but "
    f"{norm_sq[rare].sum() / norm_sq.sum():.1%} of the squared row norms"
)
lev_gap = np.max(np.abs(lewis[2] - leverage)) / leverage.max()
W1 = A.T @ (A / lewis[1][:, None])  # A^T W^(1 - 2/p) A at p = 1
fixed_point = np.sqrt(np.einsum("ij,ij->i", A @ np.linalg.inv(W1), A))
fp_gap = np.max(np.abs(fixed_point - lewis[1]) / lewis[1])


def bound_text(v):
    """Below 1e-10 the gap is rounding noise, which differs between CPUs."""
    return "< 1e-10" if v < 1e-10 else f"{v:.0e}"


print(f"p = 2: max |Lewis - leverage| / max leverage = {bound_text(lev_gap)}")
print(f"p = 1: max relative residual of the fixed point = {bound_text(fp_gap)}")

# %% [markdown]
# The rare rows are a tiny share of the rows but hold a large share of the total weight (printed
# above), so Lewis-weight sampling reads them far more often than uniform sampling does. Their
# share of the squared row norms is about their share of the rows: a row-norm sampler would read
# them little more often than uniform sampling.
# {numref}`fig-arsi-weights` shows the weights row by row.

# %% mystnb={"figure": {"caption": "Lewis weights at p = 1 against leverage scores (p = 2) for every row of A, as multiples of the uniform weight d/n (log scales; dotted, the uniform weight). The l1 weights are a compressed version of the leverage scores; in both, the rare rows (orange) sit far above the bulk rows (grey), which is why uniform sampling misses them.", "name": "fig-arsi-weights"}} tags=["hide-input"]
fig, ax = lib.subplots()
unit = dim / n_rows
for mask, color, label in (
    (~rare, "0.6", "bulk rows"),
    (rare, lib.PALETTE[4], "rare high-leverage rows"),
):
    ax.scatter(
        leverage[mask] / unit,
        lewis[1][mask] / unit,
        s=4 if label == "bulk rows" else 12,
        color=color,
        alpha=0.5 if label == "bulk rows" else 0.9,
        label=label,
        rasterized=True,
    )
ax.axhline(1, color="0.4", ls=":", lw=1, label="uniform weight d/n")
ax.axvline(1, color="0.4", ls=":", lw=1)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("leverage score / (d/n)")
ax.set_ylabel("$\\ell_1$ Lewis weight / (d/n)")
ax.legend(loc="upper left")
lib.show(fig)

# %% [markdown]
# $\mathrm{OPT}$ from all $n$ rows, then sample-then-solve for each $p$, sampler and budget, with
# `n_trials` independent samples each.

# %%
SAMPLERS = {
    "uniform": lambda p: np.full(n_rows, 1.0 / n_rows),
    "Lewis": lambda p: lewis[p] / dim,
}
starts = {}  # objective reached from each start of the full-data solver
for p in p_values:
    x_opt[p], g, starts["realisable", p] = solve_full(A, b, p, opt_starts)
    opt[p] = g ** (1 / p)
    reg_share = reg * (np.abs(A @ x_opt[p]) ** p).sum() / g
    print(f"p = {p}: regulariser at optimum, lam ||Ax||_p^p / OPT^p = {reg_share:.1e}")
runs = {}
for p in lib.progress(p_values, enabled=progress, desc="p"):
    for name, q_of in SAMPLERS.items():
        for m in queries:
            runs[p, name, m] = sample_then_solve(A, b, p, q_of(p), m, n_trials, opt[p])
print(f"main experiment: {time.perf_counter() - clock:.1f} s wall-clock")


# %% [markdown]
# The table gives the median of ratio − 1 over the trials at each budget, with the mean number of
# entries read. Lewis-weight sampling with probabilities capped at 1 reads fewer than $m$ entries
# at the larger budgets.

# %%
def summarise(p, name):
    queries_read = np.array([runs[p, name, m][1].mean() for m in queries])
    excess = np.array([runs[p, name, m][0] for m in queries]) - 1  # [budget, trial]
    return queries_read, excess


def queries_needed(queries_read, median_excess, eps):
    """Queries at which the median excess first reaches eps (log-log interpolation)."""
    below = np.flatnonzero(median_excess <= eps)
    if below.size == 0:
        return np.nan
    j = below[0]
    if j == 0:
        return queries_read[0]
    t = np.log(median_excess[j - 1] / eps) / np.log(
        median_excess[j - 1] / median_excess[j]
    )
    return float(queries_read[j - 1] * (queries_read[j] / queries_read[j - 1]) ** t)


def two_digits(v):
    """An integer rounded to two significant digits, for printing."""
    return f"{float(f'{v:.2g}'):.0f}"


boot_rng = np.random.default_rng([seed, 1])  # the bootstrap's own stream


def boot_medians(excess):
    """Medians over the trials, [resample, budget], trials resampled per budget."""
    trials = excess.shape[-1]
    pick = boot_rng.integers(0, trials, (n_boot,) + excess.shape)
    return np.median(np.take_along_axis(excess[None], pick, axis=-1), axis=-1)


def rate(read, excess):
    """Slope of log median(ratio - 1) vs log queries over the larger half of the
    budgets, with its bootstrap standard error (nan where a median is <= 0)."""
    half = slice(len(read) // 2, None)
    x = np.log(read[half])
    med = np.median(excess[half], axis=1)
    meds = boot_medians(excess[half])
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.polyfit(x, np.log(med), 1)[0] if np.all(med > 0) else np.nan
        ok = np.all(meds > 0, axis=1)
        boots = np.polyfit(x, np.log(meds[ok]).T, 1)[0] if ok.any() else [np.nan]
    return slope, np.std(boots, ddof=1) if ok.mean() > 0.9 else np.nan


def describe(name, read, excess):
    """Print one sampler's row; return queries needed, their bootstrap, the rate."""
    med = np.median(excess, axis=1)
    need = queries_needed(read, med, epsilon)
    need_boot = np.array(
        [queries_needed(read, e, epsilon) for e in boot_medians(excess)]
    )
    slope, slope_se = rate(read, excess)
    cells = "  ".join(f"{e:.1e} [{r:4.0f}]" for e, r in zip(med, read))
    need_txt = two_digits(need) if np.isfinite(need) else f"> {read[-1]:.0f}"
    print(
        f"  {name:>10}: {cells}\n{'':14}queries for ratio <= 1 + {epsilon}: "
        f"{need_txt}; slope over m >= {read[len(read) // 2]:.0f}: "
        f"{slope:.1f} ± {slope_se:.1f}"
    )
    return dict(
        read=read,
        excess=excess,
        need=need,
        need_boot=need_boot,
        slope=slope,
        slope_se=slope_se,
    )


table = {}
for p in p_values:
    print(f"p = {p}, OPT = {opt[p]:.4g}; median ratio - 1 [mean queries read]")
    for name in SAMPLERS:
        table[p, name] = describe(name, *summarise(p, name))
    print(f"  the bound's scale d / eps^2 = {dim / epsilon**2:.0f} queries")


def reached(need, top):
    """Queries needed, or the largest budget read where the target was not reached."""
    return np.where(np.isfinite(need), need, top)


gain = {}
for p in p_values:
    lew, uni = table[p, "Lewis"], table[p, "uniform"]
    lew_top, uni_top = lew["read"][-1], uni["read"][-1]
    frac = reached(lew["need"], lew_top) / reached(uni["need"], uni_top)
    boot = reached(lew["need_boot"], lew_top) / reached(uni["need_boot"], uni_top)
    se = np.std(np.log(boot), ddof=1)
    lew_ok, uni_ok = np.isfinite(lew["need"]), np.isfinite(uni["need"])
    # a sampler that misses the target is credited with its largest budget
    bound = {(True, False): "< ", (False, True): "> "}.get((lew_ok, uni_ok), "")
    if not (lew_ok or uni_ok):
        frac = np.nan  # neither reaches the target: no comparison
    gain[p] = dict(frac=float(frac), se=se, bound=bound, reached=lew_ok)
    print(
        f"p = {p}: Lewis / uniform queries needed {bound}{frac:.2f}, "
        f"bootstrap s.e. of its log {se:.2f}"
    )

# %% mystnb={"figure": {"caption": "Approximation ratio minus 1 against the number of entries of b read, for uniform and Lewis-weight sampling (median over the trials; band: 25th to 75th percentile), one panel per p. Dashed: the target epsilon. Thin black lines: the slopes m^(-1/2) of the worst-case bound and m^(-1) of the typical-instance heuristic. Uniform sampling stalls until it sees the rare rows; Lewis sampling falls like 1/m from the start.", "name": "fig-arsi-ratio"}} tags=["hide-input"]
fig, axes = lib.subplots(1, len(p_values), width=5.0 * len(p_values), sharey=True)
axes = np.atleast_1d(axes)
for ax, p in zip(axes, p_values):
    for c, name in enumerate(SAMPLERS):
        row = table[p, name]
        lo, med, hi = np.percentile(row["excess"], [25, 50, 75], axis=1)
        ax.plot(row["read"], med, marker="o", color=lib.PALETTE[c], label=name)
        ax.fill_between(row["read"], lo, hi, color=lib.PALETTE[c], alpha=0.2)
    ax.axhline(epsilon, color="0.3", ls="--", lw=1, label=f"ε = {epsilon}")
    ref = table[p, "Lewis"]
    x0, y0 = ref["read"][0], np.median(ref["excess"][0])
    grid = np.array([ref["read"][0], ref["read"][-1]])
    ax.plot(grid, y0 * (grid / x0) ** -0.5, "k-", lw=0.8, label="$\\propto m^{-1/2}$")
    ax.plot(grid, y0 * (grid / x0) ** -1.0, "k-.", lw=0.8, label="$\\propto m^{-1}$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("entries of b read (queries)")
    ax.set_title(f"p = {p}, d = {dim}")
axes[0].set_ylabel("ratio − 1  (‖f(Ax̂) − b‖ₚ / OPT − 1)")
axes[-1].legend(loc="upper right")
lib.show(fig)

# %% [markdown]
# {numref}`fig-arsi-ratio` shows the two regimes. At small budgets the error is dominated by the
# bulk, and the two samplers are close (for $p = 1$ especially). Beyond that, uniform sampling
# keeps missing the rare rows: its estimate of the rare coordinates comes from one or two rows, or
# none, and the rows it misses carry a large part of
# $\lVert A(\hat x - x_{\mathrm{opt}})\rVert_p$. Lewis-weight sampling spends the share of its
# budget printed above on the rare rows, and its ratio falls steadily. Over the larger budgets
# its fitted slopes in the table are close to $-1$, not $-1/2$: {prf:ref}`arsi-prop-typical`'s
# typical rate, not the worst case. The table also prints the bound's scale $d/\varepsilon^2$
# beside the queries needed.
#
# ### An agnostic instance: why the weights $1/\pi_i$
#
# On the instance above $b$ is realisable up to noise, $b = f(Ax^\star) + \xi$ with $\xi$
# independent of $A$, so every row's residual at $x^\star$ has the same law and *any* weighting of
# the rows has the same minimiser in the limit. Such an instance cannot tell whether the sampled
# objective needs to be unbiased. The theorem is for every $b$, so we add a model error that the
# single-index model cannot fit and that grows with the size of the row:
#
# $$
# b^{\mathrm{agn}} = b + \kappa\, a_{i1} |a_{i1}| , \qquad \kappa = \texttt{misfit} .
# $$ (eq-arsi-agnostic)
#
# Lewis-weight sampling reads large rows more often. With the weights $1/\pi_i$ the sampled
# objective is still an unbiased estimate of $\lVert f(Ax) - b\rVert_p^p$. Without them it
# estimates $\sum_i \pi_i |r_i(x)|^p$. While no $\pi_i$ is capped at 1, that is $m/d$ times the
# Lewis-weighted objective $\sum_i w_i |r_i(x)|^p$, whose minimiser fits the large rows' model
# error at the cost of the others and does not depend on $m$: more queries only estimate the
# wrong minimiser more precisely. The cap $\pi_i = \min(1, m w_i/d)$ pulls the unweighted
# objective back towards the full one as more rows reach $\pi_i = 1$, so the bias shrinks only
# once the budget is a sizeable fraction of $n$ (the share of capped rows at the largest budget
# is printed below). We run the paper's sampler and this unweighted one on
# {eq}`eq-arsi-agnostic` with the same $A$, with `agnostic_trials` samples per budget, and
# $\mathrm{OPT}$ from the same multi-start solver.

# %%
clock = time.perf_counter()
b_agn = b + misfit * A[:, 0] * np.abs(A[:, 0])
opt_agn, agnostic = {}, {}
for p in p_values:
    _, g, starts["agnostic", p] = solve_full(A, b_agn, p, opt_starts)
    opt_agn[p] = g ** (1 / p)
    print(f"p = {p}, OPT = {opt_agn[p]:.4g}; median ratio - 1 [mean queries read]")
    q = lewis[p] / dim
    for name, weighted in (("weighted", True), ("unweighted", False)):
        ratio, read = [], []
        for m in queries:
            r, size = sample_then_solve(
                A, b_agn, p, q, m, agnostic_trials, opt_agn[p], weighted=weighted
            )
            ratio.append(r)
            read.append(size.mean())
        excess = np.array(ratio) - 1
        agnostic[p, name] = describe(name, np.array(read), excess)
weight_gain = {}  # log(unweighted / weighted median ratio - 1) at the largest budget
for p in p_values:
    last_w = agnostic[p, "weighted"]["excess"][-1]
    last_u = agnostic[p, "unweighted"]["excess"][-1]
    gap = np.log(np.median(last_u) / np.median(last_w))
    with np.errstate(invalid="ignore", divide="ignore"):
        boots = np.log(boot_medians(last_u[None]) / boot_medians(last_w[None]))
    weight_gain[p] = dict(gap=gap, se=np.nanstd(boots, ddof=1))
    capped = np.mean(queries[-1] * lewis[p] / dim >= 1)
    print(
        f"p = {p}, m = {queries[-1]}: unweighted / weighted median ratio - 1 = "
        f"{np.exp(gap):.0f} (log {gap:.2f} ± {weight_gain[p]['se']:.2f}); "
        f"{capped:.1%} of the rows have pi = 1"
    )
print(f"agnostic instance: {time.perf_counter() - clock:.1f} s wall-clock")

# %% mystnb={"figure": {"caption": "The agnostic instance (eq-arsi-agnostic): ratio minus 1 against the number of entries of b read, for Lewis-weight sampling with the importance weights 1/pi and without them (median over the trials; band: 25th to 75th percentile), one panel per p. Dashed: the target epsilon. Without the weights the ratio stays higher: the unweighted sample estimates another objective, with another minimiser.", "name": "fig-arsi-agnostic"}} tags=["hide-input"]
fig, axes = lib.subplots(1, len(p_values), width=5.0 * len(p_values), sharey=True)
axes = np.atleast_1d(axes)
for ax, p in zip(axes, p_values):
    for c, name in ((1, "weighted"), (2, "unweighted")):
        row = agnostic[p, name]
        lo, med, hi = np.percentile(row["excess"], [25, 50, 75], axis=1)
        label = f"Lewis, {name}" + (" (1/π)" if name == "weighted" else " (1)")
        ax.plot(row["read"], med, marker="o", color=lib.PALETTE[c], label=label)
        ax.fill_between(row["read"], lo, hi, color=lib.PALETTE[c], alpha=0.2)
    ax.axhline(epsilon, color="0.3", ls="--", lw=1, label=f"ε = {epsilon}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("entries of b read (queries)")
    ax.set_title(f"agnostic b, p = {p}, d = {dim}")
axes[0].set_ylabel("ratio − 1")
axes[-1].legend(loc="lower left")
lib.show(fig)

# %% [markdown]
# {numref}`fig-arsi-agnostic` shows the difference. With the weights $1/\pi_i$ the ratio falls as
# on the realisable instance; without them it levels off higher, by the factors printed above at
# the largest budget. The gap is widest for $p = 2$, where the squared model error
# of the largest rows dominates the unweighted objective. The importance weights are what makes
# the sampled minimiser consistent.
#
# ### The dimension
#
# The dimension scan asks how the budget for a fixed ratio grows with $d$. For each $d$ in `dims`
# we draw a fresh instance of the same kind (with $\lfloor d/5 \rfloor$ rare coordinates), run
# Lewis-weight sampling at budgets $m = c\,d$ for $c$ in `scan_factors`, and interpolate the
# queries at which the median ratio reaches $1 + \varepsilon$.

# %%
clock = time.perf_counter()
scan = {}
for p in p_values:
    need_d, need_boot = [], []
    for d in lib.progress(dims, enabled=progress, desc=f"dimension scan, p = {p}"):
        A_d, b_d, _ = make_instance(n_rows, d)
        w_d = lewis_weights(A_d, p)[0]
        opt_d = solve_full(A_d, b_d, p, 2)[1] ** (1 / p)
        read, excess = [], []
        for c in scan_factors:
            ratio, size = sample_then_solve(
                A_d, b_d, p, w_d / d, c * d, scan_trials, opt_d
            )
            read.append(size.mean())
            excess.append(ratio - 1)
        read, excess = np.array(read), np.array(excess)
        need_d.append(queries_needed(read, np.median(excess, axis=1), epsilon))
        need_boot.append(
            [queries_needed(read, e, epsilon) for e in boot_medians(excess)]
        )
    need_d, need_boot = np.array(need_d), np.array(need_boot).T  # [resample, d]
    ok = np.isfinite(need_d).all()
    gamma = np.polyfit(np.log(dims), np.log(need_d), 1)[0] if ok else np.nan
    full = np.isfinite(need_boot).all(axis=1)
    gamma_se = np.nan
    if ok and full.mean() > 0.9:
        gammas = np.polyfit(np.log(dims), np.log(need_boot[full]).T, 1)[0]
        gamma_se = np.std(gammas, ddof=1)
    scan[p] = dict(need=need_d, gamma=gamma, se=gamma_se)
    cells = ", ".join(
        f"d = {d}: {two_digits(m)}" if np.isfinite(m) else f"d = {d}: not reached"
        for d, m in zip(dims, need_d)
    )
    print(f"p = {p}: queries for ratio <= 1 + {epsilon}: {cells}")
    print(
        f"        fitted exponent of d: {gamma:.2f} ± {gamma_se:.2f} (bootstrap s.e.;"
        f" the bound's: {max(p / 2, 1):g})"
    )
bound_scale = ", ".join(f"{d / epsilon**2:.0f}" for d in dims)
print(f"the bound's scale d / eps^2 on this grid: {bound_scale}")
dlogd = np.polyfit(np.log(dims), np.log(dims * np.log(dims)), 1)[0]
print(f"a d log d law has local exponent {dlogd:.2f} on this grid of d")
print(f"dimension scan: {time.perf_counter() - clock:.1f} s wall-clock")

# %% mystnb={"figure": {"caption": "Queries needed for median ratio at most 1 + epsilon with Lewis-weight sampling, against the dimension d (log scales), one marker per p. Dotted: linear growth d (the bound's exponent for p <= 2, and the typical-instance heuristic's for every p), drawn through the smallest d; when p = 3 is run (the paper preset), dashed: d^(3/2), the bound's exponent for p = 3.", "name": "fig-arsi-dimension"}} tags=["hide-input"]
fig, ax = lib.subplots()
dd = np.array(dims, float)
for p, marker in zip(p_values, "os^"):
    need = scan[p]["need"]
    ax.plot(
        dd,
        need,
        marker=marker,
        color=lib.PALETTE[1],  # Lewis sampling's colour, one marker per p
        label=f"p = {p} (fitted exponent {scan[p]['gamma']:.2f})",
    )
    start = need[0] if np.isfinite(need[0]) else np.nan
    ax.plot(dd, start * dd / dd[0], ":", color="0.3", lw=1)
    if p > 2:
        ax.plot(dd, start * (dd / dd[0]) ** 1.5, "--", color="0.3", lw=1)
ax.plot([], [], "k:", lw=1, label="$\\propto d$")
if max(p_values) > 2:
    ax.plot([], [], "k--", lw=1, label="$\\propto d^{3/2}$")
ax.set_xscale("log")
if any(np.isfinite(scan[p]["need"]).any() for p in p_values):
    ax.set_yscale("log")  # (a control can leave every target unreached)
ax.set_xticks(dims, [str(d) for d in dims], minor=False)
ax.set_xticks([], minor=True)
ax.set_xlabel("dimension d")
ax.set_ylabel(f"queries for median ratio ≤ 1 + {epsilon}")
ax.legend()
lib.show(fig)

# %% [markdown]
# The needed budget grows close to linearly in $d$ ({numref}`fig-arsi-dimension`), as
# {eq}`eq-arsi-bound` predicts for $p \le 2$ up to its logarithmic factors, and as
# {eq}`eq-arsi-typical` predicts on a typical instance.
#
# Checks on the machinery. The full problem is not convex: the leaky ReLU's kink makes
# $|f(t) - b_i|$ concave at $t = 0$ for $b_i > 0$, and a model error could give the full-data
# problem more than one local minimum, in which IRLS from a single start may stop. So
# $\mathrm{OPT}$ is checked three ways. The solver starts from the least-squares fit of
# $f^{-1}(b)$ and from `opt_starts` − 1 random points, and we count how many starts reach the
# best value, within a relative `opt_tol` $= \varepsilon/100$ of $\mathrm{OPT}^p$. The
# check only has to resolve $\mathrm{OPT}$ far below the target it serves: an error of
# `opt_tol` in $\mathrm{OPT}^p$ moves every ratio by two orders of magnitude less than
# $\varepsilon$. It is not a test of IRLS's last digits: for $p = 1$, IRLS started at different
# points ends slightly apart on the flat $\ell_1$ objective (the worst start's distance is
# printed). No sampled
# solution, each a further start from another point, may beat $\mathrm{OPT}$. And the solver on
# a sample should have converged: we re-solve one batch of 32 samples at the smallest and the
# largest budget with four times the iteration cap and compare the ratios.

# %%
opt_tol = epsilon / 100  # resolve OPT two orders of magnitude below the target


def spread_text(v):
    return f"< {opt_tol:.0e}" if v < opt_tol else f"{v:.0e}"


agree = {key: int(np.sum(G / G.min() - 1 <= opt_tol)) for key, G in starts.items()}
spread = {key: G.max() / G.min() - 1 for key, G in starts.items()}
for key in starts:
    print(
        f"{key[0]:>10}, p = {key[1]}: {agree[key]} of {opt_starts} starts reach OPT; "
        f"worst start ends {spread_text(spread[key])} above it (relative, in OPT^p)"
    )
sampled = [runs[key][0] for key in runs]
sampled += [agnostic[key]["excess"] + 1 for key in agnostic]
min_excess = min(r.min() - 1 for r in sampled)
state = rng.bit_generator.state
drift_median, drift_trial = 0.0, 0.0
for p in p_values:
    for m in (queries[0], queries[-1]):
        rng.bit_generator.state = state
        short = sample_then_solve(A, b, p, lewis[p] / dim, m, 32, opt[p])[0] - 1
        rng.bit_generator.state = state
        long = sample_then_solve(A, b, p, lewis[p] / dim, m, 32, opt[p], 4 * irls_iters)
        long = long[0] - 1
        drift_median = max(drift_median, abs(np.median(short) / np.median(long) - 1))
        drift_trial = max(drift_trial, np.max(np.abs(short / long - 1)))
n_sampled = sum(r.size for r in sampled)
print(f"smallest ratio - 1 of all {n_sampled} sampled solutions: {min_excess:.1e}")
bucket = 10.0 ** np.ceil(np.log10(max(drift_trial, 1e-12)))
drift_text = "< 1e-06" if drift_median < 1e-6 else f"{drift_median:.0e}"
print(
    f"solver, 4x the iterations: median ratio - 1 moves by {drift_text} "
    f"(relative), single trials by less than {bucket:.0e}"
)

# %% [markdown]
# IRLS for $p = 1$ converges slowly at the largest budgets: a single trial there can still move
# by the fraction of its ratio − 1 printed above (its sampled objective is then within a tiny
# relative gap of the minimum, but the $\ell_1$ objective is flat near its minimiser), while the
# medians that every claim below uses are converged.

# %% tags=["remove-cell"]
from myst_nb import glue


def whole(x):
    """x rounded to a whole number, away from the CPU's last digits (nan stays nan)."""
    return round(float(x)) if np.isfinite(x) else float(x)


glue("arsi_dlogd", round(float(dlogd), 2), display=False)
glue("arsi_bound_scale", int(round(dim / epsilon**2)), display=False)
glue("arsi_rare_lev", int(round(rare_lev)), display=False)
for p in [p for p in p_values if p <= 2]:
    need = table[p, "Lewis"]["need"]  # nan if never reached (only under a control)
    glue(f"arsi_need_p{p}", int(round(need)) if need > 0 else need, display=False)
    glue(f"arsi_frac_p{p}", round(float(gain[p]["frac"]), 2), display=False)
    gap15 = (1.5 - scan[p]["gamma"]) / scan[p]["se"]
    glue(f"arsi_gap15_p{p}", whole(gap15), display=False)
    glue(f"arsi_gamma_p{p}", round(float(scan[p]["gamma"]), 2), display=False)
    glue(f"arsi_slope_p{p}", round(float(table[p, "Lewis"]["slope"]), 2), display=False)
    glue(f"arsi_wgain_p{p}", whole(np.exp(weight_gain[p]["gap"])), display=False)
    for name in ("weighted", "unweighted"):
        last = np.median(agnostic[p, name]["excess"][-1])
        glue(f"arsi_agn_{name}_p{p}", round(float(last), 3), display=False)
if 1 in p_values:  # the exponent p/2 without the max: its band's upper edge at p = 1
    half_edge = 0.5 + (dlogd - 1) + 3 * scan[1]["se"]
    glue("arsi_half_edge", round(float(half_edge), 2), display=False)

# %% [markdown]
# ## What we reproduced
#
# The claims below compare medians over the trials (the theorem's guarantee holds with constant
# probability, so the median is the natural statistic), taken before any threshold.
#
# Every tolerance is a bootstrap standard error from this run: the trials at each budget are
# resampled (`n_boot` times), and the queries needed, the slopes, the exponents and the
# weighted-to-unweighted quotients are computed again on each resample.
#
# * **Lewis vs uniform.** The queries Lewis-weight sampling needs for median ratio
#   $1 + \varepsilon$, as a fraction of those uniform sampling needs. A sampler blind to the
#   geometry of $A$ gives a fraction near 1 or above; we ask it to lie below 1 by three standard
#   errors of its logarithm. A sampler that does not reach the target within the largest budget
#   is credited with the largest budget it read, so the fraction is then a bound: an upper bound
#   if uniform sampling misses, a lower bound (and the check fails) if Lewis sampling does.
#   These two claims credit the geometry of $A$, not the $\ell_p$ Lewis weights in particular.
#   Squared row norms fail them here because one feature is in other units; with
#   `unit_scale = 1` the rare rows are long as well as high-leverage, and row-norm sampling comes
#   much closer to Lewis sampling (Try it).
# * **The agnostic instance.** Three checks per $p$. Lewis-weight sampling with the weights
#   $1/\pi_i$ reaches the target within the largest budget. The weights matter: at the largest
#   budget the unweighted sampler's median ratio − 1 is larger, by three standard errors of the
#   logarithm of the quotient. And ratio − 1 falls at least like the bound's $\sqrt{d/m}$ over
#   the larger half of the budgets: the fitted slope plus three standard errors is at most
#   $-1/2$. The first and third test the reweighted solve, not the Lewis weights: uniform
#   sampling with weights $1/\pi_i$ also passes them on this instance. The second shows that
#   dropping the correction costs accuracy, not that $1/\pi_i$ is the only correction that
#   helps: the half correction $1/\sqrt{\pi_i}$ (control `sqrt-importance-weights`) passes it
#   and is caught by the other two. That is a bound checked as a bound; a solver that does not solve the sampled problem
#   fails it, but so would nothing that converges at least as fast, which on the realisable
#   instance includes uniform sampling (its slope is in the table above).
# * **Dimension.** The theorem bounds the queries from above, so this check is one-sided: with
#   $e = \max(p/2, 1)$ the bound's exponent of $d$, the fitted exponent may not exceed
#   $e + l + 3\,\mathrm{s.e.}$, where $l$ is the local exponent of one logarithmic factor on this
#   grid (a $d \log d$ law has exponent {glue:}`arsi_dlogd`, so $l = $ {glue:}`arsi_dlogd`
#   $- 1$). A bound that ignores $d$ fails it. Beyond that the check has little power: at
#   $d \le 40$ a half power of $d$ is worth about one log factor. Growth like $d^{3/2}$ would pass
#   it on some seeds (at seed 0, $3/2$ lies {glue:}`arsi_gap15_p1` ($p = 1$) and
#   {glue:}`arsi_gap15_p2` ($p = 2$) standard errors above the fitted exponents), and a bound
#   with the exponent $p/2$, too optimistic for $p = 1$, is refuted only where the fitted
#   exponent exceeds its upper edge, {glue:}`arsi_half_edge` at seed 0 against a fitted
#   {glue:}`arsi_gamma_p1`. A wider scan in $d$ would be needed to pin the exponent.
# * **The bound's scale.** The measured budgets are far below the bound's $d/\varepsilon^2$
#   (printed beside them above): at $d = 10$, {glue:}`arsi_need_p2` queries for $p = 2$ against
#   $d/\varepsilon^2 =$ {glue:}`arsi_bound_scale`. The theorem fixes the rate, not the constant,
#   and its $1/\varepsilon^2$ is a worst case.

# %%
claims = lib.Claims(
    "active-regression-single-index", paper="li2025active", control=control
)
lewis_gap = max(fp_gap, lev_gap)
claims.add(
    "Lewis weights: at p = 1 they satisfy the fixed point (eq-arsi-lewis), at p = 2 "
    "they equal the leverage scores (max relative error < 1e-9 in both)",
    bound_text(lewis_gap),
    "(implementation check)",
    lewis_gap < 1e-9,
)
claims.add(
    "Solver: on both instances at least 2 starts reach OPT, no sampled solution beats "
    "it, and 4x the iterations moves the median ratio - 1 by < 1% (fewest starts)",
    min(agree.values()),
    "(implementation check; theory assumes exact minimisers)",
    min(agree.values()) >= 2 and min_excess >= -1e-9 and drift_median < 1e-2,
    fmt="{:d}",
)
low = [p for p in p_values if p <= 2]
for p in low:
    frac, se = gain[p]["frac"], gain[p]["se"]
    claims.add(
        f"p = {p}: Lewis sampling reaches median ratio <= 1 + {epsilon} with fewer "
        "queries than uniform sampling (Lewis / uniform, below 1 by 3 bootstrap s.e.)",
        f"{gain[p]['bound']}{frac:.2f} ± {frac * se:.2f}",
        "(no comparison in the paper; Lewis-weight sampling is its algorithm)",
        bool(gain[p]["reached"] and frac * np.exp(3 * se) < 1),
        value=frac,
    )
for p in low:
    weighted = agnostic[p, "weighted"]
    claims.add(
        f"agnostic b, p = {p}: Lewis sampling with weights 1/pi reaches median ratio "
        f"<= 1 + {epsilon} within the largest budget",
        weighted["need"],
        "(1 + eps)-approximation for every b, up to an additive eps L^p ||Ax*||_p^p",
        bool(np.isfinite(weighted["need"])),
        fmt="{:.0f} queries",
        value=weighted["need"],
    )
    gap, gap_se = weight_gain[p]["gap"], weight_gain[p]["se"]
    claims.add(
        f"agnostic b, p = {p}: the weights 1/pi matter: at the largest budget the "
        "unweighted sampler's median ratio - 1 is larger (log quotient > 3 "
        "bootstrap s.e.)",
        f"{np.exp(gap):.0f}x (log {gap:.2f} ± {gap_se:.2f})",
        "sample reweighted by 1/pi, an unbiased objective (part of the algorithm)",
        bool(gap - 3 * gap_se > 0),
        value=np.exp(gap),
    )
    slope, slope_se = weighted["slope"], weighted["slope_se"]
    claims.add(
        f"agnostic b, p = {p}: ratio - 1 falls at least like the bound's m^(-1/2) "
        "over the larger budgets (fitted slope + 3 bootstrap s.e. <= -0.5)",
        f"{slope:.1f} ± {slope_se:.1f}",
        "eps ~ sqrt(d / m) for p <= 2 (upper bound)",
        bool(slope + 3 * slope_se <= -0.5),
        value=slope,
    )
for p in low:
    gamma, se = scan[p]["gamma"], scan[p]["se"]
    e = 0.0 if control == "d-free-theory" else max(p / 2, 1)  # the theory's exponent
    claims.add(
        f"p = {p}: queries for a fixed ratio grow no faster than the bound's "
        "d^max(p/2, 1) up to a log factor (fitted exponent of d <= e + l + 3 s.e., "
        "e = max(p/2, 1), l = local exponent of log d)",
        f"{gamma:.2f} ± {se:.2f}",
        "O~(d^max(p/2, 1)) queries (upper bound)",
        bool(gamma <= e + (dlogd - 1) + 3 * se),
        value=gamma,
    )
claims.report()

# %% [markdown]
# Every claim is also run under **controls**: named, deliberately wrong variants of this
# chapter, declared in `controls.yaml`, each taking away the idea a claim tests. Uniform weights,
# or squared row norms, in place of the Lewis weights take away the geometry of $A$ (row norms
# keep the scale of the rows and lose the geometry, which the rescaled feature exposes); dropping
# the importance weights, or keeping only half their correction ($1/\sqrt{\pi_i}$), makes the
# sampled objective biased; fitting $f^{-1}(b)$ by least squares instead of solving
# {eq}`eq-arsi-sampled` leaves the sampled problem unsolved; a full-data solver stopped after two
# steps gives a wrong $\mathrm{OPT}$; a bound without $d$ claims too few queries. The table shows,
# for each claim, the controls under which its check comes out the other way (default
# parameters, seed 0). Run one with
# `make run CHAPTER=active-regression-single-index CONTROL=no-importance-weights`: the claims
# cell then names the control and fails if a claim it must flip still holds.
#
# ```{controls-table}
# ```

# %% [markdown]
# ## How this compares with the paper
#
# | | paper {cite:p}`li2025active` | this chapter |
# |---|---|---|
# | Algorithm | Lewis-weight sample-then-solve, regulariser $\varepsilon\lVert Ax\rVert_p^p$, domain shrinking and two stages in the analysis | one-stage Lewis-weight sampling, regulariser $\lambda = 10^{-3}$ on the sample, IRLS solver (a local method; $\mathrm{OPT}$ from several starts) |
# | Guarantee | $(1+\varepsilon)$, with constant probability, for every $b$ | pure ratio, median over the trials, on a realisable and an agnostic instance |
# | Queries, $p \le 2$ | $\tilde O(d/\varepsilon^2)$ (upper bound) | reached $1 + \varepsilon$ with far fewer than $d/\varepsilon^2$; ratio − 1 falls at least like $m^{-1/2}$ (claims 7, 10), on these instances close to $1/m$ |
# | Lower bound, $p \le 2$ | $\Omega(d/\varepsilon^2)$ on hard instances, one per $\varepsilon$ | not tested: a fixed random instance is not a hard one |
# | Importance weights $1/\pi_i$ | part of the algorithm (an unbiased sampled objective) | needed: without them the ratio stays higher on the agnostic instance (claims 6, 9; {numref}`fig-arsi-agnostic`) |
# | Dependence on $d$ | $d^{\max(p/2,1)}$ up to log factors (upper bound) | exponent of $d$ near 1 for $p \in \{1, 2\}$, within the bound's $d \log d$ (claims 11, 12); $d$, $d^{3/2}$ and $d^{1/2}$ times a log factor not separated on every seed at $d \le 40$ |
# | Uniform and row-norm sampling | not analysed (the need for Lewis weights is implicit) | uniform sampling needs several times more queries when a few rows carry directions alone (claims 3, 4); squared row norms do no better once one feature is in other units (the `row-norm-weights` control) |
# | $p = 3$ (`paper` preset) | $\tilde O(d^{3/2}/\varepsilon^3)$; $1/\varepsilon^p$ optimal | printed and plotted, not asserted |
# | Scale | theory only, no experiments | $n = 20\,000$, $d = 10$, $p \in \{1, 2\}$, 100 trials per budget (agnostic: `agnostic_trials`); scan $d \le 40$ |
#
# Lewis-weight sample-then-solve finds a $(1+\varepsilon)$ solution of a non-convex single-index
# problem from a small fraction of the labels, on a realisable and on an agnostic $b$. It needs
# fewer labels than uniform sampling when a few rows carry directions of $x$ alone: at seed 0 a
# fraction {glue:}`arsi_frac_p1` of them for $p = 1$ and {glue:}`arsi_frac_p2` for $p = 2$, and
# over seeds 0–9 {seeds}`3` and {seeds}`4`. Its importance weights matter once $b$ is not
# realisable: at the largest budget the weighted sampler's median ratio − 1 is
# {glue:}`arsi_agn_weighted_p1` ($p = 1$) and {glue:}`arsi_agn_weighted_p2` ($p = 2$), the
# unweighted one's {glue:}`arsi_agn_unweighted_p1` and {glue:}`arsi_agn_unweighted_p2`. The budget
# grows close to linearly in $d$ (over seeds 0–9 the fitted exponent is {seeds}`11` for $p = 1$
# and {seeds}`12` for $p = 2$). Without the importance weights, the median ratio − 1 at the
# largest budget is larger by a factor {glue:}`arsi_wgain_p1` ($p = 1$) and
# {glue:}`arsi_wgain_p2` ($p = 2$) at seed 0; over seeds 0–9, {seeds}`6` and {seeds}`9`.
#
# On these instances the ratio − 1 falls like $1/m$ rather than the bound's $\sqrt{d/m}$: on the
# realisable instance the Lewis sampler's fitted slope over the larger budgets is
# {glue:}`arsi_slope_p1` for $p = 1$ and {glue:}`arsi_slope_p2` for $p = 2$. This does not
# contradict the bound, which is an upper bound; {prf:ref}`arsi-prop-typical` explains it (the
# excess cost is quadratic in the estimation error, which gives the $d/\varepsilon$ of linear
# least squares {cite:p}`chen2019active`). The paper's $1/\varepsilon^2$ is necessary only on
# instances built for each $\varepsilon$, which we do not construct.
#
# For $p = 3$ the `paper` preset prints the same table and fitted slopes; we do not assert them.
# One reason to expect a slower decay there: the few rows with gross outliers have cubed
# residuals that dominate the $\ell_3$ objective, and Lewis weights, a function of $A$ alone,
# sample them no more often than any other row. Large residuals that only queries can reveal are
# the kind of difficulty behind the $1/\varepsilon^p$ lower bound for $p > 2$; we have not
# isolated this further. The paper preset runs in {paper-preset}`runtime` on two CPU cores; there the
# Lewis / uniform fractions are {paper-preset}`3` and {paper-preset}`4`.
#
# We did not implement the two-stage sampling or an explicit domain constraint, and our solver is
# a local method on a non-convex problem: the solver check shows that its starts agree on
# $\mathrm{OPT}$ and that no sampled solution beats it, but it is not a certificate of global
# optimality on every sample.
#
# ## Try it
#
# * `-p rare_frac=0.05`: the "rare" rows become common. Does uniform sampling still need more
#   queries than Lewis sampling in {numref}`fig-arsi-ratio`, and how much of the gap do the
#   heavy-tailed bulk rows explain?
# * `-p control=row-norm-weights` with `-p unit_scale=1.0`: with every feature in the same units,
#   how close do squared row norms come to the Lewis weights?
# * `-p misfit=0.0` makes the agnostic instance realisable. By the argument above the weighted
#   and unweighted samplers in {numref}`fig-arsi-agnostic` should then approach the same
#   minimiser; check whether they do.
# * `-p "p_values=[1, 2, 3]"` (what the `paper` preset runs) adds $p = 3$; compare its fitted
#   slope with those for $p \le 2$, and rerun with `-p reg=0.0` to see whether the regulariser
#   changes it.
