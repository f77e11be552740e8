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
# with smoothing, and with transformed labels, fit how the samples needed grow with $d$, repeat
# it for $\mathrm{He}_2$ (generative exponent 2), and train a two-layer network end to end. The
# defaults ($d \in \{16, 32, 64, 128\}$, 48 independent runs per point) take under a minute on
# one CPU core; `make run CHAPTER=single-index-generative-exponent PRESET=paper` runs
# $d$ up to 256 with more runs.
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
# smoothing $d^{3/2}$, and a label transformation $d$.
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
# so $s^\star = 1$. For $\mathrm{He}_2$, $y$ is an even function of $z$, so every $T(y)$ is even
# and has no degree-1 coefficient: $s^\star = k^\star = 2$.
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
# $d^{3/2}$ (raw labels, smoothed $\mathrm{He}_3$) and $d$ samples (labels $\pm\mathrm{sign}(y)$,
# $\sigma = \mathrm{He}_1$); on $\mathrm{He}_2$ no transformation helps and the rate is
# $d\log d$, the $d^{s^\star/2} \vee d = d$ regime up to the logarithm.
#
# ```{note}
# **Where this chapter departs from the paper.** The paper's pseudo-code and constants were not
# available to us; the algorithm below is our reading of its description.
# * **Neurons.** In the scaling experiments each replicate is one neuron with its own stream
#   of samples, so a sample count is what one neuron needs; the network of experiment 4 shares
#   the samples between its neurons. $\theta^\star = e_1$, which loses nothing because SGD with
#   Gaussian inputs and a start drawn uniformly around $\theta^\star$ is rotation invariant.
# * **Links and transforms.** $\mathrm{He}_3$ with $T(y) = -\mathrm{sign}(y)$ ($s^\star = 1$) and
#   $\mathrm{He}_2$ ($s^\star = 2$). We do not build links with $s^\star \ge 3$, where
#   transformation *and* smoothing are both needed; smoothing is shown on the raw $\mathrm{He}_3$
#   labels instead, where it gives $d^{k^\star/2}$.
# * **Step sizes.** $\eta = c\, d^{-\alpha}$ with the $\alpha$ that the drift-noise argument gives
#   for each method and one constant $c$ per method, fixed before the scaling fits; horizons are
#   a fixed multiple of the predicted rate.
# * **Start.** In the scaling experiments every neuron starts at overlap exactly $d^{-1/2}$
#   (the typical value of a uniform start) in a random direction otherwise. A uniform start
#   makes the escape time of raw $\mathrm{He}_3$ SGD, about $1/(\eta m_0)$, heavy-tailed in
#   $m_0$; in our first runs with uniform starts (seed 0) the raw exponent came out at 1.81
#   and 1.66 for two horizons, moved by the draw of a few slow runs. The network keeps the
#   uniform start.
# * **Sample complexity** is the first step at which the overlap, averaged over replicates,
#   reaches a target (0.5), not the paper's $1 - \epsilon$ with a polylog factor.
# * **Sparse case.** Not run: the weight-perturbation step is not specified in the material
#   available to us, and we did not invent one.
# ```
#
# ## The algorithm
#
# Online spherical SGD, one fresh sample per step, a batch of independent neurons as one matrix:
# the Riemannian gradient is the Euclidean one minus its component along $w$, and the step ends
# with a projection back to the sphere. Each method is a *coefficient* $-\partial\ell/\partial u =
# T(y)\,\sigma'(u)$ multiplying $x$.

# %% tags=["parameters"]
seed = 0
device = "cpu"  # numpy only; the device just has to be valid
progress = False
dims = [16, 32, 64, 128]  # input dimensions d for the scaling fits
n_replicates = 48  # independent neurons (runs) per method and d, batched
target_overlap = 0.5  # sample complexity: first step the mean |overlap| reaches this
step_raw = 0.05  # raw He3: step size step_raw * d^-1.5
step_smooth = 0.05  # smoothed He3: eta / s^3 is step_smooth * d^-1.25
step_linear = 0.1  # sign(y) with He1, and raw He2: step size step_linear / d
horizon_factor = 6.0  # each run lasts horizon_factor x the budget(method, d) steps
net_dim = 64  # two-layer network: input dimension
net_width = 64  # two-layer network: number of neurons
net_steps_per_d = 1000  # stage 1 samples: net_steps_per_d * net_dim
net_ridge_samples = 8000  # stage 2 (ridge) samples
net_ridge_penalty = 1e-6  # ridge penalty per sample

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

