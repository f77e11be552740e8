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
# # Optimal sample complexity for Gaussian single-index models: label transformation and smoothing
#
# ```{admonition} About this chapter
# :class: tip
# Paper: {cite:t}`chen2025neural` (ICLR 2025). Question: a single-index model hides a direction
# $\theta^\star$ in $d$ dimensions behind a nonlinear link. No efficient (statistical-query)
# algorithm can find it with fewer than about $d^{s^\star/2} \vee d$ samples, where $s^\star$ is
# the link's *generative exponent*; can a two-layer network trained by gradient descent match
# that bound? The paper answers yes, with two ingredients: a transformation of the labels and a
# smoothed loss. The paper is pure theory; the experiment is ours. We run online spherical SGD
# on the link $\mathrm{He}_3$ (information exponent 3, generative exponent 1) with raw labels,
# with smoothing, and with transformed labels, on a binary link with generative exponent 3 with and without
# smoothing, and on a link with $k^\star = \infty > s^\star = 3$, the paper's own regime,
# where the transformation and the smoothing must work together; we compare the samples each
# method needs as $d$ grows, and train a two-layer network end to end. The defaults ($d$ from 32 to 1024,
# {glue:}`sige_runs` or {glue:}`sige_runs_binary` independent runs per point and step size)
# ran in {glue:}`sige_cpu` time for the output stored with this page;
# `make run CHAPTER=single-index-generative-exponent PRESET=paper` goes to larger $d$.
# ```
#
# ## The question
#
# A *single-index model* is the simplest nonlinear regression with a hidden low-dimensional
# structure: the label depends on a $d$-dimensional Gaussian input only through one projection,
# $y = \sigma^\star(\langle\theta^\star, x\rangle)$. Knowing $\theta^\star$ turns the problem into a
# one-dimensional curve fit, so everything hard is in finding the direction. How many samples does
# that take? Information-theoretically about $d$. For gradient methods the answer depends on the
# link. {cite:t}`benarous2021online` showed that online SGD on the square loss needs about
# $d^{k^\star - 1}$ samples, where the *information exponent* $k^\star$ is the degree of the first
# nonzero Hermite coefficient of the link. {cite:t}`damian2023smoothing` cut this to
# $d^{k^\star/2}$ by smoothing the loss, and {cite:t}`damian2024computational` showed that the
# right measure of difficulty is not $k^\star$ but the smaller *generative exponent* $s^\star$,
# the best information exponent reachable by transforming the labels first, with a lower bound of
# $d^{s^\star/2}$ samples for statistical-query algorithms. {cite:t}`chen2025neural` put the two
# ideas together in one gradient algorithm for a two-layer network and prove that it needs
# $\tilde O(d^{s^\star/2} \vee d)$ samples, the lower bound up to logarithms. We test the three
# rates on a link where they differ, $\mathrm{He}_3$: raw SGD should need $d^2$ samples,
# smoothing $d^{3/2}$, and a label transformation $d$; the theorem's $d^{s^\star/2}$ on a
# binary link with $s^\star = 3$, where no transformation helps and smoothing must do the work;
# and on a link with $k^\star > s^\star = 3$, where each ingredient alone falls short and only
# the two together reach $d^{s^\star/2}$.
#
# ## The setting and the theorem
#
# ```{prf:definition} Gaussian single-index model, Hermite expansion
# :label: sige-def-model
#
# Inputs $x \sim \mathcal N(0, I_d)$, an unknown unit vector $\theta^\star$ and a link
# $\sigma^\star$ with $\mathbb E[\sigma^\star(z)^2] < \infty$ for $z \sim \mathcal N(0,1)$; the
# label is $y = \sigma^\star(\langle \theta^\star, x\rangle)$. The probabilists' Hermite
# polynomials $\mathrm{He}_0 = 1$, $\mathrm{He}_1 = z$, $\mathrm{He}_2 = z^2 - 1$,
# $\mathrm{He}_3 = z^3 - 3z, \dots$ are orthogonal, $\mathbb E[\mathrm{He}_j(z)\mathrm{He}_k(z)]
# = k!\,\delta_{jk}$, and for unit vectors $w, \theta^\star$ with overlap $m = \langle w,
# \theta^\star\rangle$,
#
# $$
# \mathbb E\big[\mathrm{He}_j(\langle w, x\rangle)\, \mathrm{He}_k(\langle \theta^\star, x\rangle)\big]
# = k!\, m^k\, \delta_{jk}.
# $$ (eq-sige-hermite)
# ```
#
# ```{prf:definition} Information exponent and generative exponent
# :label: sige-def-exponents
#
# Write $\sigma^\star = \sum_k \frac{c_k}{k!}\mathrm{He}_k$ with $c_k = \mathbb E[\sigma^\star(z)
# \mathrm{He}_k(z)]$. The *information exponent* is $k^\star = \min\{k \ge 1 : c_k \ne 0\}$. The
# *generative exponent* {cite:p}`damian2024computational` is the smallest information exponent
# of any transformed label,
#
# $$
# s^\star = \min_{T} \min\{k \ge 1 : \mathbb E[T(y)\,\mathrm{He}_k(z)] \ne 0\},
# \qquad y = \sigma^\star(z),
# $$ (eq-sige-genexp)
#
# over square-integrable $T$. Always $s^\star \le k^\star$. For $\mathrm{He}_3$, $k^\star = 3$ but
# $T(y) = \mathrm{sign}(y)$ gives
# $\mathbb E[\mathrm{sign}(\mathrm{He}_3(z))\, z] = 2(2\varphi(\sqrt3) - \varphi(0)) \approx -0.44$,
# so $s^\star = 1$. For labels $y \in \{-1, +1\}$ every $T(y)$ is affine in $y$, so $s^\star =
# k^\star$. The binary link $y = \mathrm{sign}(z^3 - 2z\ln 2)$, that is
# $P(y = 1 \mid z) = \tfrac12\big(1 + \mathrm{sign}(\mathrm{He}_3(z) - a z)\big)$ with
# $a = 2\ln 2 - 3$, is odd, so its even coefficients vanish; its $\mathrm{He}_1$ coefficient is
# $\mathbb E[yz] = 2\big(2\varphi(\sqrt{2\ln 2}) - \varphi(0)\big) = 0$ because
# $\varphi(\sqrt{2\ln 2}) = \varphi(0)/2$, and its $\mathrm{He}_3$ coefficient is
# $\mathbb E[y\,\mathrm{He}_3(z)] = 4\ln 2\,\varphi(0)$ ({glue:}`sige_b_he3` by quadrature). So
# $s^\star = k^\star = 3$. The same holds for any binary link, for instance
# $P(y = 1 \mid z) = \tfrac12\big(1 + c(\mathrm{He}_3(z) - az)\,1\{|z| \le R\}\big)$ with
# $a = \mathbb E[\mathrm{He}_3(z)\,z\,1\{|z| \le R\}] / \mathbb E[z^2\,1\{|z| \le R\}]$
# (here {glue:}`sige_issue_a` at $R = 2$, and $c =$ {glue:}`sige_issue_c` keeps the probability
# in $[0, 1]$): $a$ removes the $\mathrm{He}_1$ coefficient of $\mathbb E[2y - 1 \mid z]$, the
# $\mathrm{He}_2$ one vanishes because the link is odd, the $\mathrm{He}_3$ one is
# {glue:}`sige_issue_he3`, so $k^\star = s^\star = 3$: with two label values no transformation
# can lower the exponent.
# ```
#
# ```{prf:definition} A link with $k^\star > s^\star = 3$: the hidden sign
# :label: sige-def-hidden
#
# A gap between the exponents needs labels with more than two values. Hide the binary link
# $b(z) = \mathrm{sign}(z^3 - 2z\ln 2)$ behind an independent multiplier:
# $y = b(z)\,V$ with $V \in \{-1, \tfrac12, 1\}$ of probabilities $\tfrac38, \tfrac12,
# \tfrac18$, independent of $z$, so $\mathbb E[V] = 0$. Then $\mathbb E[y \mid z] =
# \mathbb E[V]\,b(z) = 0$: every Hermite coefficient of $y$ vanishes and $k^\star = \infty$.
# With raw labels the correlation loss has no signal at all, with any activation, smoothed or
# not. The labels still carry $b$: $y = \pm\frac12$ comes only from $V = \frac12$, and
# $y = \pm 1$ from $b = \pm 1, V = 1$ (probability $\frac18$) or $b = \mp 1, V = -1$
# ($\frac38$), so $\mathbb E[b \mid y = \pm 1] = \mp\frac12$. Since $z$ enters $y$ only
# through $b$, and $\mathbb E[\mathrm{He}_k(z) \mid b] = b\,\mathbb E[b\,\mathrm{He}_k(z)]$,
#
# $$
# \mathbb E[\mathrm{He}_k(z) \mid y] = \mathbb E[b \mid y]\;\mathbb E[b\,\mathrm{He}_k(z)],
# $$ (eq-sige-hidden)
#
# zero for $k = 1, 2$ (those coefficients of $b$ vanish) and not for $k = 3$: $s^\star = 3$.
# The best transformation is $T(y) = \mathbb E[b \mid y]$, which is $\pm 1$ at $y = \pm\frac12$
# and $\mp\frac12$ at $y = \pm 1$, not affine in $y$; its $\mathrm{He}_3$ coefficient is
# $\mathbb E[T(y)^2]\,\mathbb E[b\,\mathrm{He}_3(z)] = \frac58\,\mathbb E[b\,\mathrm{He}_3(z)]$
# ({glue:}`sige_t_he3`). Given $z$, $T(y) = b(z)\,\xi$ with $\xi$ independent of $z$ and
# $\mathbb E\xi = \frac58$: after the transformation the labels are those of the binary link,
# with a weaker and noisier signal. The coefficients are computed by quadrature below.
# ```
#
# Online SGD on the correlation loss $\ell(w; x, y) = -T(y)\,\sigma(\langle w, x\rangle)$ with
# $w$ on the sphere sees, by {eq}`eq-sige-hermite`, the population objective
# $\sum_k \frac{c_k(T)\, c_k(\sigma)}{k!} m^k$, dominated near a random start
# $m_0 \approx d^{-1/2}$ by its first term $\propto m^{k}$, $k$ the information exponent of $T(y)$.
# The overlap then moves by a drift $\eta\, m^{k-1}$ per step against noise of size $\eta\sqrt d$
# per step; projecting back to the sphere turns the noise into a pull $-\eta^2 d\, m$ towards
# zero. The drift must win, $\eta \lesssim m^{k-2}/d$, and the escape from $m_0$ then takes
# $n \approx d^{k-1}$ steps for $k \ge 3$, $d\log d$ for $k = 2$ and $d$ for $k = 1$
# {cite:p}`benarous2021online`.
#
# ```{prf:definition} Landscape smoothing
# :label: sige-def-smoothing
#
# For a smoothing radius $\lambda \ge 0$ and $z$ uniform on the unit sphere of $w^\perp$,
# $\sigma_\lambda(w; x) = \mathbb E_z\, \sigma\big(\langle (w + \lambda z)/\sqrt{1+\lambda^2},
# x\rangle\big)$ {cite:p}`damian2023smoothing`. With $u = \langle w, x\rangle$, $\rho^2 = \|x\|^2 -
# u^2$ and $s = \sqrt{1+\lambda^2}$, only the first two moments of $\langle z, x\rangle$ (mean 0,
# variance $\rho^2/(d-1)$) enter a cubic, so for $\sigma = \mathrm{He}_3$ exactly
#
# $$
# \sigma_\lambda(u) = \frac{u^3 + 3u\,\lambda^2\rho^2/(d-1)}{s^3} - \frac{3u}{s}.
# $$ (eq-sige-smooth)
# ```
#
# Averaged over $x$ (with {eq}`eq-sige-hermite` and $\mathbb E[\mathrm{He}_3(z) z^3] = 6$),
# smoothing turns the objective $6m^3$ into exactly
# $6\big(m^3 + 3m(1-m^2)\lambda^2/(d-1)\big)/s^3$: a *linear* term appears whose weight $\lambda^2/d$ beats $m^2$ while
# $m < \lambda/\sqrt d$. The per-sample noise of the smoothed gradient stays of order one (the
# $\lambda^2$ term multiplies $\|x\|^2/(d-1) - 1 = O(d^{-1/2})$). With $\lambda = d^{1/4}$ the
# drift is $\eta' d^{-1/2}$ ($\eta' = \eta/s^3$), the noise condition
# $\eta' d\, m \lesssim d^{-1/2}$ up to $m = d^{-1/4}$ gives $\eta' \lesssim d^{-5/4}$, and the
# climb from $d^{-1/2}$ to $d^{-1/4}$ takes $d^{-1/4}/(\eta' d^{-1/2}) = d^{3/2}$ steps: the
# $d^{k^\star/2}$ rate.
#
# ```{prf:theorem} Gradient-based learning at the SQ-optimal rate (after Chen et al.)
# :label: sige-thm-main
#
# Let the link have generative exponent $s^\star \ge 1$. Statistical-query algorithms with
# polynomially many queries need $n \gtrsim d^{s^\star/2} \vee d$ samples
# {cite:p}`damian2024computational`. A two-layer network $f(x) = \sum_{j=1}^{N} a_j
# \sigma(\langle w_j, x\rangle + b_j)$ trained in two stages, (1) each $w_j$ by online spherical
# SGD on the correlation loss with transformed labels $T(y)$, where $T$ lowers the information
# exponent to $s^\star$, and a smoothed activation $\sigma_\lambda$, $\lambda \approx d^{1/4}$,
# (2) the second layer $a$ by ridge regression on fresh samples, reaches
# $|\langle w_j, \theta^\star\rangle| \ge 1 - \epsilon$ with
#
# $$
# n = \tilde O\big(d^{s^\star/2} \vee d\big)
# $$ (eq-sige-rate)
#
# samples, and then a small test error. If $\theta^\star$ is $k$-sparse with $k = o(\sqrt d)$, a
# *weight perturbation* of the neurons replaces $d$ by $k$: $\tilde O(k^{s^\star})$ samples,
# which matches a new SQ lower bound $\tilde\Omega(k^{s^\star})$ {cite:p}`chen2025neural`.
# ```
#
# ```{prf:proof}
# (Sketch, our derivation.) Transforming the labels replaces the information exponent $k^\star$
# of $y$ by that of $T(y)$, which is $s^\star$ for a good $T$. By the drift-noise argument above,
# plain SGD then needs $d^{s^\star - 1} \vee d$ (times $\log d$ at $s^\star = 2$); smoothing with
# $\lambda = d^{1/4}$ lowers the exponent $s^\star - 1$ to $s^\star/2$ for $s^\star \ge 3$. Once
# $m$ is of order one the landscape is benign and $O(d)$ further steps reach $1 - \epsilon$; the
# ridge stage then fits a one-dimensional function of $\langle\theta^\star, x\rangle$.
# ```
#
# So on $\mathrm{He}_3$ the three methods should need $d^2$ (raw labels, $\sigma = \mathrm{He}_3$),
# $d^{3/2}$ (raw labels, smoothed $\mathrm{He}_3$) and $d$ samples (labels $-\mathrm{sign}(y)$,
# $\sigma = \mathrm{He}_1$). On the binary link of {prf:ref}`sige-def-exponents`, the paper's own
# regime $s^\star = 3$, no transformation helps and the theorem's rate $d^{s^\star/2} = d^{3/2}$
# needs the smoothing; without it SGD needs $d^{s^\star - 1} = d^2$. On the hidden-sign link of
# {prf:ref}`sige-def-hidden` raw SGD ($d^{k^\star - 1}$) and smoothing alone ($d^{k^\star/2}$)
# never learn ($k^\star = \infty$), the transformation alone needs $d^{s^\star - 1} = d^2$,
# and the transformation with smoothing $d^{s^\star/2} = d^{3/2}$.
#
# ```{note}
# **Where this chapter departs from the paper.** The paper's pseudo-code and constants were not
# available to us; the algorithm below is our reading of its description.
# * **Neurons.** In the scaling experiments each replicate is one neuron with its own stream
#   of samples, so a sample count is what one neuron needs; the network of experiment 3 shares
#   the samples between its neurons. $\theta^\star = e_1$, which loses nothing because SGD with
#   Gaussian inputs is rotation invariant.
# * **Links and transforms.** $\mathrm{He}_3$ with $T(y) = -\mathrm{sign}(y)$ ($s^\star = 1$),
#   the binary link $y = \mathrm{sign}(z^3 - 2z\ln 2)$ ($s^\star = 3$), whose labels are used as
#   they are (for $\pm 1$ labels every transformation is affine), and the hidden-sign link
#   ($k^\star = \infty$, $s^\star = 3$) with $T(y) = \mathbb E[b \mid y]$.
# * **Step sizes.** The samples needed by a method at a given $d$ are the best over a grid of
#   six steps, spaced by factors of 2.5 from 0.16 to 15.6 times a reference $c\,d^{-\alpha}$
#   with the $\alpha$ of the drift-noise argument. The best step is printed, and claim 7
#   checks that it is inside the grid, not at either end, so the counts are the method's, not
#   the reference schedule's.
# * **Start.** In the scaling experiments every neuron starts at overlap exactly $d^{-1/2}$, the
#   typical size of the overlap of a uniformly random start. A uniform start makes the escape
#   time of raw SGD, about $1/(\eta m_0)$, heavy-tailed in $m_0$. The network's neurons start
#   uniformly at random.
# * **Sample complexity** is the median over replicates of the first sample at which a neuron's
#   overlap reaches a target (0.7), not the paper's $1 - \epsilon$ with a polylog factor. The
#   target must be out of reach of chance: a unit vector that wanders at random has overlaps of
#   size $d^{-1/2}$, $0.18$ at $d = 32$, so a target of 0.5 (under 3 of those) can be hit by a
#   walk with very large steps that has learned nothing, and the best step at $d = 32$ then runs
#   off the top of the grid; 0.7 is 4 of them.
# * **Transformation and smoothing together.** Run on the hidden-sign link only, whose
#   $k^\star$ is infinite rather than finite: raw SGD and smoothing alone are then predicted
#   never to learn, not to learn at the rates $d^{k^\star - 1}$ and $d^{k^\star/2}$ of a finite
#   $k^\star > 3$, which would be beyond our budget anyway ($d^{5/2}$ and $d^4$ for
#   $k^\star = 5$). Raw SGD on it is not run separately: it is smoothing alone with
#   $\lambda = 0$, which the control `no-smoothing` runs. In the default, experiment 4 spans
#   $d = 32$ to $128$ only, within the minute of CPU; the `paper` preset goes to $d = 512$.
# * **Sparse case.** Not run: the weight-perturbation step is not specified in the material
#   available to us, and we did not invent one.
# ```
#
# ## The algorithm
#
# Online spherical SGD, one fresh sample per step: the Riemannian gradient is the Euclidean one
# minus its component along $w$, and the step ends with a projection back to the sphere. Each
# method is a *coefficient* $g = -\partial\ell/\partial u = T(y)\,\sigma'(u)$ multiplying $x$, so
# one step is $w \leftarrow (w + \eta g (x - u w))/\|w + \eta g (x - u w)\|$.

