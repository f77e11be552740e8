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
# Lewis-weight sampling, and the queries needed for a fixed ratio as the dimension grows. The
# defaults ($n = 20\,000$ rows, $d = 10$, $p \in \{1, 2\}$, 100 trials per budget, a dimension scan
# up to $d = 40$) run in well under a minute on one CPU core;
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
# $p \in [1, 2]$. We test three things: (i) do Lewis weights beat uniform sampling on a design
# where a few rows matter; (ii) how does the ratio approach 1 as the number of queries $m$ grows;
# (iii) how does the number of queries for a fixed ratio grow with $d$.
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
# enough to find a distribution over $b$ that fools every deterministic query strategy. One
# construction of this kind, as for linear $\ell_1$ regression {cite:p}`parulekar2021l1`: with
# $d$ blocks of rows whose labels are biased by $\pm\varepsilon$, deciding the signs from
# $o(d/\varepsilon^2)$ queries fails on a constant fraction of the blocks, and each wrong block
# costs a factor $1 + \Omega(\varepsilon)$.
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
#   backtracking line search (below); $\mathrm{OPT}$ is the same solver on all $n$ rows, and we check
#   that no sampled solution beats it.
# * **Instance.** The link is the leaky ReLU $f(t) = \max(t, 0.1\,t)$ ($L = 1$); $A$ has Student-$t$
#   rows (3 degrees of freedom); the last $\lfloor d/5 \rfloor$ coordinates are zero except on a
#   random 0.2% of the rows, where they are 10 times larger (rare, high-leverage rows);
#   $b = f(Ax^\star) + \mathcal N(0, 0.5^2)$ noise, with 1% of the entries hit by an extra
#   $\mathcal N(0, 5^2)$ gross outlier; $\lVert x^\star\rVert = 1$. This follows the research notes'
#   suggested experiment; the paper has none.
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
noise_sd = 0.5  # Gaussian label noise
outlier_frac = 0.01  # share of labels with a gross outlier
outlier_sd = 5.0  # size of the outliers
reg = 1e-3  # lambda, weight of the regulariser in the sampled problem
irls_iters = 150  # iteration cap of the solver on a sample

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
lib.check_float("noise_sd", noise_sd, low=0.0, low_open=True)
lib.check_float("outlier_frac", outlier_frac, low=0.0, high=0.5)
lib.check_float("outlier_sd", outlier_sd, low=0.0)
lib.check_float("reg", reg, low=0.0)
lib.check_int("irls_iters", irls_iters, low=1)
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
    3 * max(n_trials, scan_trials) * n_rows,
)
if peak_bytes > 8e9:
    raise ValueError(
        f"parameters `n_trials`, `queries`, `scan_*`, `dims`: the batches need "
        f"{peak_bytes / 1e9:.0f} GB (limit 8 GB); lower them"
    )
rng, device = lib.setup(seed, device)


# %% [markdown]
# The instance generator. The last $k = \max(1, \lfloor d/5 \rfloor)$ coordinates live only on the
# rare rows, so those rows alone determine $k$ of the $d$ directions of $x$: each has a leverage
# score of order $k$ divided by their number, hundreds of times the typical $d/n$.

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
# interpolates (a first version of this chapter stopped far above the minimum on the smallest
# samples, which the solver check below caught). For linear $\ell_p$ regression with $p \le 2$
# each step decreases the objective; with the link's kinks and for $p > 2$ it may not, so we take
# the best of the step sizes 1, 1/2, 1/4 and 1/10 and do not move if none of them decreases the
# objective. For $p = 1$ IRLS approaches the minimiser slowly, because an $\ell_1$ minimiser is a
# vertex: generically $d$ of the terms $f(a_i^\top x) - b_i$ and $a_i^\top x$ vanish there. So we
# finish with one exact step to the point where the $d$ smallest of them are zero, with the
# link's slopes frozen, and keep it if it lowers the objective. All trials of a batch are solved
# at once; unsampled slots have weight 0.

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


