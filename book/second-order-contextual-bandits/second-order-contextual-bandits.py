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
# # Second-order regret bounds for contextual bandits with function approximation
#
# ```{admonition} About this chapter
# :class: tip
# Paper: {cite:t}`pacchiano2025second` (ICLR 2025). Question: optimistic least squares, the
# standard algorithm for contextual bandits whose mean rewards lie in a known function class, has
# regret of order $\sqrt{T}$ even when the rewards carry no noise at all. Can an algorithm whose
# confidence sets adapt to the noise variance get regret that scales with the noise level $\sigma$
# (or with $\sqrt{\sum_t \sigma_t^2}$) plus a constant, without knowing the variances? The paper is
# pure theory and has no experiments; the experiment here is our own design. We run optimistic
# least squares and our reading of the paper's variance-aware algorithms (uncertainty-filtered
# layers with Bernstein-type confidence sets) on a finite class of 512 functions, where version
# spaces are exact arrays, for noise levels from 0 to 0.5 and for a noise level that jumps over
# time. A single-layer baseline with a variance-aware radius, run on rare $\pm 1$ spikes whose
# variance is far below their range, shows what the layers are for. The defaults ($T = 4096$ rounds, 8 problems per noise level) run in under a minute on
# one CPU core; `make run CHAPTER=second-order-contextual-bandits PRESET=paper` runs four times
# the horizon and twice the problems.
# ```
#
# ## The question
#
# A recommender sees a context, offers one of several items and observes a noisy reward. Its
# model of the mean reward is a class $\mathcal F$ of functions of (context, item), and the true
# mean $f^\star$ is one of them. *Optimistic least squares* (OLS) keeps every function whose
# squared error on the data is within a margin $\beta$ of the best fit, and plays the item that
# the most favourable of these functions rates highest. Its regret is
# $\tilde O(\sqrt{d_E \log|\mathcal F|\, T})$ {cite:p}`russo2013eluder`, where the eluder
# dimension $d_E$ measures how many times the class can surprise the learner.
#
# The margin $\beta$ is set from a bound on the noise range, not from the noise *variance*. If the
# rewards are nearly deterministic, a single observation pins down $f^\star$ at the observed
# point almost exactly, yet OLS keeps entertaining functions that are off by $\sqrt{\beta}$ over
# its whole history, and pays $\sqrt{T}$ regret for exploring them. In linear bandits this is
# fixed by weighting observations and using Bernstein's inequality instead of Hoeffding's
# {cite:p}`zhou2021nearly,zhao2023variance`. {cite:t}`pacchiano2025second` asks whether the same
# can be done for a general class $\mathcal F$, and answers yes: regret
# $\tilde O(\sigma\sqrt{d_E \log|\mathcal F|\, T} + d_E \log|\mathcal F|)$ for an unknown constant
# variance $\sigma^2$, and $\tilde O(d_E\sqrt{\log|\mathcal F| \sum_t \sigma_t^2} + d_E
# \log|\mathcal F|)$ when the variance changes every round. We test three things: (i) does OLS's
# regret grow like $\sqrt{T}$ whatever the noise, down to $\sigma = 0$; (ii) does the
# variance-aware algorithm's regret become logarithmic (a constant per doubling of $T$) at
# $\sigma = 0$, stay below OLS's at small $\sigma$, and grow with $\sigma$; (iii) with a
# time-varying variance, does its regret track $\sqrt{\sum_t \sigma_t^2}$?
#
# ## The setting and the theorem
#
# ```{prf:definition} Contextual bandit with a realizable function class
# :label: socb-def-bandit
#
# At each round $t = 1, \dots, T$ the learner sees a context $x_t$, picks an action $a_t$ from a
# finite set and observes $r_t = f^\star(x_t, a_t) + \varepsilon_t$, where $f^\star$ belongs to a
# known finite class $\mathcal F$ of functions with values in an interval of length $B$, and the
# noise has $\mathbb E[\varepsilon_t \mid \text{past}] = 0$,
# $\mathbb E[\varepsilon_t^2 \mid \text{past}] = \sigma_t^2$ and $|\varepsilon_t| \le R$. The
# learner knows $R$, not $\sigma_t$. The regret is
#
# $$
# \mathrm{Reg}(T) = \sum_{t=1}^T \Big(\max_a f^\star(x_t, a) - f^\star(x_t, a_t)\Big).
# $$ (eq-socb-regret)
# ```
#
# ```{prf:definition} Eluder dimension
# :label: socb-def-eluder
#
# A point $z$ is $\epsilon$-dependent on $z_1, \dots, z_n$ with respect to $\mathcal F$ if every
# pair $f, g \in \mathcal F$ with $\sum_{i} (f - g)^2(z_i) \le \epsilon^2$ also has
# $|f - g|(z) \le \epsilon$. The eluder dimension $d_E(\mathcal F, \epsilon)$ is the length of the
# longest sequence in which every point is $\epsilon'$-independent of its predecessors for some
# $\epsilon' \ge \epsilon$ {cite:p}`russo2013eluder`. For linear functions in $\mathbb R^d$ it is
# $O(d \log(1/\epsilon))$.
# ```
#
# Both algorithms below keep *version spaces*. With $L(f) = \sum_s (f(x_s, a_s) - r_s)^2$ over
# some set of past rounds and a radius $\beta$,
#
# $$
# \mathcal V = \{ f \in \mathcal F : L(f) - \min_{g \in \mathcal F} L(g) \le \beta \},
# \qquad
# w_t = \max_{f, g \in \mathcal V} |f(x_t, a_t) - g(x_t, a_t)|,
# $$ (eq-socb-version)
#
# and play optimistically, $a_t = \arg\max_a \max_{f \in \mathcal V} f(x_t, a)$. The regret of a
# round is at most the width $w_t$ of the version space at the chosen action, as long as
# $f^\star \in \mathcal V$. Everything hinges on the radius. For a function $g$ write
# $\Delta_s = g(x_s,a_s) - f^\star(x_s,a_s)$ and $D(g) = \sum_s \Delta_s^2$; then
#
# $$
# L(f^\star) - L(g) = -D(g) + 2 \sum_s \varepsilon_s \Delta_s ,
# $$ (eq-socb-excess)
#
# and $f^\star$ stays in $\mathcal V$ if the noise term never beats $D(g)$ by more than $\beta$.
#
# ```{prf:theorem} Optimistic least squares (Russo and Van Roy)
# :label: socb-thm-ols
#
# With $\iota = \log(|\mathcal F|/\delta)$ and $\beta_{\mathrm{OLS}} = 2R^2\iota$, with
# probability $1 - \delta$ the true $f^\star$ stays in every version space and
# $\mathrm{Reg}(T) = O\big(d_E B + \sqrt{d_E\, \beta_{\mathrm{OLS}}\, T}\big)$, with $d_E$ taken at
# scale $1/T$, whatever the variances $\sigma_t^2 \le R^2$.
# ```
#
# ```{prf:proof}
# (Sketch.) $R$-bounded noise is $R$-sub-Gaussian, so the noise term in {eq}`eq-socb-excess` is at
# most $\sqrt{2R^2 D(g)\iota}$ for all $g$ at once; maximising $-D + 2\sqrt{2R^2 D\iota}$ over $D$
# gives $2R^2\iota$. Every $g \in \mathcal V$ has $D(g) \le 4\beta$ (up to constants), so a round
# with width $w_t > \epsilon$ needs the past to have put little squared mass where $f$ and $g$
# differ; the eluder argument counts at most $d_E(4\beta/\epsilon^2 + 1)$ such rounds. Summing
# $\epsilon$ over the sorted widths gives $\sum_t w_t \lesssim \sqrt{d_E \beta T}$.
# ```
#
# The radius $2R^2\iota$ does not shrink with $\sigma$: that is the whole problem. Freedman's
# inequality {cite:p}`freedman1975tail` bounds the noise term by its *variance* plus a range
# term. If every $|\Delta_s| \le b$, then with probability $1-\delta$, for all $g$,
#
# $$
# \Big|\sum_s \varepsilon_s \Delta_s\Big| \le \sqrt{2\, V \iota} + \tfrac23 R\, b\, \iota,
# \qquad V = \sum_s \sigma_s^2 \Delta_s^2 \le \min\Big(\sigma_{\max}^2 D(g),\ b^2 \sum_s \sigma_s^2\Big).
# $$ (eq-socb-freedman)
#
# With the first bound on $V$ the same maximisation over $D$ gives the radius
# $2\sigma^2\iota + \tfrac43 R b\iota$; with the second, $2b\sqrt{2 S\iota} + \tfrac43 Rb\iota$
# with $S = \sum_s \sigma_s^2$. Both vanish with the noise except for the range term
# $\tfrac43 R b\iota$, and that one is small if $b$ is. The trick that makes $b$ small is
# **uncertainty filtering**: split the rounds into layers by the width at the time they were
# played, and fit each layer separately.
#
# ```{prf:definition} Uncertainty-filtered optimistic least squares (our reading)
# :label: socb-def-layers
#
# Layers $\ell = 0, \dots, \Lambda - 1$ have thresholds $\tau_\ell = B\, 2^{-\ell}$. Each layer
# has its own loss $L_\ell$ over the rounds assigned to it and a version space $\mathcal V_\ell$
# as in {eq}`eq-socb-version` with radius $\beta_\ell$, except that the minimum is taken over the
# functions still in $\mathcal V$ when the layer is updated (a *localized* fit), not over all of
# $\mathcal F$. The learner plays optimistically over the
# intersection $\mathcal V = \bigcap_\ell \mathcal V_\ell$, computes the width $w_t$ of
# $\mathcal V$ at the chosen action and assigns the round to the layer with
# $\tau_{\ell+1} < w_t \le \tau_\ell$ (the deepest layer takes every smaller width). The radius of
# layer $\ell$ is
#
# $$
# \beta_\ell = 2\hat\sigma_t^2\iota + \tfrac43 R\tau_\ell\iota
# \quad\text{(constant variance)},\qquad
# \beta_\ell = 2\tau_\ell\sqrt{2\hat S_\ell \iota} + \tfrac43 R\tau_\ell\iota
# \quad\text{(changing variance)},
# $$ (eq-socb-radius)
#
# where $\hat\sigma_t^2$ is $\sigma^2$ when it is known, or else an upper confidence bound from
# the residuals of all data, and $\hat S_\ell$ an upper confidence bound on layer $\ell$'s
# $\sum_s \sigma_s^2$ from its own residuals:
#
# $$
# \hat S = \Big(\sqrt{\textstyle\min_f L(f)} + c\,R\sqrt{\iota}\Big)^2, \qquad
# c = \tfrac{1}{\sqrt2} + \sqrt{\tfrac76}, \qquad \hat\sigma_t^2 = \min(R^2, \hat S_{\text{all}}/t),
# $$ (eq-socb-variance)
#
# which solves $\sum_s\sigma_s^2 - \sum_s\varepsilon_s^2 \le \sqrt{2R^2\iota\sum_s\sigma_s^2}
# + \tfrac23 R^2\iota$ (Freedman again, for $\varepsilon_s^2 \in [0, R^2]$, whose conditional
# variance is at most $R^2\sigma_s^2$) for $\sum_s\sigma_s^2$, with $\min_f L(f)$ in place of
# $L(f^\star) = \sum_s \varepsilon_s^2$, which it undershoots by at most the radius.
# ```
#
# When a round joins layer $\ell$, every function still in $\mathcal V$ is within $\tau_\ell$ of
# $f^\star$ there, so $b = \tau_\ell$ in {eq}`eq-socb-freedman` for every competitor of the
# localized fit. A function excluded earlier can be further from $f^\star$ on the layer's rounds;
# comparing $f^\star$ with it would need the larger $b$ (or the bound $\sigma_{\max}^2 D$, which an
# algorithm for changing variances cannot use).
#
# ```{prf:theorem} Second-order regret (after Pacchiano)
# :label: socb-thm-second
#
# With probability $1-\delta$, uncertainty-filtered optimistic least squares with the
# constant-variance radius of {eq}`eq-socb-radius` and an unknown $\sigma_t = \sigma$ has
#
# $$
# \mathrm{Reg}(T) = \tilde O\big(\sigma\sqrt{d_E \log|\mathcal F|\, T} + d_E \log|\mathcal F|\big),
# $$ (eq-socb-bound-const)
#
# and a variant built for changing variances has
#
# $$
# \mathrm{Reg}(T) = \tilde O\Big(d_E\sqrt{\log|\mathcal F| \textstyle\sum_{t} \sigma_t^2} + d_E \log|\mathcal F|\Big).
# $$ (eq-socb-bound-varying)
# ```
#
# ```{prf:proof}
# (Sketch, our derivation.) By {eq}`eq-socb-freedman` with $b = \tau_\ell$, $f^\star$ stays in
# every $\mathcal V_\ell$. The eluder argument inside one layer counts at most
# $n_\ell \lesssim d_E(\beta_\ell/\tau_\ell^2 + 1)$ rounds of width above $\tau_\ell/2$, each
# costing at most $\tau_\ell$. With the constant-variance radius a layer costs
# $\tau_\ell n_\ell \lesssim d_E(\sigma^2\iota/\tau_\ell + R\iota)$, and no more than $\tau_\ell T$;
# summing $\min(\tau_\ell T, d_E\sigma^2\iota/\tau_\ell)$ over the geometric thresholds gives
# $\sigma\sqrt{d_E\iota T}$, and the range terms give $d_E R\iota$ per layer, $\Lambda =
# O(\log T)$ layers. With the changing-variance radius a layer costs
# $d_E(\sqrt{S_\ell\iota} + R\iota)$, and $\sum_\ell \sqrt{S_\ell} \le \sqrt{\Lambda\sum_t\sigma_t^2}$,
# which gives {eq}`eq-socb-bound-varying`: a factor $\sqrt{d_E}$ worse in the variance term,
# because $b^2 S$ replaces $\sigma^2 D$ in {eq}`eq-socb-freedman`. At $\sigma = 0$ both are
# $O(d_E\log|\mathcal F|\log T)$: a constant amount of regret per doubling of the horizon.
# ```
#
# ```{note}
# **Where this chapter departs from the paper.** The paper's pseudo-code was not available to us;
# {prf:ref}`socb-def-layers` is our reading of its description (uncertainty filtering, one
# confidence set per layer, optimism over their intersection, Bernstein-type radii), following
# the SAVE algorithm for linear bandits {cite:p}`zhao2023variance`.
# * **Radii.** $\iota = \log(|\mathcal F|/\delta)$, $\delta = 0.05$, without the union over rounds
#   and layers that a proof needs (it would add $\log(\Lambda T)$ to $\iota$); we check instead
#   that $f^\star$ never leaves a version space. All methods use the same $\iota$, which favours
#   the layered algorithm, since OLS needs no union; we rerun it with the union over layers to
#   show by how much. Experiment 3 uses a stricter $\delta_3$ for every method. No constant was
#   tuned.
# * **Unknown constant variance.** $\hat\sigma_t^2$ of {eq}`eq-socb-variance` is recomputed every
#   16 rounds, not every round (to save time). The paper's unknown-variance routine (a
#   thresholded, truncated regression, per the reviews) was not available.
# * **Changing variance.** The paper's algorithm for this case reportedly also filters by
#   variance; with unknown variances we cannot, so our variant estimates each layer's variance
#   sum from its own residuals ({eq}`eq-socb-variance`), as SAVE does with weights.
# * **Layers.** $\Lambda = \lceil\log_2(BT)\rceil$ layers, so the deepest width is below $1/T$.
# * **Localized fit.** The paper's treatment of the competitor set was not available to us. Each
#   layer takes its minimum over the functions still in $\mathcal V$, for the reason given after
#   {prf:ref}`socb-def-layers`: a minimum over all of $\mathcal F$ would compare $f^\star$ with
#   functions that differ from it by more than $\tau_\ell$ on the layer's rounds, where the
#   per-layer-variance radius does not hold.
# * **The experiment** (the paper has none) is ours: a finite class of 512 linear functions on
#   the plane and contexts with small reward gaps (next section).
# ```
#
# ## The algorithm
#
# **The class and the contexts.** $\mathcal F = \{f_j(x, a) = \langle \theta_j, \phi(x, a)\rangle\}$
# with $\theta_j$ the 512 unit vectors at angles $2\pi j/512$, one of them $\theta^\star$. A finite
# class makes version spaces exact: a loss is a vector of length $|\mathcal F|$ per layer, and the
# learner computes every function's prediction. The class is fine enough (neighbouring functions
# differ by about $0.012$) that OLS's version spaces stay much wider than that spacing within our
# horizons, so the class behaves like the continuous class of unit vectors. Only the noise-free
# layered algorithm gets down to the class's resolution, near the end of the `paper` preset's
# horizon, where its regret then stops growing.
#
# Random contexts are not a hard instance. When the gap between the best and second-best action
# has a bounded density near zero (a *margin* condition), even OLS pays only about $\log T$ regret
# once its estimate is accurate, because a width $w$ costs regret only in the rare rounds where the
# gap is below $w$. The $\sqrt{T}$ in {prf:ref}`socb-thm-ols` is a worst case, and we build
# contexts that realise it: each round offers a **safe** action, whose feature $m_t\theta^\star$
# points along $\theta^\star$ so that all plausible functions agree on its value $m_t \sim
# U[0.2, 0.5]$, and a **risky** action, a unit vector whose value $m_t \pm g_t$ is uncertain. The
# risky action is better or worse with equal probability and the gap $g_t$ is log-uniform on
# $[10^{-3}, 0.5]$, so gaps of every scale occur. Optimism picks the risky action whenever its
# width exceeds a negative gap; with log-uniform gaps a width $w$ then costs on average about
# $w/(2\log(g_{\max}/g_{\min}))$ per round, a fixed fraction of it, so the regret follows
# $\sum_t w_t$, the quantity the theorems bound.
#
# **The noise.** The learner knows the range $R = 1$. We use two noise shapes with variance
# $\sigma_t^2$. *Uniform* noise on $[-\sqrt3\sigma_t, \sqrt3\sigma_t]$ is sub-Gaussian with
# proxy $\sigma_t^2$ (the uniform distribution is *strictly* sub-Gaussian: its proxy equals its
# variance), so for it the Hoeffding-type radius $2\sigma^2\iota$ is already valid
# and no range term is needed. *Spike* noise is $\pm R$ with probability $\sigma_t^2/R^2$ and $0$
# otherwise: the same variance, but a sub-Gaussian proxy of order $R^2/\log(R^2/\sigma_t^2)$, far
# above $\sigma_t^2$ when $\sigma_t$ is small.
# This is the noise for which Freedman's range term in {eq}`eq-socb-freedman` matters, and
# spikes are the default for the constant-noise experiment.
#
# **A single-layer baseline.** "OLS, variance-aware" is OLS with the radius $2\sigma^2\iota$ and
# $\sigma$ known: the variance term of {eq}`eq-socb-radius` without the range term and without
# layers. It is what one would write down by treating the noise as $\sigma$-sub-Gaussian. It
# separates what the variance-aware radius buys from what the uncertainty filtering buys: the
# layers exist to make a variance-sized radius valid when the noise has a large range, by keeping
# $b = \tau_\ell$ small in the range term.

