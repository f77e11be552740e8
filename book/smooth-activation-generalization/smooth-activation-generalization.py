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
# # Gradient methods for smooth networks: distance from initialisation, 1/n rates and XOR in log d steps
#
# ```{admonition} About this chapter
# :class: tip
# {cite:t}`taheri2025sharper` bound the test loss of networks with smooth activations trained by
# gradient descent on the logistic loss through algorithmic stability. The bound depends on how far
# the weights must travel from their initialisation, not on the width. Two consequences are
# tested here. On data that the network's tangent features at initialisation separate with
# margin $\gamma$ the test error is at most of order $1/(\gamma^2 n)$, and the bound does not
# grow with the width. A width-$m$ quadratic network
# trained by SGD with the large step $\eta = m$ classifies XOR perfectly after only
# $\lceil \log d\rceil$ iterations.
# The defaults (XOR for $d$ up to 512, 15 runs per $d$ and schedule; the rate experiment up to
# $n = 1600$) run in under a minute on a CPU. `make run CHAPTER=smooth-activation-generalization
# PRESET=paper` runs the larger preset in `paper.yaml` ($d$ up to 1024, 25 runs per $d$, $n$ up
# to 4000, width up to 2048).
# ```
#
# ## The question
#
# Classical generalisation bounds for neural networks count parameters or norms, and they grow
# with the width. Yet wide networks trained by gradient descent generalise, and narrow ones
# trained with a large step can learn features that a kernel cannot. Can a bound follow the
# *algorithm*, so that it sees how far gradient descent actually moves the weights, and does
# that give better rates?
#
# The paper answers with a stability bound. Gradient descent on the logistic loss changes little
# when one training example is swapped, as long as the loss stays smooth along the path. The
# resulting test loss is controlled by the distance $\|w^\star - w_0\|$ from initialisation to a
# good comparator, divided by $n$. Two predictions follow that we can check with a computer: a
# $1/n$ test loss on separable data that does not grow with width, and a large-step regime in
# which a network of constant width solves XOR in a number of steps logarithmic in the dimension.
#
# ## The setting and the theorem
#
# ```{prf:definition} Networks, loss and gradient methods
# :label: sag-def-setting
#
# A network $f(w; x)$ with input $x \in \mathbb R^d$ and parameters $w$ has a twice
# differentiable ("smooth") activation $\sigma$. The one-hidden-layer case used below is
#
# $$
# f(W; x) = \frac{1}{s_m} \sum_{j=1}^m a_j\, \sigma(w_j^\top x), \qquad a_j \in \{\pm 1\}
# \text{ fixed, half of each sign},
# $$ (eq-sag-net)
#
# with $s_m = \sqrt m$ (the kernel scaling) or $s_m = m$. A training set holds $n$ i.i.d. pairs
# $(x_i, y_i)$ with labels $y_i \in \{\pm1\}$. The training loss is the logistic loss
# $\hat F(W) = \frac1n \sum_i \ell(y_i f(W; x_i))$ with $\ell(u) = \log(1 + e^{-u})$, and its
# population counterpart (the **test loss**) is $F(W) = \mathbb E\,\ell(y f(W; x))$. Gradient
# descent runs $W_{t+1} = W_t - \eta \nabla \hat F(W_t)$ from a Gaussian $W_0$; mini-batch SGD uses
# the same update with the gradient of the loss on a batch.
# ```
#
# The analysis rests on two facts about the logistic loss. It is *self-bounded*,
# $|\ell'(u)| \le \ell(u)$, so the gradient is small where the loss is small. And if the
# Hessian of $\hat F$ stays bounded along the path, gradient descent is *stable*: replacing one
# training example moves $W_T$ by an amount of order $\eta T / n$ times the average gradient
# norm. Stability turns into generalisation, because an algorithm whose output barely depends
# on any single example cannot overfit it {cite:p}`hardt2016train`.
#
# ```{prf:theorem} Test loss from distance to initialisation (schematic form)
# :label: sag-thm-stability
#
# After {cite:t}`taheri2025sharper`, for networks of $L$ hidden layers with smooth
# activations; this is our paraphrase of the shape of the bound from the abstract and the reviews,
# since we could not read the theorem itself. Suppose a comparator $w^\star$ stays in the region
# where the network's Hessian is controlled (the paper's condition is roughly
# $\|w^\star - w_0\| \lesssim m^{O(1/L)}$), the step is small enough for the path to remain
# smooth, and $\eta T \lesssim n$. Then, up to constants that grow like $e^{O(L)}$,
#
# $$
# \mathbb E\, F(W_T) \;\lesssim\; \hat F(w^\star) + \frac{\|w^\star - w_0\|^2}{\eta T}
# + \frac{\|w^\star - w_0\|^2}{n} .
# $$ (eq-sag-bound)
#
# The width $m$ enters only through the condition on $\|w^\star - w_0\|$, so the bound does not
# grow with $m$.
# ```
#
# ```{prf:proof}
# (Sketch.) Gradient descent with a smooth, convex-along-the-path objective satisfies the
# optimisation inequality $\hat F(W_T) \le \hat F(w^\star) + \|w^\star - w_0\|^2/(\eta T)$ up to a
# constant. Stability bounds the generalisation gap by $(\eta T/n)$ times the average squared
# gradient norm along the path, and self-boundedness replaces the gradient by the loss. With
# $\eta T \lesssim n$ the gap is therefore at most a constant times the training loss, and the
# two inequalities combine to {eq}`eq-sag-bound`. The paper's work is in controlling the Hessian
# of a deep network along the path; we do not reproduce it.
# ```
#
# The rate for separable data follows by choosing the comparator.
#
# ```{prf:assumption} NTK-separability with margin $\gamma$
# :label: sag-ass-ntk
#
# There is a unit vector $u$ in parameter space such that
# $y\, \langle \nabla_w f(W_0; x), u\rangle \ge \gamma$ for every $(x, y)$ in the support of the
# data: the tangent features at initialisation separate the classes with margin $\gamma$.
# This is the assumption under which {cite:t}`ji2020polylogarithmic` showed that
# polylogarithmic width suffices for shallow ReLU networks.
# ```
#
# ```{prf:corollary} The $1/n$ rate, with its logarithm
# :label: sag-cor-rate
#
# Under {prf:ref}`sag-ass-ntk`, take $w^\star = W_0 + \rho u$ with $\rho \approx \log(n)/\gamma$,
# so that $\hat F(w^\star) \lesssim 1/n$ while the network is still close to its linearisation.
# With $\eta T \asymp n$, {eq}`eq-sag-bound` gives
#
# $$
# \mathbb E\, F(W_T) \;\lesssim\; \frac{\rho^2}{n} \;\asymp\; \frac{\log^2 n}{\gamma^2\, n}.
# $$ (eq-sag-rate)
#
# The paper's abstract states the rate $e^{O(L)}/(\gamma^2 n)$ for the test *error*, which is at
# most $F/\log 2$. The $\log^2 n$ comes from $\rho$ in our derivation; the paper's abstract does
# not show it, and we could not read the exact theorem. Both are upper bounds: a test error that
# falls faster than $1/n$ is consistent with them.
# ```
#
# To see how tight the bound is, we also compute a stability bound on the test loss of the
# network we train, written in the form of the stability analyses that the paper extends.
#
# ```{prf:proposition} The stability bound we compute
# :label: sag-prop-stab
#
# For the one-hidden-layer network {eq}`eq-sag-net` with $\sigma = \tanh$, inputs divided by
# $\sqrt d$ and $s_m = \sqrt m$, the gradient of the output is $\nabla_{w_j} f = a_j
# \tanh'(w_j^\top x/\sqrt d)\, x/\sqrt{md}$, so $\|\nabla_W f\|^2 \le \ell_f^2 :=
# \max_i \|x_i\|^2/d$ on the training set, whatever the width. If gradient descent is stable
# (the Hessian controlled along the path, which is the paper's work), swapping one training
# example moves the iterate by at most $\frac{\eta}{n}\sum_t$ of the two examples' gradients,
# and self-boundedness, $\|\nabla_W \ell(y f)\| \le \ell_f\, \ell(y f)$, turns that into
#
# $$
# F(W_T) \;\lesssim\; B_T := \hat F(W_T) + \frac{4\, \ell_f^2\, \eta}{n}
# \sum_{t=0}^{T-1} \hat F(W_t) .
# $$ (eq-sag-stab)
#
# The constant 4 is that of the convex, non-expansive case; the paper's own constant, which
# carries its $e^{O(L)}$ factors, we could not read. With $\sum_t \hat F(W_t) \lesssim
# \|w^\star - w_0\|^2/\eta$ this gives the $\|w^\star - w_0\|^2/n$ term of
# {eq}`eq-sag-bound`.
# ```
#
# The paper's last result is about leaving this kernel regime.
#
# ```{prf:theorem} XOR in $\lceil\log d\rceil$ iterations with a large step
# :label: sag-thm-xor
#
# {cite:t}`taheri2025sharper`, Theorem 2.4 (as stated in the abstract). A one-hidden-layer network
# of constant width $m$ with quadratic activation $\sigma(z) = z^2$ and standard Gaussian
# initialisation, trained by mini-batch SGD on the logistic loss with step size $\eta = m$ on
# $n = O(d)$ samples of the XOR distribution, reaches perfect test accuracy after
# $\lceil\log d\rceil$ iterations (with high probability).
# ```
#
# We take the XOR distribution to be the 2-sparse parity on the hypercube: $x$ uniform on
# $\{\pm 1\}^d$ and $y = x_1 x_2$. A kernel method needs of order $d^2$ samples for it
# {cite:p}`wei2019regularization`; a network that finds the two relevant coordinates needs of
# order $d$.
#
# Why $\log d$? With $\sigma(z) = z^2$ and $s_m = m$, write $S_B = \frac1B\sum_{i\in B}
# y_i x_i x_i^\top$ for a batch $B$. While the outputs are small, $-\ell'(0) = 1/2$, so one SGD
# step with $\eta = m$ is
#
# $$
# w_j \;\leftarrow\; w_j + \frac{\eta}{m}\, a_j\, S_B\, w_j
# \;=\; (I + a_j S_B)\, w_j ,
# \qquad \mathbb E\, S_B = e_1 e_2^\top + e_2 e_1^\top .
# $$ (eq-sag-power)
#
# Each step is a step of the power method. For a unit with $a_j = +1$ the component along
# $(e_1 + e_2)/\sqrt2$ doubles and the one along $(e_1 - e_2)/\sqrt2$ is killed; a unit with
# $a_j = -1$ does the opposite. A unit of sign $a_j$ then contributes about
# $a_j c_j^2 (x_1 + a_j x_2)^2$ to the output, and $(x_1 + x_2)^2 - (x_1 - x_2)^2 = 4 x_1 x_2$.
# The relevant component starts at size
# $1/\sqrt d$ relative to the rest, so about $\log_2\sqrt d \approx 0.72 \ln d$ doublings make it
# dominate. The noise $S_B - \mathbb E S_B$ has operator norm about $2\sqrt{d/B}$; our batches
# of $64d/\lceil\ln d\rceil$ points keep it near $\sqrt{\lceil\ln d\rceil}/4 < 1$, so the
# irrelevant directions grow more slowly than the relevant ones. Once the margins are large, $\ell'$ vanishes and the growth stops.
# This is our heuristic reading; it is not the paper's proof.
#
# ```{prf:proposition} Two equivalent conventions
# :label: sag-prop-scaling
#
# "Standard Gaussian initialisation" and "$\eta = m$" cannot both be read literally on both input
# normalisations. The following two settings give the same iterates (exactly, in exact
# arithmetic): (a) raw inputs $x \in \{\pm1\}^d$, $w_j \sim \mathcal N(0, I_d/d)$, $\eta = m$;
# (b) unit-norm inputs $x/\sqrt d$, $w_j \sim \mathcal N(0, I_d)$, $\eta = m d$.
# ```
#
# ```{prf:proof}
# Put $x' = x/\sqrt d$ and $w' = \sqrt d\, w$. Then $w'^\top x' = w^\top x$, so the outputs and
# losses agree, and $\nabla_{w'} = \nabla_w / \sqrt d$. A step of size $\eta'$ on $w'$ is
# $\sqrt d\, w \leftarrow \sqrt d\, w - \eta' \nabla_w/\sqrt d$, that is, a step of size
# $\eta'/d$ on $w$.
# ```
#
# In both, the pre-activations $w_j^\top x$ are standard normal at initialisation, and the power
# step {eq}`eq-sag-power` has gain $2$. The two literal readings fail, as we show below. Raw inputs
# with $w_j \sim \mathcal N(0, I_d)$ have pre-activations of size $\sqrt d$, and the logistic loss
# saturates. Unit-norm inputs with $\eta = m$ have gain $1 + O(1/d)$ per step instead of 2.
#
# ```{note} Where this chapter departs from the paper
# We could not read the paper's full text, so the XOR distribution (hypercube, $y = x_1x_2$), the
# output scaling $1/m$, the fixed balanced second layer, the scaling convention of
# {prf:ref}`sag-prop-scaling` and the batch schedule are our choices, each made so that the
# abstract's statement is meaningful. "Perfect" means no error on $10^4$ fresh test points
# ($2\cdot10^4$ in the paper preset). The SGD schedule makes one pass over $n = 64d$ samples in
# $\lceil\ln d\rceil$ equal batches, then reshuffles and cycles. The abstract does not fix the
# base of $\log$, and the heuristic above counts $\log_2\sqrt d$ doublings, so both bases are
# natural readings; we read $\log$ as $\ln$, the stricter count, and report the count at
# $\lceil\log_2 d\rceil$ beside it.
# We compute the stability bound in the form of {prf:ref}`sag-prop-stab`, not with the paper's
# constants, and on synthetic data instead of the paper's MNIST and FashionMNIST. Because the
# number of batches $\lceil\ln d\rceil$ tells the schedule the count the theorem predicts, we
# also run a schedule blind to $d$ (eight batches of $8d$ points).
# ```
#
# ## The algorithm

