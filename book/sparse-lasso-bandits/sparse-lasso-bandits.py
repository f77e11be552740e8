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
# Lasso baselines in three settings: one where the earlier assumptions hold (A), and two with
# fixed arms where they fail, one in which a fixed arm is usually optimal (B, a trap for
# greedy learners) and one in which the fixed arms are suboptimal (C, the paper's instance as
# its description reads). We also measure how FS-WLasso's regret after its forced phase grows
# with $d$. The defaults ($d = 100$, $T = 1000$; 24 problems in A, 48 + 128 in B, 24 in C;
# five dimensions up to 400) run in under a minute on two CPU cores;
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
# assumptions hold (setting A) and when they fail (settings B and C); (ii) with fixed arms, do
# baselines that rely on diversity suffer linear regret while FS-WLasso's flattens; (iii) does
# FS-WLasso's regret after its forced phase grow at most logarithmically in $d$.
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
# that shows it is the one we simulate in settings B and C.
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
# Why greedy can fail here, when a fixed arm is the best one in most rounds: if its first
# estimates make a fixed arm look best, it plays that arm again and again. A single repeated
# vector $v$ teaches the Lasso one number, $v^\top\beta^\star$, and the $\ell_1$ penalty explains
# it with one coordinate, $\hat\beta \approx (v^\top\beta^\star / v_j) e_j$ with
# $j = \arg\max_j |v_j|$. With $|v_j| \approx$ {glue:}`v_max` for $d = 100$ (measured below), the
# fresh arm's estimated value
# $x_{t,1,j}\, v^\top\beta^\star / v_j$ rarely beats $v^\top\beta^\star$, so the fresh arm is rarely tried,
# even in the rounds where it is optimal, and nothing new is learned: linear regret.
#
# ```{prf:definition} FS-WLasso (forced sampling, then greedy on a weighted Lasso)
# :label: slb-def-fswlasso
#
# Parameters $M_0$ (forced rounds), a weight $w > 0$ ($w > 1$ up-weights the forced rounds)
# and a schedule $\lambda_t$.
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
#   ({glue:}`M0` at $d = 100$): the theorem's $\log d$ dependence, with our constant.
# * **Weight** $w = \sqrt{\tau/M_0}$ with $\tau = T$, the largest value the derivation above
#   allows without loss.
# * **Penalty** $\lambda_t = \lambda_0\, \sigma \sqrt{\log d \sum_{s \le t} \omega_s^2}\,/\,t$ with
#   $\lambda_0 = 1$: the standard deviation of the weighted noise term, times $\sqrt{\log d}$. All
#   Lasso methods use the same schedule (with $\omega_s = 1$ when there are no forced rounds).
# * The Lasso is refitted every 10 rounds (and at the end of forced sampling), not every round,
#   warm-started, to a KKT violation of at most $10^{-3}\lambda_t$. Greedy choices break ties
#   between arms at random (every arm scores 0 while an estimate is 0, as at the start).
# * **Settings.** $K = 10$ arms; contexts $\mathcal N(0, \Sigma)$ with $\Sigma_{ij} = 0.5^{|i-j|}$;
#   $\beta^\star$ has $s_0 = 5$ entries uniform on $[-1, 1]$ at random positions, scaled to unit
#   norm; noise $\mathcal N(0, 0.5^2)$; $d = 100$, $T = 1000$. A: every arm fresh each round.
#   B: arm 1 fresh, arms $2..K$ fixed, drawn once per problem from the same distribution
#   ({prf:ref}`slb-prop-fixed`); one fixed arm is then optimal in most rounds, so B is a trap
#   for greedy learners, not the paper's instance. C: as B, with the fixed arms moved along
#   $\beta^\star$ until the best of them is one standard deviation of $x_{t,1}^\top\beta^\star$
#   below the fresh arm's mean: the fixed arms are the suboptimal ones, as the paper describes
#   its Fig. 2(ii), and the fresh arm is optimal in most rounds.
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
# up to a constant, with $Q = G_t/t$ and $c = b_t/t$. A proximal-gradient step on it,
# $\beta \leftarrow \mathrm{soft}(\beta + \eta\,(c - Q\beta),\ \eta\lambda)$, costs one mat-vec
# whatever the number of samples, so all methods and replicates run as one batch of
# mat-vecs, and the solution is certified by the Lasso's optimality (KKT) conditions.

# %% tags=["parameters"]
seed = 0
control = "none"  # or a deliberately wrong variant named in controls.yaml
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
pool_replicates = 128  # extra setting-B problems for the four methods, paired
n_replicates_c = 24  # problems in setting C
fixed_margin = 1.0  # setting C: best fixed arm this many sd below the fresh arm's mean
forced_sweep = [0.5, 1.0]  # other forced_factor values run beside the default
dims = [25, 50, 100, 200, 400]  # d grid of the dimension scan (FS-WLasso only)
dim_replicates = 8  # problems per d in the dimension scan, setting A
dim_replicates_b = 8  # problems per d in the dimension scan, setting B

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

from typing import NamedTuple

import numpy as np
from myst_nb import glue
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
lib.check_int("dim_replicates_b", dim_replicates_b, low=4)
lib.check_int("pool_replicates", pool_replicates, low=0)
lib.check_int("n_replicates_c", n_replicates_c, low=4)
lib.check_float("fixed_margin", fixed_margin, low=-3.0, high=3.0)
for f in forced_sweep:
    lib.check_float("forced_sweep entry", f, low=0.0, low_open=True)
control = lib.check_control("sparse-lasso-bandits", control)


def forced_rounds(d, factor=None):
    factor = forced_factor if factor is None else factor
    return int(np.ceil(factor * sparsity * np.log(d)))


longest = max(
    forced_rounds(max(dim, *dims)), forced_rounds(dim, max(forced_sweep, default=0))
)
if longest >= horizon // 2:
    raise ValueError(
        f"parameters `forced_factor`, `forced_sweep` = {forced_factor!r}, "
        f"{forced_sweep!r} are invalid: the longest forced phase "
        f"({longest} rounds) must end before horizon / 2"
    )
n_rep_max = max(n_replicates, n_replicates_b, n_replicates_c)
n_methods = 5 + len(forced_sweep)
gram_bytes = (
    8
    * 3
    * max(
        n_methods * n_rep_max * dim**2,
        4 * pool_replicates * dim**2,
        max(dim_replicates, dim_replicates_b) * max(dims) ** 2,
    )
)
if gram_bytes > 8e9:
    raise ValueError(
        f"parameters `n_replicates(_b)`, `dim`, `dims`: the Gram matrices need "
        f"{gram_bytes / 1e9:.0f} GB (limit 8 GB); lower them"
    )