# %% tags=["parameters"]
seed = 0
device = "cpu"  # numpy only; the device just has to be valid
progress = False
control = "none"  # or a deliberately wrong variant named in controls.yaml
n_functions = 512  # |F|: unit vectors theta_j at angles 2 pi j / |F|
horizon = 4096  # T, rounds
n_replicates = 8  # problems (theta_star, contexts, noise) per noise level, batched
sigmas = [0.0, 0.03, 0.1, 0.3, 0.5]  # constant noise levels (experiment 1)
spike_sd = 0.5  # experiment 2: sigma_t is spike_sd with probability p, else 0
spike_probs = [0.0, 0.01, 0.03, 0.1, 0.3, 1.0]  # the probabilities p
noise_bound = 1.0  # R, known bound on |noise|; needs sqrt(3) * sigma at most R
delta = 0.05  # confidence level in iota, log(|F| / delta)
gap_min = 1e-3  # reward gaps are log-uniform on [gap_min, gap_max]
gap_max = 0.5
refresh_every = 16  # rounds between updates of the estimated variance (unknown sigma)
cover_sigmas = [0.1]  # experiment 3: spike-noise levels for the coverage check
n_cover = 256  # experiment 3: problems per level
delta_cover = 0.001  # experiment 3: the stricter confidence level of its radii

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
from myst_nb import glue