# %% tags=["parameters"]
seed = 0
device = "cpu"  # numpy only
control = "none"  # or a deliberately wrong variant named in controls.yaml
dims = [16, 32, 64, 128, 256, 512]  # XOR input dimensions d
width = 10  # hidden units m of the quadratic network (even)
samples_per_dim = 64  # training-set size n is samples_per_dim times d
fixed_batches = 8  # batches per pass of the schedule blind to d
small_step_factor = 0.1  # the baseline uses step small_step_factor times m
break_step_factor = 0.5  # a step below m that keeps the gain above 1
sweep_factors = [0.75, 1.5, 2.0]  # further steps (times m) of the step sweep
sweep_replicates = 5  # runs per d of each step in the sweep
replicates = 15  # independent XOR runs per d of the large step, each schedule
baseline_replicates = 5  # runs per d of the smaller steps and the failing settings
n_test = 10000  # fresh test points per d
extra_iters = 6  # XOR iterations run beyond ceil(ln d)
failure_dims = [64, 256]  # dimensions for the settings that fail
rate_ns = [100, 200, 400, 800, 1600]  # training-set sizes for the 1/n rate
rate_width = 32  # hidden units for the rate experiment
rate_widths = [32, 128, 512]  # widths compared at n of rate_width_n
rate_width_n = 300  # training-set size of the width comparison
rate_dim = 10  # input dimension of the separable data
rate_margin = 0.5  # margin gamma of the linear teacher
rate_step = 16.0  # gradient-descent step size
rate_iters_per_sample = 0.5  # gradient-descent iterations T per training example
rate_replicates = 8  # training sets per point (the power of the gap check)
rate_n_test = 20000  # test points for the test loss
progress = False  # a progress bar over long loops (on in paper.yaml)

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
from myst_nb import glue
from scipy.special import expit, ndtr, ndtri
from scipy.stats import binom
from sklearn.svm import SVC

control = lib.check_control("smooth-activation-generalization", control)
lib.check_choice("device", device, ("auto", "cpu"))
lib.check_int_list("dims", dims, low=8, high=4096, min_len=3, increasing=True)
lib.check_int("width", width, low=2, high=1000)
if width % 2:
    raise ValueError(f"parameter `width` = {width!r} is invalid: must be even")
lib.check_int("samples_per_dim", samples_per_dim, low=2, high=1024)
lib.check_int("fixed_batches", fixed_batches, low=1, high=1024)
for name, value in (
    ("small_step_factor", small_step_factor),
    ("break_step_factor", break_step_factor),
):
    lib.check_float(name, value, low=0.0, high=1.0, low_open=True)
lib.check_float_list("sweep_factors", sweep_factors, low=0.0, high=4.0, low_open=True)
lib.check_int("sweep_replicates", sweep_replicates, low=1, high=100)
lib.check_int("replicates", replicates, low=3, high=100)
lib.check_int("baseline_replicates", baseline_replicates, low=2, high=replicates)
lib.check_int("n_test", n_test, low=1000, high=100_000)
lib.check_int("extra_iters", extra_iters, low=2, high=100)
lib.check_int_list("failure_dims", failure_dims, low=8, high=4096, increasing=True)
lib.check_int_list("rate_ns", rate_ns, low=20, high=100_000, min_len=3, increasing=True)
lib.check_int("rate_width", rate_width, low=2, high=10_000)
lib.check_int_list("rate_widths", rate_widths, low=2, high=10_000, min_len=2)
if any(m % 2 for m in [rate_width, *rate_widths]):
    raise ValueError(
        f"parameter `rate_widths` = {rate_widths!r} is invalid: widths must be even"
    )
lib.check_int("rate_width_n", rate_width_n, low=20, high=100_000)
lib.check_int("rate_dim", rate_dim, low=1, high=1000)
lib.check_float("rate_margin", rate_margin, low=0.0, high=2.0, low_open=True)
lib.check_float("rate_step", rate_step, low=0.0, high=1000.0, low_open=True)
lib.check_float("rate_iters_per_sample", rate_iters_per_sample, low=0.0, low_open=True)
lib.check_int("rate_replicates", rate_replicates, low=2, high=100)
lib.check_int("rate_n_test", rate_n_test, low=1000, high=1_000_000)
largest_batch = samples_per_dim * max(dims) ** 2
if largest_batch > 3 * 10**8:
    raise ValueError(
        f"parameter `dims` = {dims!r} is invalid: samples_per_dim * max(d)^2 must be "
        "<= 3e8 (memory of one training set)"
    )
hidden_units = max(
    max(rate_ns) * rate_width, rate_width_n * max(rate_widths)
)  # per replicate, the largest (n, m) activation array of the rate experiment
if rate_replicates * hidden_units > 5 * 10**7:
    raise ValueError(
        f"parameter `rate_replicates` = {rate_replicates!r} is invalid: "
        "rate_replicates times n times width must be <= 5e7 (memory)"
    )
lib.check_bool("progress", progress)
rng, device = lib.setup(seed, device)
t_start = time.perf_counter()


# %% [markdown]
# ### SGD on XOR with a quadratic network
#
# The network is {eq}`eq-sag-net` with $\sigma(z) = z^2$ and $s_m = m$. Its gradient with respect
# to unit $j$ on one example is $\ell'(y f)\, y\, \frac{2 a_j}{m} (w_j^\top x)\, x$, so with
# $\eta = m$ the factor $1/m$ cancels and the step does not depend on the width, as in
# {eq}`eq-sag-power`. We store the training set as packed bits, draw an example as a random
# byte string, and unpack a batch at a time. `x_scale` switches between raw ($1$) and unit-norm
# ($1/\sqrt d$) inputs, and `n_batches = 1` turns SGD into full-batch gradient descent. By default
# one pass is split into $\lceil\ln d\rceil$ batches; `n_batches = fixed_batches` gives the
# schedule that does not know $d$.

