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
# tested here. On data separable with margin $\gamma$ the test error is at most of order
# $1/(\gamma^2 n)$, and the bound does not grow with the width. A width-$m$ quadratic network
# trained by SGD with the large step $\eta = m$ classifies XOR perfectly after only
# $\lceil \log d\rceil$ iterations.
# The defaults (XOR for $d$ up to 512, 15 runs per $d$ and schedule; the rate experiment up to
# $n = 1600$) run in under a minute on a CPU. `make run CHAPTER=smooth-activation-generalization
# PRESET=paper` runs the larger preset in `paper.yaml` ($d$ up to 1024, 25 runs per $d$, $n$ up
# to 8000, width up to 2048).
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
# $\lceil\ln d\rceil$ equal batches, then reshuffles and cycles; $\log$ is the natural logarithm.
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
rate_margin = 0.1  # margin gamma of the linear teacher
rate_step = 16.0  # gradient-descent step size
rate_iters_per_sample = 0.5  # gradient-descent iterations T per training example
rate_replicates = 4  # training sets per point
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
# Our convention ({prf:ref}`sag-prop-scaling`) sets the initial scale and the steps. Four
# controls change them: `half-step` and `double-step` scale the large step, `literal-init` draws
# the weights from $\mathcal N(0, I_d)$ on raw inputs, and `no-step-contrast` runs the two
# baselines with the large step.

# %%
eta_large = float(width)
if control == "half-step":  # the large step halved: power-step gain 1.5, not 2
    eta_large = width / 2
if control == "double-step":  # the large step doubled: gain 3 per step
    eta_large = 2.0 * width
eta_small = small_step_factor * width
eta_break = break_step_factor * width
if control == "no-step-contrast":  # both baselines run with the large step
    eta_small = eta_break = eta_large


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
# {prf:ref}`sag-ass-ntk`: moving every $w_j$ by $a_j e_1$ changes the output to first order by
# $\frac{1}{\sqrt{md}} \sum_j \tanh'(w_j^\top x/\sqrt d)\, x_1$, which has the sign of $y$ and
# size at least of order $\gamma$, since $\tanh' > 0$. Replicates are stacked along a first axis,
# so all training sets of one size run together. Gradient descent also sums the training loss
# along its path, the ingredient of the stability bound {eq}`eq-sag-stab`. Two controls break the
# assumptions: `noisy-labels` flips a tenth of the labels (training and test), so the data are
# neither noiseless nor separable, and `unscaled-output` drops the $1/\sqrt m$ of the kernel
# scaling, so the network's Lipschitz constant grows with the width.

# %%
label_noise = 0.1 if control == "noisy-labels" else 0.0  # flipped fraction


def margin_data(n, d, gamma, rng, reps=()):
    """x ~ N(0, I_d) conditioned on |x_1| >= gamma; labels sign(x_1)."""
    x = rng.standard_normal((*reps, n, d))
    tail = ndtri(ndtr(gamma) + rng.uniform(size=(*reps, n)) * (1 - ndtr(gamma)))
    y = rng.choice([-1.0, 1.0], size=(*reps, n))
    x[..., 0] = y * tail
    if label_noise:
        y = np.where(rng.uniform(size=y.shape) < label_noise, -y, y)
    return x, y


def output_scale(m):
    """s_m of eq-sag-net: the kernel scaling sqrt(m)."""
    return 1.0 if control == "unscaled-output" else math.sqrt(m)


def tanh_net(W, a, x):
    """f(x) = (1/s_m) sum_j a_j tanh(w_j . x / sqrt d); W of shape (reps, d, m)."""
    h = np.tanh(x @ W / math.sqrt(x.shape[-1]))
    return h @ a / output_scale(len(a)), h


def logistic_loss(W, a, x, y):
    f, _ = tanh_net(W, a, x)
    return np.mean(np.logaddexp(0.0, -y * f), axis=-1)


