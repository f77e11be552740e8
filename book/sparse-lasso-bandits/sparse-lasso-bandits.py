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
# # Lasso bandits: compatibility on the optimal arm is enough
#
# ```{admonition} About this chapter
# :class: tip
# Paper: {cite:t}`lee2025lasso` (ICLR 2025). Question: a sparse linear contextual bandit can
# have regret that grows only like $\log d$ in the ambient dimension, but earlier Lasso bandits
# prove it only when the contexts of *all* arms are diverse. Is it enough that the contexts of
# the *optimal* arm are well spread, if the learner samples at random for a short while and then
# keeps refitting a weighted Lasso on all its data (FS-WLasso)? We run FS-WLasso against three
# Lasso baselines in a setting where the earlier assumptions hold and in one where they fail,
# and measure how its regret grows with $d$. The defaults ($d = 100$, $T = 1000$, 24 replicates
# in setting A and 48 in setting B, five dimensions up to 400) run in under a minute on one CPU core;
# `make run CHAPTER=sparse-lasso-bandits PRESET=paper` doubles the horizon and the replicates
# and goes up to $d = 800$.
# ```
#
# ## The question
#
# A recommender sees, at each round $t$, one feature vector $x_{t,a} \in \mathbb R^d$ per
# candidate item $a$, shows one item and observes a noisy reward whose mean is linear in that
# item's features, $x_{t,a}^\top \beta^\star$. The dimension $d$ is large but only $s_0 \ll d$
# features matter: $\beta^\star$ is sparse. The Lasso estimates such a $\beta^\star$ from
# $O(s_0 \log d)$ samples instead of $O(d)$, *if* the samples are spread out in the right
# directions (a compatibility condition). A bandit collects its own samples, and a greedy learner
# collects only those it believes are good, so whether its data are spread out is not up to the
# statistician.
#
# Earlier Lasso bandits with $\mathrm{poly}\log(dT)$ regret in the single-parameter setting
# {cite:p}`oh2021sparsity,ariu2022thresholded,kim2019doubly` assume that *every* arm's context
# distribution is diverse enough that even greedy choices produce well-spread data.
# {cite:t}`lee2025lasso` ask for less: compatibility of the Gram matrix of the *optimal* arm only,
# plus a margin condition. They show this is strictly weaker, give an algorithm, FS-WLasso, whose
# regret is $\mathrm{poly}\log(dT)$ under it, and report that FS-WLasso beats the earlier
# algorithms in simulations, in particular when the suboptimal arms' features are fixed. Here we
# test three things: (i) does FS-WLasso have the lowest regret, both when the earlier
# assumptions hold (setting A) and when they fail (setting B); (ii) in setting B, do baselines
# that rely on diversity suffer linear regret while FS-WLasso's flattens; (iii) does FS-WLasso's
# regret grow at most logarithmically in $d$.
#
# ## The setting and the theorem
#
# ```{prf:definition} Sparse linear contextual bandit
# :label: slb-def-bandit
#
# At each round $t = 1, \dots, T$ the learner sees contexts $x_{t,1}, \dots, x_{t,K} \in \mathbb R^d$,
# drawn i.i.d. over rounds from a joint distribution (the arms may be dependent within a round),
# picks an arm $a_t$ and observes $y_t = x_{t,a_t}^\top \beta^\star + \varepsilon_t$ with
# $\varepsilon_t$ $\sigma$-sub-Gaussian. The parameter has support $S_0$ with $|S_0| = s_0$. With
# $a_t^\star = \arg\max_a x_{t,a}^\top \beta^\star$, the regret is
#
# $$
# \mathrm{Reg}(T) = \sum_{t=1}^T \big( x_{t,a_t^\star} - x_{t,a_t} \big)^\top \beta^\star .
# $$ (eq-slb-regret)
# ```
#
# ```{prf:definition} Compatibility constant
# :label: slb-def-compat
#
# For a positive semi-definite $\Sigma$ and the support $S_0$, the compatibility constant is
# {cite:p}`buhlmann2011statistics`
#
# $$
# \phi^2(\Sigma, S_0) = \min\Big\{ \frac{s_0\, v^\top \Sigma v}{\|v_{S_0}\|_1^2} \;:\;
# \|v_{S_0^c}\|_1 \le 3 \|v_{S_0}\|_1,\ v_{S_0} \neq 0 \Big\} .
# $$ (eq-slb-compat)
#
# If the empirical Gram matrix $\hat\Sigma_n = \frac1n \sum_{s \le n} x_s x_s^\top$ has
# $\phi^2(\hat\Sigma_n, S_0) \ge \phi^2 > 0$, the Lasso with $\lambda \asymp \sigma\sqrt{\log d / n}$
# satisfies $\|\hat\beta - \beta^\star\|_1 \lesssim s_0 \lambda / \phi^2$: an error that depends on
# $d$ only through $\log d$. The cone in {eq}`eq-slb-compat` is where a Lasso error can lie, so the
# condition asks for curvature only in sparse-ish directions, which is why it can hold with $n < d$.
# ```
#
# Which Gram matrix? A bandit's design is $\sum_s x_{s,a_s} x_{s,a_s}^\top$, built from the arms it
# chose. Earlier single-parameter Lasso bandits
# {cite:p}`oh2021sparsity,ariu2022thresholded,kim2019doubly` assume compatibility of the Gram matrix
# averaged over all arms, $\bar\Sigma = \frac1K \sum_a \mathbb E[x_{t,a} x_{t,a}^\top]$, *and* a
# diversity condition (anti-concentration, or relaxed symmetry with balanced covariance) that
# guarantees the arms a greedy learner picks still carry a constant fraction of $\bar\Sigma$'s
# curvature. The paper's assumptions are these two.
#
# ```{prf:assumption} Compatibility on the optimal arm, and a margin
# :label: slb-ass-optimal
#
# (a) $\Sigma^\star = \mathbb E\big[x_{t,a_t^\star} x_{t,a_t^\star}^\top\big]$, the Gram matrix of the
# optimal arm's context, has $\phi^2(\Sigma^\star, S_0) \ge \phi_\star^2 > 0$.
#
# (b) Margin: with $\Delta_t$ the gap between the best and second-best mean reward at round $t$,
# $\Pr[\Delta_t \le \kappa] \le (C\kappa)^\alpha$ for all $\kappa > 0$, for some $C$ and $\alpha \ge 0$.
# Contexts are bounded. (Gaussian contexts, as here, give $\alpha = 1$; they are not bounded, a
# departure we accept.)
# ```
#
# Diversity implies (a), because the conditions used earlier make every arm, and so the optimal
# one, carry a multiple of $\bar\Sigma$ {cite:p}`lee2025lasso`. The converse fails, and the example
# that shows it is the one we simulate as setting B.
#
# ```{prf:proposition} Fixed suboptimal arms: optimal-arm compatibility without diversity
# :label: slb-prop-fixed
#
# Let arm 1 have a fresh context $x_{t,1} \sim \mathcal N(0, \Sigma)$ each round and arms
# $2, \dots, K$ have fixed contexts $v_2, \dots, v_K$. Let $p = \Pr[x_{t,1}^\top\beta^\star >
# \max_k v_k^\top \beta^\star] > 0$. Then the fixed arms have zero variance, so no
# anti-concentration or balanced-covariance condition holds for them, while
# $\Sigma^\star \succeq p\, c\, \Sigma$ with $c = \min\{1, \mathbb E[z^2 \mid z > q]\} > 0$ for a standard normal $z$ and
# $q = \max_k v_k^\top\beta^\star / \|\beta^\star\|_\Sigma$, so
# $\phi^2(\Sigma^\star, S_0) \ge p\, c\, \lambda_{\min}(\Sigma) > 0$.
# ```
#
# ```{prf:proof}
# $\Sigma^\star \succeq \mathbb E[x_{t,1} x_{t,1}^\top \mathbb 1\{x_{t,1}^\top \beta^\star > q\|\beta^\star\|_\Sigma\}]$.
# Write $x = \Sigma\beta^\star z / \|\beta^\star\|_\Sigma + u$ with $z = x^\top\beta^\star/\|\beta^\star\|_\Sigma$
# standard normal and $u$ Gaussian and independent of $z$. The event depends on $z$ only, so the
# conditional second moment is $\mathrm{Cov}(u) + \mathbb E[z^2 \mid z > q]\, \Sigma\beta^\star\beta^{\star\top}\Sigma /
# \|\beta^\star\|^2_\Sigma \succeq c\,\Sigma$, since $\Sigma = \mathrm{Cov}(u) + \Sigma\beta^\star\beta^{\star\top}\Sigma /
# \|\beta^\star\|^2_\Sigma$. Multiply by the probability $p$ of the event, and note
# $\phi^2(\Sigma, S_0) \ge \lambda_{\min}(\Sigma)$.
# ```
#
# Why greedy can fail here: if its first estimates make a fixed arm look best, it plays that arm
# again and again. A single repeated vector $v$ teaches the Lasso one number, $v^\top\beta^\star$, and
# the $\ell_1$ penalty explains it with one coordinate, $\hat\beta \approx (v^\top\beta^\star / v_j) e_j$
# with $j = \arg\max_j |v_j|$. With $|v_j| \approx 2.5$ for $d = 100$, the fresh arm's estimated value
# $x_{t,1,j}\, v^\top\beta^\star / v_j$ rarely beats $v^\top\beta^\star$, so the fresh arm is rarely tried,
# even in the rounds where it is optimal, and nothing new is learned: linear regret.
#
# ```{prf:definition} FS-WLasso (forced sampling, then greedy on a weighted Lasso)
# :label: slb-def-fswlasso
#
# Parameters $M_0$ (forced rounds), a weight $w \ge 1$ and a schedule $\lambda_t$.
# For $t \le M_0$ pick $a_t$ uniformly at random. For $t > M_0$ pick
# $a_t = \arg\max_a x_{t,a}^\top \hat\beta_{t-1}$, where, with weights $\omega_s = w$ for $s \le M_0$
# and $\omega_s = 1$ after,
#
# $$
# \hat\beta_t = \arg\min_\beta\ \frac{1}{2t} \sum_{s=1}^{t} \omega_s \big(y_s - x_{s,a_s}^\top \beta\big)^2
# + \lambda_t \|\beta\|_1 .
# $$ (eq-slb-wlasso)
# ```
#
# ```{prf:theorem} Regret of FS-WLasso (informal, after Lee, Hwang and Oh)
# :label: slb-thm-regret
#
# Under {prf:ref}`slb-ass-optimal` with $\alpha = 1$, and with $M_0$, $w$ and $\lambda_t$ chosen from
# the problem constants, FS-WLasso has $\mathbb E[\mathrm{Reg}(T)] = O\big(\mathrm{poly}(s_0, 1/\phi_\star)
# \cdot \log T \cdot (\log d + \log\log T)\big)$; other values of $\alpha$ change the power of
# $\log T$ (and give $T^{(1-\alpha)/2}$ polylog terms for $\alpha < 1$). Under the stronger diversity
# conditions $M_0 = 0$, pure greedy on the Lasso, attains the same order. (See the paper for the
# exact statement and constants.)
# ```
#
# ```{prf:proof}
# (Sketch.) The forced rounds give a Gram matrix with compatibility $\phi_e^2 \gtrsim \phi^2(\bar\Sigma)$,
# so after $M_0 \gtrsim s_0^2 \log d / \phi_e^4$ rounds the estimate is accurate. Then an induction:
# if $\|\hat\beta_{t-1} - \beta^\star\|_1 \le \epsilon_t$, greedy picks a suboptimal arm only when the
# gap is below $2 x_{\max}\epsilon_t$, which by the margin condition has probability $O(\epsilon_t)$.
# So most greedy rounds add a copy of $\Sigma^\star$'s curvature to the design, the empirical Gram
# matrix has compatibility $\gtrsim \phi_\star^2$, and the next error is of order
# $s_0\sigma\sqrt{\log d / t} / \phi_\star^2$. Summing gaps times probabilities,
# $\sum_t \epsilon_t^{2} \approx s_0^2 \log d \sum_t 1/t$, gives the $\log T \log d$ regret.
#
# The weight is what keeps the induction alive in its first steps, before the greedy rounds have
# contributed curvature. In {eq}`eq-slb-wlasso` the forced rounds contribute curvature $w M_0/t$
# (times $\phi_e^2$) and noise of standard deviation $\sigma\sqrt{w^2 M_0 + t - M_0}/t$, so the Lasso error is
# of order $\sqrt{\log d\,(w^2 M_0 + t)} / (w M_0 \phi_e^2)$ if the greedy rounds add nothing. With
# $w = 1$ this grows like $\sqrt t / M_0$: uninformative greedy rounds dilute the forced information.
# With $w = \sqrt{\tau / M_0}$ it stays at the forced-sampling level $\sqrt{2\log d / M_0}/\phi_e^2$ up
# to round $\tau$, which is long enough for the greedy rounds to take over.
# ```
#
# ```{note}
# **Where this chapter departs from the paper.** The paper's pseudo-code, its experimental
# constants and its code were not available to us; these settings are ours.
# * **Forced sampling** picks arms uniformly at random for $M_0 = \lceil 4\, s_0 \log d \rceil$ rounds
#   (93 at $d = 100$). The theorem's $M_0$ has the same $\log d$ dependence but unknown constants.
# * **Weight** $w = \sqrt{\tau/M_0}$ with $\tau = T$, the largest value our derivation above
#   allows without loss. The research notes give the form $\sqrt{\tau/M_0}$, which we could not check
#   against the paper.
# * **Penalty** $\lambda_t = \lambda_0\, \sigma \sqrt{\log d \sum_{s \le t} \omega_s^2}\,/\,t$ with
#   $\lambda_0 = 1$: the standard deviation of the weighted noise term, times $\sqrt{\log d}$. All
#   Lasso methods use the same schedule (with $\omega_s = 1$ when there are no forced rounds).
# * The Lasso is refitted every 10 rounds (and at the end of forced sampling), not every round,
#   by warm-started coordinate descent stopped when no coefficient moves by more than $10^{-4}$
#   (at most 50 sweeps).
# * **Settings.** A: $K = 10$ arms, all with fresh contexts $\mathcal N(0, \Sigma)$,
#   $\Sigma_{ij} = 0.5^{|i-j|}$. B: arm 1 fresh as in A, arms $2..K$ fixed, drawn once per replicate
#   from the same $\mathcal N(0,\Sigma)$ ({prf:ref}`slb-prop-fixed`). $\beta^\star$ has $s_0 = 5$
#   entries uniform on $[-1, 1]$ at random positions, scaled to unit norm; noise
#   $\mathcal N(0, 0.5^2)$; $d = 100$, $T = 1000$.
# * **Baselines.** Greedy Lasso (the SA-Lasso bandit of {cite:t}`oh2021sparsity`: $M_0 = 0$);
#   TH-Lasso {cite:p}`ariu2022thresholded`: the same Lasso, thresholded at $4\lambda_t$, then least
#   squares on the kept coordinates, greedy; ESTC-like explore-then-commit
#   {cite:p}`hao2020high`: the same $M_0$ uniform rounds, one Lasso fit, then greedy with that
#   estimate frozen (the original explores with an optimal design for $\approx T^{2/3}$ rounds).
#   The paper also compares with the Lasso bandit of {cite:t}`bastani2020online` (one parameter per
#   arm) and DR-Lasso {cite:p}`kim2019doubly`, which we did not implement.
# ```
#
# ## The algorithm
#
# All methods share one machine: a weighted Lasso on the sufficient statistics
# $G_t = \sum_s \omega_s x_s x_s^\top$ and $b_t = \sum_s \omega_s y_s x_s$, since
# {eq}`eq-slb-wlasso` equals $\tfrac12 \beta^\top (G_t/t) \beta - (b_t/t)^\top\beta + \lambda_t\|\beta\|_1$
# up to a constant. Coordinate descent minimises it one coordinate at a time in closed form,
# $\beta_j \leftarrow \mathrm{soft}(c_j - (Q\beta)_j + Q_{jj}\beta_j,\ \lambda) / Q_{jj}$ with
# $Q = G_t/t$, $c = b_t/t$. We keep $Q\beta$ up to date after each move, so a sweep costs $O(d^2)$
# whatever the number of samples, and we run all methods and replicates as one batch. After a
# full sweep, the following sweeps visit only the coordinates that are non-zero in some problem
# of the batch, until nothing moves; then a full sweep checks.