lib.check_bool("progress", progress)
lib.check_int("n_functions", n_functions, low=16, high=8192)
lib.check_int("horizon", horizon, low=64, high=2**20)
lib.check_int("n_replicates", n_replicates, low=2)
lib.check_float("noise_bound", noise_bound, low=0.0, low_open=True)
sigma_cap = noise_bound / np.sqrt(3)
lib.check_float_list(
    "sigmas", sigmas, low=0.0, high=sigma_cap, min_len=3, increasing=True
)
if sigmas[0] != 0.0:
    raise ValueError(f"parameter `sigmas` = {sigmas!r} is invalid: must start at 0.0")
if sum(s >= 0.1 for s in sigmas) < 2:
    raise ValueError(
        f"parameter `sigmas` = {sigmas!r} is invalid: needs at least two levels >= 0.1"
    )
if spike_probs[0] != 0.0 or len(spike_probs) < 3:
    raise ValueError(
        f"parameter `spike_probs` = {spike_probs!r} is invalid: must start at 0.0"
    )
lib.check_float("spike_sd", spike_sd, low=0.0, high=sigma_cap, low_open=True)
lib.check_float_list(
    "spike_probs", spike_probs, low=0.0, high=1.0, min_len=3, increasing=True
)
lib.check_float("delta", delta, low=0.0, high=0.5, low_open=True)
lib.check_float("gap_min", gap_min, low=0.0, high=0.1, low_open=True)
lib.check_float("gap_max", gap_max, low=gap_min, high=0.5, low_open=True)
lib.check_int("refresh_every", refresh_every, low=1, high=horizon)
lib.check_float_list(
    "cover_sigmas", cover_sigmas, low=0.0, high=sigma_cap, min_len=1, increasing=True
)
lib.check_int("n_cover", n_cover, low=1)
lib.check_float("delta_cover", delta_cover, low=0.0, high=0.5, low_open=True)
n_runs = max(
    n_replicates * max(len(sigmas), len(spike_probs)), n_cover * len(cover_sigmas)
)
layers = int(np.ceil(np.log2(2.0 * horizon)))
state_bytes = 10 * n_runs * layers * n_functions + 8 * 6 * n_runs * horizon
if state_bytes > 8e9:
    raise ValueError(
        f"parameters `n_replicates`, `n_functions`, `horizon`: the run needs "
        f"{state_bytes / 1e9:.0f} GB (limit 8 GB); lower them"
    )
rng, device = lib.setup(seed, device)
control = lib.check_control("second-order-contextual-bandits", control)

# %% [markdown]
# The instance, drawn once per replicate and shared by every method and noise level (common random
# numbers). Action 0 is the safe one, action 1 the risky one; a feature is stored as a length
# $\rho$ and an angle $\alpha$, so $f_j(x, a) = \rho_a\cos(\alpha_a - \psi_j)$.

# %%
psi = 2 * np.pi * np.arange(n_functions) / n_functions  # angles of theta_j
B = 2.0  # every f takes values in [-1, 1]
R = noise_bound
iota = np.log(n_functions / delta)
COS_PSI, SIN_PSI = np.cos(psi), np.sin(psi)  # f_j = rho cos(alpha) cos(psi_j) + ...


def make_instance(n_rep):
    j_star = rng.integers(0, n_functions, n_rep)
    psi_star = psi[j_star][:, None]
    m = rng.uniform(0.2, 0.5, (n_rep, horizon))  # value of the safe action
    gap = gap_max * (gap_min / gap_max) ** rng.uniform(0, 1, (n_rep, horizon))
    sign = rng.choice([-1.0, 1.0], (n_rep, horizon))  # risky better or worse
    side = rng.choice([-1.0, 1.0], (n_rep, horizon))
    risky_angle = psi_star + side * np.arccos(m + sign * gap)
    angle = np.stack([np.broadcast_to(psi_star, m.shape), risky_angle], -1)
    length = np.stack([m, np.ones_like(m)], -1)
    mean = np.stack([m, m + sign * gap], -1)
    xi = rng.uniform(-np.sqrt(3), np.sqrt(3), (n_rep, horizon))  # unit variance
    u = rng.uniform(0, 1, (n_rep, horizon))  # spike noise: a spike if u < sigma^2/R^2
    sgn = rng.choice([-1.0, 1.0], (n_rep, horizon))  # and its sign
    return dict(
        j_star=j_star, angle=angle, length=length, mean=mean, xi=xi, u=u, sgn=sgn
    )