rng, device = lib.setup(seed, device)
tie_rng = np.random.default_rng([seed, 1])  # its own stream: problems stay the same


# %% [markdown]
# The solver. `Q` is a batch of matrices $G_t/t$, one per (method, replicate), and `beta`
# the warm start. Each pass computes the KKT violations of the whole batch with one batched
# mat-vec, gathers for every problem its working set (its non-zero coordinates and those that
# violate the optimality conditions, padded to the largest set in the batch), and solves the
# problem restricted to that set by FISTA, accelerated proximal gradient with adaptive restart,
# in which each step is one batched mat-vec and a soft-threshold. A pass ends when every
# problem meets the conditions to `tol` times its $\lambda$; the next pass checks the full
# problem again. Under the control `ridge`, the same calls return the ridge estimate
# $(Q + \lambda I)^{-1} c$ instead: no $\ell_1$ penalty, no sparsity.

# %%
def soft_threshold(z, lam):
    return np.sign(z) * np.maximum(np.abs(z) - lam, 0.0)


def matvec(Q, v):
    return (Q @ v[..., None])[..., 0]


def kkt_violations(Q, c, lam, beta):
    """Per coordinate: how far beta is from the Lasso's optimality conditions, / lam."""
    grad = c - matvec(Q, beta)
    off = np.maximum(np.abs(grad) - lam[:, None], 0.0)
    on = np.abs(grad - lam[:, None] * np.sign(beta))
    return np.where(beta != 0, on, off) / lam[:, None]


def fista(Q, c, lam, x, tol, max_iter, check=10):
    # step 1 / L with L >= the largest eigenvalue of Q: the smaller of Q's trace and its
    # largest absolute row sum, both upper bounds for a positive semi-definite matrix
    lipschitz = np.minimum(np.trace(Q, axis1=1, axis2=2), np.abs(Q).sum(2).max(1))
    step = 1.0 / (lipschitz + 1e-12)[:, None]
    y, t, lam_c = x.copy(), np.ones((len(x), 1)), lam[:, None]
    for _ in range(0, max_iter, check):
        for _ in range(check):
            x_new = soft_threshold(y + step * (c - matvec(Q, y)), step * lam_c)
            t_new = (1 + np.sqrt(1 + 4 * t**2)) / 2
            restart = ((y - x_new) * (x_new - x)).sum(1, keepdims=True) > 0
            y = np.where(restart, x_new, x_new + (t - 1) / t_new * (x_new - x))
            t, x = np.where(restart, 1.0, t_new), x_new
        if kkt_violations(Q, c, lam, x).max() <= tol:
            break
    return x


def lasso_fit(Q, c, lam, beta, tol=1e-3, max_iter=5000, max_passes=30):
    """Batched min_b 1/2 b'Qb - c'b + lam |b|_1, warm-started at `beta`."""
    if control == "ridge":  # the l1 penalty replaced by (lam / 2) |b|^2
        eye = np.eye(Q.shape[-1])
        return np.linalg.solve(Q + lam[:, None, None] * eye, c[..., None])[..., 0]
    rows = np.arange(len(Q))[:, None]
    for _ in range(max_passes):
        viol = kkt_violations(Q, c, lam, beta)
        if viol.max() <= tol:
            break
        work = (beta != 0) | (viol > tol)
        idx = np.argsort(~work, axis=1, kind="stable")[:, : work.sum(1).max()]
        valid = np.take_along_axis(work, idx, 1)
        Qw = Q[rows[:, :, None], idx[:, :, None], idx[:, None, :]]
        Qw *= valid[:, :, None] & valid[:, None, :]
        cw = np.take_along_axis(c, idx, 1) * valid
        bw = np.take_along_axis(beta, idx, 1) * valid
        bw = fista(Qw, cw, lam, bw, tol / 2, max_iter)
        beta = np.zeros_like(beta)
        np.put_along_axis(beta, idx, bw * valid, 1)
    return beta


# %% [markdown]
# A quick check of the solver against the Lasso's optimality conditions (KKT) on random
# problems: $|c_j - (Q\beta)_j| \le \lambda$ everywhere, with equality and the sign of $\beta_j$
# where $\beta_j \neq 0$.

# %%
Xk = lfilter([1.0], [1.0, -0.5], rng.standard_normal((8, 60, 2 * dim)), axis=-1)
Qk = np.einsum("bni,bnj->bij", Xk, Xk) / 60
ck = np.einsum("bni,bn->bi", Xk, Xk[:, :, :3].sum(-1) + rng.standard_normal((8, 60)))
lam_k = np.full(8, 0.1)
beta_k = lasso_fit(Qk, ck / 60, lam_k, np.zeros((8, 2 * dim)), tol=1e-9, max_iter=50000)
kkt_gap = kkt_violations(Qk, ck / 60, lam_k, beta_k).max()
kkt_order = 10.0 ** np.ceil(np.log10(kkt_gap))  # printed as a bound: CPU-independent
print(f"KKT violation / lambda with n = 60 < d = {2 * dim}: below {kkt_order:.0e}")


# %% [markdown]
# The bandit loop. Contexts come from an AR(1) filter, which has exactly the covariance
# $\rho^{|i-j|}$ and uses no BLAS, so every CPU draws the same numbers. Each method is a
# `Method` (forced rounds, weight, mode): `"lasso"` refits on all data, `"frozen"` stops fitting
# when the forced rounds end (ESTC-like; after its first fit if it has no forced rounds),
# `"thresh"` plays least squares on the coordinates where the Lasso is at least
# `threshold_factor` $\cdot\lambda_t$ (TH-Lasso). In setting C, `make_problem` moves the fixed
# arms along $\beta^\star$ by the amount that puts the best of them `fixed_margin` standard
# deviations of the fresh arm's mean reward below zero. All methods in a batch see the same
# contexts, noise and forced-arm draws.

# %%
def draw_contexts(shape):
    z = rng.standard_normal(shape)
    z[..., 0] /= np.sqrt(1 - feature_corr**2)  # stationary start: unit variance
    return lfilter([np.sqrt(1 - feature_corr**2)], [1.0, -feature_corr], z, axis=-1)


