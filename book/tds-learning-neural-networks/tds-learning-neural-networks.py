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
# # Learning a neural network under distribution shift: accept only what you can certify
#
# ```{admonition} About this chapter
# :class: tip
# Paper: {cite:t}`chandrasekaran2025learning` (ICLR 2025). Question: a regressor trained on one
# distribution is used on another, about which we know nothing but an unlabelled sample. Can an
# efficient learner for one-hidden-layer sigmoid networks either certify that its predictions
# stay accurate on the test distribution or refuse, with no assumption on that distribution? We
# implement the paper's recipe as far as public text allows (kernel features on a reference set
# of train *and* test points, a spectral test of test against train second moments, least squares
# in a norm ball) and measure how often it accepts, and what its accepted and its rejected
# predictors cost on the test distribution, under no shift, benign shifts and harmful ones. The
# paper has no experiments: the experiment is ours. The defaults are $d = 5$, 1000 training points,
# 2000 unlabelled test points and 40 trials per shift;
# `make run CHAPTER=tds-learning-neural-networks PRESET=paper` runs $d = 10$ with four times
# more labelled data and a reference set about twice as large (see `paper.yaml`).
# ```
#
# ## The question
#
# A model is trained on labelled data from one distribution and deployed on another. Classical
# domain adaptation bounds the test error by the training error plus a *distance* between the two
# distributions {cite:p}`bendavid2010theory`, but that distance is not something one can compute
# from samples for rich classes, and the bound is useless when the distributions differ a lot.
# Testable learning with distribution shift (TDS learning) {cite:p}`klivans2024testable` asks
# for something checkable instead. The learner sees labelled training examples and *unlabelled*
# test examples. It must either output a predictor whose test error is low, or reject. It may
# reject whenever it likes, except when there is no shift at all. Nothing is assumed about the
# test distribution: a reject is the learner's way of saying "I cannot vouch for this".
#
# Earlier TDS learners were for classification. {cite:t}`chandrasekaran2025learning` give the
# first efficient ones for regression with neural networks. For training distributions that are
# bounded and hypercontractive, their algorithm learns one-hidden-layer sigmoid networks in
# polynomial time. It does so with a kernel method whose features are built from a *reference set*
# of training and test points, and a test that compares the second moments of these features on
# the two samples. We build that learner and ask three things. Does it accept when there is no
# shift? When it accepts under a shift, is its test error close to its training error? And when a
# shift does hurt the predictor, does it reject?
#
# ## The setting and the theorem
#
# ```{prf:definition} TDS regression
# :label: tds-def-tds
#
# Let $\mathcal C$ be a class of functions $\mathbb R^d \to \mathbb R$, $\mathcal D$ the training
# distribution of $(x, y)$ with marginal $\mathcal D_x$, $\mathcal D'$ a test distribution with
# marginal $\mathcal D'_x$, and $\mathrm{err}_{\mathcal D}(f) = \mathbb E_{\mathcal D}(f(x) - y)^2$.
# Let $\lambda = \min_{f \in \mathcal C} \big(\mathrm{err}_{\mathcal D}(f) +
# \mathrm{err}_{\mathcal D'}(f)\big)$, the error of the best predictor for both distributions at
# once. A TDS learner with accuracy $\varepsilon$ and confidence $\delta$ receives $n$ labelled
# examples from $\mathcal D$ and $n'$ unlabelled points from $\mathcal D'_x$ and outputs either
# *reject* or a predictor $h$, such that
#
# * **soundness**: with probability at least $1 - \delta$, if it accepts then
#   $\mathrm{err}_{\mathcal D'}(h) \le \lambda + \varepsilon$, whatever $\mathcal D'$ is;
# * **completeness**: if $\mathcal D'_x = \mathcal D_x$, it accepts with probability at least
#   $1 - \delta$.
# ```
#
# The comparison with $\lambda$ is unavoidable: if no network fits both distributions, no learner
# can. The class here is the paper's polynomial-time case.
#
# ```{prf:definition} One-hidden-layer sigmoid networks on a bounded domain
# :label: tds-def-networks
#
# $f(x) = \sum_{j=1}^{k} a_j\, \sigma(w_j^\top x)$ with $\sigma(t) = 1/(1 + e^{-t})$,
# $\|w_j\|_2 \le W$ and $\sum_j |a_j| \le A$. The training marginal is bounded; here it is the
# uniform distribution on the box $[-1, 1]^d$, which is also hypercontractive (its low-degree
# polynomials have comparable $L_2$ and $L_4$ norms), the paper's second condition.
# ```
#
# Fitting such a network is a non-convex problem. The kernel method makes it convex: replace the
# network by an element of a reproducing kernel Hilbert space (RKHS) in which all networks of the
# class have small norm. We use a scaled *multinomial kernel* of degree $\ell$
# {cite:p}`goel2017reliably,shalevshwartz2011learning`,
#
# $$
# K(x, z) = \sum_{i=0}^{\ell} \Big(\frac{x^\top z}{d}\Big)^{i}
# = \sum_{i=0}^{\ell} \big\langle (x/\sqrt d)^{\otimes i}, (z/\sqrt d)^{\otimes i} \big\rangle ,
# $$ (eq-tds-kernel)
#
# whose RKHS $\mathcal H$ holds the polynomials of degree at most $\ell$. On the box,
# $K(x, x) \le \ell + 1$.
#
# ```{prf:lemma} Networks are close to low-norm kernel functions
# :label: tds-lem-approx
#
# Let $p(t) = \sum_{i \le \ell} c_i t^i$ satisfy $|\sigma(t) - p(t)| \le \eta$ for
# $|t| \le W\sqrt d$. Then every network of {prf:ref}`tds-def-networks` is within $A\eta$ of
# $f_p(x) = \sum_j a_j p(w_j^\top x)$ everywhere on the box, and
# $\|f_p\|_{\mathcal H} \le A \max_j \big(\sum_{i} c_i^2\, (d\, \|w_j\|^2)^{i}\big)^{1/2}$.
# ```
#
# ```{prf:proof}
# $|w_j^\top x| \le W \sqrt d$ on the box, which gives the first part. For the second,
# $(w^\top x)^i = \langle (\sqrt d\, w)^{\otimes i}, (x/\sqrt d)^{\otimes i}\rangle$, so by
# {eq}`eq-tds-kernel` the monomial $x \mapsto (w^\top x)^i$ is an element of $\mathcal H$ of
# norm $\|\sqrt d\, w\|^{i}$; the degree-$i$ parts are orthogonal, and the triangle inequality
# over $j$ finishes. For the sigmoid, polynomial approximations whose coefficients keep this norm
# bounded exist (the argument of {cite:t}`shalevshwartz2011learning` and
# {cite:t}`goel2017reliably`, which the paper imports); we do not restate their constants.
# ```
#
# A learner can only compute with finitely many kernel functions. The paper's key device is to
# take them centred at a *reference set* that mixes training and test points.
#
# ```{prf:definition} Reference feature map and coupled kernel matrix
# :label: tds-def-features
#
# Let $Z = (z_1, \dots, z_m)$ consist of $m/2$ training points and $m/2$ test points, and
# $K_{ZZ} = [K(z_i, z_j)]_{ij}$, the kernel matrix that couples both samples, with
# eigendecomposition $K_{ZZ} = U \Lambda U^\top$. The span
# $\mathcal H_Z = \mathrm{span}\{K(\cdot, z_j)\}$ has the orthonormal coordinates
#
# $$
# \psi(x) = \Lambda^{-1/2} U^\top \big(K(z_1, x), \dots, K(z_m, x)\big)^\top \in \mathbb R^{r},
# $$ (eq-tds-features)
#
# (restricted to the $r$ eigenvalues above a relative cut-off): every $g \in \mathcal H_Z$ is
# $g(x) = \beta^\top \psi(x)$ with $\|g\|_{\mathcal H} = \|\beta\|_2$, and
# $\|\psi(x)\|^2 \le K(x, x)$ since $\psi(x)$ holds the coordinates of the projection of
# $K(\cdot, x)$ on $\mathcal H_Z$.
# ```
#
# Why test points in $Z$? Let $\Pi$ be the orthogonal projection of $\mathcal H$ on
# $\mathcal H_Z$. For any $f \in \mathcal H$, $(f - \Pi f)(z_j) = \langle f - \Pi f,
# K(\cdot, z_j)\rangle = 0$: the projection interpolates $f$ on every reference point, and
# $\|\Pi f\| \le \|f\|$. So $f - \Pi f$ is a function of norm at most $2\|f\|$ that vanishes on
# the reference sample, and uniform convergence over a norm ball makes its mean square small on
# any distribution that contributed points to $Z$. With training points only, $\Pi f$ would be a
# good comparator on $\mathcal D_x$ and nothing would be known on $\mathcal D'_x$. With both, the
# best joint predictor has a stand-in in $\mathcal H_Z$ that is good on both, and every
# function that matters is now an element of one finite-dimensional space, in which train and
# test can be compared.
#
# ```{prf:definition} Spectral test and norm-ball least squares
# :label: tds-def-test
#
# With $\hat\Sigma = \frac1n \sum_{i} \psi(x_i)\psi(x_i)^\top$ on the training points and
# $\hat\Sigma' = \frac1{n'} \sum_{i} \psi(x'_i)\psi(x'_i)^\top$ on the test points, the statistic is
#
# $$
# T = \lambda_{\max}\big(\hat\Sigma' - \hat\Sigma\big)
# = \max_{g \in \mathcal H_Z,\ \|g\|_{\mathcal H} \le 1}
# \Big(\hat{\mathbb E}'\, g(x)^2 - \hat{\mathbb E}\, g(x)^2\Big) .
# $$ (eq-tds-stat)
#
# The test accepts when $T \le \tau$. The learner outputs
# $h = \arg\min \{\hat{\mathbb E}(g(x) - y)^2 : g \in \mathcal H_Z,\ \|g\|_{\mathcal H} \le B\}$,
# that is $h = \beta_\nu^\top \psi$ with $\beta_\nu = (\hat\Sigma + \nu I)^{-1}
# \frac1n \sum_i y_i \psi(x_i)$ and $\nu \ge 0$ the smallest value with $\|\beta_\nu\| \le B$.
# ```
#
# ```{prf:theorem} Acceptance certifies the test error (our derivation of the paper's mechanism)
# :label: tds-thm-sound
#
# If $T \le \tau$, then for every $f \in \mathcal H_Z$ with $\|f\|_{\mathcal H} \le B$, with
# $\widehat{\mathrm{err}}$ and $\widehat{\mathrm{err}}'$ the mean squared errors on the training
# and the (labelled) test sample,
#
# $$
# \sqrt{\widehat{\mathrm{err}}'(h)} \le 2 \sqrt{\widehat{\mathrm{err}}(f)}
# + \sqrt{\widehat{\mathrm{err}}'(f)} + 2B\sqrt{\tau}
# \quad\Longrightarrow\quad
# \widehat{\mathrm{err}}'(h) \le \big(\sqrt{5 \lambda_Z} + 2B\sqrt\tau\big)^2 ,
# $$ (eq-tds-cert)
#
# with $\lambda_Z = \min_{f}(\widehat{\mathrm{err}}(f) + \widehat{\mathrm{err}}'(f))$ over the
# same ball. Uniform convergence over the ball carries the empirical errors to
# $\mathcal D$ and $\mathcal D'$, and {prf:ref}`tds-lem-approx` with the projection argument above
# bounds $\lambda_Z$ by $O(\lambda)$ plus the approximation error: soundness in the weaker
# form $O(\lambda) + \varepsilon$ (the constant in front of $\lambda$ in the paper's statement
# is not known to us; this derivation gives 5). Under no shift,
# $\hat\Sigma' - \hat\Sigma$ is a difference of two means of i.i.d. matrices
# $\psi\psi^\top$ whose norms are at most $L = \ell + 1$ and whose variance is at most
# $L\,\|\Sigma\|$, with $\|\Sigma\| \le \kappa = \mathbb E\, K(x, x) \le L$. Matrix Bernstein
# {cite:p}`tropp2015introduction` then puts $T$ below
#
# $$
# t_\delta = \sqrt{2 L \kappa \log(r/\delta) \Big(\frac1n + \frac1{n'}\Big)}
# + \frac{L \log(r/\delta)}{3 \min(n, n')}
# $$ (eq-tds-bernstein)
#
# with probability $1-\delta$: any $\tau \ge t_\delta$ gives completeness. In the worst case
# $\kappa = L$ and the first term is $O\big((\ell+1)\sqrt{\log(r/\delta)(1/n + 1/n')}\big)$;
# on the box $\kappa = \sum_{i \le \ell} \mathbb E (\|x\|^2/d)^i$ stays bounded as $\ell$
# grows (for $d \ge 2$ its limit $\mathbb E\,[1/(1 - \|x\|^2/d)]$ is finite; its value at
# our $d$ and $\ell$ is printed below), and the dependence on $\ell$ is only $\sqrt{\ell + 1}$.
# ```
#
# ```{prf:proof}
# By the triangle inequality in $L_2$ of the test sample,
# $\sqrt{\widehat{\mathrm{err}}'(h)} \le \sqrt{\widehat{\mathrm{err}}'(f)} +
# \sqrt{\hat{\mathbb E}'(h - f)^2}$. The difference $g = h - f$ lies in $\mathcal H_Z$ with
# $\|g\| \le 2B$, so {eq}`eq-tds-stat` and acceptance give
# $\hat{\mathbb E}' g^2 \le \hat{\mathbb E} g^2 + 4B^2\tau$, hence
# $\sqrt{\hat{\mathbb E}' g^2} \le \sqrt{\hat{\mathbb E} g^2} + 2B\sqrt\tau$. On the training sample,
# $\sqrt{\hat{\mathbb E} g^2} \le \sqrt{\widehat{\mathrm{err}}(h)} + \sqrt{\widehat{\mathrm{err}}(f)}
# \le 2\sqrt{\widehat{\mathrm{err}}(f)}$, because $h$ minimises the training error over the ball
# that contains $f$. Finally $2\sqrt a + \sqrt b \le \sqrt{5(a + b)}$ (Cauchy–Schwarz).
# ```
#
# The argument shows what the test buys: it is a statement about *every* function of bounded norm
# at once, so it covers the unknown difference between the learned predictor and the best joint
# one, and it needs no test labels. It also shows its price: a worst case over the whole ball. At
# the sample sizes of a laptop, the slack $4B^2\tau$ exceeds the scale of the labels, so the
# bound {eq}`eq-tds-cert` is vacuous here (we print it below). What we can test is the behaviour
# the theorem is about: acceptance without shift, small excess error whenever the test accepts,
# rejection when a shift makes the predictor bad.
#
# ```{note}
# **Where this chapter departs from the paper.** The paper's full text, its pseudo-code and its
# constants were not available to us (we worked from its abstract and public summaries); every
# setting below is ours.
# * **Kernel**: the multinomial kernel {eq}`eq-tds-kernel` of degree $\ell = 5$ on $x/\sqrt d$.
#   For $d = 5$ its RKHS has dimension 252, more than our $m = 160$ reference points span, so
#   the reference set does restrict the hypotheses.
# * **Reference set**: the first $m/2 = 80$ training points and the first 80 test points; they
#   are also part of the samples whose second moments are compared.
# * **Sample sizes**: $n = 1000$ labelled training points and $n' = 2000$ unlabelled test points
#   (unlabelled test points are cheap in TDS learning; why more of them helps is shown below).
# * **Threshold**: the paper's threshold is not known to us. Ours is calibrated on the training
#   marginal: the $1 - \delta/4$ quantile of $T$ over 200 runs in which both samples are fresh
#   samples from $\mathcal D_x$ (a simulation that needs sampling access to $\mathcal D_x$, not
#   only the $n$ training examples, and no test point), with $\delta = 0.1$; the margin below
#   $\delta$ is for the sampling error of the quantile and of the measured acceptance rate.
#   Nothing is added to it. {eq}`eq-tds-bernstein` is our bound, used only for comparison.
# * **Learner**: least squares in the ball of radius $B = 8$ by bisection on the ridge parameter
#   $\nu$, predictions clipped to the range of the training labels (our choice).
# * **Soundness bound**: the certified bound {eq}`eq-tds-cert` is vacuous at this scale, so our
#   soundness claim states a bound $\Delta$ on the *measured* excess test error (test MSE minus
#   train MSE): a tenth of the variance of the training labels, so that a predictor within
#   $\Delta$ keeps nine tenths of the variance it explains. $\Delta$ is computed from training
#   labels, before any test point is seen.
# * **Runtime**: the paper's bounds are polynomial in $d$ and $1/\varepsilon$; we time our
#   implementation against $d$ and $n$ at a fixed reference set (below).
# * The paper's second result (unbounded, sub-exponential training marginals, via polynomial
#   approximation and moment matching) is not implemented.
# ```
#
# ## The algorithm
#
# All computations run on a batch of independent trials at once: arrays carry a leading trial
# axis. The parameters first.