# %% tags=["parameters"]
seed = 0
device = "cpu"  # numpy only; the device just has to be valid
progress = False
control = "none"  # or a deliberately wrong variant named in controls.yaml
dims = [32, 64, 128, 256]  # experiment 1: every method
dims_large = [256, 512, 1024]  # experiment 2: the fast methods at larger d
n_replicates = 64  # independent neurons (runs) per method, d and step
n_replicates_binary = 96  # the same for the binary link in experiment 1
n_replicates_large_binary = 128  # the same for the binary link in experiment 2
target_overlap = 0.7  # a run's sample count: first step its overlap m reaches this
step_grid = [0.16, 0.4, 1.0, 2.5, 6.25, 15.625]  # geometric; x each method's ref.
step_raw = 0.5  # He3 activation: reference step step_raw * d^-1.5
step_smooth = 0.2  # smoothed He3: reference step (s^3 eta) step_smooth * d^-1.25
step_linear = 1.0  # He1 activation (transformed labels): reference step step_linear / d
horizon = 4.0  # experiment 1: a run stops after horizon * d^2 samples at most
horizon_large = 16.0  # experiment 2: after horizon_large * d^1.5 samples at most
stop_fraction = 0.75  # a (method, d) stops once one step brings this share to target
n_bootstrap = 400  # resamples of the replicates for the intervals
net_dim = 64  # two-layer network: input dimension
net_width = 64  # two-layer network: number of neurons
net_steps_per_d = 1000  # stage 1 samples: net_steps_per_d * net_dim
net_ridge_samples = 8000  # stage 2 (ridge) samples
net_ridge_penalty = 1e-6  # ridge penalty per sample
dims_hidden = [32, 64, 128]  # experiment 4: the hidden-sign link, k* inf, s* 3
n_replicates_hidden = 64  # neurons per d and step there: transform + smoothing
n_replicates_hidden_alone = 32  # the same for the transformation alone
n_replicates_hidden_never = 16  # the same for smoothing alone (raw labels)

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
control = lib.check_control("single-index-generative-exponent", control)
lib.check_int_list("dims", dims, low=8, high=4096, min_len=3, increasing=True)
lib.check_int_list(
    "dims_large", dims_large, low=8, high=8192, min_len=3, increasing=True
)
lib.check_int("n_replicates", n_replicates, low=8, high=4096)
lib.check_int("n_replicates_binary", n_replicates_binary, low=8, high=4096)
lib.check_int("n_replicates_large_binary", n_replicates_large_binary, low=8, high=4096)
lib.check_float("target_overlap", target_overlap, low=0.2, high=0.8)
if not (
    isinstance(step_grid, list)
    and len(step_grid) >= 3
    and all(isinstance(f, (int, float)) and f > 0 for f in step_grid)
    and all(a < b for a, b in zip(step_grid, step_grid[1:]))
    and np.ptp(np.diff(np.log(step_grid))) < 0.01
):
    raise ValueError(
        "parameter `step_grid`: an increasing geometric list of at least 3 positive "
        "numbers (a constant ratio between neighbours)"
    )