def gradient_descent(x, y, m, eta, iters, rng):
    """Full-batch GD on the first layer: W_0, W_T and the sum of the training losses
    of W_0..W_{T-1}, for each replicate."""
    reps, n, d = x.shape
    a = np.repeat([1.0, -1.0], m // 2)
    W0 = rng.standard_normal((reps, d, m))
    W = W0.copy()
    path_loss = np.zeros(reps)
    for _ in range(iters):
        f, h = tanh_net(W, a, x)
        path_loss += np.mean(np.logaddexp(0.0, -y * f), axis=-1)
        dloss_df = -y * expit(-y * f)
        back = dloss_df[..., None] * (1.0 - h**2) * a / output_scale(m)
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
# $\eta = m/10$ use our schedule, `baseline_replicates` = 5 times each. $t^\star$ is the first
# iteration with no test error.
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
iters_large = ceil_log + extra_iters
schedules = {  # name: (step, batches per pass; None for ceil(ln d))
    "eta = m, ceil(ln d) batches": (eta_large, None),
    f"eta = m, {fixed_batches} batches": (eta_large, fixed_batches),
    f"eta = {break_step_factor:g} m, ceil(ln d) batches": (eta_break, None),
}
ours, fixed, broken = schedules
t_star = {name: [] for name in schedules}
errors_at_log = {name: [] for name in schedules}
errors_small = []
for d, T in lib.progress(list(zip(dims, iters_large)), enabled=progress, desc="XOR"):
    x_test, y_test = unpack(hypercube_bits(n_test, d, rng), d)
    n_train = samples_per_dim * d
    K = T - extra_iters
    for r in range(replicates):
        for name, (eta, batches) in schedules.items():
            if name == broken and r >= baseline_replicates:
                continue
            W = sgd_xor(
                d, width, n_train, eta, T, init_std_ours(d), rng, n_batches=batches
            )
            t_star[name].append(first_perfect(W, a_xor, x_test, y_test))
            errors_at_log[name].append(test_errors(W[[K]], a_xor, x_test, y_test)[0])
        if r < baseline_replicates:
            W = sgd_xor(d, width, n_train, eta_small, 3 * K, init_std_ours(d), rng)
            errors_small.append(test_errors(W[[0, K, 3 * K]], a_xor, x_test, y_test))
t_star = {k: np.reshape(v, (len(dims), -1)) for k, v in t_star.items()}
acc_at_log = {
    k: 1 - np.reshape(v, (len(dims), -1)) / n_test for k, v in errors_at_log.items()
}
small_acc = 1 - np.reshape(errors_small, (len(dims), baseline_replicates, 3)) / n_test
median_excess = {  # runs with errors left after the budget count as infinite
    k: np.median(np.where(np.isnan(v), np.inf, v), axis=1) - ceil_log
    for k, v in t_star.items()
}
perfect_at_log = {k: float(np.mean(v == 1.0)) for k, v in acc_at_log.items()}
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
    f"\n{'schedule':<32} {'median t* - ceil(ln d), per d':>30} {'perfect at ceil':>16}"
)
for name in schedules:
    excess = " ".join(f"{v:+.0f}" for v in median_excess[name])
    print(f"{name:<32} {excess:>30} {perfect_at_log[name]:>16.0%}")
print(
    f"\neta = {small_step_factor:g} m: mean accuracy at ceil(ln d) per d "
    + " ".join(f"{v:.3f}" for v in small_acc[:, :, 1].mean(axis=1))
    + f"; runs perfect at 3 ceil(ln d): {int(np.sum(small_acc[:, :, 2] == 1))}"
)
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
# $\lceil\ln d\rceil$, and the count itself needs the step $\eta = m$: the theorem's constant is a
# property of the gain 2 of {eq}`eq-sag-power`, not of SGD in general.
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
equivalent = equivalence_gap < 1e-9
print(
    "max relative difference of the iterates in the two equivalent conventions: "
    + ("< 1e-9" if equivalent else f"{equivalence_gap:.1e}")
)