# %% tags=["parameters"]
seed = 0
device = "cpu"  # numpy only; the device just has to be valid
progress = False
dim = 100  # d, the ambient dimension
sparsity = 5  # s0, non-zero entries of beta_star
n_arms = 10  # K
horizon = 1000  # T, rounds
noise_sd = 0.5  # sigma, reward noise
feature_corr = 0.5  # rho: Cov(x_i, x_j) is rho^|i-j|
lambda_scale = 1.0  # lambda_0 in the penalty schedule
forced_factor = 4.0  # M0, ceil(forced_factor * s0 * log d), forced rounds
tau_factor = 1.0  # weight w is sqrt(tau / M0) with tau the product tau_factor * T
threshold_factor = 4.0  # TH-Lasso keeps |beta_j| at least threshold_factor * lambda_t
refit_every = 10  # rounds between Lasso refits
n_replicates = 24  # independent problems in setting A (batched)
n_replicates_b = 48  # problems in setting B: its spread is wider (the trap)
dims = [25, 50, 100, 200, 400]  # d grid of the dimension scan (FS-WLasso only)
dim_replicates = 8  # problems per d in the dimension scan

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
from scipy.signal import lfilter


lib.check_int("seed", seed, low=0, high=2**32 - 1)
lib.check_choice("device", device, ["auto", "cpu", "cuda"])
lib.check_bool("progress", progress)
lib.check_int("dim", dim, low=2)
lib.check_int("sparsity", sparsity, low=1)
if sparsity > min([dim, *dims]):
    raise ValueError(
        f"parameter `sparsity` = {sparsity!r} is invalid: "
        "must be <= dim and <= min(dims)"
    )