lib.check_float("step_raw", step_raw, low=0.0, high=1.0, low_open=True)
lib.check_float("step_smooth", step_smooth, low=0.0, high=1.0, low_open=True)
lib.check_float("step_linear", step_linear, low=0.0, high=1.0, low_open=True)
lib.check_float("horizon", horizon, low=0.1, high=100.0)
lib.check_float("horizon_large", horizon_large, low=0.1, high=1000.0)
lib.check_float("stop_fraction", stop_fraction, low=0.5, high=1.0)
lib.check_int("n_bootstrap", n_bootstrap, low=50, high=10000)
lib.check_int("net_dim", net_dim, low=8, high=1024)
lib.check_int("net_width", net_width, low=4, high=4096)
lib.check_int("net_steps_per_d", net_steps_per_d, low=1, high=10000)
lib.check_int("net_ridge_samples", net_ridge_samples, low=100, high=10**6)
lib.check_float("net_ridge_penalty", net_ridge_penalty, low=0.0, high=10.0)
lib.check_int_list(
    "dims_hidden", dims_hidden, low=8, high=4096, min_len=3, increasing=True
)
lib.check_int("n_replicates_hidden", n_replicates_hidden, low=8, high=4096)
lib.check_int("n_replicates_hidden_alone", n_replicates_hidden_alone, low=8, high=4096)
lib.check_int("n_replicates_hidden_never", n_replicates_hidden_never, low=8, high=4096)
rng, device = lib.setup(seed, device)

# %% [markdown]
# **The overlap chain.** With Gaussian inputs the overlap $m_t = \langle w_t, \theta^\star\rangle$ of
# online spherical SGD is a Markov chain on its own, and we simulate it exactly in $O(1)$ work per
# step, whatever $d$. Rotate so that $w = m\,e_1 + \sqrt{1 - m^2}\,e_2$ and $\theta^\star = e_1$.
# A fresh sample enters the step only through $z = x_1$, $u = \langle w, x\rangle = m z +
# \sqrt{1 - m^2}\,x_2$ and $\|x\|^2 = x_1^2 + x_2^2 + \chi^2_{d-2}$, and the step gives
#
# $$
# m' = \frac{m + \eta g\,(z - u m)}{\sqrt{1 + \eta^2 g^2 (\|x\|^2 - u^2)}}.
# $$ (eq-sige-chain)
#
# So one step of a neuron costs a few numbers, and every method, dimension, step size and
# replicate runs as one array. The coefficient $g$ of each activation is
# $A u^2 + B\rho^2 + C$ times the transformed label, with $\rho^2 = \|x\|^2 - u^2$:
# $\mathrm{He}_3' = 3u^2 - 3$, $\mathrm{He}_1' = 1$, and for the smoothed $\mathrm{He}_3$ the
# derivative of {eq}`eq-sige-smooth` in $u$ (with $\partial\rho^2/\partial u = -2u$) times $s^3$,
# a constant that only rescales the step.

# %%
LN2 = np.log(2.0)
# method: (link, label transformation, activation, reference-step exponent)
METHODS = {
    "raw He3": ("He3", "identity", "He3", 1.5),
    "smoothed He3": ("He3", "identity", "smoothed He3", 1.25),
    "transformed He3": ("He3", "-sign", "He1", 1.0),
    "raw binary": ("binary", "identity", "He3", 1.5),
    "smoothed binary": ("binary", "identity", "smoothed He3", 1.25),
}
HIDDEN = {  # experiment 4: the hidden-sign link, k* = inf > s* = 3
    "smoothed hidden": ("hidden", "identity", "smoothed He3", 1.25),
    "transformed hidden": ("hidden", "E[b|y]", "He3", 1.5),
    "transformed + smoothed hidden": ("hidden", "E[b|y]", "smoothed He3", 1.25),
}
ALL_METHODS = {**METHODS, **HIDDEN}
V_VALUES = np.array([-1.0, 0.5, 1.0])  # hidden-sign link: y = b(z) V, V independent
V_PROBS = np.array([3, 4, 1]) / 8  # of z, with E[V] = 0
REF_STEP = {"He3": step_raw, "smoothed He3": step_smooth, "He1": step_linear}


def he3(z):
    return z**3 - 3 * z


def binary(z):
    return np.sign(z**3 - 2 * LN2 * z)  # binary link, s* = 3


def link_labels(link, z):
    if link == "He3":
        return he3(z)
    if link == "hidden":  # y = b(z) V: E[y | z] = 0, so k* = inf
        return binary(z) * rng.choice(V_VALUES, size=z.shape, p=V_PROBS)
    return binary(z)


def best_transform(y):
    """T(y) = E[b | y] for the hidden-sign link (b = y / V, V = -1, 1/2 or 1)."""
    out = np.zeros_like(y)
    for value in np.unique(np.abs(V_VALUES)):
        on = V_VALUES * np.sign(V_VALUES) == value  # V = +-value
        p_plus = V_PROBS[on & (V_VALUES > 0)].sum()  # y = +value from b = +1
        p_minus = V_PROBS[on & (V_VALUES < 0)].sum()  # ... and from b = -1
        at = np.abs(y) == value
        out[at] = np.sign(y[at]) * (p_plus - p_minus) / (p_plus + p_minus)
    return out


def transform(kind, y):
    if kind == "-sign":
        return -np.sign(y)
    return best_transform(y) if kind == "E[b|y]" else y


def method_spec(method):
    """ALL_METHODS[method] as the control leaves it."""
    link, kind, activation, alpha = ALL_METHODS[method]
    if control == "no-transform" and kind == "-sign":
        return link, "identity", "smoothed He3", 1.25  # raw labels, best activation
    if control == "no-transform" and kind == "E[b|y]":
        return link, "identity", activation, alpha  # raw labels, same activation
    return link, kind, activation, alpha


def smoothing_radius2(d):
    """lambda^2: d^(1/2) (lambda = d^(1/4)); under the controls 0, 1, or held at the
    schedule's value at the geometric middle of dims_hidden."""
    held = float(np.exp(np.log(dims_hidden).mean() / 2))
    fixed = {"no-smoothing": 0.0, "constant-radius": 1.0, "radius-held": held}
    return fixed.get(control, np.sqrt(d))


def activation_abc(activation, d):
    """g / T(y) = A u^2 + B rho^2 + C for the activation at dimension d."""
    if activation == "He3":
        return 3.0, 0.0, -3.0
    if activation == "He1":
        return 0.0, 0.0, 1.0
    lam2 = smoothing_radius2(d)
    k = lam2 / (d - 1)
    return 3 - 6 * k, 3 * k, -3 * (1 + lam2)  # times s^3 = (1 + lambda^2)^1.5


EXPONENTS = {"He3": (3, 1), "binary": (3, 3), "hidden": (np.inf, 3)}  # (k*, s*)


def theory_exponent(method):
    """The rate's exponent: d^max(e/2, 1) smoothed or linear, d^max(e-1, 1) raw He3,
    with e = s* for transformed labels and e = k* for raw labels."""
    link, kind, activation, _ = ALL_METHODS[method]
    k_star, s_star = EXPONENTS[link]
    if control == "theory-kstar":  # a theory that ignores the generative exponent
        s_star = k_star
    e = k_star if kind == "identity" else s_star
    return max(e - 1.0, 1.0) if activation == "He3" else max(e / 2, 1.0)


def reference_step(method, d):
    _, _, activation, alpha = method_spec(method)
    return REF_STEP[activation] * d**-alpha


GRID = [f / 16 for f in step_grid] if control == "small-steps" else list(step_grid)
GRID_RATIO = step_grid[1] / step_grid[0]  # the grid's spacing