def fit(A, b, s, p, lam, iters, floor=1e-8):
    """Batched IRLS for min_x sum_i s_i (|f(a_i x) - b_i|^p + lam |a_i x|^p)."""
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
# Sampling and the whole sample-then-solve step ({prf:ref}`arsi-alg-sample-solve`). A batch of
# `trials` independent samples is padded to the largest sample size; the ratio is evaluated on
# all $n$ rows, which the algorithm itself never does (it would need all of $b$).

# %%
def draw_sample(q, m, trials):
    """Row i with probability min(1, m q_i); returns indices, weights 1/pi, sizes."""
    pi = np.minimum(1.0, m * q)
    take = rng.random((trials, q.size)) < pi
    size = take.sum(1)
    idx = np.argsort(~take, axis=1, kind="stable")[:, : size.max()]
    valid = np.arange(size.max())[None] < size[:, None]
    return idx, np.where(valid, 1.0 / pi[idx], 0.0), size


def sample_then_solve(A, b, p, q, m, trials, opt, iters=None):
    """Ratios ||f(A x_hat) - b||_p / OPT and numbers of queries, one per trial."""
    idx, s, size = draw_sample(q, m, trials)
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
lev_gap = np.max(np.abs(lewis[2] - leverage)) / leverage.max()
# below 1e-12 the gap is rounding noise, which differs between CPUs: print a bound
lev_gap_text = "< 1e-12" if lev_gap < 1e-12 else f"{lev_gap:.0e}"
print(f"p = 2: max |Lewis - leverage| / max leverage = {lev_gap_text}")

# %% [markdown]
# The rare rows are a tiny share of the rows but hold a large share of the total weight (printed
# above), so Lewis-weight sampling reads them far more often than uniform sampling does.
# {numref}`fig-arsi-weights` shows the weights row by row.