# %% tags=["parameters"]
seed = 0
device = "cpu"  # numpy only; the device just has to be valid
progress = False
dim = 5  # d, input dimension
hidden = 4  # k, sigmoid units of the target network
weight_norm = 5.0  # ||w_j||, the scale of the hidden weights
noise_sd = 0.1  # label noise standard deviation
degree = 5  # l, degree of the multinomial kernel
n_train = 1000  # n, labelled training points per trial
n_test = 2000  # n', unlabelled test points per trial
n_ref = 80  # reference points taken from each of the two samples (2 n_ref in all)
norm_bound = 8.0  # B, RKHS norm bound of the learner
delta = 0.1  # failure probability of the TDS definition
cal_runs = 200  # no-shift runs used to calibrate the threshold
null_trials = 100  # trials without shift (the completeness check)
n_trials = 40  # independent trials per shifted test distribution
n_eval = 1000  # fresh labelled test points per trial to measure the test error
dilations = [1.05, 1.1, 1.15, 1.2, 1.3, 1.5]  # s: test x ~ U[-s, s]^d
fractions = [0.005, 0.01, 0.02, 0.05, 0.1]  # p: test mass beyond the corner
stretch = 1.75  # a: stretch along the top hidden weight (E K(x, x) kept)
excess_share = 0.1  # Delta, as a share of the training label variance
local_width = 0.22  # Gaussian kernel of the coupling experiment: width / sqrt(d)
timing_dims = [5, 10, 20, 40]  # d of the runtime measurement
timing_sizes = [500, 1000, 2000, 4000]  # n and n' of the runtime measurement
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