# %% [markdown]
# **The exponents by quadrature.** The Hermite coefficients that decide $k^\star$ and
# $s^\star$ of the links of {prf:ref}`sige-def-exponents`, computed with adaptive quadrature
# (breaks at the link's jumps) rather than by hand: for the hidden-sign link, the coefficients
# of $y$ (all zero: $k^\star = \infty$), of the conditional means
# $\mathbb E[\mathrm{He}_k(z) \mid y]$ for each of its four label values (zero for $k = 1, 2$,
# not for $k = 3$: $s^\star = 3$) and of $T(y) = \mathbb E[b \mid y]$; and for the binary link
# $P(y = 1 \mid z) = \tfrac12\big(1 + c(\mathrm{He}_3(z) - az)\,1\{|z| \le R\}\big)$, the
# coefficients of $\mathbb E[y \mid z]$.

# %%
from scipy import integrate, special

ROOT = np.sqrt(2 * LN2)  # where b(z) = sign(z^3 - 2 z ln 2) jumps


def hermite(k, z):
    return special.eval_hermitenorm(k, z)


def gauss_mean(f, breaks=(-ROOT, 0.0, ROOT)):
    """E f(z), z ~ N(0, 1), by adaptive quadrature with breaks at the jumps."""

    def density(z):
        return f(np.asarray(z, float)) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)

    value, _ = integrate.quad(density, -12, 12, points=breaks, limit=200)
    return value


ks = range(1, 6)
coef_b = np.array([gauss_mean(lambda z, k=k: binary(z) * hermite(k, z)) for k in ks])
coef_y = [  # E[y He_k], y = b V with V independent of z
    sum(
        v * p * gauss_mean(lambda z, k=k: binary(z) * hermite(k, z))
        for v, p in zip(V_VALUES, V_PROBS)
    )
    for k in ks
]
label_values = np.unique(np.concatenate([V_VALUES, -V_VALUES]))  # y = +-|V|


def p_label(value, z):
    """P(y = value | z) on the hidden-sign link."""
    b = binary(z)
    return sum(p * (b * v == value) for v, p in zip(V_VALUES, V_PROBS))


cond = np.array(
    [  # E[He_k(z) | y = value], rows: values, columns: k
        [
            gauss_mean(lambda z, k=k: hermite(k, z) * p_label(value, z))
            / gauss_mean(lambda z: p_label(value, z))
            for k in ks
        ]
        for value in label_values
    ]
)
coef_t = [
    gauss_mean(
        lambda z, k=k: sum(
            best_transform(np.array([value]))[0] * p_label(value, z) * hermite(k, z)
            for value in label_values
        )
    )
    for k in ks
]
print("k                           " + "".join(f"{k:9d}" for k in ks))
print("E[b He_k], b = binary link  " + "".join(f"{v:9.4f}" for v in coef_b))
print("E[y He_k], hidden sign      " + "".join(f"{v:9.4f}" for v in coef_y))
for value, row in zip(label_values, cond):
    print(f"E[He_k | y = {value:+.1f}]         " + "".join(f"{v:9.4f}" for v in row))
print("E[T(y) He_k], T = E[b | y]  " + "".join(f"{v:9.4f}" for v in coef_t))
k_star = next((k for k, v in zip(ks, coef_y) if abs(v) > 1e-8), np.inf)
s_star = next(k for k in ks if np.abs(cond[:, k - 1]).max() > 1e-8)
print(f"hidden-sign link: k* = {k_star} (E[y | z] = E[V] b(z) = 0), s* = {s_star}")

R = 2.0  # the binary link of the issue: a kills He1, c keeps P(y = 1 | z) in [0, 1]
a_r = gauss_mean(lambda z: he3(z) * z * (np.abs(z) <= R), (-R, R)) / gauss_mean(
    lambda z: z * z * (np.abs(z) <= R), (-R, R)
)
grid_z = np.linspace(-R, R, 20001)
c_r = 1 / np.abs(he3(grid_z) - a_r * grid_z).max()
coef_r = [
    gauss_mean(
        lambda z, k=k: c_r * (he3(z) - a_r * z) * (np.abs(z) <= R) * hermite(k, z),
        (-R, R),
    )
    for k in ks
]
print(f"binary link with R = {R:g}: a = {a_r:.4f}, c = {c_r:.4f}")
print("E[(2y - 1) He_k]            " + "".join(f"{v:9.4f}" for v in coef_r))
glue("sige_t_he3", f"{coef_t[2]:.2f}", display=False)
glue("sige_b_he3", f"{coef_b[2]:.2f}", display=False)
glue("sige_issue_a", f"{a_r:.3f}", display=False)
glue("sige_issue_c", f"{c_r:.3f}", display=False)
glue("sige_issue_he3", f"{coef_r[2]:.3f}", display=False)


# %% [markdown]
# `overlap_chains` runs a list of cells (method, $d$, step), `n_rep` neurons each, and
# returns each neuron's first sample at which $m \ge$ `target_overlap` ($\infty$ if it never
# does). A (method, $d$) stops when one of its steps has brought `stop_fraction` of its neurons to
# the target, or at its cap; every sample count the analysis uses is then already decided (a
# slower step's median is beyond the stopping time, so it cannot be the best).

# %%
def overlap_chains(cells, cap, n_rep, chunk=500):
    """cells: [(method, d, eta)]; cap(d): most samples per run; n_rep runs per cell.
    Returns the hit times [cells, replicates]."""
    n = len(cells) * n_rep
    cell_of = np.repeat(np.arange(len(cells)), n_rep)
    d = np.array([c[1] for c in cells], float)[cell_of]
    eta = np.array([c[2] for c in cells])[cell_of]
    spec = [method_spec(c[0]) for c in cells]
    abc = np.array([activation_abc(s[2], c[1]) for s, c in zip(spec, cells)])[cell_of]
    link = np.array([s[0] for s in spec])[cell_of]
    kind = np.array([s[1] for s in spec])[cell_of]
    group = np.array([hash(c[:2]) for c in cells])[cell_of]  # (method, d)
    limit = np.array([cap(c[1]) for c in cells])[cell_of]
    m = d**-0.5
    hit = np.full(n, np.inf)
    live = np.arange(n)
    t = 0
    while len(live):
        size = len(live)
        z = rng.standard_normal((chunk, size))
        x2 = rng.standard_normal((chunk, size))
        norm2 = z * z + x2 * x2 + rng.chisquare(d[live] - 2, (chunk, size))
        g = np.empty((chunk, size))
        for name in ("He3", "binary", "hidden"):
            on = link[live] == name
            if on.any():
                g[:, on] = link_labels(name, z[:, on])
        for name in ("identity", "-sign", "E[b|y]"):
            on = kind[live] == name
            if on.any():
                g[:, on] = transform(name, g[:, on])
        g *= eta[live]
        a, b, c = abc[live].T
        mm = m[live]
        reached = np.zeros((chunk, size), bool)
        for i in range(chunk):
            zi = z[i]
            u = np.sqrt(1 - mm * mm)
            u *= x2[i]
            u += mm * zi
            u2 = u * u
            rho2 = norm2[i] - u2
            gi = a * u2
            gi += b * rho2
            gi += c
            gi *= g[i]
            step = zi - u * mm
            step *= gi
            step += mm
            gi *= gi
            gi *= rho2
            gi += 1
            mm = step / np.sqrt(gi)  # eq-sige-chain
            reached[i] = mm >= target_overlap
        m[live] = mm
        first = np.argmax(reached, axis=0)
        new = reached.any(axis=0) & ~np.isfinite(hit[live])
        hit[live[new]] = t + 1 + first[new]
        t += chunk
        share = np.isfinite(hit).reshape(len(cells), n_rep).mean(axis=1)
        done = (share[cell_of[live]] >= stop_fraction) | (t >= limit[live])
        for key in np.unique(group[live][done]):
            done |= group[live] == key
        live = live[~done]
    return hit.reshape(len(cells), n_rep)


# %% [markdown]
# The samples a method needs at $d$ are the median hit time, minimised over the step grid. The
# intervals resample the replicates of every cell (`n_bootstrap` times) and redo the whole
# analysis, the minimum over steps included. A resample can put more than half of a cell's runs
# beyond the stopping time (when few more than half of them reached the target); its median,
# and the slope through it, is then infinite. The intervals are order statistics of the
# resamples, so such a resample counts as what it is, a count larger than any measured one;
# an interval is unbounded only if more than 2.5 % of the resamples are of this kind, and
# experiment 2 prints how many there were.

# %%
def run_experiment(methods, dim_list, cap, n_rep):
    cells = [
        (mth, d, eta)
        for mth in methods
        for d in dim_list
        for eta in (f * reference_step(mth, d) for f in GRID)
    ]
    hits = overlap_chains(cells, cap, n_rep)
    return hits.reshape(len(methods), len(dim_list), len(GRID), n_rep)


def needed(hits):
    """Median hit time per step, best step: [..., dims] and its step index."""
    median = np.median(hits, axis=-1)
    return median.min(axis=-1), median.argmin(axis=-1)


def bootstrap_needed(hits):
    """[n_bootstrap, methods, dims]: the best median after resampling replicates."""
    out = np.empty((n_bootstrap, *hits.shape[:2]))
    for b in range(n_bootstrap):
        pick = rng.integers(hits.shape[-1], size=hits.shape)
        out[b] = needed(np.take_along_axis(hits, pick, axis=-1))[0]
    return out


def slope(dim_list, n):
    """Slope of log n on log d along the last axis (+-inf or nan if an n = inf)."""
    x = np.log(np.asarray(dim_list, float))
    x = x - x.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.log(n) * x).sum(axis=-1) / (x * x).sum()


def quantile(a, q, undefined):
    """Bootstrap quantile, an order statistic of the resamples. A resample whose best
    median lies beyond the stopping time has an infinite slope or ratio, which is
    ordered as such; an undefined one (nan) counts as `undefined` (-inf or +inf)."""
    a = np.where(np.isnan(a), undefined, a)
    return np.quantile(a, q, axis=0, method="inverted_cdf")


def interval(a):
    """Bootstrap 95 % interval, unbounded on a side with over 2.5 % such resamples."""
    return quantile(a, 0.025, -np.inf), quantile(a, 0.975, np.inf)


# %% [markdown]
# ## The experiment
#
# **Experiment 1: five methods, $d \le$ 256.** Every method on both links, at every $d$ of `dims`
# and every step of the grid, `n_replicates` neurons per cell (`n_replicates_binary` on the
# binary link, whose raw runs are the most spread), each run capped at `horizon`
# $\cdot d^2$ samples (the slowest rate; a run that does not reach the target is counted as
# never reaching it).