lib.check_bool("progress", progress)
lib.check_int_list("dims", dims, low=8, high=1024, min_len=3, increasing=True)
lib.check_int("n_replicates", n_replicates, low=4, high=4096)
lib.check_float("target_overlap", target_overlap, low=0.2, high=0.8)
lib.check_float("step_raw", step_raw, low=0.0, high=1.0, low_open=True)
lib.check_float("step_smooth", step_smooth, low=0.0, high=1.0, low_open=True)
lib.check_float("step_linear", step_linear, low=0.0, high=1.0, low_open=True)
lib.check_float("horizon_factor", horizon_factor, low=1.0, high=100.0)
lib.check_int("net_dim", net_dim, low=8, high=1024)
lib.check_int("net_width", net_width, low=4, high=4096)
lib.check_int("net_steps_per_d", net_steps_per_d, low=1, high=10000)
lib.check_int("net_ridge_samples", net_ridge_samples, low=100, high=10**6)
lib.check_float("net_ridge_penalty", net_ridge_penalty, low=0.0, high=10.0)
steps_needed = horizon_factor * max(dims) ** 2
if steps_needed * n_replicates * max(dims) > 5e11:
    raise ValueError(
        f"parameters `dims`, `n_replicates`, `horizon_factor`: about "
        f"{steps_needed * n_replicates * max(dims):.1e} flops per method (limit 5e11); "
        "lower them"
    )
rng, device = lib.setup(seed, device)


# %% [markdown]
# The links and the three coefficients. `raw` differentiates $y\,\mathrm{He}_k(u)$;
# `smoothed` differentiates {eq}`eq-sige-smooth` with $\lambda = d^{1/4}$; `sign` uses
# $T(y) = -\mathrm{sign}(y)$ (the minus makes $\mathbb E[T(y)z] \approx +0.44$, so the neuron
# moves towards $+\theta^\star$ like the others) and the linear activation $\mathrm{He}_1$,
# whose smoothing is itself.

# %%
def he2(z):
    return z * z - 1


def he3(z):
    return z**3 - 3 * z


def coefficient(method, z, u, x, d):
    """-dloss/du for one sample per neuron; z = <theta_star, x>, u = <w, x>."""
    if method == "raw He3":
        return he3(z) * (3 * u * u - 3)
    if method == "smoothed He3":
        lam2 = np.sqrt(d)  # lambda = d^(1/4)
        s = np.sqrt(1 + lam2)
        rho2 = np.einsum("rd,rd->r", x, x) - u * u
        k = lam2 / (d - 1)
        dsigma = (3 * u * u + 3 * k * rho2 - 6 * k * u * u) / s**3 - 3 / s
        return he3(z) * dsigma
    if method == "sign He3":
        return -np.sign(he3(z)) * np.ones_like(u)
    if method == "raw He2":
        return he2(z) * 2 * u
    raise ValueError(method)


# %% [markdown]
# The smoothed derivative includes $\partial\rho^2/\partial u = -2u$, hence the $-6ku^2$ term.
# The SGD loop keeps only the mean overlap per step, so that the threshold is applied to an
# average over the replicates, never to one noisy run.