import time

import matplotlib.ticker
import numpy as np
from myst_nb import glue


lib.check_int("seed", seed, low=0, high=2**32 - 1)
lib.check_choice("device", device, ["auto", "cpu", "cuda"])
lib.check_bool("progress", progress)
lib.check_int("dim", dim, low=1, high=1000)
lib.check_int("hidden", hidden, low=1)
lib.check_float("weight_norm", weight_norm, low=0.0, low_open=True)
lib.check_float("noise_sd", noise_sd, low=0.0)
lib.check_int("degree", degree, low=1, high=20)
lib.check_int("n_ref", n_ref, low=2)
lib.check_int("n_train", n_train, low=2 * n_ref)
lib.check_int("n_test", n_test, low=2 * n_ref)
lib.check_float("norm_bound", norm_bound, low=0.0, low_open=True)
lib.check_float("delta", delta, low=0.01, high=0.5)
lib.check_int("cal_runs", cal_runs, low=10)
lib.check_int("null_trials", null_trials, low=5)
lib.check_int("n_trials", n_trials, low=5)
lib.check_int("n_eval", n_eval, low=100)
dilations = lib.check_float_list(
    "dilations", dilations, low=1.0, high=3.0, low_open=True, min_len=2, increasing=True
)
fractions = lib.check_float_list(
    "fractions", fractions, low=0.0, high=1.0, low_open=True, min_len=2, increasing=True
)
lib.check_float("stretch", stretch, low=1.0, high=3.0)
lib.check_float("excess_share", excess_share, low=0.0, low_open=True)
lib.check_float("local_width", local_width, low=0.0, low_open=True)
timing_dims = lib.check_float_list(
    "timing_dims", timing_dims, low=1, high=1000, min_len=2, increasing=True
)
timing_sizes = lib.check_float_list(
    "timing_sizes", timing_sizes, low=2 * n_ref, min_len=2, increasing=True
)
timing_dims = [int(x) for x in timing_dims]
timing_sizes = [int(x) for x in timing_sizes]
control = lib.check_control("tds-learning-neural-networks", control)
trial_bytes = 8 * 3 * max(n_train, n_test, n_eval) * 2 * n_ref
if trial_bytes > 2e9:
    raise ValueError(
        f"parameters `n_train`, `n_test`, `n_eval`, `n_ref`: one trial needs "
        f"{trial_bytes / 1e9:.1f} GB of feature matrices (limit 2 GB); lower them"
    )