# %%
names = list(METHODS)
clock, cpu = time.perf_counter(), time.process_time()
cpu_start = cpu
hits1 = [  # the binary link with more runs: its raw runs are the most spread
    run_experiment(names[:3], dims, lambda d: horizon * d**2, n_replicates),
    run_experiment(names[3:], dims, lambda d: horizon * d**2, n_replicates_binary),
]
n1, best1 = (np.concatenate(a) for a in zip(*(needed(h) for h in hits1)))
boot1 = np.concatenate([bootstrap_needed(h) for h in hits1], axis=1)
median1 = np.concatenate([np.median(h, axis=-1) for h in hits1])
print(
    f"experiment 1: {time.perf_counter() - clock:.1f} s wall-clock, "
    f"{time.process_time() - cpu:.1f} s CPU"
)
print(f"samples to reach overlap {target_overlap:g} (median over runs, best step)")
print("method           " + "".join(f"  d = {d:<6d}" for d in dims))
for k, name in enumerate(names):
    print(f"{name:16s} " + "".join(f"{v:11.0f}" for v in n1[k]))
print(f"best step as a multiple of the method's reference step (grid {GRID}):")
for k, name in enumerate(names):
    print(f"{name:16s} " + "".join(f"{GRID[j]:11g}" for j in best1[k]))
exp1 = slope(dims, n1)
exp1_boot = slope(dims, boot1)
for k, name in enumerate(names):
    lo, hi = interval(exp1_boot[:, k])
    print(f"{name:16s} fitted exponent {exp1[k]:.2f} (95 % interval {lo:.2f}-{hi:.2f})")

# %% [markdown]
# **The gaps between the methods.** A rate is a statement about how the sample count grows
# with $d$, so the test of smoothing is the growth of the ratio $n_{\text{raw}} /
# n_{\text{smoothed}}$: $d^{k^\star - 1} / d^{k^\star/2} = d^{1/2}$ for $k^\star = 3$, a slope
# of $1/2$ of $\log$ ratio on $\log d$. A smoothing that helps only by a constant factor gives
# slope 0. The same holds for the label transformation against smoothing on $\mathrm{He}_3$:
# $d^{3/2} / d = d^{1/2}$, slope $1/2$.

# %%
index = {name: k for k, name in enumerate(names)}
GAPS = {  # key: (slower method, faster method)
    "He3": ("raw He3", "smoothed He3"),
    "binary": ("raw binary", "smoothed binary"),
    "transform": ("smoothed He3", "transformed He3"),
}
gap = {}
print("ratio slower / faster  " + "".join(f"  d = {d:<6d}" for d in dims))
for key, (slow, fast) in GAPS.items():
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio_boot = boot1[:, index[slow]] / boot1[:, index[fast]]
    ratio = n1[index[slow]] / n1[index[fast]]
    gap[key] = {
        "ratio": ratio,
        "slope": slope(dims, ratio),
        "interval": interval(slope(dims, ratio_boot)),
    }
    label = f"{slow.split()[0]} / {fast.split()[0]}"
    print(f"{label:23s}" + "".join(f"{v:11.2f}" for v in ratio))
for key, (slow, fast) in GAPS.items():
    lo, hi = gap[key]["interval"]
    inside = "inside" if lo <= 0.5 <= hi else "outside"
    print(
        f"{slow} / {fast}: slope of log ratio on log d {gap[key]['slope']:.2f} "
        f"(95 % interval {lo:.2f}-{hi:.2f}; theory 0.5, {inside})"
    )
glue("sige_gap_he3", f"{gap['He3']['slope']:.2f}", display=False)
glue("sige_gap_binary", f"{gap['binary']['slope']:.2f}", display=False)

# %% [markdown]
# {numref}`fig-single-index-generative-exponent-steps` shows why the step grid is needed: at a
# given $d$ the samples needed change several-fold along the grid, and the best step sits inside
# it.

# %% mystnb={"figure": {"caption": "Samples needed (median over runs) against the step, as a multiple of each method's reference step, at the largest d of experiment 1. Raw labels in blue, smoothing in vermillion, the label transformation in green; solid lines on the He3 link, dashed on the binary link. A step whose median lies beyond the time at which its method stopped (a slower step) has no marker.", "name": "fig-single-index-generative-exponent-steps"}} tags=["hide-input"]
COLOR = {
    "raw": lib.PALETTE[0],
    "smoothed": lib.PALETTE[1],
    "transformed": lib.PALETTE[2],
}


def style(name):
    return COLOR[name.split()[0]], "-" if name.endswith("He3") else "--"


fig, ax = lib.subplots()
for k, name in enumerate(names):
    color, ls = style(name)
    ax.plot(GRID, median1[k, -1], "o" + ls, color=color, label=name)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("step / reference step")
ax.set_ylabel(f"samples to overlap {target_overlap:g}, d = {dims[-1]}")
ax.legend(fontsize=9)
lib.show(fig)

# %% [markdown]
# **Experiment 2: the exponents at larger $d$.** Over $d \le$ 256 a fitted slope carries a
# finite-size shift: the start $d^{-1/2}$ is close to the target, and the smoothing radius
# $\lambda = d^{1/4}$ is at most 4. Raw SGD is too slow to go much further in a minute of CPU,
# but the smoothed and the transformed methods are not: the same analysis over `dims_large`,
# each run capped at `horizon_large` $\cdot d^{3/2}$ samples, with `n_replicates_large_binary`
# neurons per cell on the binary link.

# %%
clock, cpu = time.perf_counter(), time.process_time()
smoothed = ["transformed He3", "smoothed He3", "smoothed binary"]


def cap_large(d):
    if control == "no-smoothing":  # raw SGD: the d^2 budget of experiment 1
        return horizon * d**2
    return horizon_large * d**1.5


hits2 = [  # the binary link with more runs, as in experiment 1
    run_experiment(smoothed[:2], dims_large, cap_large, n_replicates),
    run_experiment(smoothed[2:], dims_large, cap_large, n_replicates_large_binary),
]
n2, best2 = (np.concatenate(a) for a in zip(*(needed(h) for h in hits2)))
boot2 = np.concatenate([bootstrap_needed(h) for h in hits2], axis=1)
exp2 = slope(dims_large, n2)
exp2_boot = slope(dims_large, boot2)
print(
    f"experiment 2: {time.perf_counter() - clock:.1f} s wall-clock, "
    f"{time.process_time() - cpu:.1f} s CPU"
)
print("method           " + "".join(f"  d = {d:<6d}" for d in dims_large))
for k, name in enumerate(smoothed):
    print(f"{name:16s} " + "".join(f"{v:11.0f}" for v in n2[k]))
    print(f"{'  best step':16s} " + "".join(f"{GRID[j]:11g}" for j in best2[k]))
exp2_ci = {name: interval(exp2_boot[:, k]) for k, name in enumerate(smoothed)}
print(f"resamples (of {n_bootstrap}) whose best median is beyond the stopping time:")
for k, name in enumerate(smoothed):
    beyond = (~np.isfinite(boot2[:, k])).sum(axis=0)
    print(f"{name:16s} " + "".join(f"{v:11d}" for v in beyond))
for k, name in enumerate(smoothed):
    lo, hi = exp2_ci[name]
    print(f"{name:16s} fitted exponent {exp2[k]:.2f} (95 % interval {lo:.2f}-{hi:.2f})")

# %% [markdown]
# {numref}`fig-single-index-generative-exponent-scaling` puts both experiments on log-log axes.

# %% mystnb={"figure": {"caption": "Samples needed (median over runs, best step) against the dimension, log-log; colours and line styles as in the step figure; the legend gives each fitted slope. Filled markers are experiment 1, open markers experiment 2.", "name": "fig-single-index-generative-exponent-scaling"}} tags=["hide-input"]
fig, ax = lib.subplots()
d1 = np.asarray(dims, float)
d2 = np.asarray(dims_large, float)
for k, name in enumerate(names):
    color, ls = style(name)
    ax.plot(d1, n1[k], "o" + ls, color=color, label=f"{name} ({exp1[k]:.2f})")
for k, name in enumerate(smoothed):
    color, ls = style(name)
    label = f"{name} ({exp2[k]:.2f})"
    ax.plot(d2, n2[k], "o" + ls, color=color, mfc="white", label=label)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("dimension d")
ax.set_ylabel(f"samples to overlap {target_overlap:g}")
ax.legend(fontsize=8, ncol=1)
lib.show(fig)


# %% [markdown]
# **Experiment 3: a two-layer network, end to end.** Stage 1 trains `net_width` neurons
# $w_j$ on $\mathrm{He}_3$ data with $T(y) = -\mathrm{sign}(y)$ for `net_steps_per_d`$\cdot d$
# samples, the linear rate of $s^\star = 1$; all neurons see the same samples, as in one
# network, and start uniformly at random on the sphere. Weak recovery is not enough here: with
# overlap $m$ the best function of $\langle w, x\rangle$ predicts $\mathbb E[\mathrm{He}_3(z) \mid
# \langle w, x\rangle] = m^3\,\mathrm{He}_3(\langle w, x\rangle)$ (by {eq}`eq-sige-hermite`), a
# normalised error of $1 - m^6$, so a constant step, whose overlap plateaus where the drift
# $0.88\,\eta\,(1 - m)$ meets the noise $\eta^2 d/2$, is followed by a decaying step
# $\eta_t = a/t$ with $a = 2/0.88$, which drives $1 - m$ to zero like $d/t$. Stage 2 freezes
# them, draws biases $b_j \sim U[-4, 4]$ and fits the second layer of
# $f(x) = \sum_j a_j\,\mathrm{ReLU}(\langle w_j, x\rangle + b_j) + a_0$ by ridge regression on
# fresh samples.