# %%
def hypercube_bits(n, d, rng):
    """n points of {0,1}^d, packed 8 per byte."""
    return rng.integers(0, 256, size=(n, -(-d // 8)), dtype=np.uint8)


def unpack(bits, d, x_scale=1.0):
    """Packed bits -> points of {-x_scale, +x_scale}^d (float64) and labels x1 * x2."""
    x = np.unpackbits(bits, axis=1, count=d).astype(np.float64)
    x = (2.0 * x - 1.0) * x_scale
    return x, np.sign(x[:, 0] * x[:, 1])


def quadratic_net(W, a, x):
    """f(x) = (1/m) sum_j a_j (w_j . x)^2 for W of shape (d, m); also the w_j . x."""
    z = x @ W
    return (z**2) @ a / len(a), z


def sgd_xor(d, m, n, eta, iters, init_std, rng, x_scale=1.0, n_batches=None):
    """Mini-batch SGD on the logistic loss; returns the iterates W_0..W_iters."""
    n_batches = math.ceil(math.log(d)) if n_batches is None else n_batches
    a = np.repeat([1.0, -1.0], m // 2)
    W = init_std * rng.standard_normal((d, m))
    train = hypercube_bits(n, d, rng)
    iterates = [W]
    for t in range(iters):
        k = t % n_batches
        if k == 0:  # first pass in order, then reshuffle each pass
            order = rng.permutation(n) if t else np.arange(n)
            batches = np.array_split(order, n_batches)
        x, y = unpack(train[batches[k]], d, x_scale)
        f, z = quadratic_net(W, a, x)
        dloss_df = -y * expit(-y * f)  # the logistic loss' derivative times y
        grad = x.T @ (dloss_df[:, None] * 2.0 * z * a / m) / len(y)
        if control == "step-blind":  # a step length set by |w_j| and the loss, not eta
            length = np.linalg.norm(W, axis=0) * 2.0 * np.mean(np.abs(dloss_df))
            W = W - length * grad / np.linalg.norm(grad, axis=0)
        else:
            W = W - eta * grad
        iterates.append(W)
    return np.stack(iterates)


def test_errors(iterates, a, x, y):
    """Number of misclassified test points after each iteration."""
    T1, d, m = iterates.shape
    z = x @ iterates.transpose(1, 0, 2).reshape(d, T1 * m)
    f = (z.reshape(len(y), T1, m) ** 2) @ a / m
    return np.sum(np.sign(f) != y[:, None], axis=0)


def first_perfect(iterates, a, x, y, screen=2000):
    """First iteration with zero test errors (nan if none).

    A test set with no error has none on its first `screen` points either, so we
    screen every iterate on those and check only the survivors on the full set.
    """
    for t in np.flatnonzero(test_errors(iterates, a, x[:screen], y[:screen]) == 0):
        if test_errors(iterates[[t]], a, x, y)[0] == 0:
            return float(t)
    return np.nan


# %% [markdown]
# Our convention ({prf:ref}`sag-prop-scaling`) sets the initial scale and the steps. Five
# controls change them: `half-step` and `double-step` scale the large step, `shrinking-step`
# lets it shrink with the dimension as $m\,(16/d)^{1/4}$ (and gives the runs four times the
# iterations), `literal-init` draws the weights from $\mathcal N(0, I_d)$ on raw inputs, and
# `step-blind` replaces the update by one whose length does not depend on $\eta$: each unit
# $w_j$ moves along its negative gradient by $\|w_j\|$ times $2\,\overline{|\ell'|}$, the
# batch's mean $|\ell'|$ doubled (1 while the outputs are small, vanishing as the margins
# grow). Under `step-blind` all steps run the
# same algorithm, so it tests whether the count is tied to the step.

# %%
eta_large = float(width)
if control == "half-step":  # the large step halved: power-step gain 1.5, not 2
    eta_large = width / 2
if control == "double-step":  # the large step doubled: gain 3 per step
    eta_large = 2.0 * width
eta_small = small_step_factor * width
eta_break = break_step_factor * width


def step_scale(d):
    """1, or the shrinking-step control's factor (16/d)^(1/4) on every XOR step."""
    return (16 / d) ** 0.25 if control == "shrinking-step" else 1.0


def init_std_ours(d):
    """Initial weight scale of our convention, N(0, I/d) on raw inputs."""
    if control == "literal-init":  # the literal reading N(0, I) on raw inputs
        return 1.0
    return d**-0.5


# %% [markdown]
# ### Gradient descent for the rate
#
# For the rate and width predictions we need data that are separable with a known margin and a
# smooth network in the kernel scaling. The labels come from a linear teacher,
# $y = \operatorname{sign}(x_1)$, with $x \sim \mathcal N(0, I_d)$ conditioned on $|x_1| \ge \gamma$.
# The network is {eq}`eq-sag-net` with $\sigma = \tanh$, inputs divided by $\sqrt d$, $s_m = \sqrt m$,
# $w_j \sim \mathcal N(0, I_d)$ and only the first layer trained. It satisfies
# {prf:ref}`sag-ass-ntk`, but with a margin of its own. Moving every $w_j$ by $a_j e_1$, that
# is, along the unit vector $u = (a_j e_1)_j/\sqrt m$ by $\sqrt m$, changes the output to first
# order by $\frac{1}{\sqrt{md}} \sum_j \tanh'(w_j^\top x/\sqrt d)\, x_1$, so
# $y\,\langle \nabla_W f(W_0; x), u\rangle = \overline{\tanh'}\,|x_1|/\sqrt d$, with
# $\overline{\tanh'}$ the mean of $\tanh'(w_j^\top x/\sqrt d)$ over the units. It has the sign
# of $y$, since $\tanh' > 0$, but its size is about $\mathbb E[\tanh']\,\gamma/\sqrt d$, not
# $\gamma$. The margin $\gamma_{\rm NTK}$ of the assumption, the best over all unit $u$, is
# therefore smaller than the input margin $\gamma$ by a factor of order $\sqrt d$. We measure it
# on each training set twice: along this $u$, and for the best $u$, the hard-margin support
# vector machine on the tangent features $\nabla_W f(W_0; x_i)$. Replicates are stacked along a first axis,
# so all training sets of one size run together. Gradient descent also sums the training loss
# along its path, the ingredient of the stability bound {eq}`eq-sag-stab`. To see which of the
# results need the smooth activation, the same experiment also runs with ReLU. Two controls
# break the assumption on the data: `no-margin` draws them with margin $10^{-4}$ instead of
# $\gamma$ (the labels stay clean and the bound keeps its $\gamma$), and `noisy-labels` flips a
# tenth of the labels, training and test alike, so the data are neither noiseless nor
# separable and the training loss cannot go to zero; `weak-noise` flips only a fiftieth.

# %%
label_noise = {"noisy-labels": 0.1, "weak-noise": 0.02}.get(control, 0.0)  # train, test
data_margin = 1e-4 if control == "no-margin" else rate_margin  # margin of the data
ACTIVATIONS = {  # name: (sigma, sigma' written in terms of sigma(z))
    "tanh": (np.tanh, lambda h: 1.0 - h**2),
    "relu": (lambda z: np.maximum(z, 0.0), lambda h: (h > 0.0) * 1.0),
}


def margin_data(n, d, gamma, rng, reps=(), noise=0.0):
    """x ~ N(0, I_d) conditioned on |x_1| >= gamma; labels sign(x_1), a fraction
    `noise` of them flipped."""
    x = rng.standard_normal((*reps, n, d))
    tail = ndtri(ndtr(gamma) + rng.uniform(size=(*reps, n)) * (1 - ndtr(gamma)))
    y = rng.choice([-1.0, 1.0], size=(*reps, n))
    x[..., 0] = y * tail
    if noise:
        y = np.where(rng.uniform(size=y.shape) < noise, -y, y)
    return x, y


def output_scale(m):
    """s_m of eq-sag-net: the kernel scaling sqrt(m)."""
    return math.sqrt(m)


def smooth_net(W, a, x, act="tanh"):
    """f(x) = (1/s_m) sum_j a_j sigma(w_j . x / sqrt d); W of shape (reps, d, m)."""
    h = ACTIVATIONS[act][0](x @ W / math.sqrt(x.shape[-1]))
    return h @ a / output_scale(len(a)), h


def logistic_loss(W, a, x, y, act="tanh"):
    f, _ = smooth_net(W, a, x, act)
    return np.mean(np.logaddexp(0.0, -y * f), axis=-1)


def gradient_descent(x, y, m, eta, iters, rng, act="tanh"):
    """Full-batch GD on the first layer: W_0, W_T and the sum of the training losses
    of W_0..W_{T-1}, for each replicate."""
    reps, n, d = x.shape
    a = np.repeat([1.0, -1.0], m // 2)
    W0 = rng.standard_normal((reps, d, m))
    W = W0.copy()
    path_loss = np.zeros(reps)
    for _ in range(iters):
        f, h = smooth_net(W, a, x, act)
        path_loss += np.mean(np.logaddexp(0.0, -y * f), axis=-1)
        dloss_df = -y * expit(-y * f)
        back = dloss_df[..., None] * ACTIVATIONS[act][1](h) * a / output_scale(m)
        W -= eta * np.swapaxes(x, 1, 2) @ back / (n * math.sqrt(d))
    return W0, W, a, path_loss


def stability_bound(train_loss, path_loss, x, eta, m):
    """B_T of eq-sag-stab for each replicate; l_f^2 = (m / s_m^2) max_i |x_i|^2 / d
    bounds |grad_W f|^2 (m / s_m^2 = 1 in the kernel scaling)."""
    n, d = x.shape[-2:]
    lip2 = m / output_scale(m) ** 2 * np.max(np.sum(x**2, axis=-1), axis=-1) / d
    return train_loss + 4.0 * lip2 * eta * path_loss / n


# %% [markdown]
# ## The experiment
#
# ### XOR: iterations to perfect test accuracy
#
# For each $d$ we run independent trainings (fresh initialisation and training set) and record
# the number of errors on one shared set of fresh test points after every iteration. The large
# step $\eta = m$ runs `replicates` = 15 times with our schedule (one pass in $\lceil\ln d\rceil$
# batches) and 15 times with a schedule blind to $d$ (one pass in `fixed_batches` = 8 batches of
# $8d$ points). The break $\eta = m/2$ (power-step gain 1.5 instead of 2, so {eq}`eq-sag-power`
# predicts about $\log_{1.5}\sqrt d \approx 1.23 \ln d$ iterations) and the small step
# $\eta = m/10$ use our schedule, `baseline_replicates` = 5 times each. A sweep over the step
# adds $\eta = 0.75m$, $1.5m$ and $2m$ (`sweep_factors`, gains 1.75, 2.5 and 3) with our
# schedule, `sweep_replicates` = 5 times each. $t^\star$ is the first iteration with no test
# error.
#
# We summarise $t^\star$ at each $d$ by its median, and the number of runs is set by how noisy a
# median is. A run is more than one iteration late with some probability $q$: the offset
# $\lceil \ln d\rceil - 0.72\ln d$ between the count and the heuristic varies with $d$, and
# where it is small a late run is less rare. The median of $R$ runs is
# late when at least $(R+1)/2$ of them are, with probability
# $P(\mathrm{Bin}(R, q) \ge (R+1)/2)$. At the largest fraction of late runs measured below,
# {glue:}`late_max`, that is {glue:}`median_late_five` for $R = 5$, enough for one $d$ out of six
# to decide a claim by chance on some seeds, and {glue:}`median_late_runs` for $R = 15$.

# %%
a_xor = np.repeat([1.0, -1.0], width // 2)
ceil_log = np.array([math.ceil(math.log(d)) for d in dims])
ceil_log2 = np.array([math.ceil(math.log2(d)) for d in dims])  # the other reading
budget = 4 * extra_iters if control == "shrinking-step" else extra_iters
iters_large = ceil_log + budget
schedules = {  # name: (step, batches per pass (None: ceil(ln d)), runs per d)
    "eta = m, ceil(ln d) batches": (eta_large, None, replicates),
    f"eta = m, {fixed_batches} batches": (eta_large, fixed_batches, replicates),
    f"eta = {break_step_factor:g} m, ceil(ln d) batches": (
        eta_break,
        None,
        baseline_replicates,
    ),
}
ours, fixed, broken = schedules
for factor in sweep_factors:  # the step sweep, our schedule
    schedules[f"eta = {factor:g} m, ceil(ln d) batches"] = (
        factor * eta_large,
        None,
        sweep_replicates,
    )
t_star = {name: [] for name in schedules}
errors_at_log = {name: [] for name in schedules}  # at ceil(ln d) and ceil(log2 d)
errors_small = []
for d, T in lib.progress(list(zip(dims, iters_large)), enabled=progress, desc="XOR"):
    x_test, y_test = unpack(hypercube_bits(n_test, d, rng), d)
    n_train = samples_per_dim * d
    K = T - budget
    K2 = min(math.ceil(math.log2(d)), T)
    for r in range(replicates):
        for name, (eta, batches, runs) in schedules.items():
            if r >= runs:
                continue
            eta_d = eta * step_scale(d)
            W = sgd_xor(
                d, width, n_train, eta_d, T, init_std_ours(d), rng, n_batches=batches
            )
            t_star[name].append(first_perfect(W, a_xor, x_test, y_test))
            errors_at_log[name].append(test_errors(W[[K, K2]], a_xor, x_test, y_test))
        if r < baseline_replicates:
            eta_d = eta_small * step_scale(d)
            W = sgd_xor(d, width, n_train, eta_d, 3 * K, init_std_ours(d), rng)
            errors_small.append(test_errors(W[[0, K, 3 * K]], a_xor, x_test, y_test))
t_star = {k: np.reshape(v, (len(dims), -1)) for k, v in t_star.items()}
acc_at_log, acc_at_log2 = (
    {
        k: 1 - np.reshape(np.array(v)[:, j], (len(dims), -1)) / n_test
        for k, v in errors_at_log.items()
    }
    for j in (0, 1)
)
small_acc = 1 - np.reshape(errors_small, (len(dims), baseline_replicates, 3)) / n_test
median_excess = {  # runs with errors left after the budget count as infinite
    k: np.median(np.where(np.isnan(v), np.inf, v), axis=1) - ceil_log
    for k, v in t_star.items()
}
perfect_at_log = {k: float(np.mean(v == 1.0)) for k, v in acc_at_log.items()}
perfect_at_log2 = {k: float(np.mean(v == 1.0)) for k, v in acc_at_log2.items()}
late = {  # per d, the fraction of runs more than one iteration beyond ceil(ln d)
    k: np.mean(~(t_star[k] <= ceil_log[:, None] + 1), axis=1) for k in (ours, fixed)
}
late_max = max(float(v.max()) for v in late.values())


def median_late(q, runs):
    """P(the median of `runs` runs is late) when each run is late with prob. q."""
    return float(binom.sf((runs - 1) // 2, runs, q))


print(f"{'d':>5} {'ceil ln d':>9} {'t* (eta = m, ceil(ln d) batches, each run)':>43}")
for i, d in enumerate(dims):
    runs = " ".join("-" if np.isnan(t) else f"{t:.0f}" for t in t_star[ours][i])
    print(f"{d:>5} {ceil_log[i]:>9} {runs:>43}")
print(
    f"\n{'schedule':<32} {'median t* - ceil(ln d), per d':>30} "
    f"{'perfect at ceil ln d':>21} {'at ceil log2 d':>15}"
)
for name in schedules:
    excess = " ".join(f"{v:+.0f}" for v in median_excess[name])
    print(
        f"{name:<32} {excess:>30} {perfect_at_log[name]:>21.0%} "
        f"{perfect_at_log2[name]:>15.0%}"
    )
print("ceil(log2 d) - ceil(ln d) per d: " + " ".join(map(str, ceil_log2 - ceil_log)))
small_mean = small_acc[:, :, 1].mean(axis=1)  # per d, at ceil(ln d)
midpoint = (0.5 + acc_at_log[ours].mean(axis=1)) / 2  # halfway from chance to eta = m
small_perfect_late = int(np.sum(small_acc[:, :, 2] == 1))
print(
    f"\neta = {small_step_factor:g} m: mean accuracy at ceil(ln d) per d "
    + " ".join(f"{v:.3f}" for v in small_mean)
    + "\n  halfway between chance and eta = m, per d "
    + " ".join(f"{v:.3f}" for v in midpoint)
    + f"\n  runs perfect at 3 ceil(ln d): {small_perfect_late}"
)
sweep = sorted(  # (step factor, schedule name) of the sweep, our schedule
    [(break_step_factor, broken), (1.0, ours)]
    + [(f, f"eta = {f:g} m, ceil(ln d) batches") for f in sweep_factors]
)
print(
    f"\n{'step':>10} {'gain':>5} {'median excess per d':>24} {'worst':>6} "
    f"{'perfect':>8}"
)
for factor, name in sweep:
    excess = " ".join(f"{v:+.0f}" for v in median_excess[name])
    print(
        f"{factor:>8g} m {1 + factor:>5.2f} {excess:>24} "
        f"{median_excess[name].max():>+6.0f} {perfect_at_log[name]:>8.0%}"
    )
within_one = [f for f, k in sweep if median_excess[k].max() <= 1]
exact = [f for f, k in sweep if perfect_at_log[k] >= 0.95]
glue("sweep_within_from", min(within_one) if within_one else 0, display=False)
glue("sweep_exact_from", min(exact) if exact else 0, display=False)
below = median_excess[sweep[1][1]].max()  # the step just below m in the sweep
glue("sweep_excess_below", int(below) if np.isfinite(below) else 999, display=False)
glue("sweep_below_factor", sweep[1][0], display=False)
for factor, name in sweep:
    key = f"{factor:g}".replace(".", "_")
    glue(f"sweep_perfect_{key}", round(100 * perfect_at_log[name]), display=False)
print(
    "runs more than one iteration late, per d: "
    + "; ".join(f"{k}: " + " ".join(f"{q:.2f}" for q in v) for k, v in late.items())
)
print(
    f"P(median late) at the largest fraction {late_max:.2f}: "
    f"{median_late(late_max, replicates):.1e} with {replicates} runs, "
    f"{median_late(late_max, 5):.1e} with 5"
)
glue("late_max", round(late_max, 2), display=False)
for key, runs in (("runs", replicates), ("five", 5)):  # one significant digit
    glue(
        f"median_late_{key}", float(f"{median_late(late_max, runs):.1g}"), display=False
    )
glue("perfect_ours_pct", round(100 * perfect_at_log[ours]), display=False)
glue("perfect_ours_log2_pct", round(100 * perfect_at_log2[ours]), display=False)
glue("perfect_fixed_log2_pct", round(100 * perfect_at_log2[fixed]), display=False)
glue("log_base_gap_min", int(min(ceil_log2 - ceil_log)), display=False)
glue("log_base_gap_max", int(max(ceil_log2 - ceil_log)), display=False)
glue("perfect_fixed_pct", round(100 * perfect_at_log[fixed]), display=False)
glue("perfect_break_pct", round(100 * perfect_at_log[broken]), display=False)
for key, value in (
    ("min", np.min(median_excess[broken])),
    ("max", np.max(median_excess[broken])),
):  # infinite when most runs never reach zero errors
    glue(
        f"excess_break_{key}", int(value) if np.isfinite(value) else 999, display=False
    )

# %% [markdown]
# The large step reaches perfect test accuracy after $\lceil \ln d\rceil$ iterations or one more in
# most runs, with either schedule, while the small step is still near chance at that point and
# has not reached perfect accuracy after three times as many. The exact count is a different
# matter. With our schedule {glue:}`perfect_ours_pct`% of the runs are perfect at exactly
# $\lceil\ln d\rceil$; with the schedule blind to $d$, {glue:}`perfect_fixed_pct`%; with
# $\eta = m/2$, {glue:}`perfect_break_pct`%, its median $t^\star$ lying
# {glue:}`excess_break_min` to {glue:}`excess_break_max` iterations beyond $\lceil\ln d\rceil$.
# So part of the agreement of our schedule with the exact count comes from its knowing
# $\lceil\ln d\rceil$. The base of the logarithm decides the exact count: the same runs of our
# schedule are perfect at $\lceil\log_2 d\rceil$ in {glue:}`perfect_ours_log2_pct`% of the
# cases ({glue:}`perfect_fixed_log2_pct`% with the schedule blind to $d$), and
# $\lceil\log_2 d\rceil$ exceeds $\lceil\ln d\rceil$ by {glue:}`log_base_gap_min` to
# {glue:}`log_base_gap_max` iterations on our grid, at least the one extra iteration that we
# allow the medians.
#
# The last table sweeps the step with our schedule, as a multiple of $m$, with the power-step
# gain $1 + \eta/m$ of {eq}`eq-sag-power` beside it. The median stays within one iteration of
# $\lceil\ln d\rceil$ at every $d$ from the step {glue:}`sweep_within_from` $m$ on; at
# {glue:}`sweep_below_factor` $m$ it falls up to {glue:}`sweep_excess_below` iterations behind.
# At least 95% of the runs are perfect at exactly $\lceil\ln d\rceil$ from the step
# {glue:}`sweep_exact_from` $m$ on (a value of 0 means at no step of the sweep): the fraction is
# {glue:}`sweep_perfect_1`% at $\eta = m$, {glue:}`sweep_perfect_1_5`% at $1.5m$ and
# {glue:}`sweep_perfect_2`% at $2m$. With five runs per step and $d$, "at least 95%" allows
# one miss in thirty, so where the threshold falls between these steps changes from seed to
# seed; the sweep shows its order, not its exact place. The gain 2 at $\eta = m$ is itself a
# property of our inferred output scaling
# ($1/m$, and $-\ell'(0) = 1/2$), which we could not read in the paper.
# {numref}`fig-sag-tstar` shows $t^\star$ against $d$ on a logarithmic axis: the points climb by
# about one iteration each time $d$ is multiplied by $e$, along the staircase $\lceil\ln d\rceil$,
# and the $\eta = m/2$ medians climb faster.

# %%
log_d = np.log(dims)
median_t = {
    k: np.median(np.where(np.isnan(v), np.inf, v), axis=1) for k, v in t_star.items()
}
finite = {k: bool(np.all(np.isfinite(v))) for k, v in median_t.items()}
slope_t = {
    k: float(np.polyfit(log_d, v, 1)[0]) if finite[k] else math.nan
    for k, v in median_t.items()
}
intercept_t = float(np.polyfit(log_d, median_t[ours], 1)[1]) if finite[ours] else 0.0
for name in schedules:
    print(f"{name:<32} fitted slope of median t* against ln d: {slope_t[name]:.2f}")

# %% mystnb={"figure": {"caption": "Iterations $t^\\star$ until SGD makes no error on the test points, against the input dimension $d$. Grey dots, each run of $\\eta = m$ with our schedule ($\\lceil\\ln d\\rceil$ batches), black its median and dashed its least-squares line in $\\ln d$; green, the median of the schedule blind to $d$ (8 batches of $8d$); pink, the median of $\\eta = m/2$. The staircase is the paper's $\\lceil \\ln d\\rceil$. With $\\eta = m$ both schedules sit on the staircase or one step above it; $\\eta = m/2$ climbs faster.", "name": "fig-sag-tstar"}} tags=["hide-input"]
fig, ax = lib.subplots()
offsets = np.linspace(-0.06, 0.06, replicates)
for r in range(replicates):
    ax.plot(
        np.array(dims) * np.exp(offsets[r]),
        t_star[ours][:, r],
        "o",
        color="0.6",
        ms=4,
        label="each run, eta = m" if r == 0 else None,
    )
colours = {ours: "k", fixed: lib.PALETTE[2], broken: lib.PALETTE[3]}
for name, colour in colours.items():
    ax.plot(dims, median_t[name], "o-", color=colour, label=f"median, {name}")
if finite[ours]:
    ax.plot(
        dims,
        slope_t[ours] * log_d + intercept_t,
        "--",
        color="k",
        label=f"fit {slope_t[ours]:.2f} ln d + {intercept_t:.2f}",
    )
d_grid = np.geomspace(dims[0] / 1.3, dims[-1] * 1.3, 400)
ax.plot(
    d_grid, np.ceil(np.log(d_grid)), color="0.4", lw=1, label=r"$\lceil \ln d\rceil$"
)
ax.set_xscale("log", base=2)
ax.set_xlabel("input dimension d")
ax.set_ylabel("iterations to zero test errors")
ax.legend(fontsize="small")
lib.show(fig)

# %% [markdown]
# {numref}`fig-sag-curves` follows the largest $d$ iteration by iteration. With the large step the
# accuracy stays at chance while the relevant component grows unseen, then jumps to 1 within two
# iterations. With $\eta = m/2$ the same jump comes a few iterations later. With $\eta = m/10$ the
# gain per step is $1.1$ instead of 2, and after three times as many iterations the accuracy has
# barely left chance.

# %%
d_big, K_big = dims[-1], int(ceil_log[-1])
x_test, y_test = unpack(hypercube_bits(n_test, d_big, rng), d_big)
curves = {}
for name, eta in (
    ("eta = m", eta_large),
    (f"eta = {break_step_factor:g} m", eta_break),
    (f"eta = {small_step_factor:g} m", eta_small),
):
    n_big = samples_per_dim * d_big
    W = sgd_xor(d_big, width, n_big, eta, 3 * K_big, init_std_ours(d_big), rng)
    curves[name] = 1 - test_errors(W, a_xor, x_test, y_test) / n_test

# %% mystnb={"figure": {"caption": "Test accuracy of one run against the iteration at the largest default $d$, for the steps $\\eta = m$ (black), $m/2$ (pink) and $m/10$ (vermilion); the vertical line is $\\lceil \\ln d\\rceil$. The large step jumps from chance to perfect accuracy around $\\lceil \\ln d\\rceil$; the small step is still near chance three times later.", "name": "fig-sag-curves"}} tags=["hide-input"]
fig, ax = lib.subplots()
for (name, acc), colour in zip(curves.items(), ("k", lib.PALETTE[3], lib.PALETTE[1])):
    ax.plot(np.arange(len(acc)), acc, "o-", ms=3, color=colour, label=name)
ax.axvline(K_big, color="0.5", ls=":", label=r"$\lceil \ln d\rceil$")
ax.set_xlabel(f"SGD iteration (d = {d_big})")
ax.set_ylabel("test accuracy")
ax.set_ylim(0.4, 1.02)
ax.legend()
lib.show(fig)

# %% [markdown]
# ### XOR: the settings that fail
#
# The convention of {prf:ref}`sag-prop-scaling` is a choice, so we show what the alternatives do,
# with `replicates` runs at each `failure_dims` value and $2\lceil\ln d\rceil$ iterations. The
# literal reading "raw inputs, $w_j \sim \mathcal N(0, I_d)$, $\eta = m$" starts with outputs of
# size $d$, so most examples sit where the logistic loss is flat. Unit-norm inputs with $\eta = m$
# make the power step {eq}`eq-sag-power` a gain of $1 + 1/d$. Full-batch gradient descent on a
# small training set ($n = 8d$) amplifies the noise directions of $S$ until they rival the signal.
# The last row checks {prf:ref}`sag-prop-scaling` numerically: its iterates, mapped back by
# $w = w'/\sqrt d$, are compared with those of setting (a) on the same random draws. The control
# `wrong-equivalence` replaces the proposition's $\eta = m d$ by $\eta = m\sqrt d$.

# %%
eta_equiv_power = 0.5 if control == "wrong-equivalence" else 1.0
# name: (init std, unit-norm x, eta, n / d, batches per pass), as functions of d
settings = {
    "ours: raw x, N(0, I/d), eta = m, SGD on 64d": (
        init_std_ours,
        False,
        lambda d: eta_large,
        samples_per_dim,
        None,
    ),
    "literal: raw x, N(0, I), eta = m": (
        lambda d: 1.0,
        False,
        lambda d: float(width),
        samples_per_dim,
        None,
    ),
    "unit-norm x, N(0, I), eta = m": (
        lambda d: 1.0,
        True,
        lambda d: float(width),
        samples_per_dim,
        None,
    ),
    "full-batch GD on n = 8d, our scaling": (
        lambda d: d**-0.5,
        False,
        lambda d: float(width),
        8,
        1,
    ),
    "equivalent: unit-norm x, N(0, I), eta = m d": (
        lambda d: 1.0,
        True,
        lambda d: width * d**eta_equiv_power,
        samples_per_dim,
        None,
    ),
}
fail = {}
equivalence_gap = 0.0
for d in failure_dims:
    K = math.ceil(math.log(d))
    x_test, y_test = unpack(hypercube_bits(n_test, d, rng), d)
    n_train = samples_per_dim * d
    for name, (init_std, unit_norm, eta, per_d, batches) in settings.items():
        x_scale = d**-0.5 if unit_norm else 1.0
        rows = []
        for r in range(baseline_replicates):
            run_rng = np.random.default_rng([seed, d, r])  # same draws in every setting
            W = sgd_xor(
                d,
                width,
                per_d * d,
                eta(d),
                2 * K,
                init_std(d),
                run_rng,
                x_scale,
                batches,
            )
            if name.startswith("equivalent"):  # setting (a) on the same draws
                run_rng = np.random.default_rng([seed, d, r])
                ref = sgd_xor(d, width, n_train, float(width), 2 * K, d**-0.5, run_rng)
                gap = np.max(np.abs(W * d**-0.5 - ref)) / np.max(np.abs(ref))
                equivalence_gap = max(equivalence_gap, gap)
            W = W * x_scale  # the test points are raw; fold the input scale into W
            errors = test_errors(W[[K, 2 * K]], a_xor, x_test, y_test)
            rows.append([*errors, first_perfect(W, a_xor, x_test, y_test)])
        fail[name, d] = np.array(rows)
print(
    f"{'setting':<44} {'d':>4} {'acc at ceil ln d':>17} {'at 2 ceil ln d':>15} "
    f"{'runs perfect':>13}"
)
for (name, d), rows in fail.items():
    acc = 1 - rows[:, :2] / n_test
    perfect = int(np.sum(~np.isnan(rows[:, 2])))
    print(
        f"{name:<44} {d:>4} {acc[:, 0].mean():>17.4f} {acc[:, 1].mean():>15.4f} "
        f"{perfect:>8}/{baseline_replicates}"
    )
literal = "literal: raw x, N(0, I), eta = m"
literal_rows = fail[literal, failure_dims[-1]]
glue(  # test errors per thousand points at 2 ceil(ln d), largest failure d
    "literal_per_mille",
    round(float(np.mean(literal_rows[:, 1])) / n_test * 1000, 1),
    display=False,
)
glue(
    "literal_perfect",
    int(sum(np.sum(~np.isnan(fail[literal, d][:, 2])) for d in failure_dims)),
    display=False,
)
glue("literal_runs", baseline_replicates * len(failure_dims), display=False)
equivalent = equivalence_gap < 1e-9
print(
    "max relative difference of the iterates in the two equivalent conventions: "
    + ("< 1e-9" if equivalent else f"{equivalence_gap:.1e}")
)

# %% [markdown]
# Only our convention reaches perfect accuracy reliably. The literal reading gets close, but
# {glue:}`literal_per_mille` test points in a thousand stay misclassified at the largest $d$
# after $2\lceil\ln d\rceil$ iterations ({glue:}`literal_perfect` of its
# {glue:}`literal_runs` runs have an iteration without test errors), because its initial outputs
# of size $d$ saturate the logistic loss. Unit-norm inputs with $\eta = m$ stay at chance. Full-batch gradient
# descent on $8d$ points learns, but not perfectly within this budget. The equivalent convention
# gives the same iterates to rounding error.
#
# ### The $1/n$ rate, the stability bound and the width
#
# Now the kernel regime of {prf:ref}`sag-cor-rate`. For each training-set size $n$ we run full-batch
# gradient descent for $T = $ `rate_iters_per_sample` $\cdot\, n$ iterations, so that $\eta T
# \propto n$ as the corollary asks, and measure the test loss and the test error (0-1) on fresh
# points. We also record the distance travelled, $\|W_T - W_0\|_F$, and compute the stability
# bound $B_T$ of {eq}`eq-sag-stab`. The abstract's rate is a bound, $e^{O(L)}/(\gamma^2 n)$; we
# take its constant to be 1 for our single hidden layer. We compare with it twice: with the
# margin $\gamma_{\rm NTK}$ that the theorem assumes (the best margin of the tangent features
# on the largest training sets, which can only overestimate the margin of the distribution and
# so underestimates the bound), and with the input margin $\gamma$, a bound about $d$ times
# stricter than the theorem's. The stability argument bounds the generalisation gap, the test
# loss minus the training loss, so we record that too. With $\sigma = \tanh$ and
# $s_m = \sqrt m$ the output obeys $|f| \le \sqrt m$, so no loss can fall below the floor
# $\log(1 + e^{-\sqrt m})$; it is printed beside the table.

# %%
x_rate_test, y_rate_test = margin_data(
    rate_n_test, rate_dim, data_margin, rng, noise=label_noise
)


def ntk_margins(x, y, W0, a, act="tanh"):
    """Per replicate, the margin of the tangent features grad_W f(W_0; x_i) of a
    training set: along the unit u = (a_j e_1)_j / sqrt(m), and for the best unit u
    (hard-margin SVM with a free offset; nan when the labels are noisy, since the
    set need not be separable)."""
    n, d = x.shape[-2:]
    sigma, slope_of = ACTIVATIONS[act]
    slope = slope_of(sigma(x @ W0 / math.sqrt(d)))  # sigma'(w_j . x / sqrt d)
    along_e1 = np.min(y * x[..., 0] * slope.mean(axis=-1), axis=-1) / math.sqrt(d)
    best = np.full(len(x), np.nan)
    for r in range(len(x) if label_noise == 0 else 0):
        phi = (slope[r] * a)[:, None, :] * x[r, :, :, None] / math.sqrt(len(a) * d)
        phi = phi.reshape(n, -1)
        svm = SVC(kernel="linear", C=1e8).fit(phi, y[r])
        margin = y[r] * svm.decision_function(phi) / np.linalg.norm(svm.coef_)
        best[r] = np.min(margin)
    return along_e1, best


def train_and_test(n, m, act="tanh", margins=False):
    """Per replicate: test loss, test error, train loss, distance travelled, B_T and
    (if `margins`) the two margins of ntk_margins."""
    x, y = margin_data(n, rate_dim, data_margin, rng, (rate_replicates,), label_noise)
    iters = max(1, round(rate_iters_per_sample * n))
    W0, W, a, path_loss = gradient_descent(x, y, m, rate_step, iters, rng, act)
    test = np.array([logistic_loss(w, a, x_rate_test, y_rate_test, act) for w in W])
    error = np.array(
        [
            np.mean(np.sign(smooth_net(w, a, x_rate_test, act)[0]) != y_rate_test)
            for w in W
        ]
    )
    train = logistic_loss(W, a, x, y, act)
    travel = np.sqrt(np.sum((W - W0) ** 2, axis=(1, 2)))
    bound = stability_bound(train, path_loss, x, rate_step, m)
    gamma = ntk_margins(x, y, W0, a, act) if margins else (np.nan, np.nan)
    return test, error, train, travel, bound, *gamma


ns = np.array(rate_ns, dtype=float)
rate_bound = 1 / (rate_margin**2 * ns)  # the abstract's rate, input margin, constant 1
rate_out = {}  # activation: (test loss, error, train loss, travel, B_T, margins)
for act in ACTIVATIONS:
    runs = [
        train_and_test(n, rate_width, act, margins=act == "tanh")
        for n in lib.progress(rate_ns, enabled=progress, desc=f"n, {act}")
    ]
    rate_out[act] = [np.array([r[k] for r in runs]) for k in range(7)]
test_loss, test_error, train_loss, travel, stab, gamma_e1, gamma_svm = rate_out["tanh"]
gamma_ntk = float(np.mean(gamma_svm[-1]))  # best margin on the largest training sets
ntk_bound = 1 / (gamma_ntk**2 * ns)  # the theorem's rate with gamma_NTK, constant 1
loss_floor = float(np.logaddexp(0.0, -math.sqrt(rate_width)))  # |f| <= sqrt(m), tanh
error_ratio = {k: v[1].mean(axis=1) / rate_bound for k, v in rate_out.items()}
loss_ratio_n = test_loss.mean(axis=1) / rate_bound
loss_fit = {k: lib.loglog_slope(ns, v[0].T) for k, v in rate_out.items()}
mean_error = test_error.mean(axis=1)
seen = mean_error > 0  # the n at which some test point was misclassified
error_fit = lib.loglog_slope(ns, mean_error) if seen.sum() == len(ns) else None


def gap_test(out):
    """n (test - train loss) per n and training set, and the least-squares slope of
    it against ln n over all training sets, with its standard error."""
    n_gap = ns[:, None] * (out[0] - out[2])
    log_n = np.repeat(np.log(ns), rate_replicates)
    slope, intercept = np.polyfit(log_n, n_gap.ravel(), 1)
    residual = n_gap.ravel() - (slope * log_n + intercept)
    se = np.sqrt(residual.var(ddof=2) / (len(log_n) * log_n.var()))
    return n_gap, float(slope), float(se)


n_gap, gap_slope, gap_se = gap_test(rate_out["tanh"])
print(
    f"{'n':>5} {'T':>5} {'test loss':>9} {'train':>8} {'n x gap':>8} "
    f"{'error':>7} {'1/(g^2n)':>8} {'1/(gN^2n)':>9} {'B_T':>6} {'travel':>6}"
)
for i, n in enumerate(rate_ns):
    print(
        f"{n:>5} {max(1, round(rate_iters_per_sample * n)):>5} "
        f"{test_loss[i].mean():>9.2e} {train_loss[i].mean():>8.2e} "
        f"{n_gap[i].mean():>8.3f} {test_error[i].mean():>7.1e} "
        f"{rate_bound[i]:>8.1e} {ntk_bound[i]:>9.1e} {stab[i].mean():>6.2f} "
        f"{travel[i].mean():>6.1f}"
    )
print(
    f"loss floor log(1 + exp(-sqrt m)) at m = {rate_width}: {loss_floor:.1e}; "
    f"smallest mean test loss / floor: {test_loss.mean(axis=1).min() / loss_floor:.1f}"
)
print(
    f"slope of n x gap against ln n: {gap_slope:+.3f} (s.e. {gap_se:.3f})",
    f"\nslope of log test loss against log n: {loss_fit['tanh']} (s.e.)",
    "\nslope of log mean test error against log n: "
    + (f"{error_fit} (s.e.)" if error_fit else "an n without any test error"),
)
print(
    f"\ninput margin gamma = {rate_margin:g}; margin of the tangent features at W_0, "
    "mean over training sets:"
)
print(f"{'n':>6} {'along (a_j e_1)_j':>18} {'best (SVM)':>11}")
for i, n in enumerate(rate_ns):
    print(f"{n:>6} {gamma_e1[i].mean():>18.3f} {gamma_svm[i].mean():>11.3f}")
print(
    "test error / (1/(gamma^2 n)): "
    + " ".join(f"{v:.4f}" for v in error_ratio["tanh"])
    + "\ntest loss / (1/(gamma_NTK^2 n)): "
    + " ".join(f"{v:.3f}" for v in test_loss.mean(axis=1) / ntk_bound)
)
zero_error = np.flatnonzero(test_error.max(axis=1) == 0)
glue("rate_slope", round(loss_fit["tanh"].slope, 2), display=False)
glue("rate_slope_se", round(loss_fit["tanh"].se, 3), display=False)
glue("rate_error_ratio_max", round(float(error_ratio["tanh"].max()), 3), display=False)
glue("rate_loss_ratio_min", round(float(loss_ratio_n.min()), 2), display=False)
glue("rate_loss_ratio_max", round(float(loss_ratio_n.max()), 2), display=False)
glue("rate_error_first", round(float(test_error[0].mean()), 4), display=False)
glue("rate_resolution", 1 / rate_n_test, display=False)
glue("rate_bound_last", round(float(rate_bound[-1]), 4), display=False)
glue("rate_margin_shown", rate_margin, display=False)
glue(
    "rate_zero_n", int(rate_ns[zero_error[0]]) if len(zero_error) else 0, display=False
)
glue("rate_error_ns", int(seen.sum()), display=False)
glue("loss_floor", float(f"{loss_floor:.1e}"), display=False)
glue(
    "loss_floor_ratio",
    round(float(test_loss.mean(axis=1).min() / loss_floor), 1),
    display=False,
)
glue("n_gap_first", round(float(n_gap[0].mean()), 2), display=False)
glue("n_gap_last", round(float(n_gap[-1].mean()), 2), display=False)
glue("gap_first", float(f"{n_gap[0].mean() / ns[0]:.1e}"), display=False)
glue("gap_last", float(f"{n_gap[-1].mean() / ns[-1]:.1e}"), display=False)
for key, value in (
    ("e1_first", gamma_e1[0]),
    ("e1_last", gamma_e1[-1]),
    ("svm_first", gamma_svm[0]),
    ("svm_last", gamma_svm[-1]),
):
    glue(f"gamma_{key}", round(float(np.mean(value)), 3), display=False)
glue("ntk_bound_first", round(float(ntk_bound[0]), 2), display=False)
glue("ntk_bound_last", round(float(ntk_bound[-1]), 3), display=False)
ntk_over_input = rate_margin**2 / gamma_ntk**2  # nan if the labels are noisy
glue(
    "ntk_over_input",
    round(ntk_over_input) if np.isfinite(ntk_over_input) else 0,
    display=False,
)
glue(
    "loss_over_ntk_max",
    round(float(np.max(test_loss.mean(axis=1) / ntk_bound)), 3),
    display=False,
)
glue("stab_min", round(float(stab.mean(axis=1).min()), 1), display=False)
glue("stab_max", round(float(stab.mean(axis=1).max()), 1), display=False)
glue("travel_first", round(float(travel[0].mean())), display=False)
glue("travel_last", round(float(travel[-1].mean())), display=False)

# %%
widths_out = {
    act: [
        train_and_test(rate_width_n, m, act)
        for m in lib.progress(rate_widths, enabled=progress, desc=f"m, {act}")
    ]
    for act in ACTIVATIONS
}
width_test = np.array([w[0].mean() for w in widths_out["tanh"]])
width_travel = {k: np.array([w[3].mean() for w in v]) for k, v in widths_out.items()}
width_stab = np.array([w[4].mean() for w in widths_out["tanh"]])
print(
    f"n = {rate_width_n}: {'m':>6} {'test loss':>10} {'B_T':>8} {'||W_T - W_0||':>14}"
)
for m, te, b, tr in zip(rate_widths, width_test, width_stab, width_travel["tanh"]):
    print(f"{'':>10}{m:>6} {te:>10.2e} {b:>8.2f} {tr:>14.1f}")
travel_ratio = {k: v[-1] / v[0] for k, v in width_travel.items()}
stab_ratio = width_stab[-1] / width_stab[0]
loss_ratio = width_test[-1] / width_test[0]
width_ratio = rate_widths[-1] / rate_widths[0]
stab_over_loss = min(
    float(np.min(stab.mean(axis=1) / test_loss.mean(axis=1))),
    float(np.min(width_stab / width_test)),
)
print(
    f"width {rate_widths[0]} -> {rate_widths[-1]}: ||W_T - W_0|| x "
    f"{travel_ratio['tanh']:.3f}, B_T x {stab_ratio:.2f}, test loss x "
    f"{loss_ratio:.2f}; B_T / test loss >= {stab_over_loss:.1f} at every n and width"
)
relu_n_gap = gap_test(rate_out["relu"])[0].mean(axis=1)
print(
    f"\n{'activation':<10} {'max error / bound':>18} {'n x gap, first -> last':>23} "
    f"{'loss slope':>16} {'travel':>7}"
)
for act, n_gap_act in (("tanh", n_gap.mean(axis=1)), ("relu", relu_n_gap)):
    print(
        f"{act:<10} {error_ratio[act].max():>18.4f} "
        f"{n_gap_act[0]:>11.3f} -> {n_gap_act[-1]:>7.3f} "
        f"{str(loss_fit[act]):>16} {travel_ratio[act]:>7.3f}"
    )
glue("width_loss_ratio", round(float(loss_ratio), 2), display=False)
glue("width_stab_ratio", round(float(stab_ratio), 2), display=False)
glue("stab_over_loss", round(stab_over_loss), display=False)
glue("travel_ratio", round(float(travel_ratio["tanh"]), 3), display=False)
glue("relu_error_ratio", round(float(error_ratio["relu"].max()), 3), display=False)
glue("relu_slope", round(loss_fit["relu"].slope, 2), display=False)
glue("relu_n_gap_first", round(float(relu_n_gap[0]), 2), display=False)
glue("relu_n_gap_last", round(float(relu_n_gap[-1]), 2), display=False)
glue("relu_travel_ratio", round(float(travel_ratio["relu"]), 3), display=False)

# %% mystnb={"figure": {"caption": "Gradient descent with $T \\propto n$ on separable data, against the training-set size $n$ (means over training sets). Blue dots, the test logistic loss; blue diamonds, the generalisation gap (test minus training loss) where it is positive; blue squares, the test error, with open triangles at $1/n_{\\rm test}$ where no test point was misclassified. Orange dashed, the abstract's rate $1/(\\gamma^2 n)$ with the input margin $\\gamma$; orange solid, the same rate with the margin $\\gamma_{\\rm NTK}$ of the tangent features, as the theorem assumes; grey dash-dot, the stability bound $B_T$ of {eq}`eq-sag-stab`; grey dotted, the loss $\\log 2$ of a constant predictor and the floor $\\log(1 + e^{-\\sqrt m})$ below which no output of the width-$m$ tanh network can bring the loss. The gap falls faster than $1/n$; the test loss, close to the floor at the largest $n$, lies below the theorem's rate.", "name": "fig-sag-rate"}} tags=["hide-input"]
fig, ax = lib.subplots()
blue = lib.PALETTE[0]
ax.loglog(ns, test_loss.mean(axis=1), "o", color=blue, label="test loss")
gap_mean = n_gap.mean(axis=1) / ns
shown = gap_mean > 0
ax.loglog(ns[shown], gap_mean[shown], "D", color=blue, ms=4, label="test - train loss")
ax.loglog(ns[seen], mean_error[seen], "s", color=blue, label="test error")
if not seen.all():
    ax.loglog(
        ns[~seen],
        np.full((~seen).sum(), 1 / rate_n_test),
        "v",
        mfc="none",
        color=blue,
        label="no test error",
    )
ax.loglog(ns, rate_bound, "--", color=lib.PALETTE[4], label=r"$1/(\gamma^2 n)$")
ax.loglog(ns, ntk_bound, "-", color=lib.PALETTE[4], label=r"$1/(\gamma_{NTK}^2 n)$")
ax.loglog(ns, stab.mean(axis=1), "-.", color="0.35", label="stability bound $B_T$")
ax.axhline(math.log(2), color="0.6", ls=":", label=r"$\log 2$")
ax.axhline(loss_floor, color="0.3", ls=":", label="loss floor")
ax.set_xlabel("training-set size n")
ax.set_ylabel("losses, test error, bounds")
ax.set_ylim(top=3e3)  # room for the legend above the curves
ax.legend(fontsize="x-small", ncol=3, loc="upper center")
lib.show(fig)

# %% [markdown]
# {numref}`fig-sag-rate` reads the abstract's rate as the bound it is, with constant 1, and
# with two margins. The margin that the theorem assumes, that of the tangent features, is
# {glue:}`gamma_svm_first` on the smallest training sets and {glue:}`gamma_svm_last` on the
# largest for the best direction ({glue:}`gamma_e1_first` and {glue:}`gamma_e1_last` along
# $(a_j e_1)_j$), against the input margin $\gamma$ = {glue:}`rate_margin_shown`. With
# $\gamma_{\rm NTK}$ the theorem's bound $1/(\gamma_{\rm NTK}^2 n)$ runs from
# {glue:}`ntk_bound_first` to {glue:}`ntk_bound_last` over the grid, about
# {glue:}`ntk_over_input` times the bound with the input margin, and nothing we measure comes
# near it: even the test loss is at most {glue:}`loss_over_ntk_max` of it. At these sizes the
# theorem's bound is close to vacuous and cannot fail. The support vector machine fits a free
# offset, which the assumption does not have; an offset can only raise the margin, and a larger
# margin only lowers the bound, so this reading errs on the side of a bound that could fail.
#
# We therefore assert the stricter bound $1/(\gamma^2 n)$ with the input margin, which is not
# the theorem's. It is {glue:}`rate_bound_last` at the largest $n$, far above the resolution
# {glue:}`rate_resolution` of our test set, so a test error that followed $1/n$ with a larger
# constant would show. The test error stays below it at every $n$, at most
# {glue:}`rate_error_ratio_max` of it. The check is decided where errors are seen: the test
# error is {glue:}`rate_error_first` at the smallest $n$, it is non-zero at
# {glue:}`rate_error_ns` of the $n$ of the grid, and no test point is misclassified from
# $n =$ {glue:}`rate_zero_n` on (a value of 0 means some remained at every $n$). On data with a
# margin the error can fall faster than any power once the learned direction is within the
# margin of the teacher's, so the bound holds and is loose. The `no-margin` control shows that
# the margin does the work: on data without a margin the error exceeds $1/(\gamma^2 n)$.
# Since $\gamma_{\rm NTK}$ shrinks like $\gamma/\sqrt d$ while the input margin does not,
# the stricter check gets harder as the input dimension grows (`rate_dim` in Try it), for a
# reason the theorem does not share.
#
# The quantity the stability argument bounds is the generalisation gap, the test loss minus the
# training loss, and it falls faster than $1/n$: $n$ times the gap goes from
# {glue:}`n_gap_first` at the smallest $n$ to {glue:}`n_gap_last` at the largest (the gap itself
# from {glue:}`gap_first` to {glue:}`gap_last`). That is at least as fast as the abstract's
# $1/n$, and faster than the $\log^2 n/n$ of our derivation's bound on the gap. Noisy labels,
# which keep the training loss away from zero so that the sum of losses in {eq}`eq-sag-stab`
# grows with $T \propto n$, stop the gap from falling: $n$ times the gap then grows (the
# controls table below), and so does a fiftieth of noisy labels (`weak-noise`), an effect
# small enough that only a check which must show the gap falling can see it. Removing the
# margin (`no-margin`) does not flip the check. It tests stability, not learning: a network
# that does not train has no gap either, which is why the training loss stands beside it in
# the table.
#
# The test loss itself is another matter. It falls as $n$ to the power {glue:}`rate_slope` ±
# {glue:}`rate_slope_se`, but at the largest $n$ it is mostly training loss, and the training
# loss approaches the floor $\log(1 + e^{-\sqrt m})$ = {glue:}`loss_floor` of our width: the
# smallest mean test loss is only {glue:}`loss_floor_ratio` times the floor. Its slope measures
# how fast gradient descent reaches the floor in $T \propto n$ iterations, not how it
# generalises, so we show it and do not assert it (a wider network lowers the floor, see Try
# it). It lies above the bound with the input margin, by a factor from
# {glue:}`rate_loss_ratio_min` to {glue:}`rate_loss_ratio_max`, and far below the theorem's.
#
# The stability bound $B_T$ of {eq}`eq-sag-stab` lies above the test loss, by a factor of at
# least {glue:}`stab_over_loss` over all runs, and between {glue:}`stab_min` and
# {glue:}`stab_max` it is vacuous here: the weights travel far from their initialisation (from
# {glue:}`travel_first` to {glue:}`travel_last` as $n$ grows), and $\|w^\star - w_0\|^2/n$
# becomes small only for $n$ well beyond our grid. A bound that loose cannot fail here, so we
# show it and do not assert it. Across width, from the narrowest to the widest network the
# distance travelled changes by a factor {glue:}`travel_ratio`, and $B_T$ by
# {glue:}`width_stab_ratio`. Both are close to our construction: in the kernel scaling
# $\|\nabla_W f\| \le \ell_f$ does not depend on $m$ ({prf:ref}`sag-prop-stab`), so
# $\|W_T - W_0\| \le \eta \sum_t \ell_f \hat F(W_t)$ is flat in the width whatever the
# activation. We show them and do not assert them. The test loss itself changes by a factor
# {glue:}`width_loss_ratio`, a property of the trained network that the paper does not predict.
#
# None of these results needs the smooth activation. With ReLU in place of $\tanh$ (last table
# above) the test error is at most {glue:}`relu_error_ratio` of $1/(\gamma^2 n)$, $n$ times
# the gap goes from {glue:}`relu_n_gap_first` to {glue:}`relu_n_gap_last`, the test loss, which
# has no floor with ReLU, falls with slope {glue:}`relu_slope`, and the distance travelled
# changes by a factor
# {glue:}`relu_travel_ratio` across width. What the rate experiment tests is gradient descent in
# the kernel scaling on data with a margin; the paper's contribution, the stability analysis
# that covers smooth networks, is what makes that a theorem, and a computer does not check it.

# %%
runtime = time.perf_counter() - t_start
print(f"experiments: {runtime:.1f} s wall-clock")

# %% [markdown]
# ## What we reproduced
#
# Each claim below is computed from the runs above, and each must hold on seeds 0–9. The
# tolerances are fixed by the theory or by a rule set before the runs. The slope of $t^\star$
# against $\ln d$ must lie in $[0.5, 1.5]$, around the slope 1 of $\lceil\ln d\rceil$ (and the
# $0.72$ of the heuristic), which a growth like $\sqrt d$ or $d$ would leave far behind. It
# tells logarithmic from polynomial growth, not one gain from another: the slopes of the step
# sweep are printed with {numref}`fig-sag-tstar`. A median $t^\star$ at most one iteration
# beyond $\lceil\ln d\rceil$ is what we count as "after $\lceil\ln d\rceil$ iterations" for
# both schedules (a median of runs that never reach zero errors is infinite and fails it); the
# $\eta = m/2$ break must fall outside that band. Each median is over `replicates` runs, enough
# for a median to be stable (see the experiment). The theorem's exact count holds "with high
# probability"; we read that as in at least 95% of the runs, a failure rate of at most the
# usual 5%. The small step is judged by two rules that need no tolerance: no run perfect after
# three times $\lceil\ln d\rceil$, and an accuracy at $\lceil\ln d\rceil$ closer to chance than
# to the large step's at the same $d$. The other settings of the convention must be less
# accurate than ours by at least $\delta = 3\cdot10^{-4}$, three test points in ten thousand,
# so that equal accuracies count as a failure; $\delta$ is about one seed-to-seed standard
# deviation of this difference. Claim 10 checks our own algebra
# ({prf:ref}`sag-prop-scaling`), not the paper. The rate is asserted as a bound,
# $1/(\gamma^2 n)$ with constant 1 and the input margin, on the mean test error at every $n$.
# The generalisation gap must fall at least as fast as $1/n$: $n$ times the gap, for every
# training set, may not grow with $n$, read as a least-squares slope against $\ln n$ whose
# upper end, the slope plus two standard errors, is at most 0. The burden is on the claim: a
# slope that the training sets cannot tell from growth fails it.

# %%
claims = lib.Claims(
    "smooth-activation-generalization", paper="taheri2025sharper", control=control
)
claims.add(
    "XOR, eta = m, ceil(ln d) batches: median iterations to zero test errors "
    "finite and <= ceil(ln d) + 1 at every d (worst median excess shown)",
    float(median_excess[ours].max()),
    "perfect test accuracy after ceil(log d) iterations (Thm 2.4)",
    bool(median_excess[ours].max() <= 1),
    fmt="{:+.0f}",
)
claims.add(
    "XOR, eta = m: fitted slope of the median t* against ln d in [0.5, 1.5]",
    slope_t[ours] if finite[ours] else "some median infinite",
    "iterations logarithmic in d (Fig. 4)",
    bool(finite[ours] and 0.5 <= slope_t[ours] <= 1.5),
    fmt="{:.2f}",
)
claims.add(
    "XOR, eta = m, ceil(ln d) batches: zero test errors at exactly t = ceil(ln d) "
    "with high probability, read as in >= 95% of the runs (fraction shown)",
    perfect_at_log[ours],
    "perfect test accuracy after ceil(log d) iterations (w.h.p.)",
    bool(perfect_at_log[ours] >= 0.95),
    fmt="{:.0%}",
    expect=False,
)
claims.add(
    "XOR, eta = m: mean test accuracy at t = ceil(ln d) >= 0.95 at every d (worst d)",
    float(acc_at_log[ours].mean(axis=1).min()),
    "perfect test accuracy after ceil(log d) iterations",
    bool(acc_at_log[ours].mean(axis=1).min() >= 0.95),
    fmt="{:.4f}",
)
claims.add(
    f"XOR, eta = m, schedule blind to d ({fixed_batches} batches of "
    f"{samples_per_dim // fixed_batches}d): median t* <= ceil(ln d) + 1 at every d "
    "(worst median excess)",
    float(median_excess[fixed].max()),
    "ceil(log d) iterations, with a schedule that does not know d",
    bool(median_excess[fixed].max() <= 1),
    fmt="{:+.0f}",
)
claims.add(
    f"XOR, eta = {break_step_factor:g} m: median t* > ceil(ln d) + 1 at every d "
    "(smallest median excess)",
    float(median_excess[broken].min()),
    "step size eta = m",
    bool(median_excess[broken].min() > 1),
    fmt="{:+.0f}",
)
claims.add(
    f"XOR, eta = {break_step_factor:g} m: no run perfect at ceil(ln d) "
    "(fraction perfect)",
    perfect_at_log[broken],
    "step size eta = m",
    bool(perfect_at_log[broken] == 0),
    fmt="{:.0%}",
)
claims.add(
    f"XOR, eta = {small_step_factor:g} m: no run perfect at 3 ceil(ln d) at any d "
    "(perfect runs)",
    small_perfect_late,
    "the large step is what makes log d iterations enough",
    bool(small_perfect_late == 0),
    fmt="{:d}",
)
small_gap = float(np.max(small_mean - midpoint))
claims.add(
    f"XOR, eta = {small_step_factor:g} m: mean test accuracy at ceil(ln d) closer to "
    "chance than to eta = m's at every d (largest excess over the midpoint)",
    small_gap,
    "the large step is what makes log d iterations enough",
    bool(small_gap < 0),
    fmt="{:+.3f}",
)
ours_name = next(k for k in settings if k.startswith("ours"))
failing = [k for k in settings if not k.startswith(("ours", "equivalent"))]
acc_late = {k: float(np.mean(1 - rows[:, 1] / n_test)) for k, rows in fail.items()}
d_fail = failure_dims[-1]
n_perfect = {k: int(np.sum(~np.isnan(rows[:, 2]))) for k, rows in fail.items()}
ours_perfect = min(n_perfect[ours_name, d] for d in failure_dims)
claims.add(
    "implementation check, XOR: unit-norm x, N(0, I), eta = m d gives the iterates "
    "of raw x, N(0, I/d), eta = m (max relative difference)",
    "< 1e-9" if equivalent else f"{equivalence_gap:.1e}",
    "ours (Prop. sag-prop-scaling)",
    equivalent,
    value=float(equivalence_gap),
)
acc_gap = max(
    acc_late[k, d] - acc_late[ours_name, d] for k in failing for d in failure_dims
)
literal_delta = 3e-4  # three test points in 10^4: a tie is not a deficit
claims.add(
    "XOR: at every failure d the literal readings and full-batch GD on 8d points are "
    f"less accurate at 2 ceil(ln d) than ours by at least {literal_delta:g} "
    "(largest accuracy minus ours)",
    float(acc_gap),
    "standard Gaussian init, eta = m (our reading)",
    bool(acc_gap <= -literal_delta),
    fmt="{:+.4f}",
)
claims.add(
    f"separable data, input margin gamma = {rate_margin:g}, T ~ n: mean test error <= "
    "1/(gamma^2 n) at every n, stricter than the theorem's 1/(gamma_NTK^2 n) "
    "(largest ratio shown)",
    float(error_ratio["tanh"].max()),
    "test error e^O(L) / (gamma^2 n) (Thm 2.1, abstract)",
    bool(np.all(error_ratio["tanh"] <= 1)),
    fmt="{:.3f}",
)
claims.add(
    "separable data, T ~ n: the generalisation gap (test minus train loss) falls at "
    "least as fast as 1/n: n x gap does not grow, least-squares slope against ln n "
    "+ 2 s.e. <= 0 (slope shown)",
    gap_slope,
    "test error ~ 1/n (abstract)",
    bool(gap_slope + 2 * gap_se <= 0),
    fmt="{:+.3f}",
)
claims.report()
perfect_failing = sum(n_perfect[k, d_fail] for k in failing)
runs_failing = baseline_replicates * len(failing)
glue("literal_perfect_top", perfect_failing, display=False)
glue("literal_runs_top", runs_failing, display=False)
print(
    f"shown, not asserted: the literal readings and full-batch GD on 8d points reach "
    f"zero test errors within 2 ceil(ln d) in {perfect_failing} of {runs_failing} runs "
    f"at d = {d_fail}; our convention in at least {ours_perfect} of "
    f"{baseline_replicates} at every failure d; runs perfect at exactly ceil(log2 d), "
    f"our schedule: {perfect_at_log2[ours]:.0%}"
)

# %% [markdown]
# Every claim above is also run under **controls**: named, deliberately wrong variants of this
# chapter, declared in `controls.yaml`, each taking away the idea a claim tests. Halving the
# large step breaks the count. A step that shrinks with $d$ makes the number of iterations grow
# faster than $\ln d$, which the slope window must see. The literal initialisation breaks the
# convention. The step-blind update, whose step length does not depend on $\eta$, removes the
# tie between the count and the step that the two baselines test; since it sets the step
# length of every run, it also rescues the literal readings, whose failure is one of scale:
# they become as accurate as ours. A wrong step in the
# equivalent convention breaks our algebra. Data without a margin remove what the bound on the
# test error rests on; noisy labels remove separability, so the training loss stays away from
# zero and the gap no longer falls as $1/n$, at a tenth of the labels and at a fiftieth. The
# error bound is not counted as flipped by noisy labels, since flipped test labels put the
# error above it for any classifier. Doubling the step is a positive control for the claim recorded as not
# reproduced: with gain 3 per step the check must find at least 95% of the runs perfect at
# exactly $\lceil\ln d\rceil$, so it can see the exact count when it holds. The table shows,
# for each claim, the controls under which its check comes out the other way (default
# parameters, seed 0).
#
# ```{controls-table}
# ```

# %% [markdown]
# Run one with `make run CHAPTER=smooth-activation-generalization CONTROL=half-step`: the claims
# cell then names the control and fails if a claim it must flip still holds.
#
# The XOR theorem reproduces in its logarithmic shape and nearly in its constant: the number of
# iterations to perfect test accuracy grows like $\ln d$ and its median is at most
# $\lceil\ln d\rceil + 1$, also with a schedule that does not know $d$, while the step $m/2$,
# the small step and the literal readings of the setting fail. The literal readings fail by a
# small margin: at $2\lceil\ln d\rceil$ they are nearly as accurate as ours, and less accurate
# by at least $\delta$ on {seeds}`11:held` seeds, but a literal run sometimes has an iteration without test errors, even
# at the largest $d$ (here {glue:}`literal_perfect_top` of {glue:}`literal_runs_top` runs), so
# "no perfect literal run" is printed beside the claims, not asserted. The exact statement,
# perfect accuracy *at* $\lceil \log d\rceil$ with high probability (in at least 95% of the
# runs), is not reproduced at $\lceil \ln d\rceil$ under our convention's gain 2
# ({seeds}`3` of the runs over seeds 0–9). Read with $\log_2$, the same runs are perfect at
# $\lceil\log_2 d\rceil$ in {glue:}`perfect_ours_log2_pct`% of the cases in this run, and the
# positive control `double-step` (gain 3) meets the count at $\lceil \ln d\rceil$; since the
# abstract does not fix the base, the verdict is "not reproduced at $\lceil\ln d\rceil$". At
# $\lceil\log_2 d\rceil$ the fraction printed with the schedules lies near the 95% line, so
# with our run counts the count there is met on some seeds and missed by a run or two on
# others; it is shown, not asserted. In the
# kernel regime the test error stays below $1/(\gamma^2 n)$ with the input margin at every $n$
# (largest ratio {seeds}`12`), a bound stricter than the theorem's, whose margin
# $\gamma_{\rm NTK}$ is smaller by a factor of order $\sqrt d$ and makes it close to vacuous
# here; the check is decided at the $n$ where errors remain. The generalisation gap falls at
# least as fast as $1/n$ (slope of $n$ times the gap against $\ln n$: {seeds}`13`). The test
# loss's own slope is set at our width by the loss floor $\log(1 + e^{-\sqrt m})$ and is shown,
# not asserted. These rate results and the width-independence of the distance travelled hold
# for ReLU as well: they test gradient descent in the kernel scaling on data with a margin, not
# the smoothness. The computed stability bound lies above the test loss but is far from tight
# at our sizes.
#
# ## How this compares with the paper
#
# The full text of the paper was not available to us; the paper's side of the table comes from its
# abstract and our research notes (reviews and figure captions). Our numbers are the mean ± sd over
# seeds 0–9 at the default sizes.
#
# | Paper (result / figure) | Paper | Ours | Why they differ |
# |---|---|---|---|
# | Theorem 2.4, XOR with $\eta = m$ | perfect test accuracy after $\lceil\log d\rceil$ iterations, constant $m$, $n = O(d)$ | worst median $t^\star - \lceil\ln d\rceil$: {seeds}`1` with $\lceil\ln d\rceil$ batches, {seeds}`5` with 8 batches of $8d$; runs perfect at exactly $\lceil \ln d\rceil$: {seeds}`3`; at $\lceil\log_2 d\rceil$: {glue:}`perfect_ours_log2_pct`% (this run) | our XOR distribution, scaling, batch schedule and $n = 64d$ are inferred; "perfect" is zero errors on $10^4$ points; the base of $\log$ is not fixed by the abstract, and the exact count at $\lceil\ln d\rceil$ needs a gain above our convention's 2 (step sweep) |
# | Figure 4, logarithmic dependence on $d$ | iterations logarithmic in $d$ (authors' plot; numbers not in our notes) | slope of the median $t^\star$ against $\ln d$: {seeds}`2` | the slopes of the step sweep are printed with {numref}`fig-sag-tstar`; the slope window tells a logarithmic count from a polynomial one (control `shrinking-step`) |
# | The step $\eta = m$ | as stated | $\eta = m/2$: smallest median excess {seeds}`6`, fraction perfect at $\lceil\ln d\rceil$ {seeds}`7` | the count needs a large enough gain $1 + \eta/m$ of {eq}`eq-sag-power`; the step sweep shows where, in this run, the median stays within one iteration |
# | Large step against the NTK regime | the kernel regime needs many more samples or steps | $\eta = m/10$: runs perfect at $3\lceil\ln d\rceil$ {seeds}`8`; accuracy at $\lceil\ln d\rceil$ minus the midpoint between chance and $\eta = m$ {seeds}`9` | we compare with a small step on the same data, not with a kernel method |
# | "Standard Gaussian initialisation, $\eta = m$" | as stated | the literal readings and full-batch GD on $8d$: accuracy minus ours {seeds}`11` (at most $-\delta$ on {seeds}`11:held` seeds); a perfect literal run at the largest `failure_dims` is rare but possible (printed below the claims) | see {prf:ref}`sag-prop-scaling`; the paper's normalisation is not known to us |
# | Theorem 2.1, NTK-separable data | test error $e^{O(L)}/(\gamma^2 n)$, $\gamma$ the margin of the tangent features | largest ratio of the test error to $1/(\gamma^2 n)$ with the input margin $\gamma = 0.5$: {seeds}`12`; with the theorem's $\gamma_{\rm NTK}$, {glue:}`gamma_svm_last` (this run), the bound is about {glue:}`ntk_over_input` times larger; slope of $n$ times the generalisation gap against $\ln n$: {seeds}`13`; the same holds for ReLU | $L = 1$, a linear teacher in $d = 10$, $T = n/2$, constant 1; the input-margin bound is stricter than the theorem's; the test loss's slope is set by the loss floor of our width; these results do not test smoothness |
# | The stability bound | tracks the generalisation gap on MNIST and FashionMNIST (reviewers) | shown, not asserted: $B_T$ / test loss at least {glue:}`stab_over_loss` (this run), valid but vacuous at our sizes | our form {eq}`eq-sag-stab` with constant 4, not the paper's constants; synthetic data on which the weights travel far |
# | Bounds do not grow with width | bounds hold for small width and do not scale unfavourably with width | shown, not asserted: ratio of $\|W_T - W_0\|$ from the narrowest to the widest network {glue:}`travel_ratio`, of $B_T$ {glue:}`width_stab_ratio` (this run); ReLU {glue:}`relu_travel_ratio` | in the kernel scaling the distance is flat in the width by construction, whatever the activation |
# | Figure 1 and the bound check (MNIST, FashionMNIST, two hidden layers, $m = 500$) | bound tracks the generalisation gap | not run | no downloads at run time; CPU budget |
# | Noisy labels, optimal excess risk (§2.1.2) | polynomial width suffices | not run (the control `noisy-labels` only shows that the gap then stops falling) | the noise model is not described in our sources |
#
# ## Try it
#
# - A smaller training set: `python -m lib.build run smooth-activation-generalization
#   -p samples_per_dim=16`. With $n = 16d$ the batches hold only about $3d$ points, the noise of
#   $S_B$ in {eq}`eq-sag-power` is no longer below the signal, and the large step stops working
#   reliably. "Linear sample size" needs a large enough constant.
# - A schedule with fewer, larger batches: `-p fixed_batches=4` (batches of $16d$, two passes by
#   $\lceil\ln d\rceil$ at large $d$), or more, smaller ones: `-p fixed_batches=16`. Batches
#   of $4d$ are noisy enough for the medians to fall late, and the schedule-blind claim then
#   fails: the count needs batches of about $8d$ or more.
# - A medium baseline step: `-p small_step_factor=0.5`. The power step now has gain 1.5 instead of
#   2, and the baseline is no longer near chance at $\lceil\ln d\rceil$: the contrast of
#   {numref}`fig-sag-curves` needs a step well below $m$.
# - More gradient-descent iterations in the rate experiment: `-p rate_iters_per_sample=2` (about
#   twice the default runtime), which lowers the test loss and raises the stability bound.
# - A wider network in the rate experiment: `-p rate_width=128` (about four times the cost of
#   that part). The loss floor $\log(1 + e^{-\sqrt m})$ drops far below the smallest test loss,
#   and the slope of the test loss is then that of generalisation rather than of the floor.
# - A larger input dimension for the separable data: `-p rate_dim=60`. The input margin stays
#   at $\gamma$ while $\gamma_{\rm NTK}$ shrinks like $\gamma/\sqrt d$; compare the two printed
#   bounds with the test error.