# %%
def spherical_sgd(
    method,
    d,
    n_steps,
    eta,
    n_rep,
    anneal_after=None,
    shared=False,
    typical_start=True,
    chunk=1024,
):
    """Online spherical SGD, theta_star = e_1, step eta (times anneal_after / t after
    step anneal_after); shared: all neurons see the same sample (one network);
    typical_start: overlap exactly 1/sqrt(d) at the start, else uniform.
    Returns the mean |overlap| per step and the final neurons [n_rep, d]."""
    w = rng.standard_normal((n_rep, d))
    if typical_start:
        w[:, 0] = 0.0
        w *= np.sqrt(1 - 1 / d) / np.linalg.norm(w, axis=1, keepdims=True)
        w[:, 0] = 1 / np.sqrt(d)
    w /= np.linalg.norm(w, axis=1, keepdims=True)
    mean_overlap = np.empty(n_steps)
    for start in range(0, n_steps, chunk):
        shape = (min(chunk, n_steps - start), 1 if shared else n_rep, d)
        block = rng.standard_normal(shape)
        for i, x in enumerate(block):
            t = start + i + 1
            if anneal_after is not None and t > anneal_after:
                eta_t = eta * anneal_after / t
            else:
                eta_t = eta
            u = w @ x[0] if shared else np.einsum("rd,rd->r", w, x)
            grad = coefficient(method, x[:, 0], u, x, d)[:, None] * x
            grad -= np.einsum("rd,rd->r", grad, w)[:, None] * w
            w += eta_t * grad
            w /= np.linalg.norm(w, axis=1, keepdims=True)
            mean_overlap[start + i] = np.abs(w[:, 0]).mean()
    return mean_overlap, w


# %% [markdown]
# Step sizes and horizons follow the drift-noise argument: $\eta \propto d^{-3/2}$ for raw
# $\mathrm{He}_3$, $\eta/s^3 \propto d^{-5/4}$ for the smoothed one, $\eta \propto 1/d$ for the
# two information-exponent-1 and -2 problems. The horizon is `horizon_factor` times a budget that
# grows at the predicted rate (for `sign` with a larger constant, since its drift $0.44\eta$ is
# small), which is a budget, not a result: a run that does not reach the target reports no
# sample complexity, and the fit below fails.

# %%
def budget(method, d):
    """Steps per run / horizon_factor: the predicted rate times a constant."""
    return {
        "raw He3": d**2.0,
        "smoothed He3": d**1.5,
        "sign He3": 5.0 * d,
        "raw He2": d * np.log(d),
    }[method]


def step_size(method, d):
    if method == "raw He3":
        return step_raw * d**-1.5
    if method == "smoothed He3":
        return step_smooth * d**-1.25 * (1 + np.sqrt(d)) ** 1.5  # times s^3
    return step_linear / d


THEORY_EXPONENT = {"raw He3": 2.0, "smoothed He3": 1.5, "sign He3": 1.0}

# %% [markdown]
# ## The experiment
#
# **Experiment 1 and 2: $\mathrm{He}_3$, three methods, four dimensions.** For every method and
# $d$ we run `n_replicates` neurons from uniform random starts and record the mean overlap
# $|\langle w, \theta^\star\rangle|$ after every sample.

# %%
METHODS = ["raw He3", "smoothed He3", "sign He3", "raw He2"]
clock = time.perf_counter()
curves, hits = {}, {}
for method in lib.progress(METHODS, enabled=progress, desc="methods"):
    for d in dims:
        n_steps = int(horizon_factor * budget(method, d)) + 1
        curve, _ = spherical_sgd(method, d, n_steps, step_size(method, d), n_replicates)
        curves[method, d] = curve
        reached = curve >= target_overlap
        hits[method, d] = float(np.argmax(reached) + 1) if reached.any() else np.inf
print(f"SGD runs: {time.perf_counter() - clock:.1f} s wall-clock")
print(f"samples to reach mean overlap {target_overlap:g}")
print("method        " + "".join(f"  d = {d:<5d}" for d in dims))
for method in METHODS:
    print(f"{method:13s} " + "".join(f"{hits[method, d]:10.0f}" for d in dims))

# %% mystnb={"figure": {"caption": "Mean overlap |<w, theta*>| against the number of samples (log scale), for d = 16 (light) to the largest d (dark). Raw He3 labels (blue) wait longest on a plateau near 1/sqrt(d), smoothing (vermillion) shortens the wait, and the sign transformation (green) starts climbing at once.", "name": "fig-single-index-generative-exponent-curves"}} tags=["hide-input"]
fig, ax = lib.subplots()
for k, method in enumerate(METHODS[:3]):
    for j, d in enumerate(dims):
        curve = curves[method, d]
        ax.plot(
            np.arange(1, len(curve) + 1),
            curve,
            color=lib.PALETTE[k],
            alpha=0.35 + 0.65 * j / (len(dims) - 1),
            label=method if j == len(dims) - 1 else None,
        )