lib.check_int("n_arms", n_arms, low=2)
lib.check_int("horizon", horizon, low=20)
lib.check_float("noise_sd", noise_sd, low=0.0, low_open=True)
lib.check_float("feature_corr", feature_corr, low=0.0, high=0.95)
lib.check_float("lambda_scale", lambda_scale, low=0.0, low_open=True)
lib.check_float("forced_factor", forced_factor, low=0.0, low_open=True)
lib.check_float("tau_factor", tau_factor, low=0.0, low_open=True)
lib.check_float("threshold_factor", threshold_factor, low=0.0)
lib.check_int("refit_every", refit_every, low=1, high=horizon)
lib.check_int("n_replicates", n_replicates, low=4)
lib.check_int("n_replicates_b", n_replicates_b, low=4)
lib.check_int_list("dims", dims, low=2, min_len=3, increasing=True)
lib.check_int("dim_replicates", dim_replicates, low=4)


def forced_rounds(d):
    return int(np.ceil(forced_factor * sparsity * np.log(d)))


if forced_rounds(max(dim, *dims)) >= horizon // 2:
    raise ValueError(
        f"parameter `forced_factor` = {forced_factor!r} is invalid: the forced phase "
        f"({forced_rounds(max(dim, *dims))} rounds) must end before horizon / 2"
    )