def noise(shape, sd, inst):
    """Noise values [run, round] for noise levels sd [run, round], run = level * rep."""
    rep = np.arange(sd.shape[0]) % len(inst["j_star"])
    if control == "no-spikes":  # uniform noise of the same variance in their place
        shape = "uniform"
    if shape == "uniform":  # uniform on [-sqrt(3) sd, sqrt(3) sd]
        return sd * inst["xi"][rep]
    # spike: +-R with probability sd^2 / R^2, else 0 (variance sd^2, range R)
    return R * inst["sgn"][rep] * (inst["u"][rep] < (sd / R) ** 2)


# %% [markdown]
# The radii of {prf:ref}`socb-thm-ols` and {eq}`eq-socb-radius`, one function per method.
# `loss` holds every layer's loss vector, `loss_all` the loss over all rounds.

# %%
if control == "one-layer":  # no uncertainty filtering: a single layer, tau = B
    layers = 1
TAU = B * 0.5 ** np.arange(layers)  # layer thresholds tau_l
RANGE = 4 / 3  # Freedman's range term, (4/3) R tau iota in every layered radius
if control == "no-range-term":  # the radius keeps only its variance term
    RANGE = 0.0
C_VAR = 1 / np.sqrt(2) + np.sqrt(7 / 6)


def variance_ucb(min_loss, iota=iota):
    """Upper confidence bound on a sum of variances, eq. (eq-socb-variance)."""
    return (np.sqrt(min_loss) + C_VAR * R * np.sqrt(iota)) ** 2


def fit_min(loss, alive):
    """Best loss over the functions still in V (over all of F if V is empty)."""
    best = np.where(alive[..., None, :] if loss.ndim == 3 else alive, loss, np.inf)
    best = best.min(-1)
    return np.where(np.isfinite(best), best, loss.min(-1))


def radii(method, loss, loss_all, alive, sigma, t, iota=iota):
    """beta[run, layer] for the current round."""
    if method == "OLS" and control != "ols-variance-radius":
        return np.full((loss.shape[0], 1), 2 * R**2 * iota)
    if method.startswith("OLS"):  # single layer, radius 2 sigma^2 iota (sigma known)
        return 2 * sigma[:, None] ** 2 * iota
    if method == "layers, known sigma":
        var = sigma**2
    elif method == "layers, estimated sigma":
        s_all = variance_ucb(fit_min(loss_all, alive), iota)
        var = np.minimum(R**2, s_all / max(t, 1))
    else:  # "layers, per-layer variance"
        s_hat = variance_ucb(fit_min(loss, alive), iota)
        return 2 * TAU * np.sqrt(2 * s_hat * iota) + RANGE * R * TAU * iota
    return 2 * var[:, None] * iota + RANGE * R * TAU * iota


# %% [markdown]
# The bandit loop, vectorised over runs (replicates × noise levels). Each layer keeps a boolean
# mask of the functions it excludes and a count per function of the layers that exclude it, so a
# round only recomputes the mask of the one layer that received the new point; the
# estimated-variance method recomputes all masks every `refresh_every` rounds. OLS is the special
# case with a single layer that takes every round.

# %%
def run_bandit(method, noise_sd, eps, inst, desc="", iota=iota):
    """Per-round regret [run, round]; noise_sd (known to "OLS, variance-aware" and
    "layers, known sigma") and the noise eps are [run, round], run = level * rep."""
    n_run, n_rep = noise_sd.shape[0], len(inst["j_star"])
    rep, runs = np.arange(n_run) % n_rep, np.arange(n_run)
    single = method.startswith("OLS")
    n_layers = 1 if single else layers
    loss = np.zeros((n_run, n_layers, n_functions))
    loss_all = np.zeros((n_run, n_functions))
    alive = np.ones((n_run, n_functions), bool)
    beta = radii(method, loss, loss_all, alive, noise_sd[:, 0], 0, iota)
    excluded = np.zeros((n_run, n_layers, n_functions), bool)
    n_excluded = np.zeros((n_run, n_functions), np.int32)
    regret = np.zeros((n_run, horizon))
    covered = np.ones(n_run, bool)  # f_star in the version space so far
    count = np.zeros((n_run, n_layers))  # rounds per layer
    star = inst["j_star"][rep]
    for t in lib.progress(range(horizon), enabled=progress, desc=desc):
        if method == "layers, estimated sigma" and t % refresh_every == 0:
            beta = radii(method, loss, loss_all, alive, noise_sd[:, t], t, iota)
            excess = loss - fit_min(loss, alive)[..., None]
            excluded = excess > beta[..., None]
            n_excluded = excluded.sum(1, dtype=np.int32)
        alive = n_excluded == 0  # the version space V, [run, f]
        covered &= alive[runs, star]
        angle, length = inst["angle"][:, t], inst["length"][:, t]
        along = (length * np.cos(angle))[rep, :, None]  # feature in Cartesian form
        across = (length * np.sin(angle))[rep, :, None]
        pred = along * COS_PSI + across * SIN_PSI  # [run, a, f]
        ucb = np.where(alive[:, None], pred, -np.inf).max(-1)
        action = ucb.argmax(-1)
        p = pred[runs, action]  # every function's prediction at the chosen action
        mean = inst["mean"][rep, t]
        reward = mean[runs, action] + eps[:, t]
        sq = (p - reward[:, None]) ** 2
        loss_all += sq
        if single:
            layer = np.zeros(n_run, int)
        else:
            width = np.where(alive, p, -np.inf).max(-1)
            width -= np.where(alive, p, np.inf).min(-1)
            layer = np.clip((width[None] <= TAU[:, None]).sum(0) - 1, 0, None)
        row = loss[runs, layer] + sq
        loss[runs, layer] = row
        count[runs, layer] += 1
        if method == "layers, per-layer variance":
            s_hat = variance_ucb(fit_min(row, alive), iota)
            if control == "no-variance-estimate":  # the range bound R^2 n_l instead
                s_hat = R**2 * count[runs, layer]
            tau = TAU[layer]
            beta[runs, layer] = 2 * tau * np.sqrt(2 * s_hat * iota)
            beta[runs, layer] += RANGE * R * tau * iota
        best = row.min(-1) if single else fit_min(row, alive)
        new = (row - best[:, None]) > beta[runs, layer][:, None]
        n_excluded += new.astype(np.int32) - excluded[runs, layer]
        excluded[runs, layer] = new
        regret[:, t] = mean.max(-1)[runs] - mean[runs, action]
    return regret, covered


# %% [markdown]
# ## The experiment
#
# **Experiment 1: constant noise.** Five noise levels, 8 problems each, the same problems for
# every method and both noise shapes (at $\sigma = 0$ the two shapes coincide). Four methods:
# OLS, the single-layer variance-aware baseline, and the layered algorithm with $\sigma$ known
# and estimated. The table gives, per method and noise shape, the regret at the horizon (mean over
# problems), the number of problems in which $f^\star$ left the version space and, for the
# growth rate, the regret added in each of the last three doublings of $t$: a $\sqrt{T}$ regret adds
# $\sqrt2$ times more per doubling, a logarithmic one the same amount.

# %%
METHODS_1 = [
    "OLS",
    "OLS, variance-aware",
    "layers, known sigma",
    "layers, estimated sigma",
]
SHAPES = ["uniform", "spike"]
COLOR = {  # one colour per method across the chapter
    "OLS": lib.PALETTE[0],
    "layers, known sigma": lib.PALETTE[1],
    "layers, estimated sigma": lib.PALETTE[2],
    "layers, per-layer variance": lib.PALETTE[3],
    "OLS, variance-aware": lib.PALETTE[4],
}
inst = make_instance(n_replicates)
noise_1 = np.repeat(np.asarray(sigmas, float), n_replicates)[:, None]
noise_1 = noise_1 * np.ones(horizon)
clock = time.perf_counter()
cum_by_shape, cover = {}, {}
for shape in SHAPES:
    eps = noise(shape, noise_1, inst)
    for method in METHODS_1:
        reg, cov = run_bandit(method, noise_1, eps, inst, desc=f"{method}, {shape}")
        cum = reg.cumsum(-1).reshape(len(sigmas), n_replicates, horizon)
        cum_by_shape[shape, method] = cum
        cover[method, shape] = cov.reshape(len(sigmas), n_replicates)