# %% [markdown]
# Only our convention reaches perfect accuracy reliably. The literal reading gets close, but a few
# test points in a thousand stay misclassified (at $d = 64$ an occasional run has a lucky
# iteration without test errors), because its initial outputs of size $d$ saturate the logistic
# loss. Unit-norm inputs with $\eta = m$ stay at chance. Full-batch gradient
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
# take its constant to be 1 for our single hidden layer and compare with $1/(\gamma^2 n)$.

# %%
x_rate_test, y_rate_test = margin_data(rate_n_test, rate_dim, rate_margin, rng)


def train_and_test(n, m):
    """Per replicate: test loss, test error, train loss, distance travelled and B_T."""
    x, y = margin_data(n, rate_dim, rate_margin, rng, (rate_replicates,))
    iters = max(1, round(rate_iters_per_sample * n))
    W0, W, a, path_loss = gradient_descent(x, y, m, rate_step, iters, rng)
    test = np.array([logistic_loss(w, a, x_rate_test, y_rate_test) for w in W])
    error = np.array(
        [np.mean(np.sign(tanh_net(w, a, x_rate_test)[0]) != y_rate_test) for w in W]
    )
    train = logistic_loss(W, a, x, y)
    travel = np.sqrt(np.sum((W - W0) ** 2, axis=(1, 2)))
    bound = stability_bound(train, path_loss, x, rate_step, m)
    return test, error, train, travel, bound


rate = [
    train_and_test(n, rate_width)
    for n in lib.progress(rate_ns, enabled=progress, desc="n")
]
test_loss, test_error, train_loss, travel, stab = (
    np.array([r[k] for r in rate])
    for k in range(5)  # (len(rate_ns), replicates)
)
ns = np.array(rate_ns, dtype=float)
rate_bound = 1 / (rate_margin**2 * ns)
error_ratio = test_error.mean(axis=1) / rate_bound
loss_ratio_n = test_loss.mean(axis=1) / rate_bound
loss_fit = lib.loglog_slope(ns, test_loss.T)  # bootstrap over training sets
mean_error = test_error.mean(axis=1)
seen = mean_error > 0  # the n at which some test point was misclassified
error_fit = lib.loglog_slope(ns[seen], mean_error[seen]) if seen.sum() >= 3 else None
print(
    f"{'n':>6} {'T':>6} {'test loss':>10} {'test error':>11} {'1/(g^2 n)':>10} "
    f"{'train loss':>11} {'B_T':>8} {'||W_T - W_0||':>14}"
)
for i, n in enumerate(rate_ns):
    print(
        f"{n:>6} {max(1, round(rate_iters_per_sample * n)):>6} "
        f"{test_loss[i].mean():>10.2e} {test_error[i].mean():>11.1e} "
        f"{rate_bound[i]:>10.2e} {train_loss[i].mean():>11.2e} "
        f"{stab[i].mean():>8.2f} {travel[i].mean():>14.1f}"
    )
print(f"slope of log test loss against log n: {loss_fit} (s.e., {loss_fit.method})")
print(
    "slope of log mean test error against log n, over the n with an error: "
    + (f"{error_fit} (s.e., {error_fit.method})" if error_fit else "fewer than 3 n")
)
print(
    "test loss / (1/(gamma^2 n)): " + " ".join(f"{v:.3f}" for v in loss_ratio_n),
    "\ntest error / (1/(gamma^2 n)): " + " ".join(f"{v:.4f}" for v in error_ratio),
)
zero_error = np.flatnonzero(test_error.max(axis=1) == 0)
log2_slope = lib.loglog_slope(ns, np.log(ns) ** 2 / ns).slope
print(f"slope of log^2(n) / n over the same n: {log2_slope:.2f}")
glue("rate_slope", round(loss_fit.slope, 2), display=False)
glue("log2_slope", round(log2_slope, 2), display=False)
glue("rate_slope_se", round(loss_fit.se, 3), display=False)
error_slope = error_fit.slope if error_fit else 0.0
glue("error_slope", round(error_slope, 1), display=False)
glue("error_slope_se", round(error_fit.se if error_fit else 0.0, 1), display=False)
glue("rate_error_ratio_max", round(float(error_ratio.max()), 3), display=False)
glue("rate_loss_ratio_max", round(float(loss_ratio_n.max()), 2), display=False)
glue("rate_error_first", round(float(test_error[0].mean()), 3), display=False)
glue(
    "rate_zero_n", int(rate_ns[zero_error[0]]) if len(zero_error) else 0, display=False
)
glue("stab_min", round(float(stab.mean(axis=1).min()), 1), display=False)
glue("stab_max", round(float(stab.mean(axis=1).max()), 1), display=False)
glue("travel_first", round(float(travel[0].mean())), display=False)
glue("travel_last", round(float(travel[-1].mean())), display=False)