n_rep_max = max(n_replicates, n_replicates_b)
gram_bytes = 8 * 3 * max(4 * n_rep_max * dim**2, dim_replicates * max(dims) ** 2)
if gram_bytes > 8e9:
    raise ValueError(
        f"parameters `n_replicates(_b)`, `dim`, `dims`: the Gram matrices need "
        f"{gram_bytes / 1e9:.0f} GB (limit 8 GB); lower them"
    )
rng, device = lib.setup(seed, device)


# %% [markdown]
# The solver. `Q` is a batch of matrices $G_t/t$, one per (method, replicate); `beta` is the warm
# start and is overwritten.

# %%
def soft_threshold(z, lam):
    return np.sign(z) * np.maximum(np.abs(z) - lam, 0.0)


def cd_sweep(Q, c, lam, beta, Qbeta, diag, coords):
    moved = 0.0
    for j in coords:
        z = c[:, j] - Qbeta[:, j] + diag[:, j] * beta[:, j]
        new = soft_threshold(z, lam) / diag[:, j]  # diag = inf where unobserved
        delta = new - beta[:, j]
        step = np.abs(delta).max()
        if step > 0:
            Qbeta += Q[:, j, :] * delta[:, None]  # Q is symmetric
            beta[:, j] = new
            moved = max(moved, step)
    return moved


def lasso_cd(Q, c, lam, beta, tol=1e-4, max_sweeps=50):
    """Batched min_b 1/2 b'Qb - c'b + lam |b|_1, warm-started at `beta`."""
    diag = np.einsum("bjj->bj", Q).copy()
    diag[diag <= 1e-12] = np.inf
    Qbeta = np.einsum("bij,bj->bi", Q, beta)
    sweeps, all_coords = 0, range(Q.shape[-1])
    while sweeps < max_sweeps:
        moved = cd_sweep(Q, c, lam, beta, Qbeta, diag, all_coords)
        sweeps += 1
        if moved < tol:
            break
        active = np.flatnonzero((beta != 0).any(0))
        while sweeps < max_sweeps:
            moved = cd_sweep(Q, c, lam, beta, Qbeta, diag, active)
            sweeps += 1
            if moved < tol:
                break
    return beta


# %% [markdown]
# A quick check of the solver against the Lasso's optimality conditions (KKT) on random
# problems: $|c_j - (Q\beta)_j| \le \lambda$ everywhere, with equality and the sign of $\beta_j$
# where $\beta_j \neq 0$.

# %%
def kkt_violation(Q, c, lam, beta):
    grad = c - np.einsum("bij,bj->bi", Q, beta)
    off = np.maximum(np.abs(grad) - lam[:, None], 0.0)
    on = np.abs(grad - lam[:, None] * np.sign(beta))
    return np.where(beta != 0, on, off).max() / lam.max()


Xk = lfilter([1.0], [1.0, -0.5], rng.standard_normal((8, 60, 2 * dim)), axis=-1)
Qk = np.einsum("bni,bnj->bij", Xk, Xk) / 60
ck = np.einsum("bni,bn->bi", Xk, Xk[:, :, :3].sum(-1) + rng.standard_normal((8, 60)))
lam_k = np.full(8, 0.1)
beta_k = lasso_cd(
    Qk, ck / 60, lam_k, np.zeros((8, 2 * dim)), tol=1e-10, max_sweeps=2000
)
kkt_gap = kkt_violation(Qk, ck / 60, lam_k, beta_k)
print(f"KKT violation / lambda with n = 60 < d = {2 * dim}: {kkt_gap:.0e}")