def make_problem(d, n_rep, setting):
    beta_star = np.zeros((n_rep, d))
    for r in range(n_rep):
        support = rng.choice(d, sparsity, replace=False)
        beta_star[r, support] = rng.uniform(-1, 1, sparsity)
    beta_star /= np.linalg.norm(beta_star, axis=1, keepdims=True)
    fixed = draw_contexts((n_rep, n_arms - 1, d))  # fixed arms of settings B and C
    if setting == "C":  # move them along beta_star, below the fresh arm's mean
        lag = np.abs(np.subtract.outer(np.arange(d), np.arange(d)))
        sd = np.sqrt(np.einsum("ri,ij,rj->r", beta_star, feature_corr**lag, beta_star))
        best = np.einsum("rkd,rd->rk", fixed, beta_star).max(1)
        fixed -= (best + fixed_margin * sd)[:, None, None] * beta_star[:, None, :]
    return beta_star, fixed


class Method(NamedTuple):
    forced: int  # M0, rounds of uniform forced sampling
    weight: float  # w, the weight of the forced rounds in the Lasso
    mode: str  # "lasso", "frozen" or "thresh"


fit_gap = []  # KKT violation / lambda of every batched refit in the bandit runs


def run_bandits(setting, d, methods, n_rep, desc=""):
    """Per-round regret [method, replicate, round] and diagnostics for one setting."""
    A, R, T = len(methods), n_rep, horizon
    forced = np.array([m.forced for m in methods])
    weight = np.array([m.weight for m in methods], float)
    mode = np.array([m.mode for m in methods])
    beta_star, fixed_arms = make_problem(d, R, setting)
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
        if setting in ("B", "C"):
            X[:, :, 1:, :] = fixed_arms[None]
        mean = np.einsum("nrkd,rd->nrk", X, beta_star)
        y_all = mean + noise_sd * rng.standard_normal((n, R, n_arms))
        random_arm = rng.integers(0, n_arms, (n, R))
        xs, ys, ws = np.zeros((A, R, n, d)), np.zeros((A, R, n)), np.zeros((A, n))
        for i, t in enumerate(range(start, end)):
            score = np.einsum("rkd,ard->ark", X[i], play)
            top = score == score.max(-1, keepdims=True)  # ties broken at random
            greedy = np.where(top, tie_rng.random(score.shape), -1.0).argmax(-1)
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
        if control == "lambda-x30":
            lam = 30 * lam
        # "frozen" fits up to the end of its forced phase (at least once), then stops
        refit = (mode != "frozen") | (end <= np.maximum(forced, refit_every))
        if refit.any():
            Q, c = (G[refit] / end).reshape(-1, d, d), (b[refit] / end).reshape(-1, d)
            lam_b = np.repeat(lam[refit], R)
            new = lasso_fit(Q, c, lam_b, fit[refit].reshape(-1, d))
            fit_gap.append(kkt_violations(Q, c, lam_b, new).max())
            fit[refit] = new.reshape(-1, R, d)
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
# Four methods, three settings, the same problems for every method. FS-WLasso's weight is
# $w = \sqrt{\tau/M_0}$. Beside them run, on the same problems of settings A and B, FS-WLasso
# with $w = 1$ (the forced rounds not up-weighted) and FS-WLasso with the other forced-phase
# lengths of `forced_sweep`.

# %%
def fs_wlasso(d, factor=None, weighted=True):
    """FS-WLasso as a Method, as the control leaves it."""
    m0 = 0 if control == "no-forcing" else forced_rounds(d, factor)
    w = np.sqrt(tau_factor * horizon / max(m0, 1)) if weighted else 1.0
    return Method(m0, w, "lasso")


M0 = forced_rounds(dim)
METHODS = {
    "FS-WLasso": fs_wlasso(dim),
    "Greedy Lasso (SA-Lasso)": Method(
        0, 1.0, "frozen" if control == "greedy-frozen" else "lasso"
    ),
    "TH-Lasso": Method(0, 1.0, "thresh"),
    "ESTC-like": Method(M0, 1.0, "frozen"),
    "FS-Lasso, w = 1": fs_wlasso(dim, weighted=False),
}
for f in forced_sweep:
    METHODS[f"FS-WLasso, factor {f:g}"] = fs_wlasso(dim, f)
names = list(METHODS)
main = names[:4]  # the four methods compared in every setting
w = METHODS["FS-WLasso"].weight
print(
    f"d = {dim}, s0 = {sparsity}, K = {n_arms}, T = {horizon}: M0 = {M0}, w = {w:.2f}"
)
clock = time.perf_counter()
n_reps = {"A": n_replicates, "B": n_replicates_b, "C": n_replicates_c}
batch = {s: list(METHODS.values()) for s in ("A", "B")}
batch["C"] = [METHODS[name] for name in main]
runs = {
    s: run_bandits(s, dim, batch[s], n_reps[s], desc=f"setting {s}")
    for s in ("A", "B", "C")
}
print(
    f"{len(names)} x ({n_replicates} + {n_replicates_b}) + 4 x {n_replicates_c} "
    f"bandit runs: {time.perf_counter() - clock:.1f} s wall-clock"
)

# %% [markdown]
# The table gives the final regret $\mathrm{Reg}(T)$ (mean ± one standard error over the
# replicates), the part of it paid after the forced phase, and the mean regret per round in
# the first and the second half of the horizon, in units of $r_{\mathrm{unif}}$, the per-round
# regret of picking arms at random. A method with $\log T$-type regret has a second-half rate
# far below its first-half rate; a method with linear regret has the two about equal.

# %%
half = horizon // 2
summary = {}
for s, run in runs.items():
    r_unif = run["uniform"].mean()
    cum = run["regret"].sum(-1)  # [method, replicate]
    after = np.array(
        [run["regret"][a, :, m.forced :].sum(-1) for a, m in enumerate(batch[s])]
    )
    first = run["regret"][:, :, :half].mean((1, 2)) / r_unif
    last = run["regret"][:, :, half:].mean((1, 2)) / r_unif
    summary[s] = dict(cum=cum, after=after, first=first, last=last, r_unif=r_unif)
    print(f"setting {s}: r_unif = {r_unif:.2f} per round")
    for a, name in enumerate(names[: len(batch[s])]):
        mean, se = cum[a].mean(), cum[a].std(ddof=1) / np.sqrt(n_reps[s])
        print(
            f"  {name:>24}: Reg(T) = {mean:6.1f} ± {se:4.1f}, after forcing "
            f"{after[a].mean():6.1f} | rate {first[a]:.3f} -> {last[a]:.3f} r_unif"
        )