# %%
def train_network(d, n_steps, eta, width, anneal_after, chunk=1000):
    """Stage 1: neurons on the sphere, shared samples, step eta then eta * t0 / t,
    the labels and activation of the transformed method (as the control leaves it)."""
    _, kind, activation, _ = method_spec("transformed He3")
    a, b, c = activation_abc(activation, d)
    w = rng.standard_normal((width, d))
    w /= np.linalg.norm(w, axis=1, keepdims=True)
    for start in range(0, n_steps, chunk):
        block = rng.standard_normal((min(chunk, n_steps - start), d))
        labels = transform(kind, he3(block[:, 0]))
        norm2 = (block * block).sum(axis=1)
        for i, x in enumerate(block):
            t = start + i + 1
            eta_t = eta * min(1.0, anneal_after / t)
            u = w @ x
            g = labels[i] * ((a - b) * u * u + b * norm2[i] + c)  # rho^2 = |x|^2 - u^2
            grad = g[:, None] * (x[None, :] - u[:, None] * w)
            w += eta_t * grad
            w /= np.linalg.norm(w, axis=1, keepdims=True)
    return w


def ridge_test_error(w, n_train, n_test, penalty):
    """Normalised test MSE of ridge on ReLU features of the neurons w."""
    bias = rng.uniform(-4, 4, len(w))

    def features(n):
        x = rng.standard_normal((n, w.shape[1]))
        phi = np.maximum(x @ w.T + bias, 0.0)
        return np.column_stack([phi, np.ones(n)]), he3(x[:, 0])

    phi, y = features(n_train)
    gram = phi.T @ phi + penalty * n_train * np.eye(phi.shape[1])
    a = np.linalg.solve(gram, phi.T @ y)
    phi_test, y_test = features(n_test)
    return np.mean((phi_test @ a - y_test) ** 2) / np.var(y_test)


clock, cpu = time.perf_counter(), time.process_time()
n_stage1 = net_steps_per_d * net_dim
anneal = int(2 / 0.88 * net_dim / step_linear)  # then eta_t = (2 / 0.88) / t
if control == "no-transform":  # raw labels escape slowly: decay after half of stage 1
    anneal = n_stage1 // 2
eta_net = reference_step("transformed He3", net_dim)
w_net = train_network(net_dim, n_stage1, eta_net, net_width, anneal)
overlap_net = np.abs(w_net[:, 0])
err_trained = ridge_test_error(w_net, net_ridge_samples, 20000, net_ridge_penalty)
w_random = rng.standard_normal((net_width, net_dim))
w_random /= np.linalg.norm(w_random, axis=1, keepdims=True)
err_random = ridge_test_error(w_random, net_ridge_samples, 20000, net_ridge_penalty)
print(
    f"two-layer net: {time.perf_counter() - clock:.1f} s wall-clock, "
    f"{time.process_time() - cpu:.1f} s CPU"
)
print(f"d = {net_dim}, {net_width} neurons, stage 1: {n_stage1} samples")
print(
    f"|overlap| of the trained neurons: mean {overlap_net.mean():.3f}, "
    f"smallest {overlap_net.min():.3f}"
)
print(f"normalised test MSE, trained first layer: {err_trained:.3f}")
print(f"normalised test MSE, first layer left at its random start: {err_random:.3f}")
glue("sige_err_trained", round(float(err_trained), 3), display=False)
glue("sige_err_random", round(float(err_random), 2), display=False)
glue("sige_runs", n_replicates, display=False)
glue("sige_runs_binary", n_replicates_binary, display=False)

# %% [markdown]
# The same network with its first layer left at the random start reaches a normalised error of
# {glue:}`sige_err_random` here, against {glue:}`sige_err_trained` after stage 1: with
# `net_width` random ReLU features a cubic in one hidden direction is out of reach. We do not
# record this as a claim: it is not the paper's statement, which compares sample counts, not
# fixed-width models.
#
# **Experiment 4: the paper's regime, transformation and smoothing together.** On the
# hidden-sign link of {prf:ref}`sige-def-hidden` ($k^\star = \infty$, $s^\star = 3$) three
# methods run at every $d$ of `dims_hidden` and every step of the grid: smoothing alone (raw
# labels, smoothed $\mathrm{He}_3$; `n_replicates_hidden_never` neurons per cell), the
# transformation alone ($T(y) = \mathbb E[b \mid y]$, raw $\mathrm{He}_3$;
# `n_replicates_hidden_alone`) and both (`n_replicates_hidden`), each run capped at
# `horizon`$\cdot d^2$ samples, the budget of experiment 1. Raw labels with the raw activation
# are not run: like smoothing alone they have no correlation to climb. The theory: smoothing
# alone never, the transformation alone $d^{s^\star - 1} = d^2$, both $d^{s^\star/2} = d^{3/2}$.
#
# There is a sharper prediction than the exponent. Given $z$, the transformed labels are
# $T(y) = b(z)\,\xi$ ({prf:ref}`sige-def-hidden`): the binary link's labels, with the signal
# $\mathbb E[T\,\mathrm{He}_3] = \mathbb E[T^2]\,\mathbb E[b\,\mathrm{He}_3]$ and the label
# power $\mathbb E[T^2]$ where the binary link has $\mathbb E[b\,\mathrm{He}_3]$ and $1$. The
# sample count of online SGD goes as label power over squared signal (the drift against the
# noise of the derivation above), so the combination should need
# $1/\mathbb E[T^2] = 8/5$ times the samples of smoothing on the binary link at every $d$,
# whatever the finite-size shift of that link's slope. The cell prints that ratio where the two
# experiments share a $d$.

# %%
clock, cpu = time.perf_counter(), time.process_time()
hidden = list(HIDDEN)  # smoothed, transformed, transformed + smoothed
replicates = [n_replicates_hidden_never, n_replicates_hidden_alone, n_replicates_hidden]
hits4 = [
    run_experiment([name], dims_hidden, lambda d: horizon * d**2, n_rep)
    for name, n_rep in zip(hidden, replicates)
]
n4, best4 = (np.concatenate(a) for a in zip(*(needed(h) for h in hits4)))
boot4 = np.concatenate([bootstrap_needed(h) for h in hits4], axis=1)
reached4 = np.concatenate(  # the best step's share of runs at the target
    [np.isfinite(h).mean(axis=-1).max(axis=-1) for h in hits4]
)
exp4 = slope(dims_hidden, n4)
exp4_boot = slope(dims_hidden, boot4)
print(
    f"experiment 4: {time.perf_counter() - clock:.1f} s wall-clock, "
    f"{time.process_time() - cpu:.1f} s CPU"
)
print("method                        " + "".join(f"  d = {d:<6d}" for d in dims_hidden))
for k, name in enumerate(hidden):
    print(f"{name:29s} " + "".join(f"{v:11.0f}" for v in n4[k]))
    print(f"{'  best step':29s} " + "".join(f"{GRID[j]:11g}" for j in best4[k]))
    print(f"{'  share at target':29s} " + "".join(f"{v:11.2f}" for v in reached4[k]))
exp4_ci = {}
for k, name in enumerate(hidden):
    exp4_ci[name] = interval(exp4_boot[:, k])
    lo, hi = exp4_ci[name]
    th = theory_exponent(name)
    print(
        f"{name:29s} fitted exponent {exp4[k]:.2f} (95 % interval {lo:.2f}-{hi:.2f}; "
        f"theory {th:g})"
    )
shared = [d for d in dims_hidden if d in dims]
ratio_to_binary = [
    n4[hidden.index("transformed + smoothed hidden"), dims_hidden.index(d)]
    / n1[index["smoothed binary"], dims.index(d)]
    for d in shared
]
predicted_ratio = coef_b[2] / coef_t[2]  # 1 / E[T^2]
print(
    "transformed + smoothed hidden / smoothed binary (experiment 1), samples: "
    + ", ".join(f"{r:.2f} at d = {d}" for r, d in zip(ratio_to_binary, shared))
    + f"; predicted 1 / E[T^2] = {predicted_ratio:.2f}"
)
glue("sige_cpu", f"{time.process_time() - cpu_start:.0f} s CPU", display=False)

# %% [markdown]
# {numref}`fig-single-index-generative-exponent-hidden` puts experiment 4 beside smoothing on the
# binary link.

# %% mystnb={"figure": {"caption": "Experiment 4, the hidden-sign link ($k^\\star = \\infty$, $s^\\star = 3$). Samples needed (median over runs, best step) against the dimension, log-log. Transformation and smoothing together follow smoothing on the binary link of experiment 1 (grey) shifted by the predicted factor $1/\\mathbb E[T^2]$ (grey dashed); the transformation alone climbs more steeply; smoothing alone never reaches the target and is not drawn. The legend gives each fitted slope.", "name": "fig-single-index-generative-exponent-hidden"}} tags=["hide-input"]
fig, ax = lib.subplots()
d4 = np.asarray(dims_hidden, float)
for name, color in [
    ("transformed hidden", COLOR["transformed"]),
    ("transformed + smoothed hidden", lib.PALETTE[3]),
]:
    k = hidden.index(name)
    ax.plot(d4, n4[k], "o-", color=color, label=f"{name} ({exp4[k]:.2f})")
n_binary = n1[index["smoothed binary"]]
ax.plot(d1, n_binary, "s-", color="0.6", label="smoothed binary, experiment 1")
scaled = predicted_ratio * n_binary
ax.plot(d1, scaled, "--", color="0.6", label="the same x 1 / E[T^2]")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("dimension d")
ax.set_ylabel(f"samples to overlap {target_overlap:g}")
ax.legend(fontsize=8)
lib.show(fig)