# %%
widths_out = [
    train_and_test(rate_width_n, m)
    for m in lib.progress(rate_widths, enabled=progress, desc="m")
]
width_test = np.array([w[0].mean() for w in widths_out])
width_travel = np.array([w[3].mean() for w in widths_out])
width_stab = np.array([w[4].mean() for w in widths_out])
print(
    f"n = {rate_width_n}: {'m':>6} {'test loss':>10} {'B_T':>8} {'||W_T - W_0||':>14}"
)
for m, te, b, tr in zip(rate_widths, width_test, width_stab, width_travel):
    print(f"{'':>10}{m:>6} {te:>10.2e} {b:>8.2f} {tr:>14.1f}")
travel_ratio = width_travel[-1] / width_travel[0]
stab_ratio = width_stab[-1] / width_stab[0]
loss_ratio = width_test[-1] / width_test[0]
width_ratio = rate_widths[-1] / rate_widths[0]
stab_over_loss = min(
    float(np.min(stab.mean(axis=1) / test_loss.mean(axis=1))),
    float(np.min(width_stab / width_test)),
)
print(
    f"width {rate_widths[0]} -> {rate_widths[-1]}: ||W_T - W_0|| x {travel_ratio:.3f}, "
    f"B_T x {stab_ratio:.2f}, test loss x {loss_ratio:.2f}; "
    f"B_T / test loss >= {stab_over_loss:.1f} at every n and width"
)
glue("width_loss_ratio", round(float(loss_ratio), 2), display=False)
glue("width_stab_ratio", round(float(stab_ratio), 2), display=False)
glue("stab_over_loss", round(stab_over_loss), display=False)

# %% mystnb={"figure": {"caption": "Gradient descent with $T \\propto n$ on separable data, against the training-set size $n$ (means over training sets). Blue dots, the test logistic loss; blue squares, the test error, with open triangles at $1/n_{\\rm test}$ where no test point was misclassified; orange, the abstract's rate $1/(\\gamma^2 n)$ with constant 1; grey dash-dot, the stability bound $B_T$ of {eq}`eq-sag-stab`; dotted, the loss $\\log 2$ of a constant predictor. The test error falls much faster than $1/(\\gamma^2 n)$ and the test loss more slowly; the stability bound lies above the test loss and is vacuous (above $\\log 2$) at these sizes.", "name": "fig-sag-rate"}} tags=["hide-input"]
fig, ax = lib.subplots()
ax.loglog(ns, test_loss.mean(axis=1), "o", color=lib.PALETTE[0], label="test loss")
ax.loglog(ns[seen], mean_error[seen], "s", color=lib.PALETTE[0], label="test error")
if not seen.all():
    ax.loglog(
        ns[~seen],
        np.full((~seen).sum(), 1 / rate_n_test),
        "v",
        mfc="none",
        color=lib.PALETTE[0],
        label="no test error",
    )
ax.loglog(ns, rate_bound, "--", color=lib.PALETTE[4], label=r"$1/(\gamma^2 n)$")
ax.loglog(ns, stab.mean(axis=1), "-.", color="0.35", label="stability bound $B_T$")
ax.axhline(math.log(2), color="0.6", ls=":", label=r"$\log 2$")
ax.set_xlabel("training-set size n")
ax.set_ylabel("test loss, test error, bounds")
ax.legend(fontsize="small", ncol=2)
lib.show(fig)