chunk = int(max(1, min(n_trials, 2e8 // trial_bytes)))  # trials per batch
cal_level = 1 - delta / 4  # tau: this quantile of the no-shift statistic
rng, device = lib.setup(seed, device)
if control == "gentle-target":  # nearly linear and nearly noiseless
    weight_norm, noise_sd = 1.0, 0.01

# %% [markdown]
# The kernel {eq}`eq-tds-kernel` by Horner's rule, and the orthonormal coordinates
# {eq}`eq-tds-features` of the span of the reference set. Eigenvalues of $K_{ZZ}$ below
# $10^{-10}$ times the largest are dropped: their directions are numerically not spanned.

# %%
rank_cutoff = 1e-10


def multinomial_kernel(X, Z):
    """K(x, z) = sum_{i <= degree} (x.z / d)^i for batches X [t, n, d], Z [t, m, d]."""
    G = X @ np.swapaxes(Z, 1, 2) / X.shape[-1]
    K = np.ones_like(G)
    for _ in range(degree):
        K = 1.0 + G * K
    return K


def reference_basis(Z, kernel=multinomial_kernel):
    """Columns U Lambda^{-1/2} (zero for dropped eigenvalues) and the rank kept."""
    mu, U = np.linalg.eigh(kernel(Z, Z))
    keep = mu > rank_cutoff * mu[:, -1:]
    if control == "no-whitening":  # raw kernel evaluations K(x, Z) as features
        return np.broadcast_to(np.eye(Z.shape[1]), U.shape), keep.sum(1)
    inv_sqrt = np.where(keep, 1.0 / np.sqrt(np.where(keep, mu, 1.0)), 0.0)
    return U * inv_sqrt[:, None, :], keep.sum(1)


def features(X, Z, basis, kernel=multinomial_kernel):
    """psi(x) of eq. (eq-tds-features), for every point of X."""
    return kernel(X, Z) @ basis


def second_moment(Psi):
    return np.swapaxes(Psi, 1, 2) @ Psi / Psi.shape[1]


# %% [markdown]
# The spectral statistic {eq}`eq-tds-stat` is the top eigenvalue of a symmetric $r \times r$
# matrix. The norm-ball least squares diagonalises $\hat\Sigma$ once; then
# $\|\beta_\nu\|^2 = \sum_k c_k^2 / (s_k + \nu)^2$ is decreasing in $\nu$, and a bisection on
# $\log_{10}\nu$ finds the smallest $\nu$ with $\|\beta_\nu\| \le B$ (to a factor $10^{-12}$).

# %%
def spectral_statistic(Psi_train, Psi_test):
    gap = second_moment(Psi_test) - second_moment(Psi_train)
    if control == "trace-statistic":  # a norm test: the trace of the gap, no direction
        return np.trace(gap, axis1=1, axis2=2)
    return np.linalg.eigvalsh(gap)[:, -1]


def least_squares_in_ball(Psi, y, radius, steps=45):
    s, V = np.linalg.eigh(second_moment(Psi))
    s = np.maximum(s, 0.0)
    c = np.einsum("trk,tr->tk", V, np.einsum("tnr,tn->tr", Psi, y)) / Psi.shape[1]
    lo = np.full(len(s), -14.0)  # log10 nu
    hi = np.full(len(s), 4.0)
    for _ in range(steps):
        mid = (lo + hi) / 2
        norm = np.sqrt(((c / (s + 10.0 ** mid[:, None])) ** 2).sum(1))
        too_big = norm > radius
        lo, hi = np.where(too_big, mid, lo), np.where(too_big, hi, mid)
    return np.einsum("trk,tk->tr", V, c / (s + 10.0 ** hi[:, None]))


# %% [markdown]
# The TDS learner puts the pieces together: reference set, coupled kernel matrix, statistic,
# fit. Its predictions are clipped to $[-M, M]$ with $M$ the largest training label, which can
# only lower the squared error of a label in that range. The clip matters for soundness: a sample
# of $n'$ test points cannot see a part of $\mathcal D'_x$ of mass much below $1/n'$, and on such
# a part a polynomial of bounded norm can still be huge; clipped, it costs at most that mass times
# $4M^2$. The learner always
# fits $h$, so that we can also measure what a rejected predictor would have cost.

# %%
def reference_set(X, X_test, coupled=True):
    """Z: n_ref training and n_ref test points, or 2 n_ref training points."""
    if coupled and control != "train-only-reference":
        return np.concatenate([X[:, :n_ref], X_test[:, :n_ref]], axis=1)
    return X[:, : 2 * n_ref]


def tds_learner(X, y, X_test, tau, kernel=multinomial_kernel, coupled=True):
    Z = reference_set(X, X_test, coupled)
    basis, rank = reference_basis(Z, kernel)
    Psi = features(X, Z, basis, kernel)
    stat = spectral_statistic(Psi, features(X_test, Z, basis, kernel))
    beta = least_squares_in_ball(Psi, y, norm_bound)
    clip = np.abs(y).max(1, keepdims=True)  # M: the largest training label

    def predict(X_new):
        raw = (features(X_new, Z, basis, kernel) @ beta[..., None])[..., 0]
        return np.clip(raw, -clip, clip)

    train_mse = (np.clip((Psi @ beta[..., None])[..., 0], -clip, clip) - y) ** 2
    return dict(
        accept=stat <= tau,
        stat=stat,
        predict=predict,
        train_mse=train_mse.mean(1),
        norm=np.linalg.norm(beta, axis=1),
        rank=rank,
    )


# %% [markdown]
# The threshold comes from the training marginal only. In each calibration run both samples are
# drawn afresh from $\mathcal D_x$, with the sizes of a real run; the threshold is the
# $1 - \delta/4$ quantile of the statistic. This uses $\mathcal D_x$ as a simulator: 200 runs
# of $n + n'$ points are far more draws than the learner's $n$ labelled examples, so it assumes
# sampling access to the training marginal (here, a known distribution), not only the training
# sample. It never uses a test point. The same runs check the implementation: on the reference points the
# features must reproduce the kernel, $\psi(z)^\top\psi(z') = K(z, z')$. They also give the
# worst-case threshold $t_{\delta}$ of {eq}`eq-tds-bernstein`, with $\kappa$ and $r$ estimated on
# the same training points, to compare with the calibrated one.
# Completeness asks for acceptance with probability $1 - \delta$, and we check it on a finite
# number of trials: the quantile `cal_level` $= 1 - \delta/4$ leaves a margin for the binomial
# spread of the measured rate over `null_trials` $= 100$ trials (standard deviation about 0.02)
# and for the sampling error of a quantile estimated from `cal_runs` $= 200$ runs (about 0.01 in
# its coverage), so that a correct test fails the check on fewer than one seed in a hundred.

# %%
def train_marginal(shape):
    return rng.uniform(-1.0, 1.0, size=(*shape, dim))


def calibrate(runs, kernel=multinomial_kernel, coupled=True):
    """No-shift statistics, the largest relative Gram error and the ranks r."""
    stats, errors, ranks = [], [], []
    for start in range(0, runs, chunk):
        t = min(chunk, runs - start)
        X, X_null = train_marginal((t, n_train)), train_marginal((t, n_test))
        Z = reference_set(X, X_null, coupled)
        basis, rank = reference_basis(Z, kernel)
        Psi_Z = features(Z, Z, basis, kernel)
        K_ZZ = kernel(Z, Z)
        gram_error = np.abs(Psi_Z @ np.swapaxes(Psi_Z, 1, 2) - K_ZZ).max((1, 2))
        errors.append(gram_error / np.abs(K_ZZ).max((1, 2)))
        Psi = features(X, Z, basis, kernel)
        stats.append(spectral_statistic(Psi, features(X_null, Z, basis, kernel)))
        ranks.append(rank)
    return np.concatenate(stats), np.concatenate(errors).max(), np.concatenate(ranks)


def threshold(null_stats):
    """tau: the 1 - delta/4 no-shift quantile, or what a control puts in its place."""
    if control == "tau-zero":
        return 0.0
    if control == "no-test":
        return np.inf
    slack = 0.05 if control == "tolerance" else 0.0  # a slack no training sample gives
    return float(np.quantile(null_stats, cal_level)) + slack


clock = time.perf_counter()
null_stats, gram_error, ranks_cal = calibrate(cal_runs)
tau = threshold(null_stats)
X_kappa = train_marginal((20000, 1))
kappa = multinomial_kernel(X_kappa, X_kappa).mean()  # E K(x, x), one point per batch
L = degree + 1
log_term = np.log(ranks_cal.max() / delta)
t_bernstein = np.sqrt(2 * L * kappa * log_term * (1 / n_train + 1 / n_test)) + (
    L * log_term / (3 * min(n_train, n_test))
)
null_quantile = np.quantile(null_stats, 1 - delta)  # what eq-tds-bernstein bounds
print(
    f"no-shift statistic over {cal_runs} calibration runs: median "
    f"{np.median(null_stats):.3f}, {cal_level:.1%} quantile "
    f"{np.quantile(null_stats, cal_level):.3f}, max {null_stats.max():.3f}"
)
# below 1e-10 the error is rounding noise, which differs between CPUs: print a bound
gram_error_text = "< 1e-10" if gram_error < 1e-10 else f"{gram_error:.0e}"
print(f"threshold tau = {tau:.3f}; kernel reproduced to {gram_error_text} (relative)")
print(
    f"kappa = E K(x, x) = {kappa:.2f} (L = l + 1 = {L}); matrix Bernstein "
    f"t_delta = {t_bernstein:.3f} = "
    f"{t_bernstein / null_quantile:.0f} x the measured {1 - delta:.0%} quantile "
    f"{null_quantile:.3f}"
)
glue("tds_bernstein_ratio", f"{t_bernstein / null_quantile:.0f}", display=False)
print(f"calibration: {time.perf_counter() - clock:.1f} s wall-clock")

# %% [markdown]
# ## The experiment
#
# The target is a random network of {prf:ref}`tds-def-networks`: $k = 4$ hidden units with
# weights of norm $W = 5$ in random directions, output weights of random sign and magnitude in
# $[1/2, 1]$, and Gaussian label noise. It is drawn once per seed. At $W = 5$ the sigmoids
# saturate inside the box, so the network is far from linear and a polynomial fitted on the box
# extrapolates badly outside it. This steep target is a choice: it makes the shifts out of the
# box costly for the predictor. The test never reads a label, so its decisions do not depend on
# the target; how much a rejected predictor would have cost does. The excess bound $\Delta$ is a
# tenth of the variance of the training labels.

# %%
net_rng = rng.spawn(1)[0]  # a child stream: the network does not depend on the sizes
w_hidden = net_rng.standard_normal((hidden, dim))
w_hidden *= weight_norm / np.linalg.norm(w_hidden, axis=1, keepdims=True)
a_out = net_rng.choice([-1.0, 1.0], size=hidden) * net_rng.uniform(
    0.5, 1.0, size=hidden
)


def network(X):
    return (1.0 / (1.0 + np.exp(-X @ w_hidden.T))) @ a_out


def labels(X):
    return network(X) + noise_sd * rng.standard_normal(X.shape[:-1])


label_var = labels(train_marginal((20000,))).var()
excess_bound = excess_share * label_var  # Delta, from training labels only
print(f"output weights a = {np.round(a_out, 2)}")
print(f"label variance on the box: {label_var:.3f}; Delta = {excess_bound:.4f}")


# %% [markdown]
# The test marginals. Two families of shifts with a strength knob: a *dilation* of the box by a
# factor $s$, which puts a growing share of the mass outside it, and a *mixture* that moves a
# fraction $p$ of the mass to the box $[1, 1.5]^d$ beyond the corner. The no-shift case is
# $s = 1$ or $p = 0$. Two more shifts stay inside the training box: a *benign* one that moves half
# of the mass into the central box $[-1/2, 1/2]^d$, and a *corner* one, all mass on $[1/2, 1]^d$.
# The last one is built to defeat a test that looks only at norms: a *stretch* of the box by the
# factor $a$ = `stretch` along the unit vector $u$ of the target's hidden weight with the largest
# output weight, and a shrink by a factor $b$ orthogonal to it, with $b$ chosen so that
# $\mathbb E\, K(x, x)$, the trace of the second moment of the kernel features, is the same as
# on the box. A test of $\mathbb E\,\|\psi(x)\|^2$ (the trace of $\hat\Sigma' - \hat\Sigma$ in
# place of its top eigenvalue) sees almost nothing; the test points reach along $u$, where the
# target's unit saturates and the fitted polynomial extrapolates, out to $a$ times the box.

# %%
def kernel_diag(X):
    """K(x, x) of the multinomial kernel."""
    g, K = (X**2).sum(-1) / X.shape[-1], np.ones(X.shape[:-1])
    for _ in range(degree):
        K = 1.0 + g * K
    return K


u_top = w_hidden[np.argmax(np.abs(a_out))] / weight_norm  # the top hidden direction


def stretched(X, a, b):
    along = (X @ u_top)[..., None] * u_top
    return a * along + b * (X - along)


X_mc = net_rng.uniform(-1.0, 1.0, (20000, dim))
lo, hi = 0.0, 1.0  # bisection for the shrink b that keeps E K(x, x)
for _ in range(40):
    mid = (lo + hi) / 2
    kept = kernel_diag(stretched(X_mc, stretch, mid)).mean()
    too_big = kept > kernel_diag(X_mc).mean()
    lo, hi = (lo, mid) if too_big else (mid, hi)
shrink = lo
X_st = stretched(X_mc, stretch, shrink)
print(
    f"stretch a = {stretch:g} along u, shrink b = {shrink:.3f}: E K(x, x) "
    f"{kernel_diag(X_st).mean():.3f} (box {kernel_diag(X_mc).mean():.3f}), E |x|^2 "
    f"{(X_st**2).sum(-1).mean():.2f} (box {(X_mc**2).sum(-1).mean():.2f})"
)


def test_marginal(kind, strength, shape):
    U = train_marginal(shape)
    if kind == "stretch":
        return stretched(U, strength, shrink)
    if kind == "dilation":
        return strength * U
    if kind == "beyond corner":
        moved = rng.random((*shape, 1)) < strength
        return np.where(moved, 1.25 + 0.25 * U, U)
    if kind == "benign: centre":
        moved = rng.random((*shape, 1)) < strength
        return np.where(moved, 0.5 * U, U)
    if kind == "corner box":
        return 0.75 + 0.25 * U
    raise ValueError(kind)


def run_trials(kind, strength, trials=n_trials, tau=tau, **learner):
    out = []
    for start in range(0, trials, chunk):
        t = min(chunk, trials - start)
        X = train_marginal((t, n_train))
        X_test = test_marginal(kind, strength, (t, n_test))
        fit = tds_learner(X, labels(X), X_test, tau, **learner)
        X_eval = test_marginal(kind, strength, (t, n_eval))
        test_mse = ((fit["predict"](X_eval) - labels(X_eval)) ** 2).mean(1)
        keys = ("accept", "stat", "train_mse", "norm", "rank")
        out.append(dict(test_mse=test_mse, **{k: fit[k] for k in keys}))
    return {k: np.concatenate([o[k] for o in out]) for k in out[0]}


# %% [markdown]
# Every trial draws a fresh training sample, a fresh unlabelled test sample, and a fresh labelled
# test sample of size `n_eval` on which we measure the true test error; the learner never sees the
# last one.

# %%
settings = [("dilation", 1.0)]
settings += [("benign: centre", 0.5), ("corner box", 1.0)]
settings += [("dilation", s) for s in dilations]
settings += [("beyond corner", p) for p in fractions]
settings += [("stretch", stretch)]
clock = time.perf_counter()
results = {}
for kind, strength in lib.progress(settings, enabled=progress, desc="shifts"):
    trials = null_trials if (kind, strength) == ("dilation", 1.0) else n_trials
    results[kind, strength] = run_trials(kind, strength, trials)
print(
    f"{len(settings)} shifts, {null_trials} trials without shift and {n_trials} per "
    f"shift: {time.perf_counter() - clock:.1f} s wall-clock"
)

# %%
scenarios = {
    "no shift": ("dilation", 1.0),
    "benign: half the mass to the centre": ("benign: centre", 0.5),
    "inside, corner box [1/2, 1]^d": ("corner box", 1.0),
    f"harmful: dilation s = {dilations[-1]:g}": ("dilation", dilations[-1]),
    f"far: {fractions[-1]:.0%} beyond the corner": ("beyond corner", fractions[-1]),
    f"stretch a = {stretch:g} along u, E K kept": ("stretch", stretch),
}
print(
    f"{'test distribution':>38} | accept | median T | train MSE | test MSE, "
    "accepted / rejected (median)"
)
for name, key in scenarios.items():
    r = results[key]
    acc = r["accept"]
    te_acc = f"{np.median(r['test_mse'][acc]):.4f}" if acc.any() else "   -  "
    te_rej = f"{np.median(r['test_mse'][~acc]):.4f}" if (~acc).any() else "   -  "
    print(
        f"{name:>38} | {acc.mean():6.2f} | {np.median(r['stat']):8.3f} | "
        f"{np.median(r['train_mse']):9.4f} | {te_acc} / {te_rej}"
    )
norms = np.concatenate([r["norm"] for r in results.values()])
ranks = np.concatenate([r["rank"] for r in results.values()])
print(f"||h|| ranges over {norms.min():.2f}..{norms.max():.2f} (B = {norm_bound:g})")
print(f"rank r of the reference span: {ranks.min()}..{ranks.max()} of m = {2 * n_ref}")

# %% [markdown]
# The table reads left to right as the learner's day: the statistic $T$ it computes, its decision,
# the training error it sees, and the test error it cannot see. Without shift, $T$ is of the size
# of the calibration runs and the learner accepts; its test error is slightly above its training
# error (the usual optimism of least squares with $r$ parameters). The benign shift and the
# corner box stay inside the training support and cost the predictor little, yet the test
# rejects both: moving mass into a small part of the box raises the second moment of some
# unit-norm function (one peaked there) by more than the sampling noise that $\tau$ allows,
# whether or not the predictor suffers there. A TDS learner is allowed such conservative
# rejections; it is not allowed to accept a harmful shift. With a threshold from the training
# marginal alone, the test accepts only shifts whose effect on second moments is within that noise
# (see the mildest dilation below); a benign shift is accepted only if $\tau$ is given slack
# that no training sample justifies (the control `tolerance` in the table of controls). The dilation by 1.5 multiplies the test error, and the test rejects it. Mass
# beyond the corner is rejected too; how much it would have cost depends on the network, which
# is drawn afresh for every seed (some networks are nearly flat out there).
# {numref}`fig-tds-learning-neural-networks-scatter` shows every trial of every shift, the
# statistic against the test error of the fitted predictor.

# %% mystnb={"figure": {"caption": "Every trial of every shift: the spectral statistic T (log scale) against the true test error of the fitted predictor (log scale). Left of the dashed threshold the learner accepts. Filled markers are the named scenarios of the table, small grey dots the other shift strengths. Accepted trials have test errors close to the no-shift level; large test errors occur only far right of the threshold.", "name": "fig-tds-learning-neural-networks-scatter"}} tags=["hide-input"]
fig, ax = lib.subplots()
named = set(scenarios.values())
for key, r in results.items():
    if key not in named:
        ax.scatter(
            np.maximum(r["stat"], 1e-3), r["test_mse"], s=6, color="0.7", zorder=1
        )
for i, (name, key) in enumerate(scenarios.items()):
    r = results[key]
    ax.scatter(
        np.maximum(r["stat"], 1e-3),
        r["test_mse"],
        s=14,
        color=lib.PALETTE[i],
        label=name,
        zorder=2,
    )
ax.axvline(tau, color="k", ls="--", lw=1, label=f"threshold tau = {tau:.3f}")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("spectral statistic T (excess second moment per unit RKHS norm)")
ax.set_ylabel("test MSE of the fitted predictor")
ax.legend(fontsize=8, loc="upper left")
lib.show(fig)


# %% [markdown]
# Across shift strengths, the question is whether acceptance falls off before the test error
# rises. For each strength we plot the acceptance rate against the median excess test error,
# test MSE minus train MSE, of the fitted predictor.

# %%
def excess(r):
    return r["test_mse"] - r["train_mse"]


families = {
    "dilation s": [1.0, *dilations],
    "fraction p beyond the corner": [0.0, *fractions],
}
curves = {}
for fam, strengths in families.items():
    kind = "dilation" if fam.startswith("dilation") else "beyond corner"
    keys = [("dilation", 1.0) if x in (0.0, 1.0) else (kind, x) for x in strengths]
    curves[fam] = dict(
        strength=strengths,
        accept=np.array([results[k]["accept"].mean() for k in keys]),
        excess=np.array([np.median(excess(results[k])) for k in keys]),
        worst=[excess(results[k])[results[k]["accept"]] for k in keys],
    )
    print(fam)
    c = curves[fam]
    for x, a, e, w in zip(strengths, c["accept"], c["excess"], c["worst"]):
        worst = f"{w.max():7.4f}" if w.size else "    -  "
        print(
            f"  {x:6.3g}: accepted {a:4.0%}, median excess test MSE {e:7.4f}, "
            f"largest accepted {worst}"
        )

# %% mystnb={"figure": {"caption": "Acceptance rate against the median excess test error (test MSE minus train MSE, log scale) of the fitted predictor, for the two shift families; each marker is one shift strength, labelled with it; both families start at the no-shift runs. The dotted line is the excess bound Delta, a tenth of the training label variance. Acceptance drops from one to zero before the median excess reaches the bound.", "name": "fig-tds-learning-neural-networks-roc"}} tags=["hide-input"]
fig, ax = lib.subplots()
for i, (fam, c) in enumerate(curves.items()):
    x = np.maximum(c["excess"], 1e-4)
    ax.plot(x, c["accept"], marker="o", color=lib.PALETTE[i], label=fam)
    # dilation labels above the markers, fraction labels below, at two alternating
    # heights and clear of the markers: no two collide. Both families start at the
    # same no-shift runs (s = 1, p = 0), labelled once.
    for j, (xi, ai, si) in enumerate(zip(x, c["accept"], c["strength"])):
        if j == 0 and i > 0:
            continue
        up = 8 + 9 * (j % 2)
        ax.annotate(
            "no shift" if j == 0 else f"{si:g}",
            (xi, ai),
            textcoords="offset points",
            xytext=(2, up) if i == 0 else (2, -up - 7),
            fontsize=7,
            color=lib.PALETTE[i],
        )
ax.axvline(excess_bound, color="k", ls=":", lw=1, label="excess bound Delta")
ax.set_xscale("log")
ax.set_xlabel("median excess test MSE of the fitted predictor")
ax.set_ylabel("acceptance rate")
ax.set_ylim(-0.25, 1.25)
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, fontsize=8)
lib.show(fig)

# %% [markdown]
# The two families behave differently, and the difference is the point of a norm-ball test. Mass
# beyond the corner is where polynomials of bounded norm grow fastest: a few test points there
# raise $T$ past the threshold, so the test rejects as soon as the test sample is likely to hold a
# few of them, before the excess error reaches the bound. At the smallest fractions some test
# samples hold none or one such point and are accepted; the clip keeps the excess error of these
# accepted predictors small (the last column above). A mild dilation moves mass just outside the
# box, where the functions of the ball are still close to their values on the box; the test
# tolerates only the mildest one, whose excess error is close to its no-shift value
# ({numref}`fig-tds-learning-neural-networks-roc`). Finally, the worst case that
# {prf:ref}`tds-thm-sound` pays for:

# %%
all_trials = list(results.values())
accepted_excess = np.concatenate([excess(r)[r["accept"]] for r in all_trials])
accepted_bad = [r["accept"] & (excess(r) > excess_bound) for r in all_trials]
bad_share = np.array([bad.mean() for bad in accepted_bad])
certified_slack = 4 * norm_bound**2 * tau
print(f"accepted trials over all shifts: {accepted_excess.size}")
if accepted_excess.size:
    print(f"largest excess test MSE among them: {accepted_excess.max():.4f}")
print(
    f"accepted with excess > Delta = {excess_bound:.4f}: "
    f"{sum(bad.sum() for bad in accepted_bad)} trials; largest share in one shift "
    f"{bad_share.max():.3f}"
)
print(f"worst-case slack 4 B^2 tau of eq. (eq-tds-cert): {certified_slack:.1f}")
stats_all = np.concatenate([r["stat"] for r in all_trials])
if 0 < tau < np.inf:
    margin = np.abs(stats_all - tau).min() / tau
    print(f"closest call |T - tau| / tau over all trials: {margin:.1e}")


# %% [markdown]
# The certified slack is orders of magnitude above the excess errors we measure: the theorem's
# guarantee is of the right form, but its constants need far more data than a laptop run to
# become informative, which is why our soundness claim states a bound on measured errors.
# Soundness in {prf:ref}`tds-def-tds` holds with probability $1 - \delta$, not always, and the
# experiment shows why: a far point that the test sample happens to miss can let a trial
# through whose predictor is poor there. No test escapes this: a test mass $p$ far out is
# missed by all $n'$ points with probability $(1-p)^{n'} \approx e^{-pn'}$, and, clipped, it
# costs up to $4M^2 p$. So an accepted predictor can be worse than its training error by about
# $4M^2\ln(1/\delta)/n'$ with probability $\delta$: the accuracy $\varepsilon$ of a TDS regressor
# cannot beat that, which is why we give the test more unlabelled points ($n'$) than the learner
# has labelled ones. The last line is the margin of the closest accept/reject decision; it is
# many orders of magnitude above floating-point noise, so the counts above do not depend on the
# CPU.
#
# ## Why test points go into the reference set
#
# For the multinomial kernel at these sizes, the coupling is not what makes the test work: a far
# test point $x'$ raises the second moment of *linear* functions, and the constant and linear
# parts of the kernel lie in the span of any $d + 1$ generic training points. A reference set of
# $2m$ training points gives the same decisions (the control `train-only-reference` in the table
# of controls below leaves every claim of the main experiment as it is). The coupling matters
# when the kernel functions of training points cannot reach the test points. A Gaussian kernel
# $K(x, z) = \exp\big(-\|x - z\|^2 / (2 w^2 d)\big)$, whose RKHS is infinite-dimensional, shows
# it. With a train-only $Z$, every function of $\mathcal H_Z$ is close to zero on test points far
# from the box: they add almost nothing to $\hat\Sigma'$, and the test cannot see them. With
# test points in $Z$, $K(\cdot, x'_j)/\sqrt{K(x'_j, x'_j)}$ is a unit-norm function with
# $g(x'_j) = 1$ that the test sees. We run both arms, each calibrated as above with its own
# reference set, without shift, under the dilation by the largest $s$, and with 5% of the test
# mass beyond the corner, the shift of the main experiment whose test points lie farthest from
# every training point.

# %%
def gaussian_kernel(X, Z):
    """exp(-|x - z|^2 / (2 w^2 d)) for batches X [t, n, d], Z [t, m, d]."""
    sq = (X**2).sum(-1)[..., :, None] + (Z**2).sum(-1)[..., None, :]
    sq = sq - 2 * X @ np.swapaxes(Z, 1, 2)
    return np.exp(-np.maximum(sq, 0.0) / (2 * local_width**2 * X.shape[-1]))


coupling_trials = max(5, n_trials // 2)
gauss_shifts = {
    "no shift": ("dilation", 1.0),
    f"dilation s = {dilations[-1]:g}": ("dilation", dilations[-1]),
    "5% beyond the corner": ("beyond corner", 0.05),
}
clock = time.perf_counter()
coupling = {}
print(f"{'reference set':>13} | {'test distribution':>22} | accept | accepted and bad")
for arm, coupled in (("coupled Z", True), ("train-only Z", False)):
    stats_arm, _, _ = calibrate(max(10, cal_runs // 5), gaussian_kernel, coupled)
    for name, (kind, strength) in gauss_shifts.items():
        r = run_trials(
            kind,
            strength,
            coupling_trials,
            threshold(stats_arm),
            kernel=gaussian_kernel,
            coupled=coupled,
        )
        r["bad"] = r["accept"] & (excess(r) > excess_bound)
        coupling[arm, name] = r
        print(
            f"{arm:>13} | {name:>22} | {r['accept'].mean():6.2f} | "
            f"{r['bad'].mean():6.2f} (median excess / Delta "
            f"{np.median(excess(r)) / excess_bound:.1f})"
        )
print(f"{time.perf_counter() - clock:.1f} s wall-clock")
dil_name = f"dilation s = {dilations[-1]:g}"
for arm in ("coupled Z", "train-only Z"):
    key = arm.split()[0].replace("-", "_")
    glue(
        f"tds_gauss_dil_bad_{key}",
        f"{coupling[arm, dil_name]['bad'].mean():.2f}",
        display=False,
    )
    glue(
        f"tds_gauss_far_acc_{key}",
        f"{coupling[arm, '5% beyond the corner']['accept'].mean():.2f}",
        display=False,
    )
    glue(
        f"tds_gauss_far_bad_{key}",
        f"{coupling[arm, '5% beyond the corner']['bad'].mean():.2f}",
        display=False,
    )

# %% [markdown]
# With 5% of the mass beyond the corner, the train-only test accepts in
# {glue:}`tds_gauss_far_acc_train_only` of the trials and the coupled one in
# {glue:}`tds_gauss_far_acc_coupled`; accepted with an excess above $\Delta$:
# {glue:}`tds_gauss_far_bad_train_only` and {glue:}`tds_gauss_far_bad_coupled`. This is what the
# projection argument after {prf:ref}`tds-def-features` predicts: only a reference set that
# contains test points puts the test-only region into the space the test inspects. It does not
# make this learner sound. Under the dilation by the largest $s$, the share of trials accepted
# with an excess above $\Delta$ is {glue:}`tds_gauss_dil_bad_coupled` for the coupled arm and
# {glue:}`tds_gauss_dil_bad_train_only` for the train-only one (table above): a Gaussian kernel
# of this width, with $B = 8$, spreads the dilated mass over many directions of small norm, and
# the test at this threshold does not see it. The Gaussian-kernel learner is a device to show what
# the coupling adds, not a TDS learner for this class; the paper's guarantees are for kernels
# whose RKHS holds the networks with small norm, as the multinomial kernel above does.
#
# ## Runtime against $d$ and $n$
#
# "Efficient" in the paper means a running time polynomial in $d$ and $1/\varepsilon$. For a
# fixed reference set of $m$ points, one run of our learner costs $O(n m d)$ for the kernel
# evaluations, $O(n m r)$ for the features and second moments ($n$ and $n'$ points) and
# $O(m^3)$ for the eigendecompositions: linear in $n$ and in $d$. The paper's bound enters
# through the sizes it asks for: $n$, $n'$ and $m$ polynomial in $d$ and $1/\varepsilon$ (for a
# degree-$\ell$ kernel, at most the $\binom{d + \ell}{\ell}$ dimensions of its RKHS). We time
# one batch of four trials, best of three repeats, with $n' = n$.

# %% tags=["nbval-ignore-output"]


def time_learner(d, n, repeats=3):
    """Best-of-`repeats` wall-clock seconds of one trial of the learner."""
    X, X_test = rng.uniform(-1, 1, (2, 4, n, d))
    y = rng.standard_normal((4, n))
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        tds_learner(X, y, X_test, 1.0)
        best = min(best, time.perf_counter() - start)
    return best / 4


times_d = np.array([time_learner(d, n_train) for d in timing_dims])
times_n = np.array([time_learner(dim, n) for n in timing_sizes])
slope_d = np.polyfit(np.log(timing_dims), np.log(times_d), 1)[0]
slope_n = np.polyfit(np.log(timing_sizes), np.log(times_n), 1)[0]
for d, t in zip(timing_dims, times_d):
    print(f"d = {d:3d}, n = n' = {n_train}: {t:.4f} s wall-clock per trial")
for n, t in zip(timing_sizes, times_n):
    print(f"d = {dim:3d}, n = n' = {n:4d}: {t:.4f} s wall-clock per trial")
print(f"fitted exponents: time ~ d^{slope_d:.2f} and n^{slope_n:.2f} (m = {2 * n_ref})")
glue("tds_slope_d", f"{slope_d:.2f}", display=False)
glue("tds_slope_n", f"{slope_n:.2f}", display=False)

# %% mystnb={"figure": {"caption": "Wall-clock time of one trial of the learner (reference set, features, statistic, norm-ball fit) against the input dimension d (left, n = n' fixed) and the sample size n = n' (right, d fixed), log-log; the dashed lines have slope one.", "name": "fig-tds-learning-neural-networks-runtime"}} tags=["hide-input", "nbval-ignore-output"]
fig, axes = lib.subplots(1, 2)
for ax, x, t, name in (
    (axes[0], timing_dims, times_d, "input dimension d"),
    (axes[1], timing_sizes, times_n, "sample size n = n'"),
):
    x = np.asarray(x, float)
    ax.plot(x, t, marker="o", color=lib.PALETTE[0], label="measured")
    ax.plot(x, t[0] * x / x[0], ls="--", color="0.5", label="slope 1")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(x, [f"{v:g}" for v in x])  # the measured sizes, no minor labels
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel(name)
    ax.set_ylabel("seconds per trial")
    ax.legend(fontsize=8)
lib.show(fig)

# %% [markdown]
# {numref}`fig-tds-learning-neural-networks-runtime`: the fitted exponents are
# {glue:}`tds_slope_d` in $d$ and {glue:}`tds_slope_n` in $n$. At these sizes the kernel
# evaluations are cheap beside the $O(n m r)$ products, so $d$ barely moves the time, and the
# time grows at most linearly in $n$ (below it while fixed costs such as the $O(m^3)$
# eigendecompositions still weigh). Both are within the polynomial the theory allows; the
# theory's price lies in how large $n$ and $m$ must be for its guarantee, not in the cost of a
# run.
#
# ## What we reproduced
#
# All rates are over independent trials: `null_trials` without shift and `n_trials` per shift.
# $\delta$ is the failure probability in {prf:ref}`tds-def-tds`. Completeness asks for the
# theorem's $1 - \delta$ acceptance without shift. With the threshold at the $1 - \delta/4$
# no-shift quantile, simulated from the training marginal, this holds by construction, up to
# the sampling error of the quantile and of the rate: claim 2 checks the calibration code, not
# the test. The theory's completeness statement is claim 8: the measured $1 - \delta$ no-shift
# quantile of $T$ lies below the Bernstein threshold $t_\delta$ of {eq}`eq-tds-bernstein`, which a
# wrong dependence on $\ell$, $\kappa$ or the sample sizes could break; with raw kernel
# evaluations as features (the control `no-whitening`) the features leave the unit ball that the
# bound assumes, and it fails.
# Soundness is checked as defined: in every shift, the share of trials that are *accepted and*
# have an excess above $\Delta$ (a tenth of the training label variance) must be at most
# $\delta$. A shift is *harmful* for the network of a seed when the median excess of the fitted
# predictor exceeds $\Delta$; the test must reject each such shift in at least $1 - \delta$ of
# its trials. That the predictors rejected under the dilation by 1.5 are bad is a property of
# the steep target ($W = 5$), not of the test: with a gentle target (the control
# `gentle-target`, $W = 1$ and label noise 0.01) the test takes the same decisions, but no
# shift is harmful any more and the predictors rejected under the dilation by 1.5 are within
# $\Delta$: claims 4 and 5 fail under it (table of controls). The benign shift is rejected:
# a threshold from the training marginal allows for sampling noise only, and this shift moves second moments by more (claim 6, recorded as not holding; TDS does
# not require it). Its positive control, `tolerance`, adds to $\tau$ the slack of 0.05 that
# would let it through. The coupling claim (7) is the experiment of the previous section. Claim 9
# is what the top eigenvalue buys over a norm: the stretch along the target's top hidden weight
# keeps $\mathbb E\, K(x, x)$, so the trace of $\hat\Sigma' - \hat\Sigma$ barely moves, while a
# unit-norm function peaked along $u$ gains second moment. With the trace in place of the top
# eigenvalue, calibrated the same way (the control `trace-statistic`), the test accepts this
# shift, and where the stretch costs the predictor more than $\Delta$ the soundness claims 3
# and 4 fail with it; the dilations and the mass beyond the corner raise every norm and any norm test
# rejects them.

# %%
claims = lib.Claims(
    "tds-learning-neural-networks", paper="chandrasekaran2025learning", control=control
)
claims.add(
    "Implementation: the reference features reproduce the kernel on the reference "
    "points (max relative error)",
    gram_error_text,
    "(implementation check)",
    gram_error < 1e-6,
    value=gram_error,
)
accept_none = results["dilation", 1.0]["accept"].mean()
claims.add(
    f"Calibration check (completeness): with no shift and tau the {cal_level:.1%} "
    f"no-shift quantile simulated from the training marginal, the test accepts in >= "
    f"{1 - delta:.0%} of {null_trials} trials",
    accept_none,
    "accepts w.p. >= 1 - delta when D'_x = D_x",
    accept_none >= 1 - delta,
    fmt="{:.3f}",
)
claims.add(
    f"Soundness: in each of the {len(settings)} shifts, the share of trials accepted "
    f"with test MSE - train MSE > Delta (a tenth of the label variance) is <= delta = "
    f"{delta:g} (largest share)",
    bad_share.max(),
    "P(accept and test error > lambda + eps) <= delta",
    bad_share.max() <= delta,
    fmt="{:.3f}",
)
harmful = [k for k, r in results.items() if np.median(excess(r)) > excess_bound]
reject_harmful = min((1 - results[k]["accept"].mean() for k in harmful), default=np.nan)
claims.add(
    f"Soundness: every shift harmful for this network (median excess > Delta) is "
    f"rejected in >= {1 - delta:g} of its trials (lowest rate; number of harmful "
    "shifts)",
    f"{reject_harmful:.3f} ({len(harmful)} of {len(settings)})",
    "rejects when the shift would make h bad",
    reject_harmful >= 1 - delta and len(harmful) >= 1,
    value=reject_harmful,
)
strongest = results["dilation", dilations[-1]]
rejected = excess(strongest)[~strongest["accept"]]
rejected_excess = np.median(rejected) if rejected.size else np.nan
claims.add(
    f"With this steep target (W = 5), the predictors rejected under the dilation "
    f"s = {dilations[-1]:g} are bad: median excess test MSE / Delta > 1",
    rejected_excess / excess_bound,
    "(the rejection is needed)",
    rejected_excess > excess_bound,
    fmt="{:.2f}",
)
accept_benign = results["benign: centre", 0.5]["accept"].mean()
claims.add(
    "The benign shift (half the mass to the centre, harmless to h) is accepted in >= "
    "90% of trials",
    accept_benign,
    "(not required by TDS)",
    accept_benign >= 0.9,
    fmt="{:.2f}",
    expect=False,
)
far_coupled = 1 - coupling["coupled Z", "5% beyond the corner"]["accept"].mean()
far_train_only = 1 - coupling["train-only Z", "5% beyond the corner"]["accept"].mean()
claims.add(
    "Coupling (Gaussian kernel, 5% of the test mass beyond the corner): the coupled "
    "test rejects in a share at least 0.5 above the train-only test (rejection "
    "rates: coupled / train-only)",
    f"{far_coupled:.2f} / {far_train_only:.2f}",
    "test points in Z let the test see test-only regions",
    far_coupled - far_train_only >= 0.5,
    value=far_coupled - far_train_only,
)
claims.add(
    f"Completeness bound: the measured {1 - delta:.0%} no-shift quantile of T is "
    "below the matrix Bernstein threshold t_delta of eq. (eq-tds-bernstein) "
    "(quantile / t_delta)",
    null_quantile / t_bernstein,
    "(our derivation: any tau >= t_delta gives completeness)",
    null_quantile <= t_bernstein,
    fmt="{:.3f}",
)
stretch_r = results["stretch", stretch]
claims.add(
    f"The stretch a = {stretch:g} along the top hidden weight (E K(x, x) unchanged) is "
    f"rejected in >= {1 - delta:g} of trials (rejection rate; median excess / Delta)",
    f"{1 - stretch_r['accept'].mean():.2f} "
    f"({np.median(excess(stretch_r)) / excess_bound:.2f})",
    "the spectral test sees every direction of the unit ball",
    1 - stretch_r["accept"].mean() >= 1 - delta,
    value=1 - stretch_r["accept"].mean(),
)
claims.report()

# %% [markdown]
# ```{controls-table}
# ```
#
# Each control takes one idea away; run one with
# `make run CHAPTER=tds-learning-neural-networks CONTROL=tau-zero` (or any name in the table).
# Over seeds 0–9 the no-shift acceptance is {seeds}`2`, the largest accepted-and-bad share
# {seeds}`3` and the excess of the rejected predictors under the strongest dilation {seeds}`5`
# times $\Delta$ (mean ± standard deviation over the seeds). At the paper preset ($d = 10$,
# $n = n' = 4000$, a reference set of 300 points; {paper-preset}`runtime` on two CPU cores) the
# no-shift acceptance is {paper-preset}`2`, the largest accepted-and-bad share
# {paper-preset}`3`, and the coupling rates are {paper-preset}`7`.
#
# ## How this compares with the paper
#
# | | paper {cite:p}`chandrasekaran2025learning` | this chapter |
# |---|---|---|
# | Setting | TDS regression, squared loss; bounded hypercontractive training marginals | the same, training marginal uniform on $[-1,1]^d$ |
# | Class | one-hidden-layer sigmoid networks (and deeper Lipschitz ones) | one-hidden-layer sigmoid network, $k = 4$, $W = 5$, $d = 5$, noise 0.1 |
# | Kernel | a kernel whose RKHS approximates the networks (exact kernel and degree not known to us) | multinomial kernel, degree 5 |
# | Features | data-dependent map on a reference set of train and test points | the same, 80 + 80 points; a train-only set and a Gaussian kernel to show what test points in it add |
# | Test | spectral test of test vs train second moments (threshold not known to us) | $\lambda_{\max}(\hat\Sigma' - \hat\Sigma)$ on the unit ball; threshold the $1 - \delta/4$ no-shift quantile, simulated from the training marginal |
# | Learner | least squares in a norm ball | the same, $B = 8$, by ridge bisection |
# | Soundness | with probability $1-\delta$: accept $\Rightarrow$ test error $\le \lambda + \varepsilon$ | accepted-and-bad share $\le \delta$ in every shift, for a bound $\Delta$ on the measured excess; the certified bound {eq}`eq-tds-cert` is vacuous at our sizes |
# | Completeness | accept with probability $\ge 1 - \delta$ without shift | the same, with the calibrated threshold |
# | Efficiency | polynomial time in $d$ and $1/\varepsilon$ | time per run measured against $d$ and $n$ |
# | Unbounded marginals | second algorithm via moment matching | not implemented |
# | Experiments | none (theory paper) | ours: shift families, scenarios, figures above |
#
# The paper proves guarantees; we can only check behaviour at one scale. At that scale the
# test behaves as the theorem describes: comparing second moments on the unit ball of the
# reference span catches the shifts that hurt the predictor, up to the rare misses (probability
# $\delta$) that the definition allows, and a threshold taken from the training marginal alone keeps the
# acceptance without shift at the level completeness asks. Test points in the reference set
# let the test see regions that only the test sample reaches (the Gaussian-kernel experiment,
# whose learner is not sound for other reasons), but for the multinomial kernel a
# train-only set does as well at our sizes, because far test mass shows in the low-degree part
# of the kernel that any reference set spans. Two things the theorem does not promise, and we
# see, are worth knowing. The test is conservative: it rejects the corner shift, under which the
# predictor was fine, because it guards against every function of the ball and not only the
# one it learned. And its worst-case certificate, like the Bernstein threshold
# {eq}`eq-tds-bernstein` ({glue:}`tds_bernstein_ratio` times the measured quantile), is loose
# at these sample sizes, so
# in practice the threshold has to be calibrated, as we do on the training marginal, rather than
# taken from the theory.
#
# ## Try it
#
# * `-p control=no-test` (or any control in the table): each takes one idea away, and the claims
#   cell names the claims that fail.
# * `-p delta=0.02`: a threshold at the 99.5% no-shift quantile. Completeness is asked at 98%; the
#   milder dilations are accepted more often, and the soundness claims show whether the excess
#   they cost stays below $\Delta$.
# * `-p weight_norm=2.0`: a gentler network. The statistic $T$ and every accept/reject decision
#   are the same as in the default (the test never looks at a label), but the shifts cost less:
#   fewer of them are harmful, and the excess error under the dilation by 1.5 is smaller.
#   Whether a shift *hurts* depends on the target; whether the test *rejects* it does not.