# %% [markdown]
# ## What we reproduced
#
# The paper's rates are asymptotic and hide logarithms. Over $d \le$ 256 (experiment 1) the
# fitted slopes are shifted (printed with the fits), so experiment 1 is judged on what can be
# seen there: the growth with $d$ of the ratio of two methods' sample counts, whose shifts
# partly cancel. On the binary link ($s^\star = 3$) the ratio raw / smoothed must grow
# (claim 3); on $\mathrm{He}_3$ the ratio smoothed / transformed must grow (claim 2). On
# $\mathrm{He}_3$ the ratio raw / smoothed grows far less regularly (slope
# {glue:}`sige_gap_he3` in this run, interval printed above), so claim 1 is only the
# *ordering*: smoothing needs fewer samples, by more than the step grid can fake, which does
# not test the $d^{3/2}$ rate. Experiment 2 tests the exponents themselves, where $d$ is large
# enough.
#
# Every check uses the bootstrap over replicates, and every tolerance follows from a rule,
# not from the results:
#
# * **Claim 1 (an ordering).** The sample count of a method is its best over a grid whose
#   points are a factor 2.5 apart (the default `step_grid`), and two methods' grids fall
#   differently on their best steps. Below its best step a method's count grows about like
#   $1/\eta$ (the drift-limited side), so the grid resolves counts only to about half a
#   spacing, $\sqrt{2.5}$ = {glue:}`sige_bar`: two methods with the same best count can show a
#   ratio that large from the grid alone (the control `no-smoothing` is such a pair). The
#   claim asks that the 2.5 % bound of the ratio (its geometric mean over $d$) exceed it.
# * **Claims 2 and 3 (rates of a gap).** The 2.5 % bound of the slope of log ratio on
#   $\log d$ must be above 0, no growth; the claim also prints whether the theory's $1/2$ lies
#   in the interval, which it does not assert.
# * **Claims 4 and 5 (exponents).** The 95 % interval must lie within {glue:}`sige_tolerance`
#   of the theory's exponent: $1 / \overline{\ln d}$ over `dims_large`, the local slope
#   that one factor $\log d$ adds to a power of $d$ ($d^a \ln d$ has slope $a + 1/\ln d$). The
#   theorem's $\tilde O$ hides such factors, and the replicate spread is smaller (the
#   intervals' half-width is {glue:}`sige_halfwidth` in this run), so the tolerance is the
#   finite-size and logarithmic bias, not the noise. Which of the rates $1$, $3/2$, $2$ is
#   nearest to the fit is printed beside it, as a verdict, not a check.
# * **Claim 6.** The network's test error must be below $0.1$ (its variance-normalised MSE;
#   $1$ is predicting the mean, and $1 - m^6$ is the floor set by the overlap $m$).
# * **Claim 7.** The best step of every method and $d$ that reached the target lies inside
#   the step grid.
# * **Claims 8 to 11 (experiment 4, the hidden-sign link).** Claim 8 is an ordering, with the
#   bar of claim 1: the transformation with smoothing needs fewer samples than the
#   transformation alone by more than the grid resolves. Claim 9: the transformation with
#   smoothing reaches the target at every $d$ and smoothing alone at none; it is the claim
#   that rests on $k^\star > s^\star$ (with $\mathbb E[V] \ne 0$ smoothing alone would learn
#   too). Claims 10 and 11 test the exponent, with the replicate spread as the tolerance and
#   only where the combination reached the target at every $d$: the 95 % interval of the
#   fitted exponent must lie below $s^\star - 1 = 2$, the rate of the transformation alone
#   (claim 10), and contain $s^\star/2 = 3/2$ (claim 11). Over $d = 32$ to $128$ the range is
#   short and no finite-size shift is allowed for, so claim 11 can fail through that shift
#   alone.

# %%
claims = lib.Claims(
    "single-index-generative-exponent", paper="chen2025neural", control=control
)
bar = float(np.sqrt(GRID_RATIO))  # what the step grid resolves, in samples
raw, smooth = index["raw He3"], index["smoothed He3"]
with np.errstate(invalid="ignore", divide="ignore"):
    log_ratio = np.log(boot1[:, raw] / boot1[:, smooth]).mean(axis=-1)
mean = float(np.exp(np.log(n1[raw] / n1[smooth]).mean()))
bound = float(np.exp(quantile(log_ratio, 0.025, -np.inf)))
claims.add(
    f"He3 link, d = {dims[0]}-{dims[-1]}: smoothed needs fewer samples than raw by "
    "more than the step grid resolves (ratio raw / smoothed, geometric mean over d, "
    f"bootstrap 2.5 % bound > sqrt({GRID_RATIO:g}) = {bar:.2f})",
    f"{mean:.2f} (bound {bound:.2f})",
    "smoothing needs fewer samples than raw SGD",
    bool(bound > bar),
    value=mean,
)
for key, slow, fast, paper in [
    ("transform", "smoothed", "transformed", "d^(k*/2) / d^(s*/2 v 1) = d^1.5 / d"),
    ("binary", "raw", "smoothed", "s* = 3: d^(s*-1) / d^(s*/2) = d^2 / d^1.5"),
]:
    lo, hi = gap[key]["interval"]
    inside = "inside" if lo <= 0.5 <= hi else "outside"
    link = "He3 link" if key == "transform" else "Binary link (s* = 3)"
    claims.add(
        f"{link}, d = {dims[0]}-{dims[-1]}: slope of log(n {slow} / n {fast}) on "
        "log d, bootstrap 2.5 % bound > 0",
        f"{gap[key]['slope']:.2f} [{lo:.2f}, {hi:.2f}]; 0.5 {inside}",
        f"{paper}: the gap grows (theory slope 1/2)",
        bool(lo > 0),
        value=gap[key]["slope"],
    )
tolerance = 1 / np.log(dims_large).mean()  # one log factor's slope at the mean d
half_width = []
for name, paper in [
    ("transformed He3", "label transform: O~(d^(s*/2) v d) = d for s* = 1"),
    ("smoothed binary", "O~(d^(s*/2)) = d^1.5 for s* = 3 (the theorem)"),
]:
    lo, hi = exp2_ci[name]
    e, th = exp2[smoothed.index(name)], theory_exponent(name)
    nearest = min((1.0, 1.5, 2.0), key=lambda rate: abs(rate - e))
    half_width.append((hi - lo) / 2)
    claims.add(
        f"{name}, d = {dims_large[0]}-{dims_large[-1]}: fitted exponent's 95 % "
        f"interval within 1 / mean ln d = {tolerance:.2f} (one log factor) of the "
        "theory's",
        f"{e:.2f} [{lo:.2f}, {hi:.2f}] vs {th:g}; nearest rate {nearest:g}",
        paper,
        bool(th - tolerance <= lo and hi <= th + tolerance),
        value=e,
    )
glue("sige_halfwidth", f"{max(half_width):.2f}", display=False)
glue("sige_tolerance", f"{tolerance:.2f}", display=False)
glue("sige_bar", f"{bar:.2f}", display=False)
claims.add(
    f"Two-layer net, d = {net_dim}, n = {net_steps_per_d} d: normalised test MSE < 0.1",
    f"{err_trained:.3f} (mean |overlap| {overlap_net.mean():.3f})",
    "end to end: strong alignment, then small test error, at one d",
    bool(err_trained < 0.1),
    value=err_trained,
)
at_edge = sum(
    int((np.isin(best, [0, len(GRID) - 1]) & np.isfinite(n)).sum())
    for best, n in ((best1, n1), (best2, n2), (best4, n4))
)
claims.add(
    "Every method and d of experiments 1, 2 and 4 that reached the target: the best "
    "step is inside the step grid, not at either end (number at an end)",
    at_edge,
    "- (a check of our method: the counts are the method's, not the grid's)",
    at_edge == 0,
    fmt="{:d}",
)
h_never, h_alone, h_both = (hidden.index(m) for m in HIDDEN)
span = f"d = {dims_hidden[0]}-{dims_hidden[-1]}"
with np.errstate(invalid="ignore", divide="ignore"):
    log_ratio4 = np.log(boot4[:, h_alone] / boot4[:, h_both]).mean(axis=-1)
    mean4 = float(np.exp(np.log(n4[h_alone] / n4[h_both]).mean()))
bound4 = float(np.exp(quantile(log_ratio4, 0.025, -np.inf)))
claims.add(
    f"Hidden-sign link (k* = inf, s* = 3), {span}: transformation + smoothing needs "
    "fewer samples than the transformation alone by more than the step grid resolves "
    f"(ratio, geometric mean over d, bootstrap 2.5 % bound > sqrt({GRID_RATIO:g}))",
    f"{mean4:.2f} (bound {bound4:.2f})",
    "d^(s*-1) / d^(s*/2) = d^2 / d^1.5: smoothing on top of the transform helps",
    bool(bound4 > bar),
    value=mean4,
)
both_reach = bool(np.isfinite(n4[h_both]).all())
never = int(np.isfinite(n4[h_never]).sum())
claims.add(
    f"Hidden-sign link, {span}: transformation + smoothing reaches the target at every "
    "d, smoothing alone (raw labels) at none (median beyond horizon d^2; number of d "
    "where it does)",
    f"{never:d}; best share {reached4[h_never].max():.2f}; transformed + smoothed "
    f"{'at every d' if both_reach else 'not at every d'}",
    "E[y | z] = 0 (k* = inf): without the transform nothing to climb, smoothed or not",
    both_reach and never == 0,
    value=never,
)
lo, hi = exp4_ci["transformed + smoothed hidden"]
th_both = theory_exponent("transformed + smoothed hidden")
th_alone = theory_exponent("transformed hidden")
measured4 = f"{exp4[h_both]:.2f} [{lo:.2f}, {hi:.2f}]"
learned4 = both_reach and bool(np.isfinite([lo, hi]).all())  # else no exponent at all
claims.add(
    f"transformed + smoothed hidden, {span}: the fitted exponent's 95 % interval "
    "(the replicate spread) lies below the transformation alone's d^(s*-1) exponent",
    f"{measured4} vs {th_alone:g} (the transformation alone: {exp4[h_alone]:.2f})",
    "O~(d^(s*/2)) = d^1.5 for s* = 3 < k*: faster than the transform's d^(s*-1) = d^2",
    learned4 and bool(hi < th_alone),
    value=exp4[h_both],
)
claims.add(
    f"transformed + smoothed hidden, {span}: the fitted exponent's 95 % interval "
    "(the replicate spread) contains the theory's d^(s*/2) exponent",
    f"{measured4} vs {th_both:g}",
    "O~(d^(s*/2)) = d^1.5 for s* = 3 < k*: transform and smoothing together",
    learned4 and bool(lo <= th_both <= hi),
    value=exp4[h_both],
)
claims.report()