# %% [markdown]
# The bandit loop. Contexts come from an AR(1) filter, which has exactly the covariance
# $\rho^{|i-j|}$ and uses no BLAS, so every CPU draws the same numbers. Each method is a triple
# (forced rounds, weight, mode): `"lasso"` refits on all data, `"frozen"` stops fitting when the
# forced rounds end (ESTC-like), `"thresh"` plays least squares on the coordinates where the Lasso
# is at least `threshold_factor` $\cdot\lambda_t$ (TH-Lasso). All methods in a batch see the same
# contexts, noise and forced-arm draws.

# %%
def draw_contexts(shape):
    z = rng.standard_normal(shape)
    z[..., 0] /= np.sqrt(1 - feature_corr**2)  # stationary start: unit variance
    return lfilter([np.sqrt(1 - feature_corr**2)], [1.0, -feature_corr], z, axis=-1)


def make_problem(d, n_rep):
    beta_star = np.zeros((n_rep, d))
    for r in range(n_rep):
        support = rng.choice(d, sparsity, replace=False)
        beta_star[r, support] = rng.uniform(-1, 1, sparsity)
    beta_star /= np.linalg.norm(beta_star, axis=1, keepdims=True)
    return beta_star, draw_contexts((n_rep, n_arms - 1, d))  # fixed arms for setting B


def run_bandits(setting, d, methods, n_rep, desc=""):
    """Per-round regret [method, replicate, round] and diagnostics for one setting."""
    A, R, T = len(methods), n_rep, horizon
    forced = np.array([m[0] for m in methods])
    weight = np.array([m[1] for m in methods], float)
    mode = np.array([m[2] for m in methods])
    beta_star, fixed_arms = make_problem(d, R)
    G, b = np.zeros((A, R, d, d)), np.zeros((A, R, d))
    fit, play = np.zeros((A, R, d)), np.zeros((A, R, d))
    regret, arms = np.zeros((A, R, T)), np.zeros((A, R, T), np.int8)
    best_arm, uniform_regret = np.zeros((R, T), np.int8), np.zeros((R, T))
    ends = np.unique(
        np.r_[np.arange(refit_every, T, refit_every), forced[forced > 0], T]
    )
    reps, start = np.arange(R), 0
    for end in lib.progress(ends, enabled=progress, desc=desc):
        n = end - start
        X = draw_contexts((n, R, n_arms, d))
        if setting == "B":
            X[:, :, 1:, :] = fixed_arms[None]
        mean = np.einsum("nrkd,rd->nrk", X, beta_star)
        y_all = mean + noise_sd * rng.standard_normal((n, R, n_arms))
        random_arm = rng.integers(0, n_arms, (n, R))
        xs, ys, ws = np.zeros((A, R, n, d)), np.zeros((A, R, n)), np.zeros((A, n))
        for i, t in enumerate(range(start, end)):
            greedy = np.einsum("rkd,ard->ark", X[i], play).argmax(-1)
            is_forced = t < forced
            arm = np.where(is_forced[:, None], random_arm[i][None], greedy)
            regret[:, :, t] = mean[i].max(-1) - mean[i][reps, arm]
            arms[:, :, t], best_arm[:, t] = arm, mean[i].argmax(-1)
            uniform_regret[:, t] = mean[i].max(-1) - mean[i].mean(-1)
            xs[:, :, i], ys[:, :, i] = X[i][reps, arm], y_all[i][reps, arm]
            ws[:, i] = np.where(is_forced, weight, 1.0)
        wx = xs * ws[:, None, :, None]
        G += np.swapaxes(wx, -1, -2) @ xs
        b += np.einsum("arnj,arn->arj", wx, ys)
        m = np.minimum(forced, end)
        lam = (
            lambda_scale
            * noise_sd
            * np.sqrt(np.log(d) * (weight**2 * m + end - m))
            / end
        )
        refit = (mode != "frozen") | (end <= forced)
        Q, c = (G[refit] / end).reshape(-1, d, d), (b[refit] / end).reshape(-1, d)
        lam_b = np.repeat(lam[refit], R)
        fit[refit] = lasso_cd(Q, c, lam_b, fit[refit].reshape(-1, d)).reshape(-1, R, d)
        play[refit] = fit[refit]
        for a in np.flatnonzero(mode == "thresh"):  # least squares on the kept support
            keep = np.abs(fit[a]) >= threshold_factor * lam[a]
            both = keep[:, :, None] & keep[:, None, :]
            system = np.where(both, G[a] / end, 0.0) + np.eye(d) * (~keep)[:, :, None]
            rhs = np.where(keep, b[a] / end, 0.0)[..., None]
            play[a] = np.linalg.solve(system + 1e-9 * np.eye(d), rhs)[..., 0] * keep
        start = end
    return dict(regret=regret, arms=arms, best_arm=best_arm, uniform=uniform_regret)


# %% [markdown]
# ## The experiment
#
# Four methods, both settings, the same problems for every method. FS-WLasso's weight is
# $w = \sqrt{\tau/M_0}$.