cum_1 = {m: cum_by_shape["spike", m] for m in METHODS_1}  # spike noise from here on
print(
    f"|F| = {n_functions}, T = {horizon}, iota = {iota:.2f}, {layers} layers: "
    f"{time.perf_counter() - clock:.1f} s wall-clock"
)
doublings = horizon // 2 ** np.arange(4)[::-1]  # T/8, T/4, T/2, T


def growth(cum):
    """Regret added per doubling over the last three doublings, and its exponent."""
    added = np.diff(cum[..., doublings - 1], axis=-1)
    exponent = np.polyfit(
        np.log2(doublings[1:]), np.log2(np.maximum(added.T, 1e-9)), 1
    )[0]
    return added, exponent


for shape, method in cum_by_shape:
    cum = cum_by_shape[shape, method]
    mean_cum = cum.mean(1)  # [sigma, round]
    added, exponent = growth(mean_cum)
    print(f"{method}, {shape} noise")
    for s, sig in enumerate(sigmas):
        se = cum[s, :, -1].std(ddof=1) / np.sqrt(n_replicates)
        steps = " ".join(f"{a:5.1f}" for a in added[s])
        lost = (~cover[method, shape][s]).sum()
        print(
            f"  sigma = {sig:4.2f}: Reg(T) = {mean_cum[s, -1]:6.1f} ± {se:4.1f}"
            f" | added per doubling {steps} | exponent {exponent[s]:5.2f}"
            f" | f_star lost in {lost}/{n_replicates}"
        )

# %% [markdown]
# Read the table by column. OLS adds about $\sqrt2$ times more regret in each doubling, at every
# noise level, and its regret at $T$ does not depend on $\sigma$.
#
# The single-layer baseline has by far the smallest regret at every noise level (none at
# $\sigma = 0$, where its radius is zero and only exact fits survive). With uniform noise its
# version spaces are valid: it lost $f^\star$ in {glue:}`socb_uniform_lost` runs. With spike noise
# it can lose $f^\star$ at the small noise levels, where a rare spike of size $R$ moves the loss
# of every function by far more than the radius $2\sigma^2\iota$ allows for; the losses are
# rare, and experiment 3 below counts them on many more problems. The layered algorithms never lost $f^\star$: the range term
# $\tfrac43 R\tau_\ell\iota$ protects them against spikes, and it is affordable only because a
# layer's $\tau_\ell$ is small. The regret they pay for it is the subject of the rest of the
# experiment.
#
# The layered algorithm at $\sigma = 0$ adds about the same amount in each doubling, so its
# regret is logarithmic in $t$; as $\sigma$ grows its increments grow too ({numref}`fig-second-order-contextual-bandits-regret`
# and {numref}`fig-second-order-contextual-bandits-sigma`). Estimating $\sigma$ costs a little at
# every level. In the first few hundred rounds the layered algorithm is no better than OLS: its
# widest layers have radii $\tfrac43 R\tau_\ell\iota$ larger than OLS's $2R^2\iota$ (for
# $\tau_\ell > 1.5R$), and each layer fits only its own rounds.

# %% mystnb={"figure": {"caption": "Cumulative regret against the round, log-log, mean over the problems, for the smallest and largest noise level (spike noise). Optimistic least squares (blue; its two curves coincide) follows the sqrt(t) slope (dotted) whatever the noise; the layered, variance-aware algorithm with sigma known (vermillion) pays a little more early on and then bends over at sigma = 0: its regret grows by a constant per doubling.", "name": "fig-second-order-contextual-bandits-regret"}} tags=["hide-input"]
fig, ax = lib.subplots()
rounds = np.arange(1, horizon + 1)
for s, style in ((0, "-"), (len(sigmas) - 1, "--")):
    for method in ("OLS", "layers, known sigma"):
        ax.plot(
            rounds,
            cum_1[method][s].mean(0),
            style,
            color=COLOR[method],
            label=f"{method}, sigma = {sigmas[s]:g}",
        )
ref = cum_1["OLS"][0].mean(0)[-1] * np.sqrt(rounds / horizon)
ax.plot(rounds, ref, "k:", lw=1, label=r"$\propto\sqrt{t}$")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlim(16, horizon)
ax.set_ylim(1, None)
ax.set_xlabel("round t")
ax.set_ylabel("cumulative regret")
ax.legend(fontsize=9)
lib.show(fig)

# %% mystnb={"figure": {"caption": "Regret at the horizon against the noise level sigma, spike noise (mean \u00b1 2 standard errors over the problems). OLS is flat; the layered algorithms start lower at sigma = 0 and rise with sigma. The single-layer variance-aware baseline (orange) is lowest, but a cross marks each level at which it lost f_star in some run.", "name": "fig-second-order-contextual-bandits-sigma"}} tags=["hide-input"]
fig, ax = lib.subplots()
for method in METHODS_1:
    final = cum_1[method][..., -1]
    se = final.std(1, ddof=1) / np.sqrt(n_replicates)
    lost = (~cover[method, "spike"]).any(1)  # levels at which f_star was lost
    ax.errorbar(
        sigmas,
        final.mean(1),
        yerr=2 * se,
        marker="o",
        capsize=3,
        color=COLOR[method],
        label=method,
    )
    ax.plot(
        np.asarray(sigmas)[lost],
        final.mean(1)[lost],
        "x",
        ms=12,
        color="k",
        label="f_star lost in a run" if lost.any() else None,
    )
ax.set_xlabel("noise standard deviation sigma (reward units)")
ax.set_ylabel(f"cumulative regret at T = {horizon}")
ax.set_ylim(0, None)
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
lib.show(fig)

# %% [markdown]
# **The same $\iota$ for every method.** All the methods above use $\iota = \log(|\mathcal
# F|/\delta)$. That is the level OLS needs: its confidence set rests on one martingale bound,
# which holds at every round at once. The layered algorithm keeps {glue:}`socb_layers` sets and
# needs $f^\star$ in all of them at once, so its proof puts a union bound over the layers,
# $\log\Lambda$, into $\iota$ (and Freedman's inequality, used at every round with a variance
# not known in advance, a further union over rounds, which we leave out for every method). The
# next cell reruns the two layered algorithms at $\sigma = 0$, on the same problems, with
# $\iota + \log\Lambda$.

# %%
iota_layers = iota + np.log(layers)
silent = np.zeros((n_replicates, horizon))
ols_0 = cum_1["OLS"][0, :, -1].mean()
for method, key in (
    ("layers, known sigma", "known"),
    ("layers, estimated sigma", "est"),
):
    reg, _ = run_bandit(method, silent, silent, inst, desc=method, iota=iota_layers)
    cum = reg.cumsum(-1).mean(0)
    ratio, exponent = cum[-1] / ols_0, growth(cum[None])[1][0]
    print(
        f"{method}, iota + log Lambda = {iota_layers:.2f}: Reg(T) / OLS's = "
        f"{ratio:.2f}, growth exponent {exponent:.2f}"
    )
    glue(f"socb_union_ratio_{key}", round(float(ratio), 2), display=False)
    glue(f"socb_union_exponent_{key}", round(float(exponent), 2), display=False)
glue("socb_layers", layers, display=False)

# %% [markdown]
# With the union over layers the ratios to OLS's regret at $T$ are
# {glue:}`socb_union_ratio_known` (known $\sigma$) and {glue:}`socb_union_ratio_est`
# (estimated): at this horizon the union bound takes back much of the gain that claims 6 and 7
# measure at equal $\iota$. The growth exponents, {glue:}`socb_union_exponent_known` and
# {glue:}`socb_union_exponent_est`, are those of a logarithmic regret still, so the gap opens
# with the horizon, as it must between $\log T$ and $\sqrt T$.
#
# **Experiment 2: changing noise.** The noise is $\sigma_t = 0.5$ with probability $p$ and $0$
# otherwise, drawn once per round and problem with the same uniform numbers for every $p$, so
# $\sum_t \sigma_t^2 \approx 0.25\,pT$; given $\sigma_t$, the noise is uniform. We compare OLS,
# the constant-variance algorithm with an estimated variance, and the per-layer-variance variant
# built for this case.