# %% mystnb={"figure": {"caption": "Lewis weights at p = 1 against leverage scores (p = 2) for every row of A, as multiples of the uniform weight d/n (log scales; dotted, the uniform weight). The l1 weights are a compressed version of the leverage scores; in both, the rare rows (orange) sit far above the bulk, which is why uniform sampling misses them.", "name": "fig-arsi-weights"}} tags=["hide-input"]
fig, ax = lib.subplots()
unit = dim / n_rows
for mask, color, label in (
    (~rare, lib.PALETTE[0], "bulk rows"),
    (rare, lib.PALETTE[1], "rare high-leverage rows"),
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
for p in p_values:
    x_opt[p], g = fit(A, b, np.ones(n_rows), p, 0.0, 300)
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


table = {}
for p in p_values:
    print(f"p = {p}, OPT = {opt[p]:.4g}; median ratio - 1 [mean queries read]")
    for name in SAMPLERS:
        read, excess = summarise(p, name)
        med = np.median(excess, axis=1)
        need = queries_needed(read, med, epsilon)
        slope = np.polyfit(np.log(read), np.log(med), 1)[0]
        table[p, name] = dict(read=read, excess=excess, need=need, slope=slope)
        cells = "  ".join(f"{e:.1e} [{r:4.0f}]" for e, r in zip(med, read))
        need_txt = two_digits(need) if np.isfinite(need) else f"> {read[-1]:.0f}"
        print(
            f"  {name:>7}: {cells}\n           queries for ratio <= 1 + {epsilon}: "
            f"{need_txt}; fitted slope of log(ratio - 1) vs log m: {slope:.2f}"
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
# budget printed above on the rare rows, and its ratio falls steadily. The fitted slopes in the
# table are close to $-1$ (steeper for $p = 1$, whose smallest budgets are still far from the
# asymptotic regime), not $-1/2$: {prf:ref}`arsi-prop-typical`'s typical rate, not the worst case.
#
# The dimension scan asks how the budget for a fixed ratio grows with $d$. For each $d$ in `dims`
# we draw a fresh instance of the same kind (with $\lfloor d/5 \rfloor$ rare coordinates), run
# Lewis-weight sampling at budgets $m = c\,d$ for $c$ in `scan_factors`, and interpolate the
# queries at which the median ratio reaches $1 + \varepsilon$.

# %%
clock = time.perf_counter()
scan = {}
for p in p_values:
    need_d = []
    for d in lib.progress(dims, enabled=progress, desc=f"dimension scan, p = {p}"):
        A_d, b_d, _ = make_instance(n_rows, d)
        w_d = lewis_weights(A_d, p)[0]
        opt_d = fit(A_d, b_d, np.ones(n_rows), p, 0.0, 300)[1] ** (1 / p)
        read, med = [], []
        for c in scan_factors:
            ratio, size = sample_then_solve(
                A_d, b_d, p, w_d / d, c * d, scan_trials, opt_d
            )
            read.append(size.mean())
            med.append(np.median(ratio) - 1)
        need_d.append(queries_needed(np.array(read), np.array(med), epsilon))
    need_d = np.array(need_d)
    ok = np.isfinite(need_d).all()
    gamma = np.polyfit(np.log(dims), np.log(need_d), 1)[0] if ok else np.nan
    scan[p] = dict(need=need_d, gamma=gamma)
    cells = ", ".join(
        f"d = {d}: {two_digits(m)}" if np.isfinite(m) else f"d = {d}: not reached"
        for d, m in zip(dims, need_d)
    )
    print(f"p = {p}: queries for ratio <= 1 + {epsilon}: {cells}")
    print(
        f"        fitted exponent of d: {gamma:.2f} (theory's bound: {max(p / 2, 1):g})"
    )
dlogd = np.polyfit(np.log(dims), np.log(dims * np.log(dims)), 1)[0]
print(f"a d log d law has local exponent {dlogd:.2f} on this grid of d")
print(f"dimension scan: {time.perf_counter() - clock:.1f} s wall-clock")

# %% mystnb={"figure": {"caption": "Queries needed for median ratio at most 1 + epsilon with Lewis-weight sampling, against the dimension d (log scales), one curve per p. Dotted: linear growth d (the bound's exponent for p <= 2, and the typical-instance heuristic's for every p); dashed: d^(3/2), the bound's exponent for p = 3, both drawn through the smallest d.", "name": "fig-arsi-dimension"}} tags=["hide-input"]
fig, ax = lib.subplots()
dd = np.array(dims, float)
for c, p in enumerate(p_values):
    need = scan[p]["need"]
    ax.plot(
        dd,
        need,
        marker="o",
        color=lib.PALETTE[c],
        label=f"p = {p} (fitted exponent {scan[p]['gamma']:.2f})",
    )
    start = need[0] if np.isfinite(need[0]) else np.nan
    ax.plot(dd, start * dd / dd[0], ":", color=lib.PALETTE[c], lw=1)
    if p > 2:
        ax.plot(dd, start * (dd / dd[0]) ** 1.5, "--", color=lib.PALETTE[c], lw=1)
ax.plot([], [], "k:", lw=1, label="$\\propto d$")
if max(p_values) > 2:
    ax.plot([], [], "k--", lw=1, label="$\\propto d^{3/2}$")
ax.set_xscale("log")
ax.set_yscale("log")
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
# Two checks on the machinery. No sampled solution should beat $\mathrm{OPT}$ on the full problem (if
# one did, the full-data solve would have stopped short of the minimum). And the solver on a
# sample should have converged: we re-solve one batch of 32 samples at the smallest and the largest
# budget with four times the iteration cap and compare the ratios.

# %%
min_excess = min(runs[key][0].min() - 1 for key in runs)
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
print(
    f"smallest ratio - 1 of all {len(runs) * n_trials} sampled solutions: "
    f"{min_excess:.1e}"
)
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
#
# ## What we reproduced
#
# The claims below compare medians over the trials (the theorem's guarantee holds with constant
# probability, so the median is the natural statistic), taken before any threshold.
#
# * **Lewis vs uniform.** We ask Lewis-weight sampling to reach median ratio $1 + \varepsilon$ with
#   at most 0.6 of the queries uniform sampling needs. The fraction varies from seed to seed with
#   the handful of rare rows each instance has; 0.6 is set above the spread we measured over seeds
#   0–9 (the book's seed sweep records it), and well below 1, the value if Lewis weights did not
#   help. When uniform sampling does not reach the target within the largest budget, the fraction
#   is bounded by the Lewis budget over the largest budget read.
# * **Rate.** The theorem's rate for $p \le 2$ is ratio − 1 $\lesssim \sqrt{d/m}$: we check that the
#   fitted slope of $\log(\text{ratio} - 1)$ against $\log m$ is at most $-1/2$ (a sampler whose
#   ratio stalls, as a biased one would, has slope near 0). We also record, as not reproduced, that
#   the decay *is* $m^{-1/2}$ (slope within $\pm 0.2$ of $-1/2$): on this instance it is close to
#   $m^{-1}$.
# * **Dimension.** The fitted exponent of $d$ in the queries needed should be 1 for $p \le 2$ up to
#   logarithmic factors. We accept $[0.8,\ e_{\log} + 0.15]$, where $e_{\log}$ is the local exponent
#   of $d \log d$ on the grid (printed above) and 0.15 allows for about two standard deviations of
#   the seed-to-seed spread of the fitted exponent that we measured over seeds 0–9; an exponent of 2
#   (the $O(d^2)$ of {cite:t}`gajjar2023active`) fails it.

# %%
claims = lib.Claims("active-regression-single-index", paper="li2025active")
claims.add(
    "Lewis weights: the fixed-point iteration at p = 2 returns the leverage scores "
    "(max difference / max leverage)",
    lev_gap_text,
    "(implementation check)",
    lev_gap < 1e-9,
)
claims.add(
    "Solver: no sampled solution beats OPT (smallest ratio - 1 >= -1e-9) and 4x the "
    "iterations moves the median ratio - 1 by < 1% (largest relative change)",
    drift_text,
    "(implementation check; theory assumes exact minimisers)",
    min_excess >= -1e-9 and drift_median < 1e-2,
)
for p in [p for p in p_values if p <= 2]:
    need_l, need_u = table[p, "Lewis"]["need"], table[p, "uniform"]["need"]
    if np.isfinite(need_u):
        frac, shown = need_l / need_u, f"{need_l / need_u:.2f}"
    else:
        frac = need_l / table[p, "uniform"]["read"][-1]
        shown = f"< {frac:.2f}"
    claims.add(
        f"p = {p}: Lewis sampling reaches median ratio <= 1 + {epsilon} with <= 0.6 of "
        "the queries uniform sampling needs (Lewis / uniform)",
        shown,
        "Lewis-weight sampling, O~(d / eps^2) queries (upper bound)",
        frac <= 0.6,
        value=frac,
    )
for p in [p for p in p_values if p <= 2]:
    slope = table[p, "Lewis"]["slope"]
    claims.add(
        f"p = {p}: ratio - 1 falls at least as fast as the bound's m^(-1/2) "
        "(fitted slope of log(ratio - 1) vs log m <= -0.5)",
        slope,
        "eps ~ sqrt(d / m) for p <= 2 (upper bound)",
        slope <= -0.5,
        fmt="{:.2f}",
    )
    claims.add(
        f"p = {p}: ratio - 1 falls like m^(-1/2) itself (slope within 0.2 of -0.5)",
        slope,
        "1/eps^2 is optimal in the worst case (lower bound)",
        abs(slope + 0.5) <= 0.2,
        fmt="{:.2f}",
        expect=False,
    )
for p in [p for p in p_values if p <= 2]:
    gamma = scan[p]["gamma"]
    claims.add(
        f"p = {p}: queries for a fixed ratio grow like d up to a log factor "
        f"(fitted exponent of d in [0.8, {dlogd + 0.15:.2f}])",
        gamma,
        "d^max(p/2, 1) = d (upper bound)",
        0.8 <= gamma <= dlogd + 0.15,
        fmt="{:.2f}",
    )
claims.report()

# %% [markdown]
# ## How this compares with the paper
#
# | | paper {cite:p}`li2025active` | this chapter |
# |---|---|---|
# | Algorithm | Lewis-weight sample-then-solve, regulariser $\varepsilon\lVert Ax\rVert_p^p$, domain shrinking and two stages in the analysis | one-stage Lewis-weight sampling, regulariser $\lambda = 10^{-3}$ on the sample, IRLS solver (not an exact minimiser) |
# | Guarantee | $(1+\varepsilon)$, with constant probability, worst case over $b$ | pure ratio, median over the trials, on one random instance family |
# | Queries, $p \le 2$ | $\tilde O(d/\varepsilon^2)$, optimal in the worst case | $\approx d/\varepsilon$: ratio − 1 falls like $1/m$ (the $m^{-1/2}$ rate **not seen**, as expected off the worst case) |
# | Dependence on $d$ | $d^{\max(p/2,1)}$ | linear up to a log factor for $p \in \{1, 2\}$ (the `paper` preset adds $p = 3$, bound $d^{3/2}$) |
# | Uniform sampling | not analysed (the need for Lewis weights is implicit) | needs several times more queries when a few rows carry directions alone (the claims table gives this seed's Lewis / uniform fraction) |
# | $p = 3$ (`paper` preset) | $\tilde O(d^{3/2}/\varepsilon^3)$; $1/\varepsilon^p$ optimal | ratio − 1 falls far more slowly than $1/m$ (outlier rows dominate $\lVert r\rVert_3^3$); the scan does not reach $1 + \varepsilon$ at the larger $d$, so no exponent of $d$ |
# | Scale | theory only, no experiments | $n = 20\,000$, $d = 10$, $p \in \{1, 2\}$, 100 trials per budget; scan $d \le 40$ |
#
# The two headline claims we can test at this scale hold: Lewis-weight sample-then-solve finds a
# $(1+\varepsilon)$ solution of a non-convex single-index problem from a small fraction of the
# labels, with a budget that grows linearly in $d$, and it needs far fewer labels than uniform
# sampling when a few rows carry directions of $x$ alone. What we do not see is the theorem's
# $1/\varepsilon^2$: the paper shows it is necessary *in the worst case*, by instances in which the
# labels of $d$ blocks of rows are biased by $\pm\varepsilon$, and on our random instance the excess
# cost is quadratic in the estimation error ({prf:ref}`arsi-prop-typical`), which gives the
# $d/\varepsilon$ of linear least squares {cite:p}`chen2019active`. The bound is an upper bound
# there, and the measured rate respects it. For $p = 3$ (the `paper` preset) the heuristic fails
# on our instance, in the direction the paper predicts: ratio − 1 falls slowly. We attribute this
# to the few rows with gross outliers, whose cubed residuals dominate the $\ell_3$ objective and
# which Lewis weights (a function of $A$ alone) sample no more often than any other row; the
# sampled objective then varies by large factors from sample to sample. Large residuals that
# only queries can reveal are the kind of difficulty behind the $1/\varepsilon^p$ lower bound
# for $p > 2$; we have not isolated the cause further (for example with `outlier_frac=0.0`). We checked with an off-the-shelf quasi-Newton method (BFGS) on a few $p = 3$ samples that
# this is not a solver failure: it found the same minimisers.
#
# We did not implement the two-stage sampling or an explicit domain constraint, and our solver is
# a local method on a non-convex problem; the solver check above shows it converges and never
# beats the full-data optimum, but it is not a certificate of global optimality on every sample.
#
# ## Try it
#
# * `-p rare_frac=0.05` (the "rare" rows become common): uniform sampling now sees enough of them
#   at every budget, the gap to Lewis sampling in {numref}`fig-arsi-ratio` narrows and the 0.6
#   check in the claims table fails. What advantage remains comes from the heavy-tailed bulk rows.
# * `-p "p_values=[1, 2, 3]"` (what the `paper` preset runs): for $p = 3$ the Lewis curve in
#   {numref}`fig-arsi-ratio` falls far more slowly than for $p \le 2$ (see its fitted slope in the
#   table), and the dimension scan no longer reaches the target at the larger $d$ (see How this
#   compares with the paper). The slow decay is unchanged with `-p reg=0.0`, so it is not the
#   regulariser.