# %%
M0 = forced_rounds(dim)
w = np.sqrt(tau_factor * horizon / M0)
METHODS = {
    "FS-WLasso": (M0, w, "lasso"),
    "Greedy Lasso (SA-Lasso)": (0, 1.0, "lasso"),
    "TH-Lasso": (0, 1.0, "thresh"),
    "ESTC-like": (M0, 1.0, "frozen"),
}
names = list(METHODS)
print(
    f"d = {dim}, s0 = {sparsity}, K = {n_arms}, T = {horizon}: M0 = {M0}, w = {w:.2f}"
)
clock = time.perf_counter()
n_reps = {"A": n_replicates, "B": n_replicates_b}
runs = {
    s: run_bandits(s, dim, list(METHODS.values()), n_reps[s], desc=f"setting {s}")
    for s in ("A", "B")
}
print(
    f"{len(names)} x ({n_replicates} + {n_replicates_b}) bandit runs: "
    f"{time.perf_counter() - clock:.1f} s wall-clock"
)

# %% [markdown]
# The table gives the final regret $\mathrm{Reg}(T)$ (mean ± one standard error over the
# replicates) and the mean regret per round in the first and the second half of the horizon,
# in units of $r_{\mathrm{unif}}$, the per-round regret of picking arms at random. A method with
# $\log T$-type regret has a second-half rate far below its first-half rate; a method with linear
# regret has the two about equal.

# %%
half = horizon // 2
summary = {}
for s, run in runs.items():
    r_unif = run["uniform"].mean()
    cum = run["regret"].sum(-1)  # [method, replicate]
    first = run["regret"][:, :, :half].mean((1, 2)) / r_unif
    last = run["regret"][:, :, half:].mean((1, 2)) / r_unif
    summary[s] = dict(cum=cum, first=first, last=last, r_unif=r_unif)
    print(f"setting {s}: r_unif = {r_unif:.2f} per round")
    for a, name in enumerate(names):
        mean, se = cum[a].mean(), cum[a].std(ddof=1) / np.sqrt(n_reps[s])
        print(
            f"  {name:>24}: Reg(T) = {mean:6.1f} ± {se:4.1f} | per-round rate"
            f" {first[a]:.3f} -> {last[a]:.3f} r_unif"
        )

# %% mystnb={"figure": {"caption": "Cumulative regret against the round (mean over the replicates, band \u00b12 standard errors). Left, setting A (all arms fresh); right, setting B (all but one arm fixed). FS-WLasso pays for its forced rounds first, then flattens in both settings; in setting B greedy Lasso keeps growing linearly, and so, with a smaller slope, does explore-then-commit.", "name": "fig-sparse-lasso-bandits-regret"}} tags=["hide-input"]
fig, axes = lib.subplots(1, 2, width=10.0, sharey=True)
rounds = np.arange(1, horizon + 1)
for ax, (s, run) in zip(axes, runs.items()):
    cum = run["regret"].cumsum(-1)
    for a, name in enumerate(names):
        mean = cum[a].mean(0)
        se = cum[a].std(0, ddof=1) / np.sqrt(n_reps[s])
        ax.plot(rounds, mean, color=lib.PALETTE[a], label=name)
        ax.fill_between(
            rounds, mean - 2 * se, mean + 2 * se, color=lib.PALETTE[a], alpha=0.2
        )
    ax.axvline(M0, color="0.5", ls=":", lw=1)
    ax.set_xlabel("round t")
    ax.set_title(
        f"setting {s}: " + ("fresh contexts" if s == "A" else "fixed suboptimal arms")
    )
axes[0].set_ylabel("cumulative regret")
axes[0].legend(loc="upper left")
lib.show(fig)

# %% [markdown]
# Why the baselines fail in setting B is visible in the arms they pull. The fresh arm is the
# optimal one in a minority of rounds; in those rounds, how often does each method pick it?

# %%
run_b = runs["B"]
fresh_best = run_b["best_arm"][:, half:] == 0  # [replicate, round], second half
picked = (run_b["arms"][:, :, half:] == 0) & fresh_best[None]
found = picked.sum((1, 2)) / fresh_best.sum()
print(f"setting B: the fresh arm is optimal in {fresh_best.mean():.1%} of the rounds")
for name, f in zip(names, found):
    print(f"  {name:>24} picks it in {f:.0%} of those rounds (second half)")

# %% [markdown]
# The compatibility on the optimal arm is what FS-WLasso needs; the dimension only enters its
# penalty and forced phase through $\log d$. We rerun FS-WLasso alone over a grid of
# dimensions, with $M_0 = \lceil 4 s_0 \log d\rceil$ growing as the theory asks. We use setting A:
# in setting B a few replicates per $d$ in which FS-WLasso's greedy phase starts badly make the
# mean too noisy (standard errors of 10–25% in a first run) to read a $\log d$ trend within the
# time budget.

# %%
clock = time.perf_counter()
scan = {}
for d in lib.progress(dims, enabled=progress, desc="dimensions"):
    m0 = forced_rounds(d)
    method = (m0, np.sqrt(tau_factor * horizon / m0), "lasso")
    reg = run_bandits("A", d, [method], dim_replicates)["regret"][0]
    scan[d] = dict(total=reg.sum(-1), forced=reg[:, :m0].sum(-1), m0=m0)
print(f"dimension scan: {time.perf_counter() - clock:.1f} s wall-clock")
log_d = np.log(dims)
reg_d = np.array([scan[d]["total"].mean() for d in dims])
se_d = np.array([scan[d]["total"].std(ddof=1) / np.sqrt(dim_replicates) for d in dims])
after_d = np.array([(scan[d]["total"] - scan[d]["forced"]).mean() for d in dims])
slope, intercept = np.polyfit(log_d, reg_d, 1)
gamma = np.polyfit(log_d, np.log(reg_d), 1)[0]
for d, r, e, g in zip(dims, reg_d, se_d, after_d):
    print(
        f"d = {d:4d}: M0 = {scan[d]['m0']:3d}, Reg(T) = {r:6.1f} ± {e:4.1f}, "
        f"after forcing {g:6.1f}"
    )