# %%
METHODS_2 = ["OLS", "layers, estimated sigma", "layers, per-layer variance"]
spikes = rng.uniform(0, 1, (n_replicates, horizon))
noise_2 = np.concatenate([spike_sd * (spikes < p) for p in spike_probs])
root_var = np.sqrt((noise_2**2).sum(-1)).reshape(len(spike_probs), n_replicates)
clock = time.perf_counter()
final_2 = {}
eps_2 = noise("uniform", noise_2, inst)
for method in METHODS_2:
    reg, cov = run_bandit(method, noise_2, eps_2, inst, desc=method)
    final_2[method] = reg.sum(-1).reshape(len(spike_probs), n_replicates)
    cover[method, "changing"] = cov
print(f"{len(METHODS_2)} methods: {time.perf_counter() - clock:.1f} s wall-clock")
print("p      sqrt(sum sigma_t^2) | " + " | ".join(METHODS_2))
for i, p in enumerate(spike_probs):
    row = " | ".join(f"{final_2[m][i].mean():8.1f}" for m in METHODS_2)
    print(f"{p:5.2f}  {root_var[i].mean():8.2f}            | {row}")

# %% [markdown]
# OLS does not see the noisy rounds. Both variance-aware algorithms pay more the more variance there is
# ({numref}`fig-second-order-contextual-bandits-varying`); the per-layer variant starts from a much
# larger constant, the price of estimating each layer's variance without knowing it is zero.

# %% mystnb={"figure": {"caption": "Regret at the horizon against the square root of the total variance, mean \u00b1 2 standard errors, when the noise switches between 0 and 0.5 at random. OLS ignores the variance; the variance-aware algorithms' regret rises with it, and the dashed lines are least-squares fits a + b sqrt(sum sigma_t^2).", "name": "fig-second-order-contextual-bandits-varying"}} tags=["hide-input"]
fig, ax = lib.subplots()
x = root_var.mean(1)
for method in METHODS_2:
    y = final_2[method].mean(1)
    se = final_2[method].std(1, ddof=1) / np.sqrt(n_replicates)
    color = COLOR[method]
    ax.errorbar(x, y, yerr=2 * se, marker="o", capsize=3, color=color, label=method)
    if method != "OLS":
        fit = np.polyfit(x, y, 1)
        ax.plot(x, np.polyval(fit, x), "--", color=color, lw=1)
ax.set_xlabel(r"$\sqrt{\sum_t \sigma_t^2}$ (reward units)")
ax.set_ylabel(f"cumulative regret at T = {horizon}")
ax.set_ylim(0, None)
ax.legend(loc="upper left")
lib.show(fig)

# %% [markdown]
# **Experiment 3: does the variance-only radius keep its guarantee under spikes?** A confidence
# set that is valid at level $\delta$ loses $f^\star$ in at most a share $\delta$ of independent
# problems, and with $\delta = 5\,\%$ a handful of losses is within that allowance. To make a
# failure visible, this experiment uses a stricter level, $\delta_3$ = {glue:}`socb_delta_cover`
# (every radius with $\iota_3 = \log(|\mathcal F|/\delta_3)$), on {glue:}`socb_n_cover` fresh
# problems at $\sigma = 0.1$, where a spike is rare but not absent. A valid radius then loses
# $f^\star$ in $k$ = {glue:}`socb_k_cover` or more of them with probability below $1\,\%$ (the
# binomial tail at rate $\delta_3$); claim 2 asks whether the single-layer baseline does. The
# number of problems sets the check's power: at the rate at which the baseline loses $f^\star$
# in this run, a count below $k$ among {glue:}`socb_n_cover` problems has probability
# {glue:}`socb_miss_prob` (printed below), so a seed on which claim 2 fails is evidence against
# the claim, not bad luck. Its
# radius $2\sigma^2\iota_3$ grows only logarithmically with $1/\delta_3$, while a spike of size
# $R$ shifts the losses by an amount set by $R$, not by $\sigma$.

# %%
from scipy.stats import binom

iota_3 = np.log(n_functions / delta_cover)
inst_3 = make_instance(n_cover)
noise_3 = np.repeat(np.asarray(cover_sigmas, float), n_cover)[:, None]
noise_3 = noise_3 * np.ones(horizon)
eps_3 = noise("spike", noise_3, inst_3)
n_runs_3 = n_cover * len(cover_sigmas)
k_cover = int(binom.isf(0.01, n_runs_3, delta_cover)) + 1  # P(X >= k) <= 1 %
clock = time.perf_counter()
for method in ("OLS, variance-aware", "layers, known sigma"):
    _, cov = run_bandit(method, noise_3, eps_3, inst_3, desc=method, iota=iota_3)
    cover[method, "spike, exp. 3"] = cov.reshape(len(cover_sigmas), n_cover)
    lost = (~cover[method, "spike, exp. 3"]).sum(1)
    print(
        f"{method}: f_star lost in {lost.tolist()} of {n_cover} runs at sigma = "
        f"{cover_sigmas}"
    )
print(f"{time.perf_counter() - clock:.1f} s wall-clock")
print(
    f"a radius valid at delta_3 = {delta_cover:g} loses f_star in >= {k_cover} of "
    f"{n_runs_3} runs with probability "
    f"{binom.sf(k_cover - 1, n_runs_3, delta_cover):.4f}"
)
lost_rate = (~cover["OLS, variance-aware", "spike, exp. 3"]).mean()
miss_prob = binom.cdf(k_cover - 1, n_runs_3, lost_rate)
print(
    f"at the baseline's measured rate {lost_rate:.3f}, a count below {k_cover} has "
    f"probability {miss_prob:.4f}"
)
glue("socb_miss_prob", round(float(miss_prob), 4), display=False)
glue("socb_n_cover", n_runs_3, display=False)
glue("socb_k_cover", k_cover, display=False)
glue("socb_delta_cover", delta_cover, display=False)

# %% [markdown]
# The baseline lost $f^\star$ in {glue:}`socb_spike_lost` of the {glue:}`socb_n_cover` runs, the
# layered algorithm in none: its range term $\tfrac43 R\tau_\ell\iota_3$ is the part of the
# radius that a spike cannot outgrow. In experiment 1, at $\delta = 5\,\%$, the baseline lost
# $f^\star$ in {glue:}`socb_exp1_lost` of its spike-noise runs and in {glue:}`socb_uniform_lost`
# of its uniform-noise runs; the table in the next section gives the share per method and
# experiment.
#
# ## What we reproduced
#
# Every check compares means over the problems, taken before any threshold. The *growth exponent*
# is the slope of $\log_2$(regret added in the doubling ending at $t$) against $\log_2 t$ over the
# last three doublings: $0.5$ for $\sqrt T$ regret, $0$ for $\log T$ regret, $1$ for linear
# regret. Over seeds 0–9 OLS's exponent at $\sigma = 0$ is {seeds}`3` and the layered
# algorithms' is {seeds}`5`, so $0.5 \pm 0.15$ for "like $\sqrt T$" and $< 0.15$ for
# "logarithmic" separate the two regimes by many standard deviations. The regret ratios at
# $\sigma = 0$ are {seeds}`6` (known $\sigma$) and {seeds}`7` (estimated); the thresholds $0.85$
# and $0.9$ lie between them and $1$, the value for no gain.
#
# The version-space checks are per method. Claim 1 asks that *each* layered method keeps
# $f^\star$ in every run of every experiment, stricter than the $1-\delta$ of the theorem; claim 2
# asks that the single-layer variance-only radius loses it under spike noise more often than a
# radius valid at $\delta_3$ could, the failure the layers are there to prevent. The bound
# {eq}`eq-socb-bound-const` is an upper bound on the regret's dependence on $\sigma$, not its
# shape, and we do not assert a shape (the discussion below explains why). The changing-variance
# check asks that the regret rise with the variance by more than 3 paired standard errors, and
# for a log-log slope within $0.3$ of $1$ against $\sqrt{\sum_t\sigma_t^2}$, against $2$ for a
# quadratic dependence and $0$ for none.

# %%
final_1 = {m: cum_1[m][..., -1].mean(1) for m in METHODS_1}  # [sigma]
exponent_1 = {m: growth(cum_1[m].mean(1))[1] for m in METHODS_1}
LAYERED = [m for m in METHODS_1 + METHODS_2 if m.startswith("layers")]
print("share of runs in which f_star never left the version space")
for (method, experiment), cov in cover.items():
    print(f"  {method:24s} {experiment:9s} noise: {cov.mean():.3f} of {cov.size}")