# %% [markdown]
# {numref}`fig-sparse-lasso-bandits-regret` shows how the regret of the four methods
# accumulates over the rounds in the three settings.

# %% mystnb={"figure": {"caption": "Cumulative regret against the round (mean over the replicates, band \u00b12 standard errors). Left, setting A (all arms fresh); middle, setting B (all but one arm fixed, one fixed arm usually optimal); right, setting C (the fixed arms moved below the fresh arm's mean). The dotted vertical line is the end of the forced phase.", "name": "fig-sparse-lasso-bandits-regret"}} tags=["hide-input"]
titles = {
    "A": "A: all arms fresh",
    "B": "B: fixed arms, one usually optimal",
    "C": "C: fixed arms suboptimal",
}
fig, axes = lib.subplots(1, 3, width=12.0)
rounds = np.arange(1, horizon + 1)
for ax, (s, run) in zip(axes, runs.items()):
    cum = run["regret"].cumsum(-1)
    for a, name in enumerate(main):
        mean = cum[a].mean(0)
        se = cum[a].std(0, ddof=1) / np.sqrt(n_reps[s])
        ax.plot(rounds, mean, color=lib.PALETTE[a], label=name)
        ax.fill_between(
            rounds, mean - 2 * se, mean + 2 * se, color=lib.PALETTE[a], alpha=0.2
        )
    ax.axvline(M0, color="0.5", ls=":", lw=1)
    ax.set_xlabel("round t")
    ax.set_title(titles[s])
    ax.set_ylim(0, None)
axes[0].set_ylabel("cumulative regret")
axes[1].legend(loc="upper left")
lib.show(fig)

# %% [markdown]
# Why the baselines fail in setting B is visible in the arms they pull. In setting B the
# fresh arm is the optimal one only in the share $p$ of {prf:ref}`slb-prop-fixed` of the
# rounds, {glue:}`fresh_share_B`% here; in setting C it is optimal in {glue:}`fresh_share_C`%.
# In those rounds, how often does each method pick it?

# %%
for s in ("B", "C"):
    run = runs[s]
    fresh_best = run["best_arm"][:, half:] == 0  # [replicate, round], second half
    picked = (run["arms"][:4, :, half:] == 0) & fresh_best[None]
    found = picked.sum((1, 2)) / fresh_best.sum()
    fresh_share = (run["best_arm"] == 0).mean()
    glue(f"fresh_share_{s}", round(100 * float(fresh_share), 1), display=False)
    print(f"setting {s}: the fresh arm is optimal in {fresh_share:.1%} of the rounds")
    for name, f in zip(main, found):
        print(f"  {name:>24} picks it in {f:.0%} of those rounds (second half)")
v_max = np.abs(make_problem(dim, 64, "B")[1]).max(-1).mean()
glue("v_max", round(float(v_max), 1), display=False)
print(f"largest |coordinate| of a fixed arm, d = {dim}: {v_max:.1f} on average")


# %% [markdown]
# In setting B a trapped replicate has a large regret, so the spread over problems is wide, and
# we compare the four methods on `pool_replicates` further problems of setting B as well,
# paired with the main run's: on each problem, the difference between FS-WLasso's regret and
# a baseline's, with the standard error of the mean difference.

# %%
def paired(a, b):
    """Mean and standard error of the paired differences a - b."""
    diff = a - b
    return diff.mean(), diff.std(ddof=1) / np.sqrt(diff.size)


cum_b = summary["B"]["cum"][:4]
if pool_replicates:
    pool_methods = [METHODS[name] for name in main]
    pooled = run_bandits("B", dim, pool_methods, pool_replicates, desc="pooled B")
    cum_b = np.concatenate([cum_b, pooled["regret"].sum(-1)], axis=1)
n_pool = cum_b.shape[1]
pair_b = {}
print(f"{n_pool} paired problems of setting B: FS-WLasso {cum_b[0].mean():.1f}")
for a in (1, 2, 3):
    pair_b[a] = paired(cum_b[0], cum_b[a])
    diff = cum_b[0] - cum_b[a]
    print(
        f"  {main[a]:>24}: {cum_b[a].mean():6.1f}, ratio of means "
        f"{cum_b[0].mean() / cum_b[a].mean():.2f}, FS-WLasso - it "
        f"{pair_b[a][0]:7.1f} ± {pair_b[a][1]:4.1f} (median {np.median(diff):6.1f}, "
        f"FS-WLasso lower on {(diff < 0).mean():.0%})"
    )
diff_th = cum_b[0] - cum_b[2]
for a, key in ((1, "greedy"), (3, "estc")):
    glue(f"diff_{key}_B", round(float(pair_b[a][0]), 1), display=False)
    glue(f"diff_{key}_se_B", round(float(pair_b[a][1]), 1), display=False)
for k, v in dict(
    n_pool=n_pool,
    ratio_th=round(float(cum_b[0].mean() / cum_b[2].mean()), 2),
    diff_th=round(float(pair_b[2][0]), 1),
    diff_se=round(float(pair_b[2][1]), 1),
    z_th=round(float(pair_b[2][0] / pair_b[2][1]), 1),
    median_th=round(float(np.median(diff_th)), 1),
    share_th=round(100 * float((diff_th < 0).mean())),
).items():
    glue(k, v, display=False)

# %% [markdown]
# Setting C is where the paper's description of its Fig. 2(ii) puts the fixed arms: below the
# fresh arm. There the arm a greedy learner plays most is the fresh one, whose contexts are
# diverse, so greedy Lasso's own data carry the curvature the Lasso needs and nothing traps
# it. FS-WLasso pays for its $M_0$ forced rounds at about the rate of random play; we split
# each method's regret at round $M_0$.

# %%
reg_c = runs["C"]["regret"]  # [method, replicate, round]
forced_c = reg_c[:, :, :M0].sum(-1)
after_c = reg_c[:, :, M0:].sum(-1)
r_unif_c = summary["C"]["r_unif"]
print(
    f"setting C, {n_replicates_c} problems, rounds 1..{M0} (FS-WLasso's forced phase) "
    f"and {M0 + 1}..{horizon}; random play costs {r_unif_c:.2f} a round"
)
for a, name in enumerate(main):
    print(
        f"  {name:>24}: Reg(T) = {reg_c[a].sum(-1).mean():6.1f}, rounds <= M0 "
        f"{forced_c[a].mean():6.1f}, after {after_c[a].mean():5.1f}"
    )