print(
    f"fit Reg(T) = {intercept:.0f} + {slope:.1f} log d; power-law exponent {gamma:.2f}"
)

# %% mystnb={"figure": {"caption": "FS-WLasso's regret at the horizon against the dimension (log scale), mean \u00b12 standard errors, in setting A. The dashed line is the least-squares fit a + b log d; the dotted curve is the growth d^(1/2) would give from the smallest d. The regret follows the logarithm, and most of it is the forced phase, whose length grows like log d.", "name": "fig-sparse-lasso-bandits-dim"}} tags=["hide-input"]
fig, ax = lib.subplots()
ax.errorbar(
    dims,
    reg_d,
    yerr=2 * se_d,
    marker="o",
    capsize=3,
    color=lib.PALETTE[0],
    label="FS-WLasso, Reg(T)",
)
ax.plot(
    dims, after_d, marker="s", color=lib.PALETTE[1], label="…of which after forcing"
)
grid = np.geomspace(dims[0], dims[-1], 50)
ax.plot(grid, intercept + slope * np.log(grid), "k--", lw=1, label="fit a + b log d")
ax.plot(
    grid, reg_d[0] * np.sqrt(grid / dims[0]), "k:", lw=1, label=r"$\propto\sqrt{d}$"
)
ax.set_xscale("log")
ax.set_ylim(0, 2.5 * reg_d.max())
ax.set_xlabel("ambient dimension d (log scale)")
ax.set_ylabel(f"cumulative regret at T = {horizon}")
ax.legend()
lib.show(fig)

# %% [markdown]
# ## What we reproduced
#
# Each claim compares means over the replicates (averaged before any threshold). The levels
# were fixed from the shape of the regret curves, not tuned to the seed sweep: "linear" means a
# second-half regret rate above $0.1\, r_{\mathrm{unif}}$ and at least half of the first-half rate;
# "flattens" means a second-half rate below a quarter of the first-half rate (a regret of
# $c \log t$ has a ratio of $\log 2 / \log(T/2) \approx 0.11$, and forced rounds make it smaller).
# For the dimension, a regret $a + b\log d$ with $a, b \ge 0$ has a power-law exponent below
# $1/\log d_{\min}$ on our grid, while $\sqrt d$ has exponent $0.5$; we ask for an exponent below
# $0.5$ and for $\mathrm{Reg}(T)/\log d$ not to grow by more than 10% from $d_{\min}$ to
# $d_{\max}$ (the standard error of each mean is about 3–5%).

# %%
claims = lib.Claims("sparse-lasso-bandits", paper="lee2025lasso")
claims.add(
    "The coordinate-descent Lasso meets its optimality (KKT) conditions "
    "(max violation / lambda)",
    kkt_gap,
    "(implementation check)",
    kkt_gap < 1e-6,
    fmt="{:.0e}",
)
final = {s: summary[s]["cum"].mean(1) for s in runs}
ratio_b = final["B"][0] / final["B"][[1, 3]].min()
claims.add(
    "Setting B (fixed suboptimal arms): FS-WLasso's mean final regret is below greedy "
    "Lasso's and ESTC-like's (FS-WLasso / the better of the two)",
    ratio_b,
    "FS-WLasso lowest regret, Fig. 2",
    ratio_b < 1,
    fmt="{:.2f}",
)
first_b, last_b = summary["B"]["first"], summary["B"]["last"]
linear = (last_b[1:] > 0.1) & (last_b[1:] >= 0.5 * first_b[1:])
worst = 1 + np.argmax(last_b[1:])
claims.add(
    "Setting B: a baseline's regret grows linearly (2nd-half rate > 0.1 r_unif and "
    ">= half its 1st-half rate), while FS-WLasso's flattens (2nd-half rate < 1/4 of "
    "its 1st-half rate)",
    f"{names[worst]}: {last_b[worst]:.2f} r_unif; "
    f"FS-WLasso {last_b[0] / first_b[0]:.2f}",
    "baselines linear, FS-WLasso sublinear (Fig. 2)",
    bool(linear.any()) and last_b[0] < 0.25 * first_b[0],
)
growth = (reg_d[-1] / log_d[-1]) / (reg_d[0] / log_d[0])
claims.add(
    f"FS-WLasso's regret grows at most like log d over d = {dims[0]}..{dims[-1]} "
    "(power-law exponent < 0.5 and Reg(T)/log d grows < 10%)",
    f"exponent {gamma:.2f}, Reg/log d ratio {growth:.2f}",
    "O(poly log dT) regret (Thm. 1)",
    gamma < 0.5 and growth < 1.1,
)
ratio_a = final["A"][0] / final["A"][1:].min()
claims.add(
    "Setting A (fresh correlated contexts): FS-WLasso has the lowest mean final regret "
    "(FS-WLasso / best baseline)",
    ratio_a,
    "FS-WLasso lowest regret, Fig. 2",
    ratio_a < 1,
    fmt="{:.2f}",
    expect=False,
)
diff_th = summary["B"]["cum"][0] - summary["B"]["cum"][2]  # paired, per replicate
share_th = (diff_th < 0).mean()
claims.add(
    "Setting B: FS-WLasso's final regret is below TH-Lasso's on a clear majority of "
    "the paired replicates (share of replicates > 0.75)",
    share_th,
    "FS-WLasso lowest regret, Fig. 2",
    share_th > 0.75,
    fmt="{:.2f}",
    expect=False,
)
claims.report()