layered_cover = min(cov.mean() for (m, _), cov in cover.items() if m in LAYERED)
spike_lost = int((~cover["OLS, variance-aware", "spike, exp. 3"]).sum())
big = np.asarray(sigmas) >= 0.1


def sigma_slope_at(t):
    """Log-log slope of Reg_t(sigma) - Reg_t(0) against sigma, for sigma >= 0.1."""
    reg_t = cum_1["layers, known sigma"][..., t - 1].mean(1)
    return np.polyfit(
        np.log(np.asarray(sigmas)[big]),
        np.log(np.maximum(reg_t - reg_t[0], 1e-3)[big]),
        1,
    )[0]


slopes = np.array([sigma_slope_at(t) for t in doublings[1:]])
reg_known = cum_1["layers, known sigma"].mean(1)  # [sigma, round]
bound_scale = (reg_known[-1] - reg_known[0]) / (
    sigmas[-1] * np.sqrt(iota * np.arange(1, horizon + 1))
)
x2, y2 = root_var.mean(1), final_2["layers, per-layer variance"].mean(1)
var_slope = np.polyfit(np.log(x2[1:]), np.log(np.maximum(y2[1:] - y2[0], 1e-3)), 1)[0]
rise = (
    final_2["layers, per-layer variance"][-1] - final_2["layers, per-layer variance"][0]
)
rise_z = rise.mean() / (
    rise.std(ddof=1) / np.sqrt(n_replicates)
)  # paired, same problems
print(
    "known sigma, spike noise: log-log slope of Reg_t(sigma) - Reg_t(0), sigma >= 0.1"
)
for t, slope in zip(doublings[1:], slopes):
    print(
        f"  t = {t:5d}: slope {slope:.2f}; (Reg_t(sigma) - Reg_t(0)) / "
        f"(sigma sqrt(iota t)) at sigma = {sigmas[-1]:g}: {bound_scale[t - 1]:.3f}"
    )
print(
    f"per-layer variance: log-log slope against sqrt(sum sigma_t^2): {var_slope:.2f}; "
    f"Reg(p = 1) - Reg(p = 0) = {rise.mean():.1f}, {rise_z:.0f} standard errors"
)
for key, value, digits in (
    ("socb_spike_lost", spike_lost, 0),
    ("socb_exp1_lost", (~cover["OLS, variance-aware", "spike"]).sum(), 0),
    ("socb_uniform_lost", (~cover["OLS, variance-aware", "uniform"]).sum(), 0),
    ("socb_base_reg_max", final_1["OLS, variance-aware"][-1], 1),
    ("socb_known_reg_max", final_1["layers, known sigma"][-1], 1),
    ("socb_known_reg_0", final_1["layers, known sigma"][0], 1),
    ("socb_ols_reg", final_1["OLS"][0], 1),
    ("socb_ols_reg_max", final_1["OLS"][-1], 1),
    ("socb_switch", sigmas[-1] * np.sqrt(2 * iota / horizon), 3),
    ("socb_slope_q", slopes[0], 2),
    ("socb_slope_h", slopes[1], 2),
    ("socb_slope_T", slopes[2], 2),
    ("socb_bound_scale", bound_scale[-1], 2),
    ("socb_var_slope", var_slope, 2),
):
    glue(key, int(value) if digits == 0 else round(float(value), digits), display=False)

# %%
claims = lib.Claims(
    "second-order-contextual-bandits", paper="pacchiano2025second", control=control
)
claims.add(
    "Every layered method keeps f_star in its version space in every run (share of "
    "runs, the lowest over the three layered methods and all noise, = 1)",
    layered_cover,
    "f_star in the confidence sets w.p. 1 - delta",
    layered_cover == 1.0,
    fmt="{:.3f}",
)
claims.add(
    f"A single layer with the variance-only radius 2 sigma^2 iota_3 loses f_star under "
    f"spike noise in more runs than a radius valid at delta_3 = {delta_cover:g} would "
    f"(runs lost of {n_runs_3}, >= {k_cover}, the binomial 1 % tail)",
    spike_lost,
    "confidence sets valid w.p. 1 - delta need the range term (the paper's Bernstein "
    "radii)",
    spike_lost >= k_cover,
    fmt="{:d}",
)
e_ols = exponent_1["OLS"][0]
claims.add(
    "OLS at sigma = 0: regret grows like sqrt(T) (growth exponent of the regret added "
    "per doubling, 0.5 +- 0.15)",
    e_ols,
    "OLS regret scales with sqrt(T) even as sigma_t -> 0",
    abs(e_ols - 0.5) <= 0.15,
    fmt="{:.2f}",
)
flat = final_1["OLS"][-1] / final_1["OLS"][0]
claims.add(
    f"OLS ignores the noise level: Reg(T) at sigma = {sigmas[-1]:g} / at sigma = 0 "
    "(within 0.95-1.05)",
    flat,
    "OLS bound independent of sigma",
    0.95 <= flat <= 1.05,
    fmt="{:.3f}",
)
e_known = exponent_1["layers, known sigma"][0]
e_est = exponent_1["layers, estimated sigma"][0]
claims.add(
    "Variance-aware layers at sigma = 0: regret grows logarithmically (growth exponent "
    "< 0.15 with sigma known and estimated)",
    max(e_known, e_est),
    "O(d_E log|F|) up to logs at sigma = 0",
    max(e_known, e_est) < 0.15,
    fmt="{:.2f}",
)
ratio_known = final_1["layers, known sigma"][0] / final_1["OLS"][0]
claims.add(
    "At sigma = 0 the variance-aware regret is below OLS's (Reg ratio, sigma known, "
    "< 0.85)",
    ratio_known,
    "second-order bound below sqrt(T)",
    ratio_known < 0.85,
    fmt="{:.2f}",
)
ratio_est = final_1["layers, estimated sigma"][0] / final_1["OLS"][0]
claims.add(
    "... and with sigma unknown, estimated from residuals (Reg ratio < 0.9)",
    ratio_est,
    "same bound with unknown sigma",
    ratio_est < 0.9,
    fmt="{:.2f}",
)
claims.add(
    "Changing variance: the per-layer-variance regret rises with the variance "
    "(Reg(p = 1) - Reg(p = 0) > 3 paired s.e.) and tracks sqrt(sum sigma_t^2) "
    "(log-log slope of Reg - Reg(0) in 0.7-1.3)",
    var_slope,
    "O(d_E sqrt(log|F| sum sigma_t^2) + d_E log|F|)",
    rise_z > 3 and 0.7 <= var_slope <= 1.3,
    fmt="{:.2f}",
)
claims.report()

# %% [markdown]
# Every claim is also run under **controls**, named wrong variants of the chapter declared in
# `controls.yaml`, each taking away the idea a claim tests: the layers' range term, the spikes,
# OLS's blindness to $\sigma$, the layers themselves, and the per-layer variance estimate. The
# table shows, per claim, the controls under which its check must flip; run one with
# `make run CHAPTER=second-order-contextual-bandits CONTROL=<name>`.
#
# ```{controls-table}
# ```