pair_c = paired(summary["C"]["cum"][0], summary["C"]["cum"][1])
pair_c_after = paired(after_c[0], after_c[1])
print(
    f"FS-WLasso - greedy Lasso, paired: whole horizon {pair_c[0]:.1f} ± "
    f"{pair_c[1]:.1f}, after round {M0} {pair_c_after[0]:.2f} ± {pair_c_after[1]:.2f}"
)
for k, v in dict(
    fs_C=summary["C"]["cum"][0].mean(),
    greedy_C=summary["C"]["cum"][1].mean(),
    th_C=summary["C"]["cum"][2].mean(),
    estc_C=summary["C"]["cum"][3].mean(),
    ratio_C=summary["C"]["cum"][0].mean() / summary["C"]["cum"][1].mean(),
    diff_C=pair_c[0],
    diff_se_C=pair_c[1],
    detect_C=2 * pair_c[1],
    forced_fs_C=forced_c[0].mean(),
    forced_greedy_C=forced_c[1].mean(),
    forced_unif_C=M0 * r_unif_c,
    after_fs_C=after_c[0].mean(),
    after_greedy_C=after_c[1].mean(),
    after_diff_C=pair_c_after[0],
    after_diff_se_C=pair_c_after[1],
).items():
    glue(k, round(float(v), 1), display=False)

# %% [markdown]
# How much of FS-WLasso's regret is the forced phase, and what do the weight and the forced
# phase's length change (settings A and B)? The forced rounds cost about $r_{\mathrm{unif}}$
# each whatever the setting; what they buy shows after them.

# %%
sweep_rows = [0] + [names.index(f"FS-WLasso, factor {f:g}") for f in forced_sweep]
sweep_m0 = np.array([METHODS[names[a]].forced for a in sweep_rows])
order = np.argsort(sweep_m0)
sweep_rows, sweep_m0 = np.array(sweep_rows)[order], sweep_m0[order]
for s in ("A", "B"):
    cum, after = summary[s]["cum"], summary[s]["after"]
    print(f"setting {s}: greedy Lasso (M0 = 0) {cum[1].mean():.1f}")
    for a, m0 in zip(sweep_rows, sweep_m0):
        print(
            f"  M0 = {m0:3d}: Reg(T) = {cum[a].mean():6.1f}, after forcing "
            f"{after[a].mean():6.1f}"
        )
    for a in (0, 4):
        print(
            f"  {names[a]:>16}: Reg(T) = {cum[a].mean():6.1f} ± "
            f"{cum[a].std(ddof=1) / np.sqrt(n_reps[s]):4.1f}"
        )
    dw = cum[0] - cum[4]
    print(
        f"  weighted - unweighted, paired: {dw.mean():.1f} ± "
        f"{dw.std(ddof=1) / np.sqrt(dw.size):.1f}"
    )
    glue(f"w_diff_{s}", round(float(dw.mean()), 1), display=False)
    glue(
        f"w_diff_se_{s}",
        round(float(dw.std(ddof=1) / np.sqrt(dw.size)), 1),
        display=False,
    )
    glue(f"greedy_{s}", round(float(cum[1].mean()), 1), display=False)
    glue(f"fs_{s}", round(float(cum[0].mean()), 1), display=False)
    glue(f"fs_after_{s}", round(float(after[0].mean()), 1), display=False)
glue("M0", int(M0), display=False)
sweep_best = (
    summary["A"]["cum"][sweep_rows].mean(1).min() / summary["A"]["cum"][1].mean()
)
glue("sweep_best_A", round(float(sweep_best), 2), display=False)
m0_break = summary["A"]["cum"][1].mean() / summary["A"]["r_unif"]
glue("m0_break_A", int(np.ceil(m0_break)), display=False)  # forcing alone costs more
glue("w", round(float(w), 2), display=False)
glue("M0_short", forced_rounds(dim, 1.0), display=False)
glue("w_small", round(float(np.sqrt(0.03 * horizon / M0)), 1), display=False)

# %% mystnb={"figure": {"caption": "FS-WLasso's regret at the horizon against the length M0 of its forced phase (mean \u00b12 standard errors), with the part paid after the forced phase (squares, dashed) and greedy Lasso's regret (M0 = 0, horizontal line). Left, setting A; right, setting B.", "name": "fig-sparse-lasso-bandits-m0"}} tags=["hide-input"]
fig, axes = lib.subplots(1, 2, width=10.0)
for ax, s in zip(axes, ("A", "B")):
    cum, after = summary[s]["cum"], summary[s]["after"]
    se = cum[sweep_rows].std(1, ddof=1) / np.sqrt(n_reps[s])
    ax.errorbar(
        sweep_m0,
        cum[sweep_rows].mean(1),
        yerr=2 * se,
        marker="o",
        capsize=3,
        color=lib.PALETTE[0],
        label="FS-WLasso, Reg(T)",
    )
    ax.plot(
        sweep_m0,
        after[sweep_rows].mean(1),
        marker="s",
        ls="--",
        color=lib.PALETTE[0],
        label="…after forcing",
    )
    ax.axhline(cum[1].mean(), color=lib.PALETTE[1], lw=1, label=names[1])
    ax.set_xlabel("forced rounds M0")
    ax.set_title(f"setting {s}")
    ax.set_ylim(0, None)
axes[0].set_ylabel(f"cumulative regret at T = {horizon}")
axes[0].legend()
lib.show(fig)


# %% [markdown]
# The compatibility on the optimal arm is what FS-WLasso needs; the dimension enters its
# penalty and its forced phase through $\log d$. We rerun FS-WLasso alone over a grid of
# dimensions, with $M_0 = \lceil 4 s_0 \log d\rceil$ growing as the theory asks, in settings
# A and B. The forced phase costs about $M_0\, r_{\mathrm{unif}}$ whatever the estimator, so it
# grows like $\log d$ by construction; the question is the regret *after* it, which is what the
# Lasso's $\log d$ sample complexity should keep flat.

# %%
def slope_of_means(x, y, n_boot=2000):
    """Slope of log(mean of y over replicates) against log x; its standard error
    from resampling the replicates of each x independently. y: [replicate, x]."""
    log_x = np.log(x) - np.log(x).mean()
    boot = np.random.default_rng(seed)
    picks = boot.integers(0, len(y), (n_boot, *y.shape))
    means = np.concatenate([y.mean(0)[None], y[picks, np.arange(len(x))].mean(1)])
    slopes = np.log(means) @ log_x / (log_x @ log_x)
    return slopes[0], slopes[1:].std(ddof=1)