ax.axhline(target_overlap, color="k", ls=":", lw=1, label="target")
ax.set_xscale("log")
ax.set_xlabel("samples (online SGD steps)")
ax.set_ylabel("mean overlap |<w, theta*>|")
ax.set_ylim(0, 1)
ax.legend()
lib.show(fig)

# %% [markdown]
# The samples needed against $d$ on log-log axes give each method's exponent
# ({numref}`fig-single-index-generative-exponent-scaling`). We fit a line to
# $\log n$ against $\log d$ over all dimensions.

# %%
log_d = np.log(np.asarray(dims, float))


def fitted_exponent(method):
    n = np.array([hits[method, d] for d in dims])
    if not np.all(np.isfinite(n)):
        return np.nan
    return np.polyfit(log_d, np.log(n), 1)[0]


exponent = {m: fitted_exponent(m) for m in METHODS}
# He2: the drift-noise ODE predicts n ~ d (log sqrt(d) + log(target / sqrt(1-target^2)))
he2_pred = np.array(
    [
        d * (0.5 * np.log(d) + np.log(target_overlap / np.sqrt(1 - target_overlap**2)))
        for d in dims
    ]
)
he2_theory = np.polyfit(log_d, np.log(he2_pred), 1)[0]
# sign: dm/dt ~ (1 - m^2) / d from m = d^-1/2 gives n ~ d (artanh 0.5 - artanh m)
sign_pred = [d * (np.arctanh(target_overlap) - np.arctanh(d**-0.5)) for d in dims]
sign_ode = np.polyfit(log_d, np.log(sign_pred), 1)[0]
for method in METHODS[:3]:
    print(
        f"{method:13s} fitted exponent {exponent[method]:.2f}   "
        f"theory {THEORY_EXPONENT[method]:.1f}"
    )
print(
    f"sign He3: slope of the drift ODE from overlap d^-1/2 over these d: {sign_ode:.2f}"
)
print(
    f"raw He2       fitted exponent {exponent['raw He2']:.2f}   "
    f"theory d log d over these d: {he2_theory:.2f}"
)

# %% mystnb={"figure": {"caption": "Samples needed to reach mean overlap 0.5 against the dimension, log-log. Dotted lines have the theoretical slopes 2, 1.5 and 1 (He3) and follow d log d (He2), anchored at the smallest d. Raw He3 labels (blue) grow fastest; smoothing (vermillion) is cheap at small d but grows faster than the transformed labels (green), which grow slowest with He2 (purple).", "name": "fig-single-index-generative-exponent-scaling"}} tags=["hide-input"]
fig, ax = lib.subplots()
d_arr = np.asarray(dims, float)
for k, method in enumerate(METHODS):
    n = np.array([hits[method, d] for d in dims])
    ax.plot(
        d_arr,
        n,
        "o-",
        color=lib.PALETTE[k],
        label=f"{method} (slope {exponent[method]:.2f})",
    )
    if method == "raw He2":
        ref = he2_pred / he2_pred[0] * n[0]
    else:
        ref = n[0] * (d_arr / d_arr[0]) ** THEORY_EXPONENT[method]
    ax.plot(d_arr, ref, ":", color=lib.PALETTE[k])
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("dimension d")
ax.set_ylabel(f"samples to mean overlap {target_overlap:g}")
ax.legend(fontsize=9)
lib.show(fig)