# %% [markdown]
# ```{controls-table}
# ```
#
# Each control is a deliberately wrong variant, run with
# `make run CHAPTER=single-index-generative-exponent CONTROL=<name>`: the claims cell then names
# the control and fails if a claim it must flip still holds; the table above records which
# claims each one flipped at seed 0. `no-smoothing` sets the smoothing radius to zero and
# changes nothing else, the step grid included: the smoothed methods become raw SGD on a grid
# shifted by $0.4\,d^{1/4}$ against raw SGD's, so whatever ratio claim 1 then sees comes from
# where the grids fall, which is what its bar is for; the gap of claim 3 no longer grows. In
# experiment 2 the control gives them raw SGD's budget of `horizon`$\cdot d^2$ samples, so
# the exponent of claim 5 becomes raw SGD's on the binary link, measured, not cut off by the
# cap. `constant-radius` keeps the smoothing but fixes $\lambda^2 = 1$, a smoothing that
# changes the constant but not the rate, and the gap of claim 3 stops growing.
# `no-transform` takes the label transformation away and gives the raw labels the best
# activation we have for them, the smoothed $\mathrm{He}_3$: the ratio of claim 2 stops
# growing, the exponent of claim 4 leaves its window, and the network of claim 6,
# trained the same way on raw labels (a constant step for half of stage 1, then the decay),
# does not reach a small error. `theory-kstar` keeps the experiment and swaps the theory for
# one that ignores the generative exponent, which predicts $d^{k^\star/2} = d^{3/2}$ for the
# transformed labels too: claim 4 separates the two. `small-steps` moves the step grid a
# factor 16 down, so that it no longer brackets the best step: claim 7 sees the best step at
# the grid's end. On the hidden-sign link, `no-transform` leaves smoothing alone (the
# combination without the transformation): nothing reaches the target, and claims 8 to 11
# fail; `no-smoothing` leaves the transformation alone, whose exponent is that of
# $d^{s^\star - 1}$ (claims 8, 10 and 11), and so does `constant-radius` at these $d$;
# `radius-held` keeps a fixed radius of the size the schedule reaches in experiment 4: the
# exponent of the combination leaves $3/2$ (claim 11), and over $d = 256$ to $1024$ that of
# smoothing on the binary link climbs towards $d^{s^\star - 1}$ (claim 5), so the growth of
# the radius is what claim 5 tests; `theory-kstar` predicts that the
# transformed labels, like the raw ones, never learn (claim 11).
#
# ## How this compares with the paper
#
# The paper has no experiments; its statements are rates, and the rows compare a rate with what
# we measure (values in the claims table).
#
# | | paper {cite:p}`chen2025neural` and prior work | this chapter |
# |---|---|---|
# | Raw labels, $\mathrm{He}_3$ | online SGD needs $d^{k^\star-1} = d^2$ {cite:p}`benarous2021online` | slowest of the $\mathrm{He}_3$ methods in experiment 1; fitted slope printed above |
# | Smoothing, $\mathrm{He}_3$ | $d^{k^\star/2} = d^{3/2}$ with $\lambda = d^{1/4}$ {cite:p}`damian2023smoothing` | fewer samples than raw SGD, by more than the step grid resolves (claim 1); the ratio's growth with $d$ is printed but not claimed, so the rate is not tested on this link |
# | Label transformation, $s^\star = 1$ | $\tilde O(d^{s^\star/2} \vee d) = \tilde O(d)$ | the gap to smoothing grows with $d$ (claim 2, theory slope $1/2$); exponent on $d \ge$ 256 within one log factor of $1$ (claim 4) |
# | Binary link, $s^\star = 3$ | $\tilde O(d^{s^\star/2}) = \tilde O(d^{3/2})$, smoothing needed | the gap to raw SGD grows with $d$ (claim 3, theory slope $1/2$); exponent on $d \ge$ 256 within one log factor of $3/2$ (claim 5) |
# | Transformation and smoothing together, $k^\star > s^\star \ge 3$ | $\tilde O(d^{s^\star/2})$; each alone $d^{s^\star - 1}$ (transformation) or $d^{k^\star/2}$ (smoothing) | hidden-sign link, $k^\star = \infty$, $s^\star = 3$, $d \le$ 128 in the default: fewer samples than the transformation alone (claim 8), smoothing alone never reaches the target (claim 9), exponent's interval below $2$ (claim 10) and containing $3/2$ (claim 11); raw SGD only under the control `no-smoothing` |
# | Two-layer network | strong alignment, then small test error, with $\tilde O(d^{s^\star/2} \vee d)$ samples | alignment and test error at one $d$ (`net_dim`), $n = $ `net_steps_per_d`$\cdot d$ (claim 6); the rate is not tested by the network |
# | Sparse $\theta^\star$ | $\tilde O(k^{s^\star})$ by weight perturbation, SQ bound $\tilde\Omega(k^{s^\star})$ | not run (the perturbation step was not available to us) |
# | Scale | asymptotic, polylog factors | $32 \le d \le 1024$, target overlap 0.7; `paper` preset to larger $d$ |
#
# Over $d \le$ 256 several fitted slopes of experiment 1 are off the asymptotic rates (printed
# with the fits): the start $d^{-1/2}$ is close to the target, and with $\lambda = d^{1/4} \le 4$
# the smoothed landscape is far from its limit. The exponents of the theorem,
# $d^{s^\star/2} \vee d$ for $s^\star = 1$ and $3$, appear once $d \ge$ 256 (experiment 2).
# On the binary link the smoothing changes the rate: the gap to raw SGD grows with $d$ over
# experiment 1 (claim 3, slope {glue:}`sige_gap_binary` against the theory's $1/2$), and with the
# control `no-smoothing`, which gives raw SGD a $d^2$ budget in experiment 2, claim 5 fails
# (the controls table). On $\mathrm{He}_3$ the growth of raw SGD's ratio to smoothing is not
# resolved over $d \le$ 256 (slope {glue:}`sige_gap_he3` against $1/2$, its interval printed
# with experiment 1): the gap in rate that {cite:t}`damian2023smoothing` predict is not
# reproduced on this link at these $d$, and claim 1 records only that smoothing needs fewer
# samples.
# Raw SGD's own $d^{k^\star - 1}$ is not tested as an exponent: at $d \le$ 256 its slope is
# shifted, and beyond it costs more than the default's budget.
#
# Over seeds 0–9 (`seeds.csv`; mean ± sd, and the number of seeds on which the claim held):
# smoothing's advantage on $\mathrm{He}_3$ (claim 1) is {seeds}`1` ({seeds}`1:held`), the slope
# of the transformation's gap (claim 2) {seeds}`2` ({seeds}`2:held`), the slope of the binary
# gap (claim 3) {seeds}`3` ({seeds}`3:held`), the transformed-label exponent (claim 4)
# {seeds}`4` ({seeds}`4:held`), the smoothed exponent on the binary link (claim 5) {seeds}`5`
# ({seeds}`5:held`) and the network's test error (claim 6) {seeds}`6` ({seeds}`6:held`); the
# best step was inside the grid on {seeds}`7:held` seeds. On the hidden-sign link the
# transformation with smoothing beat the transformation alone by a factor {seeds}`8`
# ({seeds}`8:held`), smoothing alone never reached the target while the combination did on
# {seeds}`9:held` seeds. The combination's exponent was {seeds}`10`: its interval lay below
# $2$ on {seeds}`10:held` seeds and contained $3/2$ on {seeds}`11:held`. The `paper` preset
# (experiment 1 to $d = 512$, experiment 2 to $d = 2048$, experiment 4 from $d = 64$ to $512$,
# 128 neurons per cell; {paper-preset}`runtime`) gives the transformation's gap slope
# {paper-preset}`2`, the binary gap's slope {paper-preset}`3`, the transformed exponent
# {paper-preset}`4`, the smoothed binary exponent {paper-preset}`5`, and on the hidden-sign
# link a factor {paper-preset}`8` over the transformation alone and the exponent
# {paper-preset}`10`.
#
# Claim 11 is where a finite-size shift shows. The combination's sample count tracks smoothing
# on the binary link at the same $d$, times the predicted $1/\mathbb E[T^2]$ (experiment 4's
# printed ratios and {numref}`fig-single-index-generative-exponent-hidden`), so its fitted
# exponent is the binary link's local slope at those $d$, which need not be $3/2$ over a
# factor 4 or 8 in $d$: a shift of that slope moves the interval up or down, and its width is
# only the replicate spread. The seeds above and the preset's interval against $3/2$
# ({paper-preset}`11`) show where it sits; wherever it excludes $3/2$, the exact exponent is
# not reproduced at that range of $d$, and claim 5 (over $d \ge 256$, with one log factor
# allowed) is the chapter's test of the binary link's $d^{3/2}$. Claim 10 asks less: that the
# combination is faster than the $d^{s^\star - 1}$ of the transformation alone. In the default
# the transformation alone is cut by the `horizon` at the largest $d$ (its share at the target
# is printed with experiment 4), so there claim 10 compares with the theory's $2$, not with a
# measured one; the control `no-smoothing` and the preset measure it (the preset's:
# {paper-preset}`10`).
#
# Claims 8 and 10 show that smoothing the transformed labels helps at these $d$; they do not
# test the radius schedule $\lambda = d^{1/4}$: with $\lambda^2$ held at the schedule's value
# at the middle of `dims_hidden` (the control `radius-held`) the combination still beats the
# transformation alone over so short a range, while its exponent leaves $3/2$ (claim 11).
#
# ## Try it
#
# * Set `step_grid = [2.5, 6.25, 15.6]`: the grid no longer brackets the best step of most
#   methods, the sample counts then depend on the reference constants (`step_raw`,
#   `step_smooth`, `step_linear`), which is what the grid removes, and claim 7 fails.
# * Set `net_steps_per_d = 5`: stage 1 stops long before the neurons align and the network's
#   test error comes close to that of the random first layer.
# * Set `horizon_large = 2.0`: the large-$d$ runs stop before the target and the exponent claims
#   fail; the cap is a budget, not a tuned quantity.
# * Set `dims = [64, 128, 256]`: over a shorter range of $d$ the slope of claim 3 is less
#   precise (raw SGD's sample counts are the most spread), and its bootstrap bound can fall
#   below 0 although the slope itself hardly changes.