clock = time.perf_counter()
scan = {}
reps_d = {"A": dim_replicates, "B": dim_replicates_b}
for s in ("A", "B"):
    for d in lib.progress(dims, enabled=progress, desc=f"dimensions, {s}"):
        method = fs_wlasso(d)
        run = run_bandits(s, d, [method], reps_d[s])
        reg, m0 = run["regret"][0], method.forced
        scan[s, d] = dict(
            total=reg.sum(-1),
            after=reg[:, m0:].sum(-1),
            uniform=run["uniform"][:, m0:].sum(-1),
        )
print(f"dimension scan: {time.perf_counter() - clock:.1f} s wall-clock")
reg_d, after_d, se_after, exps, vs_unif = {}, {}, {}, {}, {}
for s in ("A", "B"):
    reg_d[s] = np.array([scan[s, d]["total"].mean() for d in dims])
    after = np.array([scan[s, d]["after"] for d in dims]).T  # [replicate, d]
    after_d[s] = after.mean(0)
    se_after[s] = after.std(0, ddof=1) / np.sqrt(reps_d[s])
    exps[s] = slope_of_means(dims, after)
    unif = np.array([scan[s, d]["uniform"].mean() for d in dims])
    vs_unif[s] = after_d[s] / unif  # regret after forcing / random play's
    for d, r, g, e, u in zip(dims, reg_d[s], after_d[s], se_after[s], vs_unif[s]):
        print(
            f"{s}: d = {d:4d}: M0 = {forced_rounds(d):3d}, Reg(T) = {r:6.1f}, "
            f"after forcing {g:6.1f} ± {e:4.1f} ({u:.3f} of random play's)"
        )
    print(
        f"{s}: power-law exponent of the mean regret after forcing "
        f"{exps[s][0]:.3f} ± {exps[s][1]:.3f}"
    )
log_bound = 1 / np.log(dims[0])
for s in ("A", "B"):
    glue(f"exp_{s}", round(float(exps[s][0]), 2), display=False)
    glue(f"exp_{s}_se", round(float(exps[s][1]), 2), display=False)
    glue(f"vs_unif_{s}", round(float(vs_unif[s].max()), 3), display=False)
glue("reps_b", int(dim_replicates_b), display=False)

# %% mystnb={"figure": {"caption": "FS-WLasso's regret against the dimension (log scale), in setting A (circles) and setting B (triangles): the whole regret at the horizon (dashed) and the regret after the forced phase (solid, mean \u00b12 standard errors). The dotted curve is the growth d^(1/2) would give to setting A's regret after forcing from the smallest d.", "name": "fig-sparse-lasso-bandits-dim"}} tags=["hide-input"]
fig, ax = lib.subplots()
for s, marker in (("A", "o"), ("B", "^")):
    ax.plot(
        dims,
        reg_d[s],
        marker=marker,
        ls="--",
        color=lib.PALETTE[0],
        alpha=0.6,
        label=f"setting {s}, whole regret",
    )
    ax.errorbar(
        dims,
        after_d[s],
        yerr=2 * se_after[s],
        marker=marker,
        capsize=3,
        color=lib.PALETTE[0],
        label=f"setting {s}, after forcing",
    )
grid = np.geomspace(dims[0], dims[-1], 50)
ax.plot(
    grid,
    after_d["A"][0] * np.sqrt(grid / dims[0]),
    "k:",
    lw=1,
    label=r"$\propto\sqrt{d}$",
)
ax.set_xscale("log")
ax.set_xticks(dims, [str(d) for d in dims])
ax.minorticks_off()
ax.set_ylim(0, None)
ax.set_xlabel("ambient dimension d (log scale)")
ax.set_ylabel(f"cumulative regret at T = {horizon}")
ax.legend()
lib.show(fig)

# %% [markdown]
# ## What we reproduced
#
# Each claim compares means over the replicates (averaged before any threshold). A comparison
# of two methods uses the paired differences of their regrets on the same problems and asks
# the mean difference to clear zero by two standard errors of that mean. "Linear" means a
# second-half regret rate at least half of the first-half rate; "flattens" means a
# second-half rate below a quarter of the first-half rate (a regret of $c\,t$ has a ratio of 1,
# one of $c\sqrt t$ a ratio of $\sqrt 2 - 1 \approx 0.41$, one of $c \log t$ a ratio of
# $\log 2 / \log(T/2) \approx 0.11$, and forced rounds make it smaller). For the dimension, a
# regret $a + b\log d$ with $a, b \ge 0$ has a local power-law exponent $b / (a + b \log d)$,
# below $1/\log d_{\min}$ on our grid, while $\sqrt d$ has exponent $0.5$: we ask the exponent
# fitted to the mean regret after forcing to be below $1/\log d_{\min}$, and that regret to be
# below half of what random play pays over the same rounds, so that a learner that learns
# nothing, and is flat in $d$ for that reason, fails.

# %%
claims = lib.Claims("sparse-lasso-bandits", paper="lee2025lasso", control=control)
n_over = int(np.sum(np.array(fit_gap) > 1e-3))  # refits that stopped short of tol
claims.add(
    "The Lasso solver meets its optimality (KKT) conditions: max violation / lambda "
    "< 1e-6 on the test problems and <= 1e-3 (its tolerance) in every bandit refit",
    f"test problems below {kkt_order:.0e}; {n_over} of {len(fit_gap)} batched "
    "refits above 1e-3",
    "(implementation check)",
    kkt_gap < 1e-6 and n_over == 0,
    value=n_over,
)


def shown(pair):
    return f"{pair[0]:.1f} ± {pair[1]:.1f}"