# %% [markdown]
# ## How this compares with the paper
#
# The paper has no experiments; its statements are regret bounds, and the rows below compare what
# a bound predicts with what our runs show.
#
# | | paper {cite:p}`pacchiano2025second` | this chapter |
# |---|---|---|
# | OLS | $\tilde O(\sqrt{d_E\log|\mathcal F|\,T})$, $\sqrt T$ even as $\sigma_t \to 0$ | growth exponent close to $0.5$ at every $\sigma$, regret independent of $\sigma$ (on contexts without a margin, built to be hard) |
# | Constant $\sigma$, unknown | $\tilde O(\sigma\sqrt{d_E\log|\mathcal F|\,T} + d_E\log|\mathcal F|)$ | at $\sigma = 0$: constant regret per doubling, below OLS at the same $\iota$ (ratio in the claims table); with $\hat\sigma$ estimated, slightly above the known-$\sigma$ run; with the union over layers in $\iota$, {glue:}`socb_union_ratio_known` and {glue:}`socb_union_ratio_est` of OLS's regret at $T = 4096$ |
# | ... its dependence on $\sigma$ | an upper bound linear in $\sigma$ | below the bound's scale ({glue:}`socb_bound_scale` of $\sigma\sqrt{\iota T}$ at $\sigma = 0.5$); the shape is not tested: at this horizon the bound predicts a rise closer to quadratic, and the log-log slopes ({glue:}`socb_slope_q`, {glue:}`socb_slope_h`, {glue:}`socb_slope_T` at $T/4$, $T/2$, $T$) vary from seed to seed more than they fall |
# | ... against OLS at large $\sigma$ | same order, up to logs | {glue:}`socb_known_reg_max` against OLS's {glue:}`socb_ols_reg_max` at $\sigma = 0.5$ ({numref}`fig-second-order-contextual-bandits-sigma`): each layer fits only its own rounds |
# | Validity of the confidence sets | $f^\star$ in every set with probability $1-\delta$ | each layered method kept $f^\star$ in every run; a single layer with the variance-only radius lost it under spike noise more often than a radius valid at $\delta_3$ could (claims 1 and 2) |
# | Changing $\sigma_t$ | $\tilde O(d_E\sqrt{\log|\mathcal F|\sum_t\sigma_t^2} + d_E\log|\mathcal F|)$ | regret rises like $\sqrt{\sum_t\sigma_t^2}$ (slope in the claims table), from a constant well above OLS's regret at this horizon |
# | Algorithm | uncertainty-filtered layers, intersected confidence sets, Bernstein radii, variance estimation (pseudo-code not available to us) | our reading ({prf:ref}`socb-def-layers`), radii derived from Freedman's inequality, no tuned constant |
# | Scale | none | $|\mathcal F| = 512$ functions on the plane, $T = 4096$, 8 problems per noise level and {glue:}`socb_n_cover` for the coverage check; `paper` preset $T = 16384$, 16 problems |
#
# **OLS and $\sqrt T$.** The paper's motivating statement is a worst-case bound, and it needs a
# worst case to show. On contexts with a margin OLS would look logarithmic too (see Try it); on
# our contexts, whose gaps are spread over all scales, OLS's regret follows its width and grows as
# $\sqrt T$ at every noise level, including none: its radius $2R^2\iota$ knows only the range
# of the noise. That OLS's regret does not move with $\sigma$ (claim 4) follows from its radius
# by construction; what the check adds is that the noise itself, spikes included, does not move
# it either, and the `ols-variance-radius` control, which gives OLS the baseline's radius, breaks
# it.
#
# **Second-order regret at $\sigma = 0$.** Uncertainty filtering works as the proof sketch of
# {prf:ref}`socb-thm-second` says: with no noise, each layer needs a number of rounds proportional
# to $\iota/\tau_\ell$ to halve the width, each costs about $\tau_\ell$, so each doubling of
# the horizon adds the same amount of regret (the "added per doubling" columns). That is the
# $d_E\log|\mathcal F|\log T$ term of the bound; the gain over OLS at $T = 4096$ is moderate
# because $\sqrt T$ and $\log T$ are not yet far apart and the constant per layer,
# $\tfrac43 R\iota$, is close to OLS's $2R^2\iota$. It widens with the horizon (the `paper` preset).
# We keep $|\mathcal F|$ and the class fixed, so the runs do not test the $d_E\log|\mathcal F|$
# constant itself, only its dependence on $T$: on this class $|\mathcal F|$ also sets the
# resolution of the angles, so changing it moves $d_E$ and the regime together (the
# `n_functions = 64` entry of Try it), and a sweep over $|\mathcal F|$ could not separate the
# two factors.
#
# **What the layers do.** A radius proportional to the variance is where the gain over OLS comes
# from: the single-layer baseline, with $2\sigma^2\iota$ and nothing else, has the lowest regret
# of all methods at every $\sigma$ ({glue:}`socb_base_reg_max` at $\sigma = 0.5$, against
# {glue:}`socb_known_reg_max` for the layered algorithm and {glue:}`socb_ols_reg` for OLS). But
# that radius is a confidence set only for noise whose sub-Gaussian proxy is its variance; under
# spikes it lost $f^\star$ more often than its level allows (experiment 3). A valid single
# confidence set must pay Freedman's range term with $b = B$, the whole range of the class, and
# the `one-layer` control shows what that costs: the regret at $\sigma = 0$ grows like $\sqrt T$
# again and is above OLS's. The layers make the range term $\tfrac43 R\tau_\ell\iota$ small
# where the widths are small, and that is the whole of their job; with the range term removed
# (the `no-range-term` control), the known-$\sigma$ layered algorithm loses $f^\star$ under
# spikes as the baseline does. The coverage checks separate a range term from none; they do not
# test Freedman's constant $\tfrac43$, a worst-case constant that a smaller range term can
# undercut on typical problems, and the per-layer-variance algorithm, which experiment 2 runs
# on uniform noise only, is not checked under spikes at all. On uniform noise, where the baseline's radius is valid, the layers
# only cost regret.
#
# **Linear in $\sigma$?** The bound is an upper bound, and our regret stays far below its scale:
# $(\mathrm{Reg}_T(\sigma) - \mathrm{Reg}_T(0))/(\sigma\sqrt{\iota T})$ at $\sigma = 0.5$ is
# {glue:}`socb_bound_scale`. Its *shape* at a finite horizon need not be linear. The proof
# sketch gives the cost of a layer as $\min(\tau_\ell T, d_E\sigma^2\iota/\tau_\ell)$, and the
# minimum switches at $\tau_\ell \approx \sigma\sqrt{d_E\iota/T}$, which for $\sigma = 0.5$,
# $T = 4096$ and $d_E = 2$ (linear functions on the plane) is {glue:}`socb_switch`. Layers with
# thresholds above that scale are in their $\sigma^2\iota/\tau$ regime, quadratic in $\sigma$;
# the rise becomes linear only once the horizon is long enough for the widths to pass the switch
# point. So at this horizon the log-log slope of $\mathrm{Reg}_t(\sigma) - \mathrm{Reg}_t(0)$
# in $\sigma$ should be nearer 2 than 1, and fall towards 1 as $t$ grows. On seed 0 it is
# {glue:}`socb_slope_q`, {glue:}`socb_slope_h` and {glue:}`socb_slope_T` at $t = T/4$, $T/2$
# and $T$, but we do not assert the fall: at $t = T/4$ the differences at $\sigma = 0.1$ are a
# fraction of a unit of regret, within the replicate noise, and on some seeds the slope rises. The
# bound also hides logarithmic factors (and the number of layers) that our runs pay: at
# $\sigma = 0.5$ the layered algorithm's regret is {glue:}`socb_known_reg_max`, against OLS's
# {glue:}`socb_ols_reg_max`.
#
# **Changing variance.** Our per-layer-variance variant's regret rises like
# $\sqrt{\sum_t\sigma_t^2}$, as {eq}`eq-socb-bound-varying` says, but from a large constant: at
# $\sigma_t = 0$ it pays the unknown-variance term $c^2R^2\iota$ in every layer's
# $\hat S_\ell$, which makes the layers' radii several times those of the known-$\sigma$ run.
# Within our horizon it stays above OLS
# everywhere, and the constant-variance algorithm with an estimated variance does better on this
# schedule as well: the noisy rounds are independent of the actions, so the average variance is the right
# one here. The per-layer variant is the one whose guarantee survives variances that *do*
# correlate with the actions; our experiment does not test that case.
#
# ## Try it
#
# * `-p gap_min=0.05`: the gaps no longer reach small scales (a margin), so once OLS's width falls
#   below the smallest gap it stops paying regret: its growth exponent at $\sigma = 0$ drops well
#   below $0.5$ and the $\sqrt T$ claim fails, while the layered algorithm's regret stops
#   growing altogether. The $\sqrt T$ of {prf:ref}`socb-thm-ols` is a worst case.
# * `-p n_functions=64`: a coarse class (neighbours $0.1$ apart). The noise-free version spaces
#   shrink to $\{f^\star\}$ within the horizon and every method's regret stops growing (growth
#   exponents far below $0$, so the $\sqrt T$ claim fails); the finite class no longer imitates a
#   continuous one.
# * `make run CHAPTER=second-order-contextual-bandits PRESET=paper` ($T = 16384$, 16 problems
#   per level; {paper-preset}`runtime` on 2 CPU cores): the variance-aware regret at
#   $\sigma = 0$ falls to {paper-preset}`6` of OLS's, because OLS keeps adding $\sqrt2$ times
#   more per doubling while the layered algorithm's widths reach the resolution of the class and
#   its regret stops growing.