# %% [markdown]
# **Experiment 4: a two-layer network, end to end.** Stage 1 trains `net_width` neurons
# $w_j$ on $\mathrm{He}_3$ data with $T(y) = -\mathrm{sign}(y)$ for `net_steps_per_d`$\cdot d$
# samples, the linear rate of $s^\star = 1$; all neurons see the same samples, as in one
# network. Weak recovery is not enough here: with overlap $m$
# the best function of $\langle w, x\rangle$ predicts $\mathbb E[\mathrm{He}_3(z) \mid
# \langle w, x\rangle] = m^3\,\mathrm{He}_3(\langle w, x\rangle)$ (by {eq}`eq-sige-hermite`), a
# normalised error of $1 - m^6$, so a constant step, whose overlap plateaus where the drift
# $0.88\,\eta\,(1 - m)$ meets the noise $\eta^2 d/2$, is followed by a decaying step
# $\eta_t = a/t$ with $a = 2/0.88$, which drives $1 - m$ to zero like $d/t$. Stage 2 freezes them, draws biases
# $b_j \sim U[-4, 4]$ and fits the second layer of $f(x) = \sum_j a_j\,\mathrm{ReLU}(\langle w_j,
# x\rangle + b_j) + a_0$ by ridge regression on fresh samples. The baseline is the same network
# with its first layer left at the random start (a random-features model).

# %%
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


clock = time.perf_counter()
n_stage1 = net_steps_per_d * net_dim
anneal = int(2 / 0.88 * net_dim / step_linear)  # then eta_t = (2 / 0.88) / t
curve_net, w_net = spherical_sgd(
    "sign He3",
    net_dim,
    n_stage1,
    step_linear / net_dim,
    net_width,
    anneal_after=anneal,
    shared=True,
    typical_start=False,
)
w_random = rng.standard_normal((net_width, net_dim))
w_random /= np.linalg.norm(w_random, axis=1, keepdims=True)
err_trained = ridge_test_error(w_net, net_ridge_samples, 20000, net_ridge_penalty)
err_random = ridge_test_error(w_random, net_ridge_samples, 20000, net_ridge_penalty)
min_overlap = np.abs(w_net[:, 0]).min()
print(f"two-layer net: {time.perf_counter() - clock:.1f} s wall-clock")
print(f"d = {net_dim}, {net_width} neurons, stage 1: {n_stage1} samples")
print(f"smallest |overlap| of a trained neuron: {min_overlap:.3f}")
print(
    f"mean |overlap| m: {curve_net[-1]:.3f}, so 1 - m^6 = {1 - curve_net[-1] ** 6:.3f}"
)
print(f"normalised test MSE, trained first layer: {err_trained:.3f}")
print(f"normalised test MSE, random first layer:  {err_random:.3f}")

# %% [markdown]
# ## What we reproduced
#
# The exponents are slopes fitted to four points, each the first sample at which the mean
# overlap of `n_replicates` neurons reaches the target. The tolerances were fixed before the
# seed sweep and not changed after it: $\pm 0.3$ around the asymptotic exponent for the
# $\mathrm{He}_3$ methods, and the transformed method's exponent must be at least $0.5$ below
# raw SGD's (the rates differ by one power of $d$). The tolerance is wider than the spread
# between seeds because the exponents carry a finite-size shift that is not noise: the start
# $d^{-1/2}$ is closer to the target at small $d$, which steepens every fitted slope. For the
# transformed labels the drift equation $\dot m \propto (1 - m^2)/d$ predicts that shift
# exactly (its slope over our dimensions is printed above, next to the fit). For
# $\mathrm{He}_2$ the reference is the slope of the $d\log d$ prediction over our dimensions,
# $\pm 0.2$. The network's test error must be below $0.1$ (its variance-normalised MSE; $1$ is
# predicting the mean, and $1 - m^6$ is the floor set by the overlap $m$) and the random first
# layer's above $0.5$. On seeds 0–9 every claim held (the sweep is in the closing report).

# %%
claims = lib.Claims("single-index-generative-exponent", paper="chen2025neural")
for method, statement in [
    ("raw He3", "online SGD needs ~d^(k*-1) = d^2 (Ben Arous et al.)"),
    ("smoothed He3", "smoothing gives ~d^(k*/2) = d^1.5 (Damian et al.)"),
    ("sign He3", "label transform: ~d^(s*/2) v d = d"),
]:
    e, th = exponent[method], THEORY_EXPONENT[method]
    claims.add(
        f"{method}: fitted sample-complexity exponent within {th:g} +- 0.3",
        e,
        statement,
        bool(abs(e - th) <= 0.3),
        fmt="{:.2f}",
    )