upper_b = {a: pair_b[a][0] + 2 * pair_b[a][1] for a in (1, 2, 3)}
claims.add(
    f"Setting B (fixed arms, one usually optimal), {n_pool} paired problems: "
    "FS-WLasso's regret is below greedy Lasso's and ESTC-like's (paired mean "
    "difference + 2 s.e. < 0 for each)",
    f"vs greedy {shown(pair_b[1])}; vs ESTC-like {shown(pair_b[3])}",
    "FS-WLasso lowest regret (Fig. 2(ii), another instance)",
    upper_b[1] < 0 and upper_b[3] < 0,
    value=max(upper_b[1], upper_b[3]),
)
first_b, last_b = summary["B"]["first"], summary["B"]["last"]
keeps = last_b[1:4] / first_b[1:4]
worst = 1 + np.argmax(keeps)
claims.add(
    "Setting B: a baseline's regret grows linearly (2nd-half rate >= half its "
    "1st-half rate), while FS-WLasso's flattens (2nd-half rate < 1/4 of its "
    "1st-half rate)",
    f"{names[worst]}: {keeps[worst - 1]:.2f}; FS-WLasso {last_b[0] / first_b[0]:.2f}",
    "baselines linear, FS-WLasso sublinear (Fig. 2(ii), another instance)",
    bool(keeps.max() >= 0.5) and last_b[0] < 0.25 * first_b[0],
    value=last_b[0] / first_b[0],
)
claims.add(
    f"Setting B, {n_pool} paired problems: FS-WLasso's regret is below "
    "TH-Lasso's (paired mean difference + 2 s.e. < 0)",
    f"FS-WLasso - TH-Lasso {shown(pair_b[2])}",
    "FS-WLasso lowest regret (Fig. 2(ii), another instance)",
    upper_b[2] < 0,
    value=pair_b[2][0],
)
exp_a, exp_a_se = exps["A"]
claims.add(
    f"Setting A: FS-WLasso learns after its forced phase (regret there < 1/2 of "
    f"random play's over the same rounds, at every d) and that regret grows at most "
    f"like log d over d = {dims[0]}..{dims[-1]} (power-law exponent of the mean < "
    f"1/log d_min = {log_bound:.2f})",
    f"exponent {exp_a:.2f} ± {exp_a_se:.2f}; worst share {vs_unif['A'].max():.3f}",
    "O(poly log dT) regret (Thm. 1)",
    exp_a < log_bound and vs_unif["A"].max() < 0.5,
    value=exp_a,
)
cum_a = summary["A"]["cum"]
swept = sweep_m0  # in the order of sweep_rows; 0 under the no-forcing control
nominal = [forced_rounds(dim, f) for f in [forced_factor, *forced_sweep]]
pair_sweep = [paired(cum_a[row], cum_a[1]) for row in sweep_rows]
best_row = int(np.argmin([diff + 2 * se for diff, se in pair_sweep]))
claims.add(
    f"Setting A (fresh correlated contexts): FS-WLasso at its best forced-phase "
    f"length (M0 = {min(nominal)}..{max(nominal)} swept) has a lower final regret than "
    f"greedy Lasso (paired mean difference + 2 s.e. < 0)",
    f"M0 = {swept[best_row]}: FS-WLasso - greedy {shown(pair_sweep[best_row])}",
    "FS-WLasso lowest regret (Fig. 2(i))",
    pair_sweep[best_row][0] + 2 * pair_sweep[best_row][1] < 0,
    expect=False,
    value=pair_sweep[best_row][0],
)
upper_c = pair_c[0] + 2 * pair_c[1]
claims.add(
    f"Setting C (fixed arms below the fresh arm), {n_replicates_c} paired problems: "
    "FS-WLasso's regret is below greedy Lasso's (paired mean difference + 2 s.e. < 0)",
    f"FS-WLasso - greedy {shown(pair_c)}",
    "FS-WLasso lowest regret (Fig. 2(ii))",
    upper_c < 0,
    expect=False,
    value=pair_c[0],
)
claims.report()