# %% [markdown]
# ## How this compares with the paper
#
# | | paper {cite:p}`lee2025lasso` | this chapter |
# |---|---|---|
# | Assumption | compatibility of the optimal arm's Gram matrix + margin | the same, checked on a fixed-arm example ({prf:ref}`slb-prop-fixed`) |
# | Algorithm | FS-WLasso; forced rule, $w$, $\lambda_t$ from the theorem | uniform forcing, $M_0 = \lceil 4 s_0\log d\rceil$, $w=\sqrt{T/M_0}$, our $\lambda_t$ (inferred) |
# | Regret bound | $O(\mathrm{poly}\log dT)$ | regret at $T$ follows $a + b\log d$ for $d$ from 25 to 400 |
# | Fixed suboptimal arms | baselines look linear, FS-WLasso lowest | partly: greedy Lasso linear, FS-WLasso below greedy Lasso and ESTC-like, but **level with TH-Lasso** on a typical replicate (not reproduced; FS-WLasso's mean is lower through TH-Lasso's tail) |
# | Correlated Gaussian contexts | FS-WLasso lowest | **not reproduced**: greedy Lasso is lower; FS-WLasso pays $\approx M_0\, r_{\mathrm{unif}}$ for forcing |
# | Baselines | Lasso bandit, DR-Lasso, SA-Lasso, TH-Lasso, ESTC (per notes) | SA-Lasso (greedy), TH-Lasso, ESTC-like |
# | Scale | not known to us | $d = 100$, $s_0 = 5$, $K = 10$, $T = 1000$, 24 replicates in setting A, 48 in setting B |
#
# Where FS-WLasso's theory bites, it works as the paper says: in setting B the fixed arms break
# the diversity that greedy Lasso needs; greedy Lasso latches onto a fixed arm in a share of the
# replicates, rarely tries the fresh arm when it is optimal, and its regret keeps growing at a
# constant rate. FS-WLasso, after its random phase, keeps refitting, its regret flattens, and it
# ends below greedy Lasso and below explore-then-commit with the same forced rounds, whose frozen
# estimate leaves a small constant rate of regret: the refitting in the greedy phase, not the
# forcing alone, does the work.
#
# One baseline we expected to fail did not. TH-Lasso escapes the trap more often than any other
# method: it plays least squares on the coordinates it keeps, which does not shrink the estimate
# towards the repeated fixed arm the way the Lasso does, so the fresh arm's estimated value is not
# damped and it gets tried when it is good. On a typical replicate of setting B, TH-Lasso and
# FS-WLasso end level: FS-WLasso is ahead on about half of the paired replicates, so "FS-WLasso has
# the lowest regret" is recorded as not reproduced against TH-Lasso. TH-Lasso's regret has a
# heavy upper tail, though (the replicates in which it does get trapped), and that tail puts its
# *mean* above FS-WLasso's: in a separate run of 192 replicates (seed 100, not one of the seeds
# 0–9) the paired difference FS-WLasso − TH-Lasso was −47 ± 14 on average (ratio of means 0.79)
# while its median was +5 and FS-WLasso was ahead on 47% of the replicates. With 48 replicates
# the mean difference is only about two standard errors, so a "mean lower by two paired s.e."
# check flips with the seed (it held on seeds 3 and 7 of 0–9; with 24 replicates on seed 6 only).
# We therefore check the share of replicates won, which is stable: 0.40–0.60 over the four
# 48-replicate blocks of that run, against a binomial standard deviation of 0.07; the threshold
# 0.75 is 0.5 plus 3.5 such deviations. The paper's mean curves may show FS-WLasso lowest for this
# tail reason. Setting B uses 48 replicates (setting A 24) for the same reason: with 24, the share
# of replicates in which greedy Lasso is trapped varied enough across seeds that its second-half
# rate fell to 0.09 $r_{\mathrm{unif}}$ on one seed; with 48 it ranged over 0.13–0.26.
# In setting A TH-Lasso pays for a slow start instead: its threshold $4\lambda_t$ exceeds the true coefficients for the first
# hundreds of rounds, so it starts from an empty support.
#
# In setting A the earlier assumptions hold, and the paper's own Theorem 2 says pure greedy is
# then enough. Forcing is pure cost there: $M_0 = 93$ random rounds cost about $M_0 r_{\mathrm{unif}}$,
# more than greedy Lasso's whole regret. We did not find FS-WLasso lowest in setting A, and we
# record that claim as not reproduced. A shorter forced phase narrows the gap (see Try it) but we
# chose $M_0$ from the theorem's $s_0\log d$ form before running, and tuning it per setting would
# need knowledge of which setting one is in. The paper's plots may use a smaller $M_0$, other
# context distributions or other baselines' tuning; their constants were not available to us.
#
# ## Try it
#
# * `-p forced_factor=1.0` ($M_0 = 24$ instead of 93): the forced phase costs about
#   $M_0 r_{\mathrm{unif}}$, so FS-WLasso's regret in setting A falls towards greedy Lasso's
#   (seed 0: 153 → 59, greedy Lasso 43). Setting B's table shows what the shorter random phase
#   costs there: FS-WLasso's second-half rate rises from 0.03 to about 0.11 $r_{\mathrm{unif}}$.
# * `-p horizon=2000`: greedy Lasso's per-round rate in setting B does not fall (about
#   0.26 $r_{\mathrm{unif}}$ in the second half), while FS-WLasso's stays near 0.03, so the gap
#   in cumulative regret widens (seed 0: 244 against 829), as {prf:ref}`slb-thm-regret` and the
#   trap argument predict.
# * `-p tau_factor=0.03` ($w \approx 0.6$, forced rounds down-weighted): the weight is there to
#   keep the forced information from being diluted by the greedy rounds. At this scale the
#   effect is small: FS-WLasso's regret in setting B moves from 185 to 187 and its second-half
#   rate from 0.031 to 0.034 $r_{\mathrm{unif}}$ (seed 0), within one standard error.