gap = exponent["raw He3"] - exponent["sign He3"]
claims.add(
    "The label-transformed exponent is clearly below raw SGD's (gap >= 0.5)",
    gap,
    "s* = 1 < k* = 3: transformation lowers the exponent",
    bool(gap >= 0.5),
    fmt="{:.2f}",
)
e2 = exponent["raw He2"]
claims.add(
    f"He2 (s* = 2): exponent within 0.2 of the d log d slope ({he2_theory:.2f})",
    e2,
    "d^(s*/2) v d = d, up to log",
    bool(abs(e2 - he2_theory) <= 0.2),
    fmt="{:.2f}",
)
claims.add(
    f"Two-layer net at n = {net_steps_per_d} d: normalised test MSE < 0.1",
    err_trained,
    "small test error with O~(d^(s*/2) v d) samples",
    bool(err_trained < 0.1),
    fmt="{:.3f}",
)
claims.add(
    "... while the same net with a random first layer stays above 0.5",
    err_random,
    "feature learning is needed (random features fail at n ~ d)",
    bool(err_random > 0.5),
    fmt="{:.2f}",
)
claims.report()

# %% [markdown]
# ## How this compares with the paper
#
# The paper has no experiments; its statements are rates, and the rows compare a rate with the
# exponent we fit (values in the claims table).
#
# | | paper {cite:p}`chen2025neural` and prior work | this chapter |
# |---|---|---|
# | Raw labels, $\mathrm{He}_3$ | online SGD needs $d^{k^\star-1} = d^2$ {cite:p}`benarous2021online` | fitted exponent near 2 on $d \le 128$ |
# | Smoothing, $\mathrm{He}_3$ | $d^{k^\star/2} = d^{3/2}$ with $\lambda = d^{1/4}$ {cite:p}`damian2023smoothing` | fitted exponent near 1.5 |
# | Label transformation, $s^\star = 1$ | $\tilde O(d^{s^\star/2} \vee d) = \tilde O(d)$ | fitted exponent near 1 |
# | $\mathrm{He}_2$, $s^\star = 2$ | $\tilde O(d)$ | $d\log d$, as the drift-noise ODE predicts |
# | Two-layer network | strong alignment, then small test error | test error in the claims table at $n = $ `net_steps_per_d`$\cdot d$ |
# | $s^\star \ge 3$ (transform *and* smoothing) | $\tilde O(d^{s^\star/2})$ | not run (no such link built) |
# | Sparse $\theta^\star$ | $\tilde O(k^{s^\star})$ by weight perturbation, SQ bound $\tilde\Omega(k^{s^\star})$ | not run (the perturbation step was not available to us) |
# | Scale | asymptotic, polylog factors | $d \in \{16, \dots, 128\}$, target overlap 0.5; `paper` preset to $d = 256$ |
#
# The rates are asymptotic and hide logarithms; at $d \le 128$ the starting overlap
# $d^{-1/2}$ is not far from the target, so the fitted exponents carry a finite-size bias: the
# transformed-label slope sits above 1 by about what its drift equation predicts (printed with
# the fits), and the $\mathrm{He}_2$ row shows how large a $\log d$ factor is over this range
# (its slope is well above 1). The ordering raw > smoothed > transformed, and the gap of about one power of $d$
# between raw labels and transformed labels, are the robust findings.
#
# ## Try it
#
# * Set `step_raw = 0.5`: the raw $\mathrm{He}_3$ step is then above the noise limit
#   $\eta < m_0/(3d)$ at the start ($3 \cdot 0.5 > 1$ in units of $d^{-3/2}$), the sphere's pull
#   towards zero beats the cubic drift, the raw runs do not reach the target within their
#   horizon, no exponent is fitted and the raw-label claims fail: the step size has to shrink
#   like $d^{-3/2}$.
# * Set `net_steps_per_d = 5`: stage 1 stops long before the neurons align and the network's
#   test error comes close to the random-features baseline.
# * Set `horizon_factor = 1.0`: the budgets are then shorter than the sample counts printed
#   above at the larger $d$, the runs stop short of the target and the exponent claims fail;
#   they can fail, and the horizon is a budget, not a tuned quantity.