# %% [markdown]
# {numref}`fig-sag-rate` reads the rate as the bound it is, and then asks about its shape. A
# bound with a constant we cannot read is not tested by sitting below it with the constant taken
# as 1: the test error here is at most {glue:}`rate_error_ratio_max` of $1/(\gamma^2 n)$ and the
# test loss at most {glue:}`rate_loss_ratio_max` of it, so both would sit below
# $1/(\gamma^2\sqrt n)$ as well. What the data can say is how fast each falls. The test error
# falls much faster than $1/n$: from {glue:}`rate_error_first` at the smallest $n$ to no
# misclassified test point at all from $n =$ {glue:}`rate_zero_n` on (a value of 0 means none
# had one), a fitted slope of {glue:}`error_slope` ± {glue:}`error_slope_se` in $\log n$ over
# the sizes that still had an error. On data with a margin the error can fall faster than any
# power once the learned direction is within the margin of the teacher's, so a $1/n$ bound on it
# is consistent and loose. The test loss falls more slowly, with slope {glue:}`rate_slope` ±
# {glue:}`rate_slope_se`: faster than the $1/\sqrt n$ of a uniform-convergence bound, but not
# as $1/n$. For comparison, over the same grid the $\log^2 n / n$ of our derivation
# {eq}`eq-sag-rate` has a slope of {glue:}`log2_slope`. The abstract's $1/n$ is for the test
# error; for the test loss we do not reproduce it.
#
# The stability bound $B_T$ of {eq}`eq-sag-stab` lies above the test loss, by a factor of at
# least {glue:}`stab_over_loss` over all runs, and between {glue:}`stab_min` and
# {glue:}`stab_max` it is vacuous here: the weights travel far from their initialisation (from
# {glue:}`travel_first` to {glue:}`travel_last` as $n$ grows), and $\|w^\star - w_0\|^2/n$
# becomes small only for $n$ well beyond our grid. A bound that loose cannot fail here, so we show
# it and do not assert it. The width comparison tests the other half of the claim: from the
# narrowest to the widest network the distance travelled barely changes, which is what keeps a
# bound in $\|w^\star - w_0\|$ from growing with the width, and the bound $B_T$ changes by a
# factor {glue:}`width_stab_ratio`. That $B_T$ stays flat is close to our construction (its
# Lipschitz factor $\ell_f$ does not depend on $m$ in the kernel scaling, see
# {prf:ref}`sag-prop-stab`), so we show it too. The test loss itself changes by a factor
# {glue:}`width_loss_ratio`; that is a property of the trained network, which the paper does not
# predict, so it is shown and not asserted.

# %%
runtime = time.perf_counter() - t_start
print(f"experiments: {runtime:.1f} s wall-clock")

# %% [markdown]
# ## What we reproduced
#
# Each claim below is computed from the runs above, and each must hold on seeds 0–9. The
# tolerances are set by the theory or by the spread over replicates. The slope of $t^\star$
# against $\ln d$ must lie in $[0.5, 1.5]$, around the slope 1 of $\lceil\ln d\rceil$ (and the
# $0.72$ of the heuristic), which a growth like $\sqrt d$ or $d$ would leave far behind. A median
# $t^\star$ at most one iteration beyond $\lceil\ln d\rceil$ is what we count as "after
# $\lceil\ln d\rceil$ iterations" for both schedules; the $\eta = m/2$ break must fall outside that
# band. Each median is over 15 runs, enough for a median to be stable (see the experiment).
# The theorem's exact count holds "with high probability"; we read that as in at least 95% of
# the runs, a failure rate of at most the usual 5%.
# The small step must stay at most 0.6 in accuracy at $\lceil\ln d\rceil$, well below the
# large step's 0.95. The convention claims count perfect runs at the largest `failure_dims` value.
# The rate claims test the shape of the bound, not its unknown constant: the test error must fall
# at least as fast as $1/n$, and the test loss's slope is placed between $-1$ and $-1/2$, three
# standard errors (a bootstrap over the training sets) from each end. The distance ratio across
# width must stay within 10% (the replicate spread is a few percent).

