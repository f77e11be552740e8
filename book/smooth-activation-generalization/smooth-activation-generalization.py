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
# tested here. On separable data the test loss falls like $1/n$, and it does not get worse as the
# network gets wider. A width-$m$ quadratic network trained by SGD with the large step $\eta = m$
# classifies XOR perfectly after only $\lceil \log d\rceil$ iterations.
# The defaults (XOR for $d$ up to 512, five runs per $d$; the rate experiment up to $n = 1600$)
# run in under a minute on a CPU. `make run CHAPTER=smooth-activation-generalization
# PRESET=paper` runs the larger preset in `paper.yaml` ($d$ up to 2048, ten runs per $d$, $n$ up to
# 8000, width up to 2048).
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
# The paper states the rate as $e^{O(L)}/(\gamma^2 n)$ for the test *error*, which is at most
# $F/\log 2$. The $\log^2 n$ comes from $\rho$ in our derivation; the paper's abstract does not
# show it, and we could not read the exact theorem.
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
# $a_j c_j^2 (x_1 + a_j x_2)^2$ to the output, and $(x_1 + x_2)^2 - (x_1 - x_2)^2 = 4 x_1 x_2$. The relevant component starts at size
# $1/\sqrt d$ relative to the rest, so about $\log_2\sqrt d \approx 0.72 \ln d$ doublings make it
# dominate. The noise $S_B - \mathbb E S_B$ has operator norm about $2\sqrt{d/B}$; our batches of
# $64d/\lceil\ln d\rceil$ points keep it near $\sqrt{\lceil\ln d\rceil}/4 < 1$, so the irrelevant directions grow more slowly
# than the relevant ones. Once the margins are large, $\ell'$ vanishes and the growth stops.
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
# We test the stability bound only through its predictions (the rate and the width), not by
# computing it, and on synthetic data instead of the paper's MNIST and FashionMNIST.
# ```
#
# ## The algorithm

# %% tags=["parameters"]
seed = 0
device = "cpu"  # numpy only
dims = [16, 32, 64, 128, 256, 512]  # XOR input dimensions d
width = 10  # hidden units m of the quadratic network (even)
samples_per_dim = 64  # training-set size n is samples_per_dim times d
small_step_factor = 0.1  # the baseline uses step small_step_factor times m
replicates = 5  # independent XOR runs per d
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
from scipy.special import expit, ndtr, ndtri

lib.check_choice("device", device, ("auto", "cpu"))
lib.check_int_list("dims", dims, low=8, high=4096, min_len=3, increasing=True)
lib.check_int("width", width, low=2, high=1000)
if width % 2:
    raise ValueError(f"parameter `width` = {width!r} is invalid: must be even")
lib.check_int("samples_per_dim", samples_per_dim, low=2, high=1024)
lib.check_float(
    "small_step_factor", small_step_factor, low=0.0, high=1.0, low_open=True
)
lib.check_int("replicates", replicates, low=2, high=100)
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
# ($1/\sqrt d$) inputs, and `n_batches = 1` turns SGD into full-batch gradient descent.

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
# so all training sets of one size run together.

# %%
def margin_data(n, d, gamma, rng, reps=()):
    """x ~ N(0, I_d) conditioned on |x_1| >= gamma; labels sign(x_1)."""
    x = rng.standard_normal((*reps, n, d))
    tail = ndtri(ndtr(gamma) + rng.uniform(size=(*reps, n)) * (1 - ndtr(gamma)))
    y = rng.choice([-1.0, 1.0], size=(*reps, n))
    x[..., 0] = y * tail
    return x, y


def tanh_net(W, a, x):
    """f(x) = (1/sqrt m) sum_j a_j tanh(w_j . x / sqrt d); W of shape (reps, d, m)."""
    h = np.tanh(x @ W / math.sqrt(x.shape[-1]))
    return h @ a / math.sqrt(len(a)), h


def logistic_loss(W, a, x, y):
    f, _ = tanh_net(W, a, x)
    return np.mean(np.logaddexp(0.0, -y * f), axis=-1)