# %% [markdown]
# ```{controls-table}
# ```
#
# Run one control with `make run CHAPTER=sparse-lasso-bandits CONTROL=ridge` (or any name in
# the table): the claims cell then names the control and fails if a claim it must flip still
# holds.
#
#
# ## How this compares with the paper
#
# | | paper {cite:p}`lee2025lasso` | this chapter |
# |---|---|---|
# | Assumption | compatibility of the optimal arm's Gram matrix + margin | the same, checked on a fixed-arm example ({prf:ref}`slb-prop-fixed`) |
# | Algorithm | FS-WLasso; forced rule, $w$, $\lambda_t$ from the theorem | uniform forcing, $M_0 = \lceil 4 s_0\log d\rceil$, $w=\sqrt{T/M_0}$, our $\lambda_t$ (inferred) |
# | Regret bound | $O(\mathrm{poly}\log dT)$ | regret after forcing flat in $d$ from 25 to 400 in setting A (claim 5); too noisy to read in setting B |
# | Fixed suboptimal arms, Fig. 2(ii) | baselines look linear, FS-WLasso lowest | setting C, the instance as described: **not reproduced**, greedy Lasso is not trapped and FS-WLasso pays its forced phase (claim 7) |
# | Fixed arms, one usually optimal | not in the paper | setting B: greedy Lasso linear; FS-WLasso below greedy Lasso, ESTC-like and TH-Lasso (claims 2–4) |
# | Correlated Gaussian contexts, Fig. 2(i) | FS-WLasso lowest | **not reproduced**: at the best $M_0$ swept FS-WLasso is not below greedy Lasso (claim 6) |
# | Baselines | Lasso bandit, DR-Lasso, SA-Lasso, TH-Lasso, ESTC | SA-Lasso (greedy), TH-Lasso, ESTC-like |
# | Scale | not known to us | $d = 100$, $s_0 = 5$, $K = 10$, $T = 1000$; 24 problems in A, 48 + 128 in B, 24 in C |
#
# Where a greedy learner can be trapped, FS-WLasso's forced phase does what the theory says.
# In setting B ({numref}`fig-sparse-lasso-bandits-regret`, middle) one fixed arm is usually
# optimal, and greedy Lasso latches onto a fixed arm in a share of the problems, rarely tries
# the fresh arm when it is optimal, and its regret keeps growing at a constant rate.
# FS-WLasso, after its random phase, keeps refitting and its regret flattens. Over
# {glue:}`n_pool` paired problems it is below greedy Lasso by {glue:}`diff_greedy_B` ±
# {glue:}`diff_greedy_se_B` and below ESTC-like by {glue:}`diff_estc_B` ±
# {glue:}`diff_estc_se_B` (claim 2). FS-WLasso and ESTC-like share their forced rounds, so the
# second difference is what refitting after them is worth. Without its forced phase (control
# `no-forcing`) FS-WLasso is greedy Lasso, and claims 2–4 fail.
#
# Against TH-Lasso in setting B, on the paired problems FS-WLasso is below it by {glue:}`diff_th` ± {glue:}`diff_se` (ratio of means {glue:}`ratio_th`; claim 4), and over
# seeds 0–9 the difference is {seeds}`4` (mean ± standard deviation over the seeds). The
# advantage is not uniform over problems: the median paired difference is {glue:}`median_th`,
# and FS-WLasso is lower on {glue:}`share_th`% of them. Claim 3 tests the forced phase (without
# it FS-WLasso is greedy Lasso and does not flatten); what refitting after the forced phase adds
# is tested by claim 2's comparison with ESTC-like, which shares the forced rounds.
#
# Setting C is the instance the paper describes for its Fig. 2(ii), and there its ordering
# reverses ({numref}`fig-sparse-lasso-bandits-regret`, right): FS-WLasso's regret is
# {glue:}`fs_C`, {glue:}`ratio_C` times greedy Lasso's {glue:}`greedy_C`; TH-Lasso's is
# {glue:}`th_C` and ESTC-like's {glue:}`estc_C`. The cause is the forced phase. Over rounds
# 1 to $M_0$ FS-WLasso pays {glue:}`forced_fs_C`, close to the {glue:}`forced_unif_C` of random
# play, while greedy Lasso pays {glue:}`forced_greedy_C` over the same rounds; after round
# $M_0$ the two pay {glue:}`after_fs_C` and {glue:}`after_greedy_C` (paired difference
# {glue:}`after_diff_C` ± {glue:}`after_diff_se_C`). When the fixed arms are suboptimal, the arm
# a greedy learner plays is mostly the fresh one, its data are diverse, and forcing has nothing
# to buy. We record the paper's "FS-WLasso lowest" on this instance as not reproduced (claim 7;
# paired difference {glue:}`diff_C` ± {glue:}`diff_se_C`). The control `lambda-x30` flips it:
# with thirty times the penalty, greedy Lasso learns slowly from its own rounds, and FS-WLasso's
# forced phase then pays for itself on setting C. The check resolves a difference of about two
# standard errors of the paired mean, {glue:}`detect_C` here. The paper's instance may differ from ours in what
# its description does not fix: how far below the fresh arm the fixed arms sit, the horizon
# relative to $M_0$, the baselines' tuning.
#
# In setting A the earlier assumptions hold, and the paper's own Theorem 2 says pure greedy is
# then enough. Forcing is pure cost there: FS-WLasso's regret of {glue:}`fs_A` is almost all
# forced phase, which costs about $r_{\mathrm{unif}}$ a round; after it FS-WLasso adds only
# {glue:}`fs_after_A`, against greedy Lasso's {glue:}`greedy_A` over the whole horizon. The sweep
# of the forced phase's length ({numref}`fig-sparse-lasso-bandits-m0`, left) asks whether
# this hinges on our $M_0$. Only its short end can: a forced phase costs about
# $r_{\mathrm{unif}}$ a round, more than greedy Lasso's whole regret once $M_0$ exceeds
# {glue:}`m0_break_A` rounds, so the longer phases lose by construction. At the best length
# swept FS-WLasso's regret is {glue:}`sweep_best_A` times greedy Lasso's, and we record the
# paper's "FS-WLasso lowest" in setting A as not reproduced (claim 6). Its positive control,
# `greedy-frozen`, makes the check report the opposite once greedy Lasso stops learning. In setting B
# ({numref}`fig-sparse-lasso-bandits-m0`, right) the trade runs the other way: a short forced
# phase leaves FS-WLasso trapped in some problems, like greedy Lasso, and the regret after
# forcing grows as $M_0$ shrinks.
#
# The weight $w = \sqrt{\tau/M_0}$ (here {glue:}`w`) is not what makes FS-WLasso work at this
# scale. With $w = 1$, on the same problems, the paired difference weighted − unweighted is
# {glue:}`w_diff_A` ± {glue:}`w_diff_se_A` in setting A and {glue:}`w_diff_B` ±
# {glue:}`w_diff_se_B` in setting B: the up-weighted forced rounds cost a little in setting A,
# where the greedy rounds are informative, and change nothing measurable in setting B. The
# derivation in the proof sketch needs the weight when the greedy rounds add no curvature for a
# long time; in our settings they start adding it soon after the forced phase. We therefore make
# no claim about the weight.
#
# The dimension ({numref}`fig-sparse-lasso-bandits-dim`): the whole regret grows with $d$, but
# by construction, because the forced phase $M_0 \propto \log d$ costs about
# $M_0\, r_{\mathrm{unif}}$. The regret after the forced phase is the test of the Lasso's $\log d$
# sample complexity. In setting A it is flat: the power-law exponent of its mean is
# {glue:}`exp_A` ± {glue:}`exp_A_se`, below the bound $1/\log d_{\min}$ that any $a + b \log d$
# respects, and it is at most {glue:}`vs_unif_A` of what random play pays over the same rounds
# (claim 5). The control `ridge` replaces the Lasso by ridge regression, whose error grows with
# $d$ rather than $\log d$, and the exponent check fails; the control `lambda-x30` makes the
# Lasso return (nearly) zero, which is flat in $d$ too, and the check on random play's regret
# fails. In setting B the regret after forcing varies widely between problems (the error bars
# of {numref}`fig-sparse-lasso-bandits-dim`); its exponent, {glue:}`exp_B` ±
# {glue:}`exp_B_se` with {glue:}`reps_b` problems per $d$, is too uncertain to tell $\log d$
# from $\sqrt d$, and we make no claim on it.
#
# ## Try it
#
# * `-p forced_factor=1.0` ($M_0 =$ {glue:}`M0_short` instead of {glue:}`M0`) makes the
#   default FS-WLasso one of the shorter forced phases of the sweep: compare its regret in
#   settings A and B with the sweep's in {numref}`fig-sparse-lasso-bandits-m0`.
# * `-p fixed_margin=-1.0` puts setting C's best fixed arm one standard deviation *above* the
#   fresh arm's mean, so that the fixed arms are usually optimal, as in setting B: greedy
#   Lasso can then be trapped in setting C too, and the claims cell reports whether claim 7
#   still fails.
# * `-p horizon=2000`: does greedy Lasso's per-round rate in setting B stay up while
#   FS-WLasso's stays low, as {prf:ref}`slb-thm-regret` and the trap argument predict? The
#   table's first- and second-half rates answer it.
# * `-p tau_factor=0.03` ($w \approx$ {glue:}`w_small`, forced rounds down-weighted), to set
#   beside the $w = 1$ row of the table.
# * `-p control=ridge`, `lambda-x30`, `no-forcing` or `greedy-frozen`: each removes one
#   ingredient, and the claims cell reports which checks fail.