# %%
claims = lib.Claims(
    "smooth-activation-generalization", paper="taheri2025sharper", control=control
)
claims.add(
    "XOR, eta = m, ceil(ln d) batches: median iterations to zero test errors "
    "<= ceil(ln d) + 1 at every d (worst median excess shown)",
    float(median_excess[ours].max()),
    "perfect test accuracy after ceil(log d) iterations (Thm 2.4)",
    bool(median_excess[ours].max() <= 1),
    fmt="{:+.0f}",
)
claims.add(
    "XOR, eta = m: every median t* finite and its fitted slope against ln d in "
    "[0.5, 1.5]",
    slope_t[ours] if finite[ours] else "some median infinite",
    "ceil(log d) iterations",
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
    "mini-batch SGD, ceil(log d) iterations (the paper's batch size is not known "
    "to us)",
    bool(median_excess[fixed].max() <= 1),
    fmt="{:+.0f}",
)
claims.add(
    f"XOR, eta = {break_step_factor:g} m: median t* > ceil(ln d) + 1 at every d and "
    "no run perfect at ceil(ln d) (smallest median excess)",
    float(median_excess[broken].min()),
    "step size eta = m",
    bool(median_excess[broken].min() > 1 and perfect_at_log[broken] == 0),
    fmt="{:+.0f}",
)
claims.add(
    f"XOR, eta = {small_step_factor:g} m: mean test accuracy <= 0.6 at ceil(ln d) and "
    "no run perfect at 3 ceil(ln d), at every d (worst mean at ceil(ln d))",
    float(small_acc[:, :, 1].mean(axis=1).max()),
    "the large step is what makes log d iterations enough",
    bool(small_acc[:, :, 1].mean(axis=1).max() <= 0.6 and small_acc[:, :, 2].max() < 1),
    fmt="{:.3f}",
)
ours_name = next(k for k in settings if k.startswith("ours"))
failing = [k for k in settings if not k.startswith(("ours", "equivalent"))]
acc_late = {k: float(np.mean(1 - rows[:, 1] / n_test)) for k, rows in fail.items()}
d_fail = failure_dims[-1]
n_perfect = {k: int(np.sum(~np.isnan(rows[:, 2]))) for k, rows in fail.items()}
ours_perfect = min(n_perfect[ours_name, d] for d in failure_dims)
claims.add(
    "XOR, our convention: zero test errors within 2 ceil(ln d) in most runs at every "
    "failure d (fewest perfect runs)",
    ours_perfect,
    "standard Gaussian init, eta = m (our reading, Prop. sag-prop-scaling)",
    bool(ours_perfect > baseline_replicates / 2),
    fmt="{:d}",
)
claims.add(
    "XOR: unit-norm x, N(0, I), eta = m d gives the iterates of raw x, N(0, I/d), "
    "eta = m (max relative difference)",
    "< 1e-9" if equivalent else f"{equivalence_gap:.1e}",
    "Prop. sag-prop-scaling (ours)",
    equivalent,
    value=float(equivalence_gap),
)
perfect_failing = sum(n_perfect[k, d_fail] for k in failing)
claims.add(
    f"XOR: the literal readings and full-batch GD on 8d points reach zero errors in no "
    f"run at d = {d_fail}, and at every d their accuracy at 2 ceil(ln d) is below "
    "ours (their perfect runs)",
    perfect_failing,
    "standard Gaussian init, eta = m (our reading)",
    bool(
        perfect_failing == 0
        and all(
            acc_late[k, d] < acc_late[ours_name, d]
            for k in failing
            for d in failure_dims
        )
    ),
    fmt="{:d}",
)
claims.add(
    "separable data, T ~ n: the test error falls at least as fast as 1/n (slope of "
    "log mean test error against log n, over the n with an error, <= -1; shown)",
    error_slope if error_fit else "fewer than 3 n with an error",
    "test error e^O(L) / (gamma^2 n) (Thm 2.1, abstract)",
    bool(error_fit is not None and error_fit.slope <= -1),
    fmt="{:.2f}",
)
claims.add(
    "separable data, T ~ n: the test loss falls faster than 1/sqrt(n) and slower than "
    "1/n (log-log slope in (-1, -1/2), 3 s.e. from each end; slope shown)",
    loss_fit.slope,
    "test error ~ 1/n; for the loss our derivation gives log^2(n) / n",
    bool(-1 + 3 * loss_fit.se < loss_fit.slope < -0.5 - 3 * loss_fit.se),
    fmt="{:.3f}",
)
claims.add(
    f"width {rate_widths[0]} -> {rate_widths[-1]}: ||W_T - W_0|| changes by < 10% "
    "(ratio shown; ||W_0|| grows by sqrt of the width ratio)",
    float(travel_ratio),
    "the bound depends on ||w* - w_0||, not on the width",
    bool(abs(travel_ratio - 1) < 0.1),
    fmt="{:.3f}",
)
claims.report()