def gradient_descent(x, y, m, eta, iters, rng):
    """Full-batch GD on the first layer; returns W_0 and W_T for each replicate."""
    reps, n, d = x.shape
    a = np.repeat([1.0, -1.0], m // 2)
    W0 = rng.standard_normal((reps, d, m))
    W = W0.copy()
    for _ in range(iters):
        f, h = tanh_net(W, a, x)
        dloss_df = -y * expit(-y * f)
        back = dloss_df[..., None] * (1.0 - h**2) * a / math.sqrt(m)
        W -= eta * np.swapaxes(x, 1, 2) @ back / (n * math.sqrt(d))
    return W0, W, a


# %% [markdown]
# ## The experiment
#
# ### XOR: iterations to perfect test accuracy
#
# For each $d$ we run `replicates` independent trainings (fresh initialisation and training set)
# with the large step $\eta = m$ and with the small step $\eta = m/10$, and record the number of
# errors on one shared set of fresh test points after every iteration. $t^\star$ is the first
# iteration with no test error.

# %%
a_xor = np.repeat([1.0, -1.0], width // 2)
ceil_log = np.array([math.ceil(math.log(d)) for d in dims])
iters_large = ceil_log + extra_iters
t_star, errors_at_log, errors_small = [], [], []
for d, T in lib.progress(list(zip(dims, iters_large)), enabled=progress, desc="XOR"):
    x_test, y_test = unpack(hypercube_bits(n_test, d, rng), d)
    n_train = samples_per_dim * d
    K = T - extra_iters
    for _ in range(replicates):
        W = sgd_xor(d, width, n_train, float(width), T, d**-0.5, rng)
        t_star.append(first_perfect(W, a_xor, x_test, y_test))
        errors_at_log.append(test_errors(W[[K]], a_xor, x_test, y_test)[0])
        eta_small = small_step_factor * width
        W = sgd_xor(d, width, n_train, eta_small, 3 * K, d**-0.5, rng)
        errors_small.append(test_errors(W[[0, K, 3 * K]], a_xor, x_test, y_test))
shape = (len(dims), replicates)
t_star = np.reshape(t_star, shape)
acc_at_log = 1 - np.reshape(errors_at_log, shape) / n_test
small_acc = 1 - np.reshape(errors_small, (*shape, 3)) / n_test
print(
    f"{'d':>5} {'ceil ln d':>9} {'t* (large step, each run)':>28} "
    f"{'acc at ceil ln d':>17} {'small step: acc at ceil ln d, 3 ceil ln d':>42}"
)
for i, d in enumerate(dims):
    runs = " ".join("-" if np.isnan(t) else f"{t:.0f}" for t in t_star[i])
    print(
        f"{d:>5} {ceil_log[i]:>9} {runs:>28} {acc_at_log[i].min():>8.4f}-"
        f"{acc_at_log[i].max():.4f} {small_acc[i, :, 1].mean():>20.3f}, "
        f"{small_acc[i, :, 2].mean():.3f}"
    )

# %% [markdown]
# The large step reaches perfect test accuracy after $\lceil \ln d\rceil$ iterations or one more in
# most runs (an occasional run needs a few more), while the small step is still near chance at that point and has not reached perfect
# accuracy after three times as many. {numref}`fig-sag-tstar` shows $t^\star$ against $d$ on a
# logarithmic axis: the points climb by about one iteration each time $d$ is multiplied by
# $e$, along the staircase $\lceil\ln d\rceil$.

# %%
log_d = np.log(dims)
censored = np.isnan(
    t_star
)  # runs with errors left after the budget count as budget + 1
t_mean = np.where(censored, (iters_large + 1)[:, None], t_star).mean(axis=1)
slope_t, intercept_t = np.polyfit(log_d, t_mean, 1)
median_excess = np.median(np.where(censored, np.inf, t_star), axis=1) - ceil_log
perfect_at_log = float(np.mean(acc_at_log == 1.0))
print(
    f"fit: mean t* = {slope_t:.2f} ln d + {intercept_t:.2f} "
    f"({censored.sum()} runs still with errors at the end)"
)
print("median t* - ceil(ln d) per d: " + ", ".join(f"{v:+.1f}" for v in median_excess))
print(f"runs with zero test errors at exactly t = ceil(ln d): {perfect_at_log:.0%}")

# %% mystnb={"figure": {"caption": "Iterations $t^\\star$ until SGD with the large step $\\eta = m$ makes no error on the test points, against the input dimension $d$ (grey dots, one per run; black, the mean; dashed, the least-squares line in $\\ln d$). The staircase is the paper's $\\lceil \\ln d\\rceil$. The number of iterations grows logarithmically and most runs sit on the staircase or one step above it.", "name": "fig-sag-tstar"}} tags=["hide-input"]
fig, ax = lib.subplots()
offsets = np.linspace(-0.06, 0.06, replicates)
for r in range(replicates):
    ax.plot(
        np.array(dims) * np.exp(offsets[r]),
        t_star[:, r],
        "o",
        color="0.6",
        ms=4,
        label="each run" if r == 0 else None,
    )
ax.plot(dims, t_mean, "o-", color="k", label="mean over runs")
ax.plot(
    dims,
    slope_t * log_d + intercept_t,
    "--",
    color=lib.PALETTE[0],
    label=f"fit {slope_t:.2f} ln d + {intercept_t:.2f}",
)
ax.step(
    dims, ceil_log, where="mid", color=lib.PALETTE[1], label=r"$\lceil \ln d\rceil$"
)
ax.set_xscale("log", base=2)
ax.set_xlabel("input dimension d")
ax.set_ylabel("iterations to zero test errors")
ax.legend()
lib.show(fig)

# %% [markdown]
# {numref}`fig-sag-curves` follows the largest $d$ iteration by iteration. With the large step the
# accuracy stays at chance while the relevant component grows unseen, then jumps to 1 within two
# iterations. With $\eta = m/10$ the gain per step is $1.1$ instead of 2, and after three times
# as many iterations the accuracy has barely left chance.

# %%
d_big, K_big = dims[-1], int(ceil_log[-1])
x_test, y_test = unpack(hypercube_bits(n_test, d_big, rng), d_big)
curves = {}
for name, eta in (("large step, eta = m", 1.0), ("small step", small_step_factor)):
    W = sgd_xor(
        d_big, width, samples_per_dim * d_big, eta * width, 3 * K_big, d_big**-0.5, rng
    )
    curves[name] = 1 - test_errors(W, a_xor, x_test, y_test) / n_test

# %% mystnb={"figure": {"caption": "Test accuracy of one run against the iteration at the largest default $d$, for the large step $\\eta = m$ and the small step $\\eta = m/10$; the vertical line is $\\lceil \\ln d\\rceil$. The large step jumps from chance to perfect accuracy around $\\lceil \\ln d\\rceil$; the small step is still near chance three times later.", "name": "fig-sag-curves"}} tags=["hide-input"]
fig, ax = lib.subplots()
for i, (name, acc) in enumerate(curves.items()):
    ax.plot(np.arange(len(acc)), acc, "o-", ms=3, color=lib.PALETTE[i], label=name)
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
# The fourth row checks {prf:ref}`sag-prop-scaling` numerically.

# %%
# name: (std of w as a power of d, unit-norm x, eta / m as a power of d, n / d, batches)
settings = {
    "ours: raw x, N(0, I/d), eta = m, SGD on 64d": (
        -0.5,
        False,
        0,
        samples_per_dim,
        None,
    ),
    "literal: raw x, N(0, I), eta = m": (0.0, False, 0, samples_per_dim, None),
    "unit-norm x, N(0, I), eta = m": (0.0, True, 0, samples_per_dim, None),
    "unit-norm x, N(0, I), eta = m d": (0.0, True, 1, samples_per_dim, None),
    "full-batch GD on n = 8d, our scaling": (-0.5, False, 0, 8, 1),
}
fail, reference = {}, {}
equivalence_gap = 0.0
for d in failure_dims:
    K = math.ceil(math.log(d))
    x_test, y_test = unpack(hypercube_bits(n_test, d, rng), d)
    for name, (std_power, unit_norm, eta_power, per_d, batches) in settings.items():
        x_scale = d**-0.5 if unit_norm else 1.0
        eta, init_std, n_train = float(width * d**eta_power), d**std_power, per_d * d
        rows = []
        for r in range(replicates):
            run_rng = np.random.default_rng([seed, d, r])  # same draws in every setting
            W = sgd_xor(
                d, width, n_train, eta, 2 * K, init_std, run_rng, x_scale, batches
            )
            if name.startswith("ours"):
                reference[r] = W
            if name.endswith("eta = m d"):  # map back: w = w' / sqrt(d)
                ref = reference[r]
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
        f"{perfect:>8}/{replicates}"
    )
equivalent = equivalence_gap < 1e-9
print(
    "max relative difference of the iterates in the two equivalent conventions: "
    + ("< 1e-9" if equivalent else f"{equivalence_gap:.1e}")
)

# %% [markdown]
# Only our convention reaches perfect accuracy reliably. The literal reading gets close (it
# misclassifies one to ten in a thousand test points; at $d = 64$ an occasional run has a lucky
# iteration without test errors) because its initial outputs of size $d$ saturate the logistic
# loss. Unit-norm inputs with $\eta = m$ stay at chance. Full-batch gradient
# descent on $8d$ points learns, but not perfectly within this budget. The equivalent convention
# gives the same iterates to rounding error.
#
# ### The $1/n$ rate and the width
#
# Now the kernel regime of {prf:ref}`sag-cor-rate`. For each training-set size $n$ we run full-batch
# gradient descent for $T = $ `rate_iters_per_sample` $\cdot\, n$ iterations, so that $\eta T
# \propto n$ as the corollary asks, and measure the test loss on fresh points. We also record the
# distance travelled, $\|W_T - W_0\|_F$.

# %%
x_rate_test, y_rate_test = margin_data(rate_n_test, rate_dim, rate_margin, rng)


def train_and_test(n, m):
    """Test loss, train loss and distance travelled, one entry per replicate."""
    x, y = margin_data(n, rate_dim, rate_margin, rng, (rate_replicates,))
    iters = max(1, round(rate_iters_per_sample * n))
    W0, W, a = gradient_descent(x, y, m, rate_step, iters, rng)
    test = np.array([logistic_loss(w, a, x_rate_test, y_rate_test) for w in W])
    train = logistic_loss(W, a, x, y)
    return test, train, np.sqrt(np.sum((W - W0) ** 2, axis=(1, 2)))


rate = [
    train_and_test(n, rate_width)
    for n in lib.progress(rate_ns, enabled=progress, desc="n")
]
test_loss = np.array([r[0] for r in rate])  # (len(rate_ns), replicates)
train_loss = np.array([r[1] for r in rate])
travel = np.array([r[2] for r in rate])
log_n = np.log(rate_ns)
slope_n = np.polyfit(log_n, np.log(test_loss.mean(axis=1)), 1)[0]
slope_per_rep = np.polyfit(log_n, np.log(test_loss), 1)[0]
slope_log2 = np.polyfit(log_n, np.log(log_n**2 / np.array(rate_ns)), 1)[0]
print(f"{'n':>6} {'T':>6} {'test loss':>10} {'train loss':>11} {'||W_T - W_0||':>14}")
for i, n in enumerate(rate_ns):
    print(
        f"{n:>6} {max(1, round(rate_iters_per_sample * n)):>6} "
        f"{test_loss[i].mean():>10.2e} {train_loss[i].mean():>11.2e} "
        f"{travel[i].mean():>14.1f}"
    )
print(
    f"fitted slope of log test loss vs log n: {slope_n:.2f} (per replicate "
    f"{slope_per_rep.min():.2f} to {slope_per_rep.max():.2f}); "
    f"1/n: -1, log^2(n)/n over this grid: {slope_log2:.2f}"
)

# %%
widths_out = [
    train_and_test(rate_width_n, m)
    for m in lib.progress(rate_widths, enabled=progress, desc="m")
]
width_test = np.array([w[0].mean() for w in widths_out])
width_travel = np.array([w[2].mean() for w in widths_out])
print(f"n = {rate_width_n}: {'m':>6} {'test loss':>10} {'||W_T - W_0||':>14}")
for m, te, tr in zip(rate_widths, width_test, width_travel):
    print(f"{'':>10}{m:>6} {te:>10.2e} {tr:>14.1f}")

# %% mystnb={"figure": {"caption": "Test loss against the training-set size $n$ for gradient descent with $T \\propto n$ on separable data (dots, mean over training sets; dashed, the fitted power law), with the shapes $1/n$ and $\\log^2 n / n$ through the first point. The measured curve follows $\\log^2 n/n$ rather than the pure $1/n$.", "name": "fig-sag-rate"}} tags=["hide-input"]
fig, ax = lib.subplots()
ns = np.array(rate_ns, dtype=float)
mean_loss = test_loss.mean(axis=1)
ax.loglog(ns, mean_loss, "o", color="k", label="test loss (mean)")
ax.loglog(
    ns,
    mean_loss[0] * (ns / ns[0]) ** slope_n,
    "--",
    color="k",
    label=f"fit, slope {slope_n:.2f}",
)
ax.loglog(ns, mean_loss[0] * ns[0] / ns, color=lib.PALETTE[0], label="1/n")
ax.loglog(
    ns,
    mean_loss[0] * (log_n / log_n[0]) ** 2 * ns[0] / ns,
    color=lib.PALETTE[1],
    label=r"$\log^2 n / n$",
)
ax.set_xlabel("training-set size n")
ax.set_ylabel("test logistic loss")
ax.legend()
lib.show(fig)

# %% [markdown]
# {numref}`fig-sag-rate` shows the rate. The test loss falls steadily with $n$, but more slowly than
# $1/n$: its slope matches that of $\log^2 n/n$, the form {eq}`eq-sag-rate` predicts once the
# comparator's distance $\rho \approx \log(n)/\gamma$ is counted. The distance travelled also
# grows with $n$, slowly (from about 18 to 45 over the sixteen-fold range of $n$). The test and
# training losses are almost equal: the stability term is not what limits the test loss here, the
# optimisation term $\rho^2/(\eta T)$ is. The width comparison shows the second prediction in part:
# at fixed $n$, a sixteen-fold wider network travels as far from its initialisation (within a few
# percent) although its initial weights have four times the norm, and its test loss is only
# somewhat larger (by 16% on seed 0), not four times larger as a bound growing like
# $\sqrt m$ would allow.

# %%
runtime = time.perf_counter() - t_start
print(f"experiments: {runtime:.1f} s wall-clock")

# %% [markdown]
# ## What we reproduced
#
# Each claim below is computed from the runs above, and each must hold on seeds 0–9. The
# tolerances come from the spread over those seeds. The fitted slope of $t^\star$ against $\ln d$
# ranged over 0.76–1.15, so we ask for $[0.5, 1.5]$, which a growth like $\sqrt d$ or $d$ would
# leave far behind. The worst-$d$ mean accuracy at $\lceil\ln d\rceil$ ranged over 0.975–0.9995.
# A first threshold of 0.99, set before the sweep, failed on four of the ten seeds, so the claim
# asks for 0.95 and the strict statement is recorded separately as not reproduced: 60–77% of the
# runs are perfect at exactly $\lceil\ln d\rceil$. The small step's worst-$d$ mean accuracy at
# $\lceil\ln d\rceil$ ranged over 0.550–0.596, under the 0.6 we ask. The literal reading at
# $d = 64$ had one perfect run in five on two of the ten seeds, so the convention claim counts
# its perfect runs at the largest `failure_dims` value only; and on seed 6 one run of our own
# convention at $d = 256$ still had test errors after $2\lceil\ln d\rceil$ iterations, so the
# claim asks for a majority of perfect runs rather than all. The test-loss slope ranged over $-0.69$ to
# $-0.65$ (that of $\log^2 n/n$ is $-0.66$ on the grid), so a tolerance of 0.1 separates it from
# both $-1$ and the $-1/2$ of a $1/\sqrt n$ rate. The distance ratio ranged over 0.97–1.06 and the
# test-loss ratio over 1.08–1.21.

# %%
claims = lib.Claims("smooth-activation-generalization", paper="taheri2025sharper")
claims.add(
    "XOR, eta = m: median iterations to zero test errors <= ceil(ln d) + 1 at every d "
    "(worst median excess shown)",
    float(median_excess.max()),
    "perfect test accuracy after ceil(log d) iterations (Thm 2.4)",
    bool(median_excess.max() <= 1),
    fmt="{:+.0f}",
)
claims.add(
    "XOR, eta = m: mean iterations to zero errors grow logarithmically, fitted slope "
    "against ln d in [0.5, 1.5]",
    float(slope_t),
    "ceil(log d) iterations",
    bool(0.5 <= slope_t <= 1.5),
    fmt="{:.2f}",
)
claims.add(
    "XOR, eta = m: every run has zero test errors at exactly t = ceil(ln d) "
    "(fraction of runs shown)",
    perfect_at_log,
    "perfect test accuracy after ceil(log d) iterations (w.h.p.)",
    bool(perfect_at_log == 1.0),
    fmt="{:.0%}",
    expect=False,
)
claims.add(
    "XOR, eta = m: mean test accuracy at t = ceil(ln d) >= 0.95 at every d (worst d)",
    float(acc_at_log.mean(axis=1).min()),
    "perfect test accuracy after ceil(log d) iterations",
    bool(acc_at_log.mean(axis=1).min() >= 0.95),
    fmt="{:.4f}",
)
claims.add(
    f"XOR, eta = {small_step_factor:g} m: mean test accuracy <= 0.6 at ceil(ln d) and "
    "no run perfect at 3 ceil(ln d), at every d (worst mean at ceil(ln d))",
    float(small_acc[:, :, 1].mean(axis=1).max()),
    "the large step is what makes log d iterations enough",
    bool(small_acc[:, :, 1].mean(axis=1).max() <= 0.6 and small_acc[:, :, 2].max() < 1),
    fmt="{:.3f}",
)
working = ("ours", "unit-norm x, N(0, I), eta = m d")
failing = [k for k in fail if not k[0].startswith(working)]
ours = {k[1]: k for k in fail if k[0].startswith("ours")}
acc_late = {k: float(np.mean(1 - rows[:, 1] / n_test)) for k, rows in fail.items()}
d_fail = failure_dims[-1]
perfect_failing = sum(
    int(np.sum(~np.isnan(fail[k][:, 2]))) for k in failing if k[1] == d_fail
)
ours_perfect = min(
    int(np.sum(~np.isnan(rows[:, 2]))) for k, rows in fail.items() if k not in failing
)
claims.add(
    "XOR: our convention and its equivalent reach zero errors in most runs at every d; "
    f"at d = {d_fail} the literal readings and full-batch GD on 8d points do in none, "
    "and at every d their accuracy at 2 ceil(ln d) is below ours (their perfect runs)",
    perfect_failing,
    "standard Gaussian init, eta = m (our reading, Prop. sag-prop-scaling)",
    bool(
        ours_perfect > replicates / 2
        and perfect_failing == 0
        and all(acc_late[k] < acc_late[ours[k[1]]] for k in failing)
        and equivalent
    ),
    fmt="{:d}",
)
claims.add(
    "separable data, T ~ n: fitted slope of log test loss vs log n within 0.15 of -1",
    float(slope_n),
    "test loss e^O(L) / (gamma^2 n)",
    bool(abs(slope_n + 1) < 0.15),
    fmt="{:.2f}",
    expect=False,
)
claims.add(
    f"separable data, T ~ n: fitted slope within 0.1 of that of log^2(n)/n "
    f"({slope_log2:.2f} on this grid)",
    float(slope_n),
    "log^2(n) / (gamma^2 n), our reading of the bound with rho ~ log(n)/gamma",
    bool(abs(slope_n - slope_log2) < 0.1),
    fmt="{:.2f}",
)
travel_ratio = width_travel[-1] / width_travel[0]
claims.add(
    f"width {rate_widths[0]} -> {rate_widths[-1]}: ||W_T - W_0|| changes by < 10% "
    "(ratio shown; ||W_0|| grows by sqrt of the width ratio)",
    float(travel_ratio),
    "the bound depends on ||w* - w_0||, not on the width",
    bool(abs(travel_ratio - 1) < 0.1),
    fmt="{:.3f}",
)
loss_ratio = width_test[-1] / width_test[0]
claims.add(
    f"width {rate_widths[0]} -> {rate_widths[-1]}: test loss does not increase "
    "(ratio shown)",
    float(loss_ratio),
    "bounds hold for small width and do not scale unfavourably with width",
    bool(loss_ratio <= 1.0),
    fmt="{:.2f}",
    expect=False,
)
claims.add(
    f"width {rate_widths[0]} -> {rate_widths[-1]}: test loss grows by < 1.5x, far less "
    "than the sqrt(width ratio) of a width-dependent bound",
    float(loss_ratio),
    "bounds do not scale unfavourably with width",
    bool(loss_ratio < 1.5),
    fmt="{:.2f}",
)
claims.report()

# %% [markdown]
# The XOR theorem reproduces in its logarithmic shape and nearly in its constant: the number of
# iterations to perfect test accuracy grows like $\ln d$ and its median is $\lceil\ln d\rceil$ or
# one more, while the small step and the literal readings of the setting fail. Its exact statement,
# perfect accuracy *at* $\lceil \ln d\rceil$ in every run, does not hold at our sizes: about a third
# of the runs still misclassify a few test points (out of $10^4$) at that iteration and need one to
# five more. The kernel-regime predictions reproduce in shape: the distance travelled and the
# test loss barely move with width. But the test loss falls like $\log^2 n/n$, not like $1/n$,
# and the wider networks are slightly worse, not equal.
#
# ## How this compares with the paper
#
# The full text of the paper was not available to us; the paper's side of the table comes from its
# abstract and our research notes (reviews and figure captions). Our numbers are for seed 0, as
# printed above.
#
# | Paper (result / figure) | Paper | Ours | Why they differ |
# |---|---|---|---|
# | Theorem 2.4, XOR with $\eta = m$ | perfect test accuracy after $\lceil\log d\rceil$ iterations, constant $m$, $n = O(d)$ | median $t^\star - \lceil\ln d\rceil \in \{-1, 0, +1\}$ for $d = 16$–$512$; 67% of runs perfect exactly at $\lceil \ln d\rceil$; worst mean accuracy there 0.9905 | our XOR distribution, scaling, batch schedule and $n = 64d$ are inferred; "perfect" is zero errors on $10^4$ points; the theorem holds with high probability for large $d$ with constants we could not read |
# | Figure 4, logarithmic dependence on $d$ | confirmed by the authors' plot (numbers not in our notes) | mean $t^\star$ = 0.93 $\ln d$ + 1.17; paper preset ($d$ up to 2048, 10 runs): 0.84 $\ln d$ + 1.70, and every run at $d = 1024$ and 9 of 10 at $d = 2048$ perfect at exactly $\lceil\ln d\rceil$ | the exact count holds better at large $d$, as a high-probability statement should |
# | Large step against the NTK regime | the kernel regime needs many more samples or steps | $\eta = m/10$: accuracy 0.51–0.55 at $\lceil\ln d\rceil$, 0.55–0.72 at $3\lceil\ln d\rceil$ | we compare with a small step on the same data, not with a kernel method |
# | "Standard Gaussian initialisation, $\eta = m$" | as stated | at $d = 256$ the literal readings never reach zero errors (accuracy 0.997–0.999, or chance); our convention and its exact equivalent do in every run | see {prf:ref}`sag-prop-scaling`; the paper's normalisation is not known to us |
# | Theorem 2.1, NTK-separable data | test error $e^{O(L)}/(\gamma^2 n)$ | test-loss slope $-0.66$ in $\log n$, matching $\log^2 n/n$ ($-0.66$), not $1/n$; paper preset ($n$ up to 8000): $-0.61$ against $-0.70$, flattening beyond $n = 2000$ | our derivation keeps $\rho \approx \log(n)/\gamma$; $L = 1$, a linear teacher in $d = 10$, $T = n/2$; at width 32 the output of the tanh network is at most $\sqrt{32}$, which caps the margins at large $n$ |
# | Bounds do not grow with width | bounds hold for small width and do not scale unfavourably with width | $\|W_T - W_0\|$ ratio 1.014 from $m = 32$ to 512; test loss ratio 1.16 (paper preset, $m$ = 32 to 2048 at $n = 1000$: 1.032 and 1.32) | we test the quantity the bound depends on, and the test loss, not the bound itself |
# | Figure 1 and the bound check (MNIST, FashionMNIST, two hidden layers, $m = 500$) | bound tracks the generalisation gap | not run | no downloads at run time; CPU budget |
# | Noisy labels, optimal excess risk (§2.1.2) | polynomial width suffices | not run | the noise model is not described in our sources |
#
# ## Try it
#
# - A smaller training set: `python -m lib.build run smooth-activation-generalization
#   -p samples_per_dim=16`. With $n = 16d$ the batches hold only about $3d$ points, the noise of
#   $S_B$ in {eq}`eq-sag-power` is no longer below the signal, and the large step stops working
#   reliably: on seed 0 only 3% of the runs are perfect at $\lceil\ln d\rceil$, most runs at some
#   $d$ never reach zero errors, and the first two claims fail. "Linear sample size" needs a large
#   enough constant.
# - A medium step: `-p small_step_factor=0.5`. The power step now has gain 1.5 instead of 2, and the
#   baseline is no longer near chance at $\lceil\ln d\rceil$ (worst mean accuracy 0.881 on seed 0),
#   so the small-step claim fails: the contrast of {numref}`fig-sag-curves` needs a step well below
#   $m$.
# - Four times as many gradient-descent iterations in the rate experiment:
#   `-p rate_iters_per_sample=2` (about twice the default runtime). The fitted slope stays at
#   $-0.67$ (seed 0), the $\log^2 n/n$ shape and not $1/n$, and the test-loss ratio between the
#   widest and the narrowest network grows to 1.32.