# %% [markdown]
# Every claim above is also run under **controls**: named, deliberately wrong variants of this
# chapter, declared in `controls.yaml`, each taking away the idea a claim tests. Halving the
# large step breaks the count; the literal initialisation breaks the convention; running the
# baselines with the large step removes the contrast; a wrong step in the equivalent convention
# breaks the proposition; noisy labels remove the separability that the rates need, so neither
# the error nor the loss keeps falling; and an output not divided by $\sqrt m$ makes the distance
# travelled grow with the width. Doubling the step is a positive control for the claim recorded
# as not reproduced: with gain 3 per step the check must find at least 95% of the runs perfect
# at exactly $\lceil\ln d\rceil$, so it can see the exact count when it holds. The table shows, for each
# claim, the controls under which its check comes out the other way (default parameters, seed 0).
#
# ```{controls-table}
# ```

# %% [markdown]
# Run one with `make run CHAPTER=smooth-activation-generalization CONTROL=half-step`: the claims
# cell then names the control and fails if a claim it must flip still holds.
#
# The XOR theorem reproduces in its logarithmic shape and nearly in its constant: the number of
# iterations to perfect test accuracy grows like $\ln d$ and its median is at most
# $\lceil\ln d\rceil + 1$, also with a schedule that does not know $d$, while the step $m/2$, the
# small step and the literal readings of the setting fail. Its exact statement, perfect accuracy
# *at* $\lceil \ln d\rceil$ with high probability (in at least 95% of the runs), does not
# hold at our sizes ({seeds}`3` of the runs over seeds 0–9), and fewer runs meet it with the schedule blind to $d$. In the kernel regime the test
# error falls at least as fast as the abstract's $1/n$ (slope {seeds}`11`), much faster in fact;
# the test loss falls as $n$ to the power {seeds}`12`, faster than $1/\sqrt n$ but not as $1/n$;
# and the distance travelled, on which the bound rests, does not grow with the width. The
# computed stability bound lies above the test loss but is far from tight at our sizes.
#
# ## How this compares with the paper
#
# The full text of the paper was not available to us; the paper's side of the table comes from its
# abstract and our research notes (reviews and figure captions). Our numbers are the mean ± sd over
# seeds 0–9 at the default sizes and the value of the paper preset.
#
# | Paper (result / figure) | Paper | Ours | Why they differ |
# |---|---|---|---|
# | Theorem 2.4, XOR with $\eta = m$ | perfect test accuracy after $\lceil\log d\rceil$ iterations, constant $m$, $n = O(d)$ | worst median $t^\star - \lceil\ln d\rceil$: {seeds}`1` with $\lceil\ln d\rceil$ batches, {seeds}`5` with 8 batches of $8d$ (paper preset: {paper-preset}`1`, {paper-preset}`5`); runs perfect at exactly $\lceil \ln d\rceil$: {seeds}`3` (paper preset {paper-preset}`3`) | our XOR distribution, scaling, batch schedule and $n = 64d$ are inferred; "perfect" is zero errors on $10^4$ points; the theorem holds with high probability for large $d$ with constants we could not read |
# | Figure 4, logarithmic dependence on $d$ | confirmed by the authors' plot (numbers not in our notes) | slope of the median $t^\star$ against $\ln d$: {seeds}`2` (paper preset, $d$ up to 1024: {paper-preset}`2`) | — |
# | The step $\eta = m$ | as stated | $\eta = m/2$: smallest median excess {seeds}`6`, no run perfect at $\lceil\ln d\rceil$ | the count $\lceil\ln d\rceil$ is tied to the gain 2 of {eq}`eq-sag-power` |
# | Large step against the NTK regime | the kernel regime needs many more samples or steps | $\eta = m/10$: worst mean accuracy at $\lceil\ln d\rceil$ {seeds}`7` | we compare with a small step on the same data, not with a kernel method |
# | "Standard Gaussian initialisation, $\eta = m$" | as stated | our convention: fewest perfect runs {seeds}`8` of 5 (10 in the paper preset); the literal readings: {seeds}`10` perfect runs at the largest `failure_dims` | see {prf:ref}`sag-prop-scaling`; the paper's normalisation is not known to us |
# | Theorem 2.1, NTK-separable data | test error $e^{O(L)}/(\gamma^2 n)$ | slope of the test error in $\log n$: {seeds}`11` (paper preset, $n$ up to 8000: {paper-preset}`11`); of the test loss: {seeds}`12` ({paper-preset}`12`), so $1/n$ is not reproduced for the loss | a rate with an unknown constant is tested by its slope; $L = 1$, a linear teacher in $d = 10$, $T = n/2$ |
# | The stability bound | tracks the generalisation gap on MNIST and FashionMNIST (reviewers) | shown, not asserted: $B_T$ / test loss at least {glue:}`stab_over_loss` (seed 0), valid but vacuous at our sizes | our form {eq}`eq-sag-stab` with constant 4, not the paper's constants; synthetic data with a small margin, on which the weights travel far |
# | Bounds do not grow with width | bounds hold for small width and do not scale unfavourably with width | ratio of $\|W_T - W_0\|$ from $m = 32$ to 512: {seeds}`13` (paper preset, $m$ = 32 to 2048: {paper-preset}`13`); of $B_T$, shown: {glue:}`width_stab_ratio` (seed 0) | we compute our form of the bound, not the paper's |
# | Figure 1 and the bound check (MNIST, FashionMNIST, two hidden layers, $m = 500$) | bound tracks the generalisation gap | not run | no downloads at run time; CPU budget |
# | Noisy labels, optimal excess risk (§2.1.2) | polynomial width suffices | not run (the control `noisy-labels` only shows that the noiseless bounds then fail) | the noise model is not described in our sources |
#
# The paper preset ran in {paper-preset}`runtime`.
#
# ## Try it
#
# - A smaller training set: `python -m lib.build run smooth-activation-generalization
#   -p samples_per_dim=16`. With $n = 16d$ the batches hold only about $3d$ points, the noise of
#   $S_B$ in {eq}`eq-sag-power` is no longer below the signal, and the large step stops working
#   reliably. "Linear sample size" needs a large enough constant.
# - A schedule with fewer, larger batches: `-p fixed_batches=4` (batches of $16d$, two passes by
#   $\lceil\ln d\rceil$ at large $d$), or more, smaller ones: `-p fixed_batches=16`.
# - A medium baseline step: `-p small_step_factor=0.5`. The power step now has gain 1.5 instead of
#   2, and the baseline is no longer near chance at $\lceil\ln d\rceil$: the contrast of
#   {numref}`fig-sag-curves` needs a step well below $m$.
# - More gradient-descent iterations in the rate experiment: `-p rate_iters_per_sample=2` (about
#   twice the default runtime), which lowers the test loss and raises the stability bound.
